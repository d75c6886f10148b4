#!/usr/bin/env bash
# Builds otlp-receiver (this module's main: an OTLP/gRPC trace receiver that
# writes one JSON line per span) into $OUT. Run by hack/build-tools.sh.
set -euo pipefail
: "${OUT:?OUT must name the output directory}"

# Build exactly what go.mod/go.sum pin; never rewrite them during a build.
export GOFLAGS="-mod=readonly -buildvcs=false"
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$OUT/otlp-receiver" .
