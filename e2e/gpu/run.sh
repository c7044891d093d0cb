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
# the lengths with L % 128 == 64), E2E_EMPTY_ROW_SCRIPTS (run again at every
# length with the last row of every batch all padding: "<script>+empty_row"),
# E2E_CAP_SCALE with E2E_CAP_LENGTHS and E2E_CAP_SCRIPTS (Gemma-2: a second
# checkpoint whose q/k weights are scaled so the attention soft-cap binds,
# its runs named "<script>+cap"), E2E_WORK (/tmp/loratune-e2e), PYTHON (python3).
# The model family (llama or gemma2) is the one stage.sh wrote in ./family.
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
empty_row_scripts=${E2E_EMPTY_ROW_SCRIPTS:-}
cap_scale=${E2E_CAP_SCALE:-}
cap_lengths=${E2E_CAP_LENGTHS:-}
cap_scripts=${E2E_CAP_SCRIPTS:-original default lean}
family=$(cat "$here/family" 2>/dev/null || echo llama)
builder=make_checkpoint.py
if [ "$family" = gemma2 ]; then builder=make_gemma2_checkpoint.py; fi

rm -rf "$work/runs" "$work/logs" "$work/out"
mkdir -p "$out" "$work/runs" "$work/logs" "$work/out"
: >"$work/manifest.tsv"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false PYTHONUNBUFFERED=1

# A checkpoint built and verified by an earlier call on this machine is kept.
build_checkpoint() { # DIR [builder options]
	local dir=$1
	shift
	local mark="$dir/.verified-$family-$layers-$*"
	mark=${mark// /_}
	if [ -e "$mark" ]; then
		echo "== checkpoint $dir ($family, $layers layers $*): reused"
		return
	fi
	echo "== checkpoint $dir ($family, $layers layers $*)"
	rm -rf "$dir"
	if ! "$python" "$here/$builder" "$dir" --layers "$layers" "$@" >"$work/logs/$(basename "$dir").log" 2>&1; then
		cat "$work/logs/$(basename "$dir").log"
		tar czf "$out/logs.tar.gz" -C "$work" logs
		exit 1
	fi
	tail -n 1 "$work/logs/$(basename "$dir").log"
	touch "$mark"
}
build_checkpoint "$work/checkpoint"
if [ -n "$cap_scale" ]; then build_checkpoint "$work/checkpoint_cap" --cap-scale "$cap_scale"; fi

E2E_FAMILY=$family E2E_LAYERS=$layers E2E_STEPS=$steps E2E_SUMS="$here/scripts/SHA256SUMS" "$python" - >"$work/env.json" <<'PY'
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
    "family": os.environ["E2E_FAMILY"], "cap_scale": os.environ.get("E2E_CAP_SCALE") or None,
    "scripts_sha256": dict(line.split()[::-1] for line in open(os.environ["E2E_SUMS"])),
}))
PY

# The runs, in order: every script at every length (with its variants),
# then the repeat. A plan item: script length repetition variant.
plan=()
for length in $lengths; do
	for script in $scripts; do plan+=("$script $length 1 -"); done
	if ((length % 128 == 64)); then
		for script in $ablations; do plan+=("$script $length 1 -"); done
	fi
	for script in $empty_row_scripts; do plan+=("$script $length 1 empty_row"); done
done
if [ -n "$cap_scale" ]; then
	for length in $cap_lengths; do
		for script in $cap_scripts; do plan+=("$script $length 1 cap"); done
	done
fi
if [ -n "$repeat_length" ]; then
	reversed=$(echo "$scripts" | tr ' ' '\n' | tac | tr '\n' ' ')
	for script in $reversed; do plan+=("$script $repeat_length 2 -"); done
fi

for item in "${plan[@]}"; do
	read -r script length rep variant <<<"$item"
	name=$script
	model="$work/checkpoint"
	empty=0
	case $variant in
	empty_row) name="$script+empty_row" empty=1 ;;
	cap) name="$script+cap" model="$work/checkpoint_cap" ;;
	esac
	tag="$name-$length-$rep"
	if ((SECONDS > budget)); then
		echo "== $tag skipped: past the ${budget}s budget"
		continue
	fi
	started=$SECONDS
	SEQ_LEN=$length MAX_STEPS=$steps LORATUNE_E2E_MODEL="$model" OUTPUT_DIR="$work/out/$tag" \
		TRACE_OUT="$work/runs/$tag.json" TRACE_EMPTY_ROW=$empty timeout "$run_timeout" \
		"$python" "$here/trace.py" "$here/scripts/$script.py" >"$work/logs/$tag.log" 2>&1
	code=$?
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$tag" "$name" "$length" "$rep" "$code" $((SECONDS - started)) >>"$work/manifest.tsv"
	echo "== $tag: exit $code, $((SECONDS - started))s"
	if [ "$code" != 0 ]; then tail -n 5 "$work/logs/$tag.log"; fi
done

"$python" "$here/summarize.py" "$work" "$out"
"$python" "$here/plot.py" "$out/results.json" "$out/gpu-validation.png" || echo "plot failed"
cp "$work/env.json" "$out/env.json"
tar czf "$out/logs.tar.gz" -C "$work" logs runs manifest.tsv
