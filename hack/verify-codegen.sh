#!/usr/bin/env bash
# Fails when the generated code or CRDs differ from what hack/update-codegen.sh
# produces from the Go types (including a file it adds or no longer writes).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
hack/update-codegen.sh
paths=(pkg/apis pkg/generated 'manifests/*nodeoperators*.crd.yaml' bindata/nmstate/crd-nmstates.yaml)
if [ -n "$(git status --porcelain -- "${paths[@]}")" ]; then
  git status --short -- "${paths[@]}" >&2
  git diff -- "${paths[@]}" >&2
  echo "generated files are out of date: run 'make update-codegen' and commit the result" >&2
  exit 1
fi
