#!/usr/bin/env bash
# Code generators for the NodeOperator API (see hack/update-codegen.sh).
set -euo pipefail
go build -trimpath -o "$OUT/" k8s.io/code-generator/cmd/deepcopy-gen k8s.io/code-generator/cmd/applyconfiguration-gen k8s.io/kube-openapi/cmd/openapi-gen
