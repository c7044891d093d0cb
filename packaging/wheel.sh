#!/usr/bin/env bash
# packaging/wheel.sh OUTDIR: builds loratune-fix for the machine it runs on
# and writes into OUTDIR its wheel and its release archive
# (loratune-fix_TAG_OS_ARCH[_musl].tar.gz, .zip on Windows), the binary
# itself in OUTDIR/bin. The one interface CI and the release workflow call;
# it prints the archive's path, then the wheel's.
#
#   LTF_VERSION  the release tag (v0.4.0); default the tag at HEAD, else v0.0.0-dev
#   LTF_LIBC     musl: a static binary (musl-gcc) for a musllinux wheel; default glibc
#   GOARCH with CC and CXX: a cross build (the YAML scanner is C++), e.g. on
#                Debian: GOARCH=arm64 CC=aarch64-linux-gnu-gcc CXX=aarch64-linux-gnu-g++
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tag=${LTF_VERSION:-$(git describe --tags --exact-match --match 'v[0-9]*' 2>/dev/null || echo v0.0.0-dev)}
goos=$(go env GOOS) goarch=$(go env GOARCH) exe=$(go env GOEXE)
python=${PYTHON:-$(command -v python3 || command -v python)}

flags=(-trimpath)
ldflags="-s -w -X main.releaseVersion=$tag"
case "${LTF_LIBC:-glibc}" in
musl)
  # Static: the binary needs no libc at run time, and the Go resolver and
  # user lookup need none at link time.
  export CC="${CC:-musl-gcc}"
  flags+=(-tags "netgo,osusergo")
  ldflags+=" -linkmode external -extldflags -static"
  ;;
esac
mkdir -p "$out/bin"
bin="$out/bin/loratune-fix$exe"
CGO_ENABLED=1 go build "${flags[@]}" -ldflags "$ldflags" -o "$bin" ./cmd/loratune-fix
"$python" packaging/ltf_build.py wheel --binary "$bin" --tag "$tag" --goos "$goos" --goarch "$goarch" \
  --libc "${LTF_LIBC:-glibc}" "$out"
