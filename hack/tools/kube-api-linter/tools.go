//go:build tools

// Package tools pins kube-api-linter's standalone command: golangci-lint v2
// with the kubeapilinter module plugin compiled in.
package tools

import _ "sigs.k8s.io/kube-api-linter/cmd/golangci-lint-kube-api-linter"
