//go:build e2e

// Package e2e holds the end-to-end tests, run against a real control plane
// (docs/testing.md says how).
package e2e

import (
	"os"
	"testing"

	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// TestMain runs every test under the suite monitor, which applies origin's
// ClusterOperator invariants to clusteroperator/node throughout the run and
// fails the test during which one broke (framework/suitemonitor.go; tests
// that break the operator on purpose declare it with
// framework.ExpectDisruption).
func TestMain(m *testing.M) {
	os.Exit(framework.RunMonitored(m))
}
