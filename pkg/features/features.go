// Package features names the operator's feature gates and the feature sets
// that enable them, as openshift/api's features package does for the gates
// it registers. Three places read this table: the generator of the
// per-feature-set CRD manifests (hack/codegen/featuresets), the operator
// (pkg/operator, which starts a gated controller only when its gate is on)
// and the test world's stand-in for the cluster-config operator.
package features

import (
	"slices"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
)

// NodeOperatorNodeSettings gates spec.nodeSettings and status.nodeSettings
// of the NodeOperator and the controller that acts on them
// (docs/api.md, "Feature gates").
const NodeOperatorNodeSettings configv1.FeatureGateName = "NodeOperatorNodeSettings"

// Gates are every gate of this operator.
var Gates = []configv1.FeatureGateName{NodeOperatorNodeSettings}

// FeatureSet is the value of the release.openshift.io/feature-set annotation
// that selects a manifest for a cluster's FeatureGate spec.featureSet (""
// there is "Default" here, as for the CVO).
type FeatureSet string

// FeatureSets are the feature sets the CVO of this release knows: one CRD
// manifest per feature set, as openshift/api generates them.
var FeatureSets = []FeatureSet{"Default", "TechPreviewNoUpgrade", "DevPreviewNoUpgrade", "OKD", "CustomNoUpgrade"}

// enabledIn lists the fixed feature sets that enable each gate, as
// openshift/api's enableIn(...) would register it. CustomNoUpgrade enables
// only what the FeatureGate lists, so its CRD serves every gated field.
var enabledIn = map[configv1.FeatureGateName][]FeatureSet{
	NodeOperatorNodeSettings: {"TechPreviewNoUpgrade", "DevPreviewNoUpgrade"},
}

// Of is the feature set of a FeatureGate's spec.featureSet.
func Of(s configv1.FeatureSet) FeatureSet {
	if s == configv1.Default {
		return "Default"
	}
	return FeatureSet(s)
}

// EnabledIn reports whether the feature set enables the gate.
func EnabledIn(gate configv1.FeatureGateName, set FeatureSet) bool {
	return slices.Contains(enabledIn[gate], set)
}

// Served reports whether the feature set's CRD manifest serves the fields of
// the gate: where the set enables it, and in CustomNoUpgrade, where the
// FeatureGate's own list decides.
func Served(gate configv1.FeatureGateName, set FeatureSet) bool {
	return set == "CustomNoUpgrade" || EnabledIn(gate, set)
}

// FeatureSetAnnotation selects a manifest for the feature sets it lists,
// comma-separated; a manifest without it is for every feature set.
const FeatureSetAnnotation = "release.openshift.io/feature-set"

// Includes reports whether the CVO applies a manifest with these
// annotations on a cluster of the feature set (library-go's
// manifest.Include, which the CVO calls with FeatureGate cluster's
// spec.featureSet).
func Includes(annotations map[string]string, set FeatureSet) bool {
	v, ok := annotations[FeatureSetAnnotation]
	if !ok {
		return true
	}
	return slices.Contains(strings.Split(v, ","), string(set))
}
