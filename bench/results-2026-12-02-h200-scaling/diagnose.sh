#!/bin/bash
# Device call 1 (issue 27): where the cores go at 1, 8, 16 CPUs (CPU
# profile, execution trace, gctrace) and the GC pacing candidates at 1, 2,
# 8, 16 workers, on 5,000 scripts (the peers' 500 needles x10), fresh
# copies, every output compared with a verified one.
set -u
S=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out1}; mkdir -p "$O"
W=${W:-/tmp/s}; rm -rf $W; mkdir -p $W/prof
exec > >(tee "$O/log.txt") 2>&1
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(free -g | awk '/Mem:/{print $2}') GB, kernel $(uname -r); $(date -u +%FT%TZ)"
df -h /tmp | tail -n 1; cat /proc/loadavg; command -v taskset python3
tar -xzf "$S/pack.tar.gz" -C $W || exit 1
cd $W && gunzip ltf-base.gz ltf-x.gz ltf-final.gz sg.gz && chmod +x ltf-base ltf-x ltf-final sg
mkdir -p base5k && for i in $(seq 0 $((${COPIES:-10} - 1))); do cp -a corpus/needles base5k/c$i; done
echo "scripts: $(find base5k -name '*.py' | wc -l)"
ALIAS=$W/astgrep/alias-aware/sgconfig.yml
NCPU=$(nproc)
fresh() { rm -rf $W/copy && cp -a $W/base5k $W/copy && sync; }
sum() { (cd $W/copy && find . -type f -name '*.py' -print0 | sort -z | xargs -0 cat | sha256sum | cut -c1-16); }
cpus() { [ "$1" = 1 ] && echo 0 || echo 0-$(($1 - 1)); }
verify1() { rm -rf $W/one && mkdir -p $W/one && cp -a $W/copy/c0 $W/one/needles && python3 corpus-tools/verify.py --corpus $W/corpus --out $W/one --parts needles --name "$1" | tail -n 1; }
fresh; ./ltf-base fix --write -q $W/copy >/dev/null 2>&1; REF_LTF=$(sum); verify1 ltf
fresh; ./sg scan -c $ALIAS -U $W/copy >/dev/null 2>&1; REF_SG=$(sum); verify1 ast-grep
echo "reference sums (all 5,000 outputs): ltf $REF_LTF ast-grep $REF_SG"
# run NAME N REF CMD...: CMD on a fresh copy held to the first N CPUs, timed
run() {
  local name=$1 n=$2 ref=$3; shift 3
  [ "$n" -le "$NCPU" ] || return 0
  fresh
  python3 $S/t.py "$name" $W/prof/err-$name.txt taskset -c $(cpus $n) "$@"
  local s; s=$(sum); [ "$s" = "$ref" ] || echo "  OUTPUT MISMATCH $name ($s, want $ref)"
}
# lt NAME N ENV...: fix --write -q -j N of the experimental build, with gctrace
lt() { local name=$1 n=$2; shift 2; run "$name-j$n" $n $REF_LTF env GODEBUG=gctrace=1 "$@" $W/ltf-x fix --write -q -j $n $W/copy; }
echo "== profiles of main's build (CPU profile, trace, gctrace)"
prof() { local name=$1 n=$2 tr=; shift 2; [ "$n" = 1 ] || tr=LORATUNE_FIX_TRACE=$O/trace-$name-j$n.out; run prof-$name-j$n $n $REF_LTF env GODEBUG=gctrace=1 LORATUNE_FIX_CPUPROFILE=$W/prof/cpu-$name-j$n.prof $tr "$@" $W/ltf-x fix --write -q -j $n $W/copy; }
for n in 16 8 1; do prof base $n LTFX_PACE=base; done
prof h2 16 LTFX_PERJOB=2
if [ $NCPU -ge 16 ]; then
  fresh; python3 $S/t.py prof-base-diff-j16 $W/prof/err-prof-base-diff-j16.txt taskset -c 0-15 env LTFX_PACE=base GODEBUG=gctrace=1 LORATUNE_FIX_CPUPROFILE=$W/prof/cpu-base-diff-j16.prof LORATUNE_FIX_TRACE=$O/trace-base-diff-j16.out $W/ltf-x fix -q -j 16 $W/copy
fi
echo "== pacing candidates"
for n in 16 8 16; do
  lt base $n LTFX_PACE=base
  lt h1 $n LTFX_PERJOB=1
  lt h2 $n LTFX_PERJOB=2
  lt h4 $n LTFX_PERJOB=4
  lt gogc400 $n GOGC=400
  lt h2-pN $n LTFX_PERJOB=2 GOMAXPROCS=$n
done
lt limitj4 16 LTFX_PACE=limitj LTFX_PERJOB=4
for n in 2; do lt base $n LTFX_PACE=base; lt h2 $n LTFX_PERJOB=2; done
for n in 16 8; do
  [ "$n" -le "$NCPU" ] || continue
  fresh; python3 $S/t.py diff-h2-j$n $W/prof/err-diff-h2-j$n.txt taskset -c $(cpus $n) env LTFX_PERJOB=2 GODEBUG=gctrace=1 $W/ltf-x fix -q -j $n $W/copy
done
echo "== ast-grep alias-aware -U"
for n in 16 8; do run sg-j$n $n $REF_SG $W/sg scan -j $n -c $ALIAS -U $W/copy; done
run sg-j16 16 $REF_SG $W/sg scan -j 16 -c $ALIAS -U $W/copy
tar -czf "$O/prof.tar.gz" -C $W prof
(cd $O && for f in trace-*.out; do gzip -1 $f; done; ls -la $O)
echo "== bench/run.sh scaling, the build to commit (ltf-final), $(date -u +%FT%TZ)"
( cd $W && PEERS=$W CORPUS=$W/corpus AST_GREP=$W/sg LORATUNE_FIX=$W/ltf-final LTF_VERSION="${LTF_VERSION:-final}" WORK=$W/bench RUNS=${RUNS:-3} bash $W/bench/run.sh scaling )
tar -czf "$O/scaling.tar.gz" -C $W/bench results
date -u +%FT%TZ
