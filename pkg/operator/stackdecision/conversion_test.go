package stackdecision

import (
	"testing"

	"github.com/stretchr/testify/assert"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

func TestConvertStackConfig(t *testing.T) {
	const (
		on, off       = nodev1alpha1.StackEnabled, nodev1alpha1.StackDisabled
		managed, gone = nodev1alpha1.StackManaged, nodev1alpha1.StackRemoved
	)
	for _, tc := range []struct {
		name string
		in   nodev1alpha1.StackConfig
		want nodev1alpha1.StackConfig
	}{
		{"omitted stays omitted", nodev1alpha1.StackConfig{}, nodev1alpha1.StackConfig{}},
		{"old Managed", nodev1alpha1.StackConfig{ManagementState: managed}, nodev1alpha1.StackConfig{State: on, ManagementState: managed}},
		{"old Removed", nodev1alpha1.StackConfig{ManagementState: gone}, nodev1alpha1.StackConfig{State: off, ManagementState: gone}},
		{"new Enabled gets its mirror", nodev1alpha1.StackConfig{State: on}, nodev1alpha1.StackConfig{State: on, ManagementState: managed}},
		{"new Disabled gets its mirror", nodev1alpha1.StackConfig{State: off}, nodev1alpha1.StackConfig{State: off, ManagementState: gone}},
		{"state wins over a stale mirror", nodev1alpha1.StackConfig{State: on, ManagementState: gone}, nodev1alpha1.StackConfig{State: on, ManagementState: managed}},
		{"converted is left alone", nodev1alpha1.StackConfig{State: off, ManagementState: gone}, nodev1alpha1.StackConfig{State: off, ManagementState: gone}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ConvertStackConfig(tc.in))
		})
	}
}

func TestSpecPatch(t *testing.T) {
	no := &nodev1alpha1.NodeOperator{}
	no.ResourceVersion = "42"
	no.Spec.Metrics.ManagementState = nodev1alpha1.StackRemoved
	no.Spec.NMState = nodev1alpha1.StackConfig{State: nodev1alpha1.StackEnabled, ManagementState: nodev1alpha1.StackManaged}
	assert.JSONEq(t, `{"metadata":{"resourceVersion":"42"},"spec":{"metrics":{"state":"Disabled","managementState":"Removed"}}}`, string(SpecPatch(no)))

	no.Spec = ConvertSpec(no.Spec)
	assert.Nil(t, SpecPatch(no), "a converted spec is not written again")
}

func TestConvertStatus(t *testing.T) {
	for _, tc := range []struct {
		in   nodev1alpha1.StackStatus
		want nodev1alpha1.StackState
	}{
		{nodev1alpha1.StackStatus{Enabled: true}, nodev1alpha1.StackEnabled},
		{nodev1alpha1.StackStatus{Enabled: false}, nodev1alpha1.StackDisabled},
		{nodev1alpha1.StackStatus{State: nodev1alpha1.StackEnabled, Enabled: true}, nodev1alpha1.StackEnabled},
		{nodev1alpha1.StackStatus{State: nodev1alpha1.StackDisabled}, nodev1alpha1.StackDisabled},
	} {
		assert.Equal(t, tc.want, stack.ConvertStatus(tc.in).State, "%+v", tc.in)
	}
}
