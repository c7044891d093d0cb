#!/usr/bin/env bash
# The wheel as a user meets it: builds it here (packaging/wheel.sh), checks
# its tags and RECORD, installs it offline into a fresh virtual environment
# and runs loratune-fix from there; then the same from the sdist, which pip
# builds with Go; the action's download; the pre-commit hook from the wheel.
# Needs python3 with venv, readelf and objdump (binutils), pre-commit.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LTF_VERSION=v1.2.3-rc.4 # a made-up release tag
version=1.2.3rc4               # its PEP 440 form, the wheel's version

"$root/packaging/wheel.sh" "$tmp/dist" >"$tmp/built"
archive=$(head -1 "$tmp/built") wheel=$(tail -1 "$tmp/built")
python3 "$root/packaging/check_wheel.py" "$wheel" "$tmp/dist/bin/loratune-fix" "$version"

# The action's download (packaging/action-download.sh) from a release laid
# out as the release workflow lays it: the archive checked against
# SHA256SUMS, a ref without a release left to the build from source, and a
# wrong checksum an error.
download() { # download REF: the binary's path, or nothing
  : >"$tmp/out"
  ACTION_REF=$1 ACTION_REPO=loratune/loratune-fix RUNNER_OS_NAME=Linux RUNNER_ARCH_NAME=X64 \
    RUNNER_TEMP="$tmp" GITHUB_OUTPUT="$tmp/out" LTF_RELEASES="file://$tmp/releases" \
    bash "$root/packaging/action-download.sh" >"$tmp/download.log" 2>&1 || return
  sed -n 's/^path=//p' "$tmp/out"
}
if [ "$(uname -s)/$(uname -m)" = Linux/x86_64 ]; then
  mkdir -p "$tmp/releases/$LTF_VERSION"
  cp "$archive" "$tmp/releases/$LTF_VERSION/"
  (cd "$tmp/releases/$LTF_VERSION" && sha256sum -- * >SHA256SUMS)
  bin=$(download "$LTF_VERSION")
  "$bin" --version | grep -qF "loratune-fix $LTF_VERSION "
  [ -z "$(download main)" ] && grep -q 'not a release tag' "$tmp/download.log"
  [ -z "$(download v9.9.9)" ] && grep -q 'no release' "$tmp/download.log"
  printf x >>"$tmp/releases/$LTF_VERSION/$(basename "$archive")"
  if download "$LTF_VERSION" >/dev/null; then
    echo "a corrupt archive was accepted" >&2
    exit 1
  fi
  grep -q 'SHA256SUMS says' "$tmp/download.log"
  echo "packaging/test.sh: action-download.sh: checksum checked, source fallback for refs without a release"
fi

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

# pre-commit's language: python hook (loratune-fix-check-py) from the wheel,
# on REPROS 21's recipe and launcher: pre-commit installs the hook
# repository with pip (the root pyproject.toml), which brings the wheel.
hooks="$tmp/hookrepo"
mkdir -p "$hooks/packaging"
cp "$root/pyproject.toml" "$root/.pre-commit-hooks.yaml" "$hooks/"
cp "$root/packaging/ltf_build.py" "$root/packaging/pre_commit_build.py" "$hooks/packaging/"
git -C "$hooks" init -q
git -C "$hooks" add -A
git -C "$hooks" -c user.name=test -c user.email=test@example.com commit -qm hooks
git -C "$tmp/repo" init -q
cat >"$tmp/repo/.pre-commit-config.yaml" <<YAML
repos:
  - repo: $hooks
    rev: $(git -C "$hooks" rev-parse HEAD)
    hooks:
      - id: loratune-fix-check-py
        additional_dependencies: ['loratune-fix==$version']
YAML
git -C "$tmp/repo" add -A
rc=0
(cd "$tmp/repo" && PRE_COMMIT_HOME="$tmp/pre-commit" PIP_NO_INDEX=1 PIP_FIND_LINKS="$tmp/dist" \
  pre-commit run --all-files >"$tmp/pre-commit.out" 2>&1) || rc=$?
if [ "$rc" != 1 ] || ! grep -q 'Found 4 findings (3 errors, 1 info)' "$tmp/pre-commit.out"; then
  cat "$tmp/pre-commit.out" >&2
  echo "pre-commit exited $rc, want 1 and the four findings" >&2
  exit 1
fi
echo "packaging/test.sh: pre-commit hook loratune-fix-check-py (wheel): the four findings in the YAML recipe and run.sh"
