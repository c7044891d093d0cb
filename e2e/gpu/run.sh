#!/usr/bin/env bash
# The end-to-end GPU validation: build the checkpoint, run the original
# training script and loratune-fix's outputs from it at each length, then
# summarize and plot. Run it from a folder made by stage.sh:
#   STAGED/run.sh OUT_DIR
# Settings (environment): E2E_LENGTHS ("192 256"), E2E_STEPS (40),
# E2E_LAYERS (2), E2E_SCRIPTS ("original default lean"), E2E_REPEAT_LENGTH
# (one length run again, scripts in reverse order, to see the timing spread),
# E2E_BUDGET_S (480: no run starts after this many seconds), E2E_RUN_TIMEOUT_S
# (240 per run), E2E_ABLATIONS ("default_left_pad lean_left_pad": run only at
# the lengths with L % 128 == 64), E2E_WORK (/tmp/loratune-e2e), PYTHON (python3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh OUT_DIR}
work=${E2E_WORK:-/tmp/loratune-e2e}
lengths=${E2E_LENGTHS:-192 256}
steps=${E2E_STEPS:-40}
layers=${E2E_LAYERS:-2}
scripts=${E2E_SCRIPTS:-original default lean}
repeat_length=${E2E_REPEAT_LENGTH:-}
ablations=${E2E_ABLATIONS-default_left_pad lean_left_pad}
budget=${E2E_BUDGET_S:-480}
run_timeout=${E2E_RUN_TIMEOUT_S:-240}
python=${PYTHON:-python3}

rm -rf "$work/runs" "$work/logs" "$work/out"
mkdir -p "$out" "$work/runs" "$work/logs" "$work/out"
: >"$work/manifest.tsv"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1

# A checkpoint built and verified by an earlier call on this machine is kept.
if [ -e "$work/checkpoint/.verified-$layers" ]; then
	echo "== checkpoint ($layers layers): reused"
else
	echo "== checkpoint ($layers layers)"
	rm -rf "$work/checkpoint"
	if ! "$python" "$here/make_checkpoint.py" "$work/checkpoint" --layers "$layers" >"$work/logs/checkpoint.log" 2>&1; then
		cat "$work/logs/checkpoint.log"
		tar czf "$out/logs.tar.gz" -C "$work" logs
		exit 1
	fi
	tail -n 1 "$work/logs/checkpoint.log"
	touch "$work/checkpoint/.verified-$layers"
fi

E2E_LAYERS=$layers E2E_STEPS=$steps E2E_SUMS="$here/scripts/SHA256SUMS" "$python" - >"$work/env.json" <<'PY'
import json, os, platform, subprocess
import accelerate, peft, tokenizers, torch, transformers
smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                     capture_output=True, text=True).stdout.strip().splitlines()
gpu, driver, memory = (smi[0].split(", ") + ["?", "?", "?"])[:3] if smi else ("?", "?", "?")
print(json.dumps({
    "gpu": gpu, "driver": driver, "gpu_memory": memory, "python": platform.python_version(),
    "torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
    "transformers": transformers.__version__, "peft": peft.__version__,
    "accelerate": accelerate.__version__, "tokenizers": tokenizers.__version__,
    "layers": int(os.environ["E2E_LAYERS"]), "max_steps": int(os.environ["E2E_STEPS"]),
    "scripts_sha256": dict(line.split()[::-1] for line in open(os.environ["E2E_SUMS"])),
}))
PY

# The runs, in order: every script at every length, then the repeat.
plan=()
for length in $lengths; do
	for script in $scripts; do plan+=("$script $length 1"); done
	if ((length % 128 == 64)); then
		for script in $ablations; do plan+=("$script $length 1"); done
	fi
done
if [ -n "$repeat_length" ]; then
	reversed=$(echo "$scripts" | tr ' ' '\n' | tac | tr '\n' ' ')
	for script in $reversed; do plan+=("$script $repeat_length 2"); done
fi

for item in "${plan[@]}"; do
	read -r script length rep <<<"$item"
	tag="$script-$length-$rep"
	if ((SECONDS > budget)); then
		echo "== $tag skipped: past the ${budget}s budget"
		continue
	fi
	started=$SECONDS
	SEQ_LEN=$length MAX_STEPS=$steps LORATUNE_E2E_MODEL="$work/checkpoint" OUTPUT_DIR="$work/out/$tag" \
		TRACE_OUT="$work/runs/$tag.json" timeout "$run_timeout" \
		"$python" "$here/trace.py" "$here/scripts/$script.py" >"$work/logs/$tag.log" 2>&1
	code=$?
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$tag" "$script" "$length" "$rep" "$code" $((SECONDS - started)) >>"$work/manifest.tsv"
	echo "== $tag: exit $code, $((SECONDS - started))s"
	if [ "$code" != 0 ]; then tail -n 5 "$work/logs/$tag.log"; fi
done

"$python" "$here/summarize.py" "$work" "$out"
"$python" "$here/plot.py" "$out/results.json" "$out/gpu-validation.png" || echo "plot failed"
cp "$work/env.json" "$out/env.json"
tar czf "$out/logs.tar.gz" -C "$work" logs runs manifest.tsv
