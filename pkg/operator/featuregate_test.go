package operator

import (
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/openshift/library-go/pkg/operator/configobserver/featuregates"
	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/cluster-node-operator/pkg/features"
)

// TestGateEnabled: the FeatureGate's status decides where it lists the
// gate; elsewhere the feature set, as the CRD manifest applied for it.
func TestGateEnabled(t *testing.T) {
	gate := features.NodeOperatorNodeSettings
	enabled := featuregates.NewFeatureGate([]configv1.FeatureGateName{gate}, nil)
	disabled := featuregates.NewFeatureGate(nil, []configv1.FeatureGateName{gate})
	notListed := featuregates.NewFeatureGate([]configv1.FeatureGateName{"SomeOtherGate"}, nil)
	for _, tc := range []struct {
		name  string
		gates featuregates.FeatureGate
		set   configv1.FeatureSet
		want  bool
	}{
		{"Default, not listed", notListed, configv1.Default, false},
		{"OKD, not listed", notListed, configv1.OKD, false},
		{"TechPreviewNoUpgrade, not listed", notListed, configv1.TechPreviewNoUpgrade, true},
		{"DevPreviewNoUpgrade, not listed", notListed, configv1.DevPreviewNoUpgrade, true},
		{"CustomNoUpgrade, not listed", notListed, configv1.CustomNoUpgrade, false},
		{"CustomNoUpgrade, enabled", enabled, configv1.CustomNoUpgrade, true},
		{"CustomNoUpgrade, disabled", disabled, configv1.CustomNoUpgrade, false},
		// Once openshift/api registers the gate, its status wins.
		{"TechPreviewNoUpgrade, listed disabled", disabled, configv1.TechPreviewNoUpgrade, false},
		{"Default, listed enabled", enabled, configv1.Default, true},
	} {
		assert.Equal(t, tc.want, gateEnabled(tc.gates, features.Of(tc.set), gate), tc.name)
	}
}

// TestFeatureSetChanged: only a change of spec.featureSet of FeatureGate
// cluster ends the process.
func TestFeatureSetChanged(t *testing.T) {
	for gate, want := range map[*configv1.FeatureGate]bool{
		featureGate("cluster", configv1.Default):              false,
		featureGate("cluster", configv1.TechPreviewNoUpgrade): true,
		featureGate("other", configv1.TechPreviewNoUpgrade):   false,
	} {
		_, got := featureSetChanged(gate, "Default")
		assert.Equal(t, want, got, "FeatureGate %s, feature set %s", gate.Name, gate.Spec.FeatureSet)
	}
}

func featureGate(name string, set configv1.FeatureSet) *configv1.FeatureGate {
	return &configv1.FeatureGate{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: configv1.FeatureGateSpec{FeatureGateSelection: configv1.FeatureGateSelection{FeatureSet: set}}}
}
