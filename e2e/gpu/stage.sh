#!/usr/bin/env bash
# Copy the harness and the training scripts into one folder that can travel
# to the GPU machine: the original fixture and loratune-fix's golden outputs
# from it, renamed by what they are: default and lean profiles, and both
# again with LTF008 left out (left padding kept), to see whether the
# attention fix alone cures the failure.
#   e2e/gpu/stage.sh DEST        (from the repository root)
set -eu
dest=${1:?usage: stage.sh DEST}
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$dest"
mkdir -p "$dest/scripts"
cp "$root"/e2e/gpu/{run.sh,trace.py,make_checkpoint.py,summarize.py,plot.py} "$dest/"
cp "$root/fixtures/e2e/train_synthetic.py" "$dest/scripts/original.py"
cp "$root/fixtures/e2e/train_synthetic.py.golden" "$dest/scripts/default.py"
cp "$root/fixtures/e2e/train_synthetic_lean.py.golden" "$dest/scripts/lean.py"
cp "$root/fixtures/e2e/train_synthetic_keep_left_pad.py.golden" "$dest/scripts/default_left_pad.py"
cp "$root/fixtures/e2e/train_synthetic_lean_keep_left_pad.py.golden" "$dest/scripts/lean_left_pad.py"
(cd "$dest/scripts" && sha256sum ./*.py >SHA256SUMS)
chmod +x "$dest/run.sh"
echo "staged in $dest"
