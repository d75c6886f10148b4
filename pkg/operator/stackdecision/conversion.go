package stackdecision

import (
	"encoding/json"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
)

// The stack knob moved from managementState (Managed, Removed, "") to state
// (Enabled, Disabled, omitted) within v1alpha1, which has a single served
// version and so no conversion webhook: the operator converts what it reads
// (docs/api.md, "Compatibility").

// ConvertStackConfig returns a stack's knob in its current spelling: state
// set from the deprecated managementState when state is omitted, and
// managementState kept in step with state, so that an operator of the
// previous release (which reads only managementState) acts on the same choice
// after a downgrade. state wins when both are set; "" means omitted.
func ConvertStackConfig(c nodev1alpha1.StackConfig) nodev1alpha1.StackConfig {
	state := c.State
	if state == "" {
		switch c.ManagementState {
		case nodev1alpha1.StackManaged:
			state = nodev1alpha1.StackEnabled
		case nodev1alpha1.StackRemoved:
			state = nodev1alpha1.StackDisabled
		}
	}
	out := nodev1alpha1.StackConfig{State: state}
	switch state {
	case nodev1alpha1.StackEnabled:
		out.ManagementState = nodev1alpha1.StackManaged
	case nodev1alpha1.StackDisabled:
		out.ManagementState = nodev1alpha1.StackRemoved
	}
	return out
}

// ConvertSpec converts every stack knob of spec.
func ConvertSpec(spec nodev1alpha1.NodeOperatorSpec) nodev1alpha1.NodeOperatorSpec {
	spec.Metrics = ConvertStackConfig(spec.Metrics)
	spec.NMState = ConvertStackConfig(spec.NMState)
	return spec
}

// SpecPatch is the JSON merge patch that writes the converted knobs, guarded
// by resourceVersion so that it never overwrites an edit it has not seen; nil
// when spec is already converted, so steady state writes nothing.
func SpecPatch(nodeOperator *nodev1alpha1.NodeOperator) []byte {
	stacks := map[string]any{}
	for field, c := range map[string]nodev1alpha1.StackConfig{"metrics": nodeOperator.Spec.Metrics, "nmstate": nodeOperator.Spec.NMState} {
		// A stored managementState "" reads as omitted, as it always
		// meant, and is left alone: it is valid where it is stored.
		if want := ConvertStackConfig(c); want != c {
			stacks[field] = want
		}
	}
	if len(stacks) == 0 {
		return nil
	}
	patch, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": nodeOperator.ResourceVersion},
		"spec":     stacks,
	})
	return patch
}
