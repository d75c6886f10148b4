//go:build tools

// Package tools pins controller-gen, which renders the NodeOperator CRD.
package tools

import _ "sigs.k8s.io/controller-tools/cmd/controller-gen"
