#!/usr/bin/env bash
# kube-api-linter (KAL) lints the NodeOperator API types against the
# Kubernetes API conventions (make verify-api-lint): KAL's analyzers in a
# command of our own (main.go) instead of golangci-lint with KAL compiled in,
# whose build is mostly linters we never enable (docs/api.md).
set -euo pipefail
go build -trimpath -ldflags "-s -w" -o "$OUT/kube-api-linter" .
