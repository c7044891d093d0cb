#!/usr/bin/env bash
# Run the whole harness on a CPU with stand-ins for torch, transformers and
# peft (needs python3 with numpy and matplotlib: apt-get install
# python3-numpy python3-matplotlib). The stand-in Trainer fails the way
# cuDNN SDPA does (NaN gradients for left-padded batches of width % 128 == 64
# unless eager or cuDNN off), so the table and plot show the expected shape.
# It checks the harness and the scripts' control flow, not the GPU result.
#   [E2E_FAMILY=gemma2] e2e/gpu/dryrun/dryrun.sh OUT
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: dryrun.sh OUT}
stage=$(mktemp -d)
"$here/../stage.sh" "$stage" "${E2E_FAMILY:-llama}" >/dev/null
PYTHON="$here/python3" E2E_WORK="$stage/work" E2E_STEPS=${E2E_STEPS:-20} TRACE_WARMUP_STEPS=${TRACE_WARMUP_STEPS:-5} \
	"$stage/run.sh" "$out"
rm -rf "$stage"
