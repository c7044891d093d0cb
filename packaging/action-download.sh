#!/usr/bin/env bash
# The action's first step: for a release tag, download that release's
# archive for this runner and check it against the release's SHA256SUMS.
# Prints path=BINARY to $GITHUB_OUTPUT; prints nothing for a ref without a
# release (a branch, a commit, a tag not released), so that the action
# builds from source. A checksum that does not match fails the step: never
# run, never build around, a binary that is not the released one.
#
#   ACTION_REF, ACTION_REPO (owner/name; both default from
#   GITHUB_ACTION_PATH), RUNNER_OS_NAME (Linux, macOS,
#   Windows), RUNNER_ARCH_NAME (X64, ARM64); LTF_RELEASES overrides
#   https://github.com/$ACTION_REPO/releases/download (tests).
set -euo pipefail
# The runner keeps an action at _actions/OWNER/NAME/REF: the fallback where
# the github.action_* contexts come empty (seen in composite actions).
ref=${ACTION_REF:-$(basename "${GITHUB_ACTION_PATH:-.}")}
ACTION_REPO=${ACTION_REPO:-$(basename "$(dirname "$(dirname "${GITHUB_ACTION_PATH:-.}")")")/$(basename "$(dirname "${GITHUB_ACTION_PATH:-.}")")}
if ! [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-.+][0-9A-Za-z.]+)?$ ]]; then
  echo "loratune-fix: ${ref:-this ref} is not a release tag: building from source"
  exit 0
fi
case "$RUNNER_OS_NAME/$RUNNER_ARCH_NAME" in
Linux/X64) plat=linux_amd64 ;;
Linux/ARM64) plat=linux_arm64 ;;
macOS/X64) plat=darwin_amd64 ;;
macOS/ARM64) plat=darwin_arm64 ;;
Windows/X64) plat=windows_amd64 ;;
*)
  echo "loratune-fix: no release binary for $RUNNER_OS_NAME/$RUNNER_ARCH_NAME: building from source"
  exit 0
  ;;
esac
ext=.tar.gz exe=
[ "$plat" = windows_amd64 ] && ext=.zip exe=.exe
name="loratune-fix_${ref}_${plat}"
base=${LTF_RELEASES:-https://github.com/$ACTION_REPO/releases/download}/$ref
dir=${RUNNER_TEMP:-/tmp}/loratune-fix-release
rm -rf "$dir" && mkdir -p "$dir"
cd "$dir"
if ! curl -fsSL --retry 3 -o SHA256SUMS "$base/SHA256SUMS"; then
  echo "loratune-fix: $ref has no release with SHA256SUMS: building from source"
  exit 0
fi
curl -fsSL --retry 3 -o "$name$ext" "$base/$name$ext"
want=$(awk -v f="$name$ext" '$2 == f || $2 == "*" f { print $1 }' SHA256SUMS)
if command -v sha256sum >/dev/null; then
  got=$(sha256sum "$name$ext" | cut -d' ' -f1)
else
  got=$(shasum -a 256 "$name$ext" | cut -d' ' -f1) # macOS
fi
if [ -z "$want" ] || [ "$got" != "$want" ]; then
  echo "::error::loratune-fix: $name$ext: sha256 $got, SHA256SUMS says ${want:-nothing}" >&2
  exit 1
fi
if [ "$ext" = .tar.gz ]; then
  tar -xzf "$name$ext"
elif command -v unzip >/dev/null; then
  unzip -q "$name$ext"
else
  7z x -y "$name$ext" >/dev/null # Windows runners
fi
bin="$dir/$name/loratune-fix$exe"
"$bin" --version
echo "path=$bin" >>"${GITHUB_OUTPUT:-/dev/null}"
