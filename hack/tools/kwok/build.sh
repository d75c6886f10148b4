#!/usr/bin/env bash
# Builds kwok (the controller that simulates nodes and the lifecycle of their
# pods) and kwokctl (which runs the local control plane with its binary
# runtime, hack/local-cluster.sh) from sigs.k8s.io/kwok, pinned in go.mod, into
# $OUT. kwokctl gives kwok its default stages (those of the module's
# kustomize/stage/fast plus node-heartbeat-with-lease).
# Run through hack/build-tools.sh, which sets OUT and GOFLAGS=-mod=mod.
set -euo pipefail
: "${OUT:?OUT must name the output directory}"

CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$OUT/" \
  sigs.k8s.io/kwok/cmd/kwok sigs.k8s.io/kwok/cmd/kwokctl
