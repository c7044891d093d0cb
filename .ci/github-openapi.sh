#!/usr/bin/env bash
# Puts GitHub's published OpenAPI description (api.github.com.deref.json of
# the @octokit/openapi npm package, pinned below) at
# .cache/github-openapi/, where the tests' fake GitHub finds it to check
# every request it receives (githubapi/githubtest). Prints the file's path.
# Needs npm. The file is ~70 MB: it is fetched, never committed.
set -euo pipefail
cd "$(dirname "$0")/.."
version=23.0.2
sha256=71a18407dd5e8464f4e0525daf03deabbe65abd9287d6adc7b5d98f516cd0d0c # of octokit-openapi-$version.tgz
dir=.cache/github-openapi
spec=$dir/api.github.com.deref.json
if [ ! -s "$spec" ] || [ "$(cat "$dir/VERSION" 2>/dev/null)" != "$version" ]; then
  mkdir -p "$dir"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "@octokit/openapi@$version" >/dev/null)
  echo "$sha256  $tmp/octokit-openapi-$version.tgz" | sha256sum -c --quiet
  tar -xzf "$tmp/octokit-openapi-$version.tgz" -C "$tmp" package/generated/api.github.com.deref.json
  mv "$tmp/package/generated/api.github.com.deref.json" "$spec"
  echo "$version" >"$dir/VERSION"
fi
echo "$PWD/$spec"
