#!/usr/bin/env bash
# bench/run.sh [compare|scaling]: loratune-fix against the peers of
# ../shared/peers (issues 17 and 27), on the peers' corpus and with their
# rules, on this machine, in one run.
#
# compare (the default), issue 17:
#   (a) 500 training scripts (the peers' needles), fixed in place on a fresh
#       copy each run (kept until the timed runs are over: see new_copy):
#       `fix --write` against ast-grep `scan -U` with the alias-aware
#       rules (all 500 right), the same plus a re-parse of every output
#       (the verification loratune-fix pays for), and the name-based
#       rules (450 right); each tool with -j 1 and with every CPU; the
#       parse-only floor (ast-grep parsing every file for one trivial
#       pattern). -j 1 runs twice: with every CPU free to the process
#       (its other threads, the garbage collector and the kernel's work for
#       the writes then run beside the worker) and held to one CPU by
#       taskset, the one-core run of a one-core to all-cores speed-up.
#       verify.py checks every timed copy: parse and sites left per rule
#       (its "exact" compares with the peers' oracle, which encodes R1-R5;
#       loratune-fix's rules do more, so only parse and sites count).
#   (b) the haystack (every *.py of the Python installation, site-packages
#       and venv folders renamed: loratune-fix skips them by default, which
#       would hide most files), `check` against `rg -l` of the trigger words;
#   (c) peak memory of `check` on the haystack and on 10 copies of it.
#
# scaling, issue 27: COPIES (default 10) copies of the needles (5,000
# scripts), `fix --write -q -j N` against ast-grep alias-aware `scan -j N
# -U` and against equal work (the same, then ast-grep parsing every output,
# -j N), each held by taskset to the first N of this process's CPUs, N = 1,
# 2, 4, 8, 16 where there are that many (CPUS="1 2 16": those counts only,
# so that more rounds fit in the same time). A fresh copy each run (no
# copy is deleted before the timed runs are over: see new_copy). Before the
# timed runs, one run of each tool is checked by verify.py, every copy
# (parse, sites left per rule); every timed run's outputs must then be
# byte for byte those (a mismatch stops the bench). Prints the scaling
# table: wall, speed-up from 1 CPU, CPU time against 1 CPU, peak RSS
# (medians), then the speed-up of each round on its own (median and
# range), which a machine whose speed drifts between rounds moves less.
#
# Runs are interleaved (run 1 of every command, then run 2, ...), so that
# a machine whose speed drifts slows every tool alike; each figure is the
# median of RUNS runs (default 3): wall seconds, CPU seconds (user+sys of
# the command and its children), peak RSS.
#
# Set-up: apt-get install -y ripgrep python3 util-linux (taskset); npm install --prefix
# /opt/ast-grep @ast-grep/cli. Environment: PEERS (default ../shared/peers),
# AST_GREP, RG, PYTHON, LORATUNE_FIX (a built binary; default: go build),
# WORK (scratch folder outside any git work tree; default: mktemp), RUNS,
# CORPUS (a corpus make-corpus.sh built before, e.g. on the machine whose
# Python installation is the reference haystack of ~11,700 files; default:
# built here, from this machine's Python).
# Raw output (every timing, every verify line) goes to $WORK/results.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
RUNS=${RUNS:-3}
MODE=${1:-compare}
case $MODE in compare | scaling) ;; *) echo "usage: bench/run.sh [compare|scaling]" >&2; exit 2 ;; esac
PEERS=$(cd "${PEERS:-$repo/../shared/peers}" && pwd)
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
RES=$WORK/results
mkdir -p "$RES"
SG=${AST_GREP:-$(command -v ast-grep || echo /opt/ast-grep/node_modules/.bin/ast-grep)}
RG=${RG:-rg}
PY=${PYTHON:-python3}
tools=("$PY" "$SG" taskset)
[ "$MODE" = scaling ] || tools+=("$RG")
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null || { echo "bench: $tool not found (see the set-up above)" >&2; exit 2; }
done
LTF=${LORATUNE_FIX:-}
if [ -z "$LTF" ]; then
  LTF=$WORK/loratune-fix
  go build -o "$LTF" ./cmd/loratune-fix
fi
ALIAS=$PEERS/astgrep/alias-aware/sgconfig.yml
NAMED=$PEERS/astgrep/sgconfig.yml
# The first CPU this process may use: the one-CPU runs are held to it.
CPU1=$("$PY" -c 'import os; print(min(os.sched_getaffinity(0)))')
TRIGGERS=(-e from_pretrained -e from_config -e device_map -e pad_token -e compile -e padding_side -e TrainingArguments -e 'Config(')

{
  echo "machine: $(nproc) CPUs of $(grep -c ^processor /proc/cpuinfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GB; $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "tools: loratune-fix ${LTF_VERSION:-$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo "(no git)")}, $("$RG" --version 2>/dev/null | sed -n 1p || echo "no rg"), ast-grep $("$SG" --version | awk '{print $2}'), $("$PY" --version)"
} | tee "$RES/env.txt" >&2

# The corpus, built by the peers' script (outside any git work tree).
CORPUS=${CORPUS:-$WORK/corpus}
[ -d "$CORPUS/needles" ] || PYTHON=$PY "$PEERS/make-corpus.sh" "$CORPUS" >"$RES/make-corpus.txt" 2>&1
NEEDLES=$CORPUS/needles
HAY=$WORK/haystack
if [ "$MODE" = compare ] && [ ! -d "$HAY" ]; then
  mkdir -p "$HAY"
  (cd "$CORPUS/haystack" && find . -name '*.py' -type f -print0 |
    tar --null -T - --transform 's,\(^\|/\)\(site-packages\|\.\?venv\)\(/\|$\),\1\2_renamed\3,g' -cf - | tar -xf - -C "$HAY")
fi
[ "$MODE" = scaling ] || echo "corpus: $(find "$NEEDLES" -name '*.py' | wc -l) needles; haystack $(find "$HAY" -name '*.py' | wc -l) files, $(du -sm "$HAY" | cut -f1) MB" | tee -a "$RES/env.txt" >&2

# timed NAME RUN CMD...: one run; appends "name run wall cpu rss_mb rc" to
# times.txt.
cat >"$WORK/timeit.py" <<'EOF'
import resource, subprocess, sys, time
name, run, err = sys.argv[1:4]
with open(err, "w") as e:
    t = time.perf_counter()
    rc = subprocess.run(sys.argv[4:], stdout=subprocess.DEVNULL, stderr=e).returncode
    wall = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(name, run, "%.3f" % wall, "%.3f" % (ru.ru_utime + ru.ru_stime), ru.ru_maxrss // 1024, rc)
EOF
timed() {
  local name=$1 run=$2; shift 2
  "$PY" "$WORK/timeit.py" "$name" "$run" "$RES/stderr-$name-$run.txt" "$@" | tee -a "$RES/times.txt" >&2
}
# new_copy: an empty folder for one run's copy of the corpus. No copy is
# deleted before the timed runs are over: ext4 without a journal (these
# VMs) skips each inode freed in the last minutes when it makes a file,
# one by one, so that a tool that writes a new file per script (an atomic
# replace) paid for the deletion of the copy before, made in the same
# place: a fifth of a one-CPU fix --write's CPU on 5,000 scripts, and
# none of it in a user's repository. (Copies a killed run left behind are
# not deleted here either: each run's folder is new.)
COPIES_DIR=$WORK/copies
new_copy() {
  mkdir -p "$COPIES_DIR"
  mktemp -d "$COPIES_DIR/run.XXXXXX"
}
trap 'rm -rf "$COPIES_DIR"' EXIT
# The peer doing the work fix --write does that ast-grep does not:
# alias-aware -U, then a parse of every output (one trivial pattern), as
# loratune-fix parses each output again to check it. Its arguments (-j N,
# then the folder) go to both runs.
cat >"$WORK/sg-reparse.sh" <<EOF
#!/bin/sh
"$SG" scan -c "$ALIAS" -U "\$@" >/dev/null && exec "$SG" run -l python -p 'tokenizer.pad_token_id = 0' "\$@"
EOF
chmod +x "$WORK/sg-reparse.sh"
if [ "$MODE" = scaling ]; then
  COPIES=${COPIES:-10}
  BASE=$WORK/scaling-base
  rm -rf "$BASE" && mkdir -p "$BASE"
  for i in $(seq 0 $((COPIES - 1))); do cp -a "$NEEDLES" "$BASE/c$i"; done
  echo "corpus: $COPIES copies of the $(find "$NEEDLES" -name '*.py' | wc -l) needles, $(find "$BASE" -name '*.py' | wc -l) scripts" | tee -a "$RES/env.txt" >&2
  # The CPUs each count is held to: the first N this process may use.
  mapfile -t ALLOWED < <("$PY" -c 'import os; print(*sorted(os.sched_getaffinity(0)), sep="\n")')
  COUNTS=()
  for n in ${CPUS:-1 2 4 8 16}; do [ "$n" -le "${#ALLOWED[@]}" ] && COUNTS+=("$n"); done
  cpus() { local IFS=,; echo "${ALLOWED[*]:0:$1}"; }
  # sums DIR: the checksum of every file of a copy.
  sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
  # reference TOOL CMD...: one untimed run, every copy checked by verify.py;
  # its outputs are the ones every timed run of TOOL must give.
  reference() {
    local tool=$1; shift
    local copy
    copy=$(new_copy)/c && cp -a "$BASE" "$copy"
    "$@" "$copy" >/dev/null 2>"$WORK/stderr" || [ $? = 1 ]
    grep -v '^fixed ' "$WORK/stderr" >"$RES/stderr-reference-$tool.txt" || true
    # The copies are checked side by side (verify.py takes about 5 s a
    # copy), at most as many at once as this process has CPUs.
    local par
    par=$("$PY" -c 'import os; print(len(os.sched_getaffinity(0)))')
    for i in $(seq 0 $((COPIES - 1))); do
      rm -rf "$WORK/one$i" && mkdir -p "$WORK/one$i" && ln -s "$copy/c$i" "$WORK/one$i/needles"
      echo "$i"
    done | xargs -P "$par" -I{} sh -c '"$1" "$2/corpus-tools/verify.py" --corpus "$3" --out "$4/one$5" --parts needles --name "$6 c$5" --json "$7/verify-$6-c$5.json" >"$4/verify-$6-c$5.txt"' \
      - "$PY" "$PEERS" "$CORPUS" "$WORK" {} "$tool" "$RES"
    for i in $(seq 0 $((COPIES - 1))); do tee -a "$RES/verify.txt" <"$WORK/verify-$tool-c$i.txt" >&2; done
    if grep "^$tool c" "$RES/verify.txt" | grep -v " 0 broken" >&2; then
      echo "bench: $tool broke a file (verify.txt)" >&2
      exit 1
    fi
    sums "$copy" >"$RES/sums-$tool.txt"
  }
  # scaled TOOL N CMD...: a timed run held to N CPUs on a fresh copy,
  # checked against the reference outputs.
  scaled() {
    local tool=$1 n=$2 run=$3; shift 3
    local copy
    copy=$(new_copy)/c && cp -a "$BASE" "$copy" && sync
    timed "$tool-$n" "$run" taskset -c "$(cpus "$n")" "$@" "$copy"
    local err=$RES/stderr-$tool-$n-$run.txt
    grep -v '^fixed ' "$err" >"$err.tmp" || true # one line a file written
    mv "$err.tmp" "$err"
    case $(tail -n 1 "$RES/times.txt" | awk '{print $6}') in 0 | 1) ;; *) echo "bench: $tool-$n run $run failed ($err)" >&2; exit 1 ;; esac
    if ! sums "$copy" | cmp -s - "$RES/sums-$tool.txt"; then
      echo "bench: $tool-$n run $run: outputs differ from the verified ones" >&2
      sums "$copy" | diff "$RES/sums-$tool.txt" - | head >&2
      exit 1
    fi
  }
  reference ltf "$LTF" fix --write -q
  reference sg "$SG" scan -c "$ALIAS" -U
  # The re-parse writes nothing: its outputs are ast-grep's.
  cp "$RES/sums-sg.txt" "$RES/sums-sgr.txt"
  for run in $(seq "$RUNS"); do
    for n in "${COUNTS[@]}"; do
      scaled ltf "$n" "$run" "$LTF" fix --write -q -j "$n"
      scaled sg "$n" "$run" "$SG" scan -j "$n" -c "$ALIAS" -U
      scaled sgr "$n" "$run" "$WORK/sg-reparse.sh" -j "$n"
    done
  done
  awk -v counts="${COUNTS[*]}" -v runs="$RUNS" -v scripts="$(find "$BASE" -name '*.py' | wc -l)" '
# mid(v, n): the median of v[1..n], which it sorts.
function mid(v, n,   i, j, t) {
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
  return n % 2 ? v[(n + 1) / 2] : n ? (v[n / 2] + v[n / 2 + 1]) / 2 : 0
}
function median(name, col,   n, i, v) {
  n = 0
  for (i = 1; i <= NR; i++) if (nm[i] == name) v[++n] = val[i, col]
  return mid(v, n)
}
# paired(a, b): the median, least and greatest of the wall of a over
# that of b in the same round (run), as "m (lo-hi)": the runs of a round
# follow each other, so a machine whose speed drifts between rounds moves
# both alike.
function paired(a, b,   i, r, x, y, n, v, m) {
  for (i = 1; i <= NR; i++) { if (nm[i] == a) x[run[i]] = val[i, 3]; if (nm[i] == b) y[run[i]] = val[i, 3] }
  n = 0
  for (r in x) if ((r in y) && y[r] > 0) v[++n] = x[r] / y[r]
  if (n == 0) return "-"
  m = mid(v, n)
  return sprintf("%.2fx (%.2f-%.2f)", m, v[1], v[n])
}
{ nm[NR] = $1; run[NR] = $2; val[NR, 3] = $3; val[NR, 4] = $4; val[NR, 5] = $5 }
END {
  k = split(counts, c, " ")
  printf "%d scripts, medians of %d runs; ast-grep alias-aware scan -U, -j N; equal work: the same, then a parse of every output, -j N\n\n", scripts, runs
  printf "| CPUs | loratune-fix wall | ast-grep wall | ratio | equal work: ast-grep + re-parse wall | ratio | speed-up from 1 CPU (ours / ast-grep / equal work) | CPU time against 1 CPU (ours / ast-grep) | CPU s (ours / ast-grep / equal work) | peak RSS MB (ours / ast-grep) |\n"
  printf "| ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- | --- |\n"
  for (i = 1; i <= k; i++) {
    n = c[i]
    W[n] = median("ltf-" n, 3); C[n] = median("ltf-" n, 4); M[n] = median("ltf-" n, 5)
    SW[n] = median("sg-" n, 3); SC[n] = median("sg-" n, 4); SM[n] = median("sg-" n, 5)
    EW[n] = median("sgr-" n, 3); EC[n] = median("sgr-" n, 4)
    printf "| %d | %.2f s | %.2f s | %.2fx | %.2f s | %.2fx | %.2fx / %.2fx / %.2fx | %.2fx / %.2fx | %.2f / %.2f / %.2f | %d / %d |\n", n, W[n], SW[n], W[n] / SW[n], EW[n], W[n] / EW[n], W[1] / W[n], SW[1] / SW[n], EW[1] / EW[n], C[n] / C[1], SC[n] / SC[1], C[n], SC[n], EC[n], M[n], SM[n]
  }
  top = c[k]
  printf "\n| target (issue 27) | measured | |\n| --- | --- | --- |\n"
  if (2 in W) printf "| 1 -> 2 CPUs speed-up >= 1.8x and >= ast-grep'"'"'s | %.2fx (ast-grep %.2fx) | %s |\n", W[1] / W[2], SW[1] / SW[2], ((W[1] / W[2] >= 1.8 && W[1] / W[2] >= SW[1] / SW[2]) ? "met" : "not met")
  if (top >= 16) {
    printf "| %d CPUs: wall <= 0.7x ast-grep -j %d | %.2fx | %s |\n", top, top, W[top] / SW[top], (W[top] / SW[top] <= 0.7 ? "met" : "not met")
    printf "| %d CPUs: speed-up from 1 CPU >= 10x | %.2fx | %s |\n", top, W[1] / W[top], (W[1] / W[top] >= 10 ? "met" : "not met")
    printf "| %d CPUs: CPU time <= 1.3x that at 1 CPU | %.2fx | %s |\n", top, C[top] / C[1], (C[top] / C[1] <= 1.3 ? "met" : "not met")
    printf "| %d workers: peak memory <= 150 MB | %d MB | %s |\n", top, M[top], (M[top] <= 150 ? "met" : "not met")
    printf "| %d CPUs: wall against equal work (ast-grep -U + re-parse, -j %d) | %.2fx | (no target) |\n", top, top, W[top] / EW[top]
  }
  # The targets read the medians above; the speed-up of each round on its
  # own shows how far the noise of one round reaches.
  printf "\n| speed-up from 1 CPU, each round on its own: median (range) | ours | ast-grep | equal work |\n| --- | --- | --- | --- |\n"
  for (i = 2; i <= k; i++) printf "| %d CPUs | %s | %s | %s |\n", c[i], paired("ltf-1", "ltf-" c[i]), paired("sg-1", "sg-" c[i]), paired("sgr-1", "sgr-" c[i])
}' "$RES/times.txt" | tee "$RES/table.md"
  exit 0
fi

# fresh NAME RUN CMD...: the same on a fresh copy of the needles (the
# folder is the command's last argument), then verify.py on the result.
fresh() {
  local name=$1 run=$2; shift 2
  local copy
  copy=$(new_copy)
  cp -a "$NEEDLES" "$copy/" && sync
  timed "$name" "$run" "$@" "$copy/needles"
  "$PY" "$PEERS/corpus-tools/verify.py" --corpus "$CORPUS" --out "$copy" --parts needles --name "$name#$run" --json "$RES/verify-$name-$run.json" | tee -a "$RES/verify.txt" >&2
}
x10=$WORK/haystack-x10
if [ ! -d "$x10" ]; then
  mkdir -p "$x10"
  for i in $(seq 0 9); do cp -al "$HAY" "$x10/copy$i"; done
fi

"$RG" -l -F "${TRIGGERS[@]}" "$HAY" >/dev/null || true # warm the page cache
"$LTF" check -q "$HAY" >/dev/null 2>&1 || true
for run in $(seq "$RUNS"); do
  fresh ltf-fix "$run" "$LTF" fix --write -q
  fresh sg-alias "$run" "$SG" scan -c "$ALIAS" -U
  fresh sg-alias-reparse "$run" "$WORK/sg-reparse.sh"
  fresh sg-named "$run" "$SG" scan -c "$NAMED" -U
  fresh ltf-fix-j1 "$run" "$LTF" fix --write -q -j 1
  fresh sg-alias-j1 "$run" "$SG" scan -j 1 -c "$ALIAS" -U
  fresh ltf-fix-1cpu "$run" taskset -c "$CPU1" "$LTF" fix --write -q -j 1
  fresh sg-alias-1cpu "$run" taskset -c "$CPU1" "$SG" scan -j 1 -c "$ALIAS" -U
  timed ltf-diff "$run" "$LTF" fix -q "$NEEDLES"
  timed sg-parse "$run" "$SG" run -l python -p 'tokenizer.pad_token_id = 0' "$NEEDLES"
  timed rg-hay "$run" "$RG" -l -F "${TRIGGERS[@]}" "$HAY"
  timed ltf-check-hay "$run" "$LTF" check -q "$HAY"
done
timed ltf-check-hay-x10 1 "$LTF" check -q "$x10"

# Medians and the ratios of issue 17.
awk -v runs="$RUNS" '
function median(name, col,   n, i, j, v, t) {
  n = 0
  for (i = 1; i <= NR; i++) if (nm[i] == name) v[++n] = val[i, col]
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
  return n % 2 ? v[(n + 1) / 2] : n ? (v[n / 2] + v[n / 2 + 1]) / 2 : 0
}
{ nm[NR] = $1; val[NR, 3] = $3; val[NR, 4] = $4; val[NR, 5] = $5 }
END {
  split("ltf-fix ltf-diff sg-alias sg-alias-reparse sg-named ltf-fix-j1 sg-alias-j1 ltf-fix-1cpu sg-alias-1cpu sg-parse rg-hay ltf-check-hay ltf-check-hay-x10", names, " ")
  printf "| command | wall s | CPU s | peak RSS MB |\n| --- | --- | --- | --- |\n"
  for (k = 1; k in names; k++) { n = names[k]; W[n] = median(n, 3); C[n] = median(n, 4); M[n] = median(n, 5)
    printf "| %s | %.3f | %.3f | %d |\n", n, W[n], C[n], M[n] }
  printf "\n| ratio (medians of %d runs) | measured | target |\n| --- | --- | --- |\n", runs
  printf "| fix --write / ast-grep alias-aware -U + re-parse, wall | %.2fx | <= 1.0x |\n", W["ltf-fix"] / W["sg-alias-reparse"]
  printf "| fix --write / ast-grep alias-aware -U, wall | %.2fx | <= 1.3x |\n", W["ltf-fix"] / W["sg-alias"]
  printf "| fix --write / ast-grep name-based -U, wall | %.2fx | |\n", W["ltf-fix"] / W["sg-named"]
  printf "| fix --write / ast-grep alias-aware -U + re-parse, CPU | %.2fx | |\n", C["ltf-fix"] / C["sg-alias-reparse"]
  printf "| fix --write / fix (diff only, nothing written), wall | %.2fx | |\n", W["ltf-fix"] / W["ltf-diff"]
  printf "| fix --write CPU / parse-only floor CPU | %.2fx | <= 2x |\n", C["ltf-fix"] / C["sg-parse"]
  printf "| equal work (ast-grep alias-aware -U + re-parse) CPU / parse-only floor CPU | %.2fx | |\n", C["sg-alias-reparse"] / C["sg-parse"]
  printf "| fix --write -j 1 -> all CPUs, speed-up | %.2fx | >= 1.8x |\n", W["ltf-fix-j1"] / W["ltf-fix"]
  printf "| ast-grep -j 1 -> all CPUs, speed-up | %.2fx | |\n", W["sg-alias-j1"] / W["sg-alias"]
  printf "| fix --write -j 1 on one CPU -> all CPUs, speed-up | %.2fx | |\n", W["ltf-fix-1cpu"] / W["ltf-fix"]
  printf "| ast-grep -j 1 on one CPU -> all CPUs, speed-up | %.2fx | |\n", W["sg-alias-1cpu"] / W["sg-alias"]
  printf "| haystack check / rg -l, wall | %.2fx | <= 3x |\n", W["ltf-check-hay"] / W["rg-hay"]
  printf "| haystack x10 check, peak memory growth | %+.0f%% | < 20%% |\n", 100 * (M["ltf-check-hay-x10"] - M["ltf-check-hay"]) / M["ltf-check-hay"]
}' "$RES/times.txt" | tee "$RES/table.md"
