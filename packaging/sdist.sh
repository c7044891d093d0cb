#!/usr/bin/env bash
# packaging/sdist.sh OUTDIR: the source distribution (pip builds it with Go
# and a C compiler where no wheel fits). LTF_VERSION as in wheel.sh.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
tag=${LTF_VERSION:-$(git -C "$root" describe --tags --exact-match --match 'v[0-9]*' 2>/dev/null || echo v0.0.0-dev)}
python=${PYTHON:-$(command -v python3 || command -v python)}
"$python" "$root/packaging/ltf_build.py" sdist --tag "$tag" "$1"
