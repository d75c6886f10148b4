#!/usr/bin/env bash
# controller-gen renders the NodeOperator CRD from the Go types.
set -euo pipefail
go build -trimpath -o "$OUT/" sigs.k8s.io/controller-tools/cmd/controller-gen
