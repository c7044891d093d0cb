#!/usr/bin/env bash
# The wheel as a user meets it: builds it here (packaging/wheel.sh), checks
# its tags and RECORD, installs it offline into a fresh virtual environment
# and runs loratune-fix from there; then the same from the sdist, which pip
# builds with Go. Needs python3 with venv, readelf and objdump (binutils).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LTF_VERSION=v1.2.3-rc.4 # a made-up release tag
version=1.2.3rc4               # its PEP 440 form, the wheel's version

wheel=$("$root/packaging/wheel.sh" "$tmp/dist" | tail -1)
python3 "$root/packaging/check_wheel.py" "$wheel" "$tmp/dist/bin/loratune-fix" "$version"

# A repository with a LLaMA-Factory recipe and a shell launcher only
# (REPROS 21): the installed command must find all four fixes.
mkdir -p "$tmp/repo/configs"
cat >"$tmp/repo/configs/lora_sft.yaml" <<'YAML'
model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct
stage: sft
do_train: true
finetuning_type: lora
lora_target: all
dataset: my_data
template: llama3
cutoff_len: 2048
output_dir: saves/lora/sft
per_device_train_batch_size: 1
learning_rate: 1.0e-4
flash_attn: auto
pure_bf16: true
YAML
cat >"$tmp/repo/run.sh" <<'SH'
torchrun --nproc_per_node 2 train.py \
    --model_name_or_path meta-llama/Meta-Llama-3-8B \
    --attn_implementation sdpa \
    --use_peft \
    --bf16 True \
    --output_dir out
SH

try() { # try VENV: the installed command's version, demo and check
  local bin="$1/bin/loratune-fix"
  local v
  v=$("$bin" --version)
  case "$v" in
  "loratune-fix $LTF_VERSION (go"*) ;;
  *) echo "--version says '$v', want the tag $LTF_VERSION" >&2; exit 1 ;;
  esac
  [ "$("$1/bin/python" -c 'import importlib.metadata as m; print(m.version("loratune-fix"))')" = "$version" ]
  "$bin" demo >"$tmp/demo.out" 2>&1
  grep -q '^+.*attn_implementation="eager"' "$tmp/demo.out"
  local rc=0
  (cd "$tmp/repo" && "$bin" check --output-format json . >"$tmp/check.json") || rc=$?
  [ "$rc" = 1 ] || { echo "check exited $rc, want 1 (findings)" >&2; exit 1; }
  python3 - "$tmp/check.json" <<'PY'
import json, sys
found = sorted((f["path"].split("/")[-1], f["code"]) for f in json.load(open(sys.argv[1])))
want = [("lora_sft.yaml", "LTF001"), ("lora_sft.yaml", "LTF002"), ("lora_sft.yaml", "LTF009"), ("run.sh", "LTF002")]
assert found == want, found
PY
  echo "packaging/test.sh: $1: $v, demo and check work"
}

python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet --no-index --disable-pip-version-check "$wheel"
try "$tmp/venv"

# The fallback where no wheel fits: pip builds the sdist with Go.
sdist=$("$root/packaging/sdist.sh" "$tmp/sdist" | tail -1)
python3 -m venv "$tmp/venv-src"
"$tmp/venv-src/bin/pip" install --quiet --no-index --disable-pip-version-check "$sdist"
try "$tmp/venv-src"
