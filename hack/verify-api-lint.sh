#!/usr/bin/env bash
# Lints the NodeOperator API types with kube-api-linter (KAL) and the settings
# of .golangci-kal.yaml (docs/api.md). Fails on any finding that the file does
# not exclude.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
hack/build-tools.sh kube-api-linter >/dev/null
# The vendored packages, as for every other build of the repo.
GOFLAGS=-mod=vendor exec "$root/_output/bin/kube-api-linter" \
  -config "$root/.golangci-kal.yaml" ./pkg/apis/...
