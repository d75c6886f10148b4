package framework

import (
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
)

// SetStackState sets spec.<stack>.state of the NodeOperator "cluster",
// dropping the deprecated managementState; "" removes the knob (the platform
// default).
func (c *Cluster) SetStackState(t testing.TB, name nodev1alpha1.StackName, state nodev1alpha1.StackState) {
	t.Helper()
	var value interface{}
	if state != "" {
		value = map[string]interface{}{"state": string(state), "managementState": nil}
	}
	c.PatchNodeOperatorSpec(t, map[string]interface{}{strings.ToLower(string(name)): value})
}

// StackStatus returns the recorded decision for a stack, or nil.
func StackStatus(no *nodev1alpha1.NodeOperator, name nodev1alpha1.StackName) *nodev1alpha1.StackStatus {
	for i := range no.Status.Stacks {
		if no.Status.Stacks[i].Name == name {
			return &no.Status.Stacks[i]
		}
	}
	return nil
}

// NodeOperatorCondition returns the NodeOperator condition of the given type,
// or nil.
func NodeOperatorCondition(no *nodev1alpha1.NodeOperator, conditionType string) *operatorv1.OperatorCondition {
	for i := range no.Status.Conditions {
		if no.Status.Conditions[i].Type == conditionType {
			return &no.Status.Conditions[i]
		}
	}
	return nil
}

// WaitForNodeOperator polls the NodeOperator "cluster" every interval until
// ok, which returns what is still missing ("" when satisfied), is satisfied.
func (c *Cluster) WaitForNodeOperator(t testing.TB, timeout, interval time.Duration, ok func(*nodev1alpha1.NodeOperator) string) *nodev1alpha1.NodeOperator {
	t.Helper()
	return waitFor(t, "the NodeOperator", timeout, interval, c.NodeOperator, ok, DescribeNodeOperator)
}

// ConditionIs returns a check for WaitForNodeOperator: the condition has the
// status, and its message contains every one of contains.
func ConditionIs(conditionType string, status operatorv1.ConditionStatus, contains ...string) func(*nodev1alpha1.NodeOperator) string {
	return func(no *nodev1alpha1.NodeOperator) string {
		c := NodeOperatorCondition(no, conditionType)
		if c == nil {
			return conditionType + " is not reported"
		}
		if c.Status != status {
			return fmt.Sprintf("%s is %s, want %s", conditionType, c.Status, status)
		}
		for _, s := range contains {
			if !strings.Contains(c.Message, s) {
				return fmt.Sprintf("%s message %q does not contain %q", conditionType, c.Message, s)
			}
		}
		return ""
	}
}

// DescribeNodeOperator renders stacks and conditions for a failure message.
func DescribeNodeOperator(no *nodev1alpha1.NodeOperator) string {
	if no == nil {
		return "<no NodeOperator>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  spec: managementState=%s metrics=%q nmstate=%q\n", no.Spec.ManagementState, no.Spec.Metrics.ManagementState, no.Spec.NMState.ManagementState)
	for _, s := range no.Status.Stacks {
		fmt.Fprintf(&b, "  stack %s enabled=%t (%s): %s\n", s.Name, s.Enabled, s.Reason, s.Message)
	}
	for _, c := range no.Status.Conditions {
		fmt.Fprintf(&b, "  %s=%s (%s): %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	return b.String()
}
