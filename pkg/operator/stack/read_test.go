package stack_test

import (
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient/operatorclienttest"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

// A decision made for an earlier spec generation holds the stack.
func TestReadHoldsUntilTheDecisionIsForTheCurrentSpec(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		generation, observed int64
		stacks               []nodev1alpha1.StackStatus
		wantDecided, wantOn  bool
		management           operatorv1.ManagementState
	}{
		{"decided for this spec", 3, 3, []nodev1alpha1.StackStatus{{Name: nodev1alpha1.MetricsStack, Enabled: true}}, true, true, operatorv1.Managed},
		{"decided for an earlier spec", 4, 3, []nodev1alpha1.StackStatus{{Name: nodev1alpha1.MetricsStack, Enabled: true}}, false, false, operatorv1.Managed},
		{"removed, decided for an earlier spec", 4, 3, []nodev1alpha1.StackStatus{{Name: nodev1alpha1.MetricsStack, Enabled: true}}, false, false, operatorv1.Removed},
		{"nothing recorded", 1, 1, nil, false, false, operatorv1.Managed},
	} {
		fake := operatorclienttest.New(t, clocktesting.NewFakeClock(metav1.Now().Time), &nodev1alpha1.NodeOperator{
			ObjectMeta: metav1.ObjectMeta{Generation: tc.generation},
			Spec:       nodev1alpha1.NodeOperatorSpec{OperatorSpec: operatorv1.OperatorSpec{ManagementState: tc.management}},
			Status:     nodev1alpha1.NodeOperatorStatus{OperatorStatus: operatorv1.OperatorStatus{ObservedGeneration: tc.observed}, Stacks: tc.stacks},
		})
		s, err := stack.Read(fake.NodeOperators, nodev1alpha1.MetricsStack)
		require.NoError(t, err, tc.name)
		assert.Equal(t, []bool{true, tc.wantDecided, tc.wantOn}, []bool{s.Act, s.Decided, s.Enabled}, "%s: act, decided, enabled", tc.name)
	}
}
