#!/usr/bin/env bash
# Builds etcd (go.etcd.io/etcd/server/v3, pinned in go.mod) into $OUT.
# Run through hack/build-tools.sh, which sets OUT and GOFLAGS=-mod=mod.
set -euo pipefail
: "${OUT:?OUT must name the output directory}"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$OUT/etcd" .
