#!/usr/bin/env bash
# Fails when the generated code or CRD differs from what hack/update-codegen.sh
# produces from the Go types.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
hack/update-codegen.sh
if ! git diff --exit-code -- pkg/apis pkg/generated manifests/*nodeoperators.crd.yaml bindata/nmstate/crd-nmstates.yaml; then
  echo "generated files are out of date: run 'make update-codegen' and commit the result" >&2
  exit 1
fi
