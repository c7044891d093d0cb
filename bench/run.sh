#!/usr/bin/env bash
# bench/run.sh: times loratune-fix against `rg -l` (the cost of reading the
# files and searching the trigger words) and ast-grep (equivalent, simpler
# rewrite rules: bench/ast-grep/) on this machine, in one run:
#   (a) a haystack: every *.py of the Python installation's library
#       (site-packages included, about 12k files), `check` against
#       `rg -l` and `ast-grep scan`;
#   (b) 500 generated training scripts, `fix --write` against
#       `ast-grep scan -U`;
#   (c) peak memory of `check` on the haystack and on 10 copies of it.
# Each timing is the median of RUNS runs (default 3) after a warm-up read;
# peak memory is /usr/bin/time's maximum resident set size.
#
# Set-up on a fresh Debian/Ubuntu machine (README, "Benchmarks"):
#   apt-get install -y ripgrep time python3 golang-go
#   npm install --prefix /opt/ast-grep @ast-grep/cli
# Environment: AST_GREP (the ast-grep binary), LORATUNE_FIX and GENCORPUS
# (built binaries; default: go build / go run), TIME_CMD (GNU time;
# default /usr/bin/time), STDLIB (the library to copy; default: python3's),
# WORK (scratch folder; default: mktemp), RUNS.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
RUNS=${RUNS:-3}
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
SG=${AST_GREP:-$(command -v ast-grep || echo /opt/ast-grep/node_modules/.bin/ast-grep)}
TIME_CMD=${TIME_CMD:-/usr/bin/time}
for tool in rg "$TIME_CMD" "$SG"; do
  command -v "$tool" >/dev/null || { echo "bench: $tool not found (see the set-up above)" >&2; exit 2; }
done
LTF=${LORATUNE_FIX:-}
if [ -z "$LTF" ]; then
  LTF=$WORK/loratune-fix
  go build -o "$LTF" ./cmd/loratune-fix
fi
SGCONF=$repo/bench/ast-grep/sgconfig.yml
TRIGGERS=(-e from_pretrained -e from_config -e device_map -e pad_token -e compile -e padding_side -e TrainingArguments -e 'Config(')

# time_it NAME CMD...: median wall seconds and peak RSS (MB) of RUNS runs;
# PREP, when set, runs before each run (untimed).
declare -A WALL RSS
time_it() {
  local name=$1; shift
  local walls=() rsss=()
  for _ in $(seq "$RUNS"); do
    if [ -n "${PREP:-}" ]; then eval "$PREP"; fi
    "$TIME_CMD" -f '%e %M' -o "$WORK/time" "$@" >/dev/null 2>"$WORK/stderr" || true
    read -r w m < <(tail -1 "$WORK/time")
    walls+=("$w"); rsss+=("$m")
  done
  WALL[$name]=$(printf '%s\n' "${walls[@]}" | sort -g | sed -n "$(( (RUNS + 1) / 2 ))p")
  RSS[$name]=$(printf '%s\n' "${rsss[@]}" | sort -g | tail -1 | awk '{printf "%.0f", $1/1024}')
  printf '  %-28s %8.2fs %7s MB\n' "$name" "${WALL[$name]}" "${RSS[$name]}" >&2
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b <= 0) b = 0.01; printf "%.1f", a / b }'; }

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GB; $(date -u +%Y-%m-%d)" >&2
echo "tools: loratune-fix ${LTF_VERSION:-$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo "(no git)")}, $(rg --version 2>/dev/null | head -1), ast-grep $("$SG" --version | awk '{print $2}')" >&2

# (a) The haystack: a copy of the library's *.py, site-packages renamed
# (loratune-fix, like ruff, skips folders of that name; the others do not).
STD=${STDLIB:-$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')}
HAY=$WORK/haystack
if [ ! -d "$HAY" ]; then
  mkdir -p "$HAY"
  (cd "$STD" && find . -name '*.py' -type f -print0 | tar --null -T - --transform 's,site-packages,site_packages,g' -cf - | tar -xf - -C "$HAY")
fi
files=$(find "$HAY" -name '*.py' | wc -l)
mb=$(du -sm "$HAY" | cut -f1)
echo "(a) haystack: $files files, $mb MB ($STD)" >&2
rg -l -F "${TRIGGERS[@]}" "$HAY" >/dev/null || true # warm the page cache
time_it "rg -l triggers" rg -l -F "${TRIGGERS[@]}" "$HAY"
time_it "loratune-fix check" "$LTF" check -q "$HAY"
time_it "ast-grep scan" "$SG" scan -c "$SGCONF" "$HAY"

# (b) 500 generated training scripts, fixed in place (a fresh copy each run).
GEN=$WORK/generated
if [ ! -d "$GEN" ]; then
  if [ -n "${GENCORPUS:-}" ]; then "$GENCORPUS" -out "$GEN" -files 500 -training-every 1 -seed 1
  else go run ./bench/gencorpus -out "$GEN" -files 500 -training-every 1 -seed 1; fi
fi
echo "(b) generated: $(find "$GEN" -name '*.py' | wc -l) training scripts, $(du -sm "$GEN" | cut -f1) MB" >&2
PREP="rm -rf '$WORK/fixme' && cp -r '$GEN' '$WORK/fixme'" time_it "loratune-fix fix --write" "$LTF" fix --write -q "$WORK/fixme"
PREP="rm -rf '$WORK/fixme' && cp -r '$GEN' '$WORK/fixme'" time_it "ast-grep scan -U" "$SG" scan -c "$SGCONF" -U "$WORK/fixme"

# (c) Peak memory on a tree 10 times larger: hard links, no extra disk.
BIG=$WORK/haystack-x10
if [ ! -d "$BIG" ]; then
  mkdir -p "$BIG"
  for i in $(seq 0 9); do cp -al "$HAY" "$BIG/copy$i"; done
fi
echo "(c) haystack x10: $(find "$BIG" -name '*.py' | wc -l) files" >&2
RUNS=1 time_it "loratune-fix check (x10)" "$LTF" check -q "$BIG"

# (d) migrate on 200 local repositories (one training script and 20
# ordinary modules each): where the time goes, from the summary line.
if command -v git >/dev/null; then
  REPOS=$WORK/repos
  if [ ! -d "$REPOS" ]; then
    mkdir -p "$REPOS"
    for i in $(seq -w 1 200); do
      d=$REPOS/r$i
      if [ -n "${GENCORPUS:-}" ]; then "$GENCORPUS" -out "$d" -files 21 -training-every 21 -size 4000 -seed "$((10#$i))"
      else go run ./bench/gencorpus -out "$d" -files 21 -training-every 21 -size 4000 -seed "$((10#$i))"; fi
      git -C "$d" init -q && git -C "$d" add . && git -C "$d" -c user.name=b -c user.email=b@example.com commit -q -m init
    done
  fi
  find "$REPOS" -mindepth 1 -maxdepth 1 -type d | sort > "$WORK/repos.txt"
  # Fresh state: drop the branch a previous run made.
  PREP="while read -r d; do git -C \"\$d\" branch -q -D loratune-fix/bf16-stability 2>/dev/null || true; done < '$WORK/repos.txt'"
  RUNS=1 time_it "migrate 200 local repos" env GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com \
    "$LTF" migrate -q --repos "$WORK/repos.txt" --report "$WORK/migrate.jsonl"
  MIGRATE_SUMMARY=$(grep 'repositories:' "$WORK/stderr" || true)
  echo "  $MIGRATE_SUMMARY" >&2
fi

echo
echo "| measure | loratune-fix | peer | ratio |"
echo "| --- | --- | --- | --- |"
echo "| haystack check, wall vs rg -l | ${WALL[loratune-fix check]} s | ${WALL[rg -l triggers]} s | $(ratio "${WALL[loratune-fix check]}" "${WALL[rg -l triggers]}")x rg (target <= 3x) |"
echo "| haystack check, wall vs ast-grep scan | ${WALL[loratune-fix check]} s | ${WALL[ast-grep scan]} s | $(ratio "${WALL[ast-grep scan]}" "${WALL[loratune-fix check]}")x faster (target >= 20x) |"
echo "| 500 scripts fix --write vs ast-grep -U | ${WALL[loratune-fix fix --write]} s | ${WALL[ast-grep scan -U]} s | $(ratio "${WALL[loratune-fix fix --write]}" "${WALL[ast-grep scan -U]}")x ast-grep's time (target <= 1x) |"
echo "| haystack check, peak memory | ${RSS[loratune-fix check]} MB | rg ${RSS[rg -l triggers]} MB, ast-grep ${RSS[ast-grep scan]} MB | target < 150 MB |"
echo "| 10x haystack check, peak memory | ${RSS[loratune-fix check (x10)]} MB | 1x: ${RSS[loratune-fix check]} MB | +$(awk -v a="${RSS[loratune-fix check (x10)]}" -v b="${RSS[loratune-fix check]}" 'BEGIN{printf "%.0f", 100*(a-b)/b}')% (target < 20%) |"
if [ -n "${MIGRATE_SUMMARY:-}" ]; then
  echo "| migrate 200 local repos | ${WALL[migrate 200 local repos]} s | | ${MIGRATE_SUMMARY#*Time: } |"
fi
