#!/usr/bin/env bash
# kube-api-linter (KAL) lints the NodeOperator API types against the
# Kubernetes API conventions (make verify-api-lint). Its standalone command is
# golangci-lint v2 with KAL compiled in as the "kubeapilinter" module plugin,
# which is what `golangci-lint custom` would build, without that command's
# git clone of golangci-lint.
set -euo pipefail
go build -trimpath -o "$OUT/" sigs.k8s.io/kube-api-linter/cmd/golangci-lint-kube-api-linter
