//go:build tools

// Package tools vendors build-machinery-go, whose make fragments the Makefile
// includes.
package tools

import _ "github.com/openshift/build-machinery-go"
