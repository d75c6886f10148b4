#!/usr/bin/env bash
# Builds the test tools (local control plane, kube-rbac-proxy, CRI-O, ...) from
# the tools Go modules under hack/tools/<name>/ and caches them under
# _output/tools/<name>/<key>/, where <key> hashes the module's files. A tool
# is rebuilt only when that key changes. Each cached tool's
# binaries are linked into _output/bin/.
#
# usage: hack/build-tools.sh [name ...]   (default: every tools module)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/_output"
mkdir -p "$out/bin" "$out/tools"

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for d in "$root"/hack/tools/*/; do
    [ -f "$d/build.sh" ] && names+=("$(basename "$d")")
  done
fi

# A tool's key hashes every file of its module (go.mod, go.sum, build.sh and
# our own mains).
key_of() {
  (cd "$root/hack/tools/$1" && find . -type f | LC_ALL=C sort | xargs sha256sum) | sha256sum | cut -c1-16
}

# Every missing tool's modules download at once before the first build:
# downloads wait on the network, not the cores, and would otherwise sit
# between the builds.
for name in "${names[@]}"; do
  if [ -f "$root/hack/tools/$name/build.sh" ] && [ ! -f "$out/tools/$name/$(key_of "$name")/.done" ]; then
    (cd "$root/hack/tools/$name" && GOFLAGS=-mod=mod go mod download >/dev/null 2>&1 || true) &
  fi
done

for name in "${names[@]}"; do
  mod="$root/hack/tools/$name"
  [ -f "$mod/build.sh" ] || { echo "no tools module $name" >&2; exit 1; }
  key=$(key_of "$name")
  dest="$out/tools/$name/$key"
  # One build of a tool at a time: .ci/run's background build and make test
  # may ask for the same tool, and the second then finds it cached.
  exec 9>"$out/tools/$name.lock"
  flock 9
  if [ ! -f "$dest/.done" ]; then
    echo ">> building tool $name (key $key)"
    rm -rf "$out/tools/$name"
    mkdir -p "$dest"
    start=$(date +%s)
    # build.sh runs inside the tools module with OUT set to the destination.
    (cd "$mod" && OUT="$dest" GOFLAGS=-mod=mod bash ./build.sh)
    touch "$dest/.done"
    echo ">> built tool $name in $(( $(date +%s) - start ))s"
  fi
  for f in "$dest"/*; do
    # (an if, not an && list: a trailing non-executable entry, such as a
    # data directory, must not become the script's exit status)
    if [ -f "$f" ] && [ -x "$f" ]; then ln -sf "$f" "$out/bin/$(basename "$f")"; fi
  done
  exec 9>&-
done
