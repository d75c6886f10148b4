package testsext

import (
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
)

// TestExpectedStacks: the decision the OTE test expects is the README's platform table.
func TestExpectedStacks(t *testing.T) {
	infra := func(p configv1.PlatformType, topology configv1.TopologyMode) *configv1.Infrastructure {
		return &configv1.Infrastructure{Status: configv1.InfrastructureStatus{PlatformStatus: &configv1.PlatformStatus{Type: p}, ControlPlaneTopology: topology}}
	}
	deprecated := &configv1.Infrastructure{Status: configv1.InfrastructureStatus{Platform: configv1.BareMetalPlatformType}}
	on, off := nodev1alpha1.StackConfig{State: "Enabled"}, nodev1alpha1.StackConfig{State: "Disabled"}
	for _, c := range []struct {
		name             string
		infra            *configv1.Infrastructure
		spec             nodev1alpha1.NodeOperatorSpec
		metrics, nmstate bool
	}{
		{"BareMetal: both", infra("BareMetal", "HighlyAvailable"), nodev1alpha1.NodeOperatorSpec{}, true, true},
		{"deprecated status.platform BareMetal", deprecated, nodev1alpha1.NodeOperatorSpec{}, true, true},
		{"AWS: metrics only", infra("AWS", "HighlyAvailable"), nodev1alpha1.NodeOperatorSpec{}, true, false},
		{"AWS opted in", infra("AWS", "SingleReplica"), nodev1alpha1.NodeOperatorSpec{NMState: on}, true, true},
		{"BareMetal opted out", infra("BareMetal", "HighlyAvailable"), nodev1alpha1.NodeOperatorSpec{Metrics: off, NMState: off}, false, false},
		{"hosted, even opted in", infra("BareMetal", "External"), nodev1alpha1.NodeOperatorSpec{Metrics: on, NMState: on}, false, false},
		{"operator Removed", infra("None", "HighlyAvailable"), nodev1alpha1.NodeOperatorSpec{OperatorSpec: operatorv1.OperatorSpec{ManagementState: operatorv1.Removed}, Metrics: on}, false, false},
	} {
		got := expectedStacks(c.infra, c.spec)
		if got["Metrics"] != c.metrics || got["NMState"] != c.nmstate {
			t.Errorf("%s: got %v, want Metrics %v NMState %v", c.name, got, c.metrics, c.nmstate)
		}
	}
}
