#!/usr/bin/env bash
# Copy the harness and the training scripts into one folder that can travel
# to the GPU machine: the original fixture and loratune-fix's golden outputs
# from it, renamed by what they are.
#   llama:  fixtures/e2e/train_synthetic*.py: default and lean profiles, and
#           both again with LTF008 left out (left padding kept), to see
#           whether the attention fix alone cures the failure;
#   gemma2: fixtures/e2e/train_gemma2*.py: default and lean profiles.
#   e2e/gpu/stage.sh DEST [llama|gemma2]     (from the repository root)
set -eu
dest=${1:?usage: stage.sh DEST [llama|gemma2]}
family=${2:-llama}
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$dest"
mkdir -p "$dest/scripts"
cp "$root"/e2e/gpu/{run.sh,trace.py,make_checkpoint.py,make_gemma2_checkpoint.py,gemma2_logits.py,trainer_checks.py,summarize.py,plot.py} "$dest/"
e2e=$root/fixtures/e2e
case $family in
llama)
	cp "$e2e/train_synthetic.py" "$dest/scripts/original.py"
	cp "$e2e/train_synthetic.py.golden" "$dest/scripts/default.py"
	cp "$e2e/train_synthetic_lean.py.golden" "$dest/scripts/lean.py"
	cp "$e2e/train_synthetic_keep_left_pad.py.golden" "$dest/scripts/default_left_pad.py"
	cp "$e2e/train_synthetic_lean_keep_left_pad.py.golden" "$dest/scripts/lean_left_pad.py"
	;;
gemma2)
	cp "$e2e/train_gemma2.py" "$dest/scripts/original.py"
	cp "$e2e/train_gemma2.py.golden" "$dest/scripts/default.py"
	cp "$e2e/train_gemma2_lean.py.golden" "$dest/scripts/lean.py"
	;;
*)
	echo "stage.sh: unknown family $family (llama or gemma2)" >&2
	exit 2
	;;
esac
mkdir -p "$dest/checks"
cp "$e2e"/ltf106_token_{mean,sum}.py{,.golden} "$dest/checks/"
echo "$family" >"$dest/family"
(cd "$dest/scripts" && sha256sum ./*.py >SHA256SUMS)
(cd "$dest/checks" && sha256sum ./* >SHA256SUMS)
chmod +x "$dest/run.sh"
echo "staged $family in $dest"
