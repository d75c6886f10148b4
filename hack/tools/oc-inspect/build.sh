#!/usr/bin/env bash
# Builds oc-inspect (this module's main: `oc adm inspect` of the openshift/oc
# pinned in go.mod) into $OUT. Run by hack/build-tools.sh.
set -euo pipefail
: "${OUT:?OUT must name the output directory}"

# Build exactly what go.mod/go.sum pin; never rewrite them during a build.
export GOFLAGS="-mod=readonly -buildvcs=false"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$OUT/oc-inspect" .
