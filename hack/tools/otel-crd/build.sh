#!/usr/bin/env bash
# Copies the OpenTelemetryCollector CRD of the pinned OpenTelemetry operator
# module (go.mod) into $OUT, for the e2e tests to serve. Run through
# hack/build-tools.sh, which sets OUT and GOFLAGS=-mod=mod.
set -euo pipefail
: "${OUT:?OUT must name the output directory}"
module=github.com/open-telemetry/opentelemetry-operator
go mod download "$module"
dir=$(go list -m -f '{{.Dir}}' "$module")
install -m 0644 "$dir/config/crd/bases/opentelemetry.io_opentelemetrycollectors.yaml" "$OUT/"
