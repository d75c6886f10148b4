package versioncontroller

import (
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"
)

func cond(t string, s operatorv1.ConditionStatus) operatorv1.OperatorCondition {
	return operatorv1.OperatorCondition{Type: t, Status: s}
}

func TestRolledOut(t *testing.T) {
	stacks := []string{"Metrics", "NMState"}
	for _, tc := range []struct {
		name       string
		conditions []operatorv1.OperatorCondition
		want       bool
	}{
		{"no stack reported yet", nil, false},
		{"one stack not reported", []operatorv1.OperatorCondition{cond("MetricsAvailable", operatorv1.ConditionTrue)}, false},
		{"all available, nothing progressing", []operatorv1.OperatorCondition{
			cond("MetricsAvailable", operatorv1.ConditionTrue), cond("MetricsProgressing", operatorv1.ConditionFalse),
			cond("NMStateAvailable", operatorv1.ConditionTrue), cond("NMStateProgressing", operatorv1.ConditionFalse),
			cond("StackDecisionDegraded", operatorv1.ConditionTrue),
		}, true},
		{"a rollout in progress", []operatorv1.OperatorCondition{
			cond("MetricsAvailable", operatorv1.ConditionTrue), cond("MetricsProgressing", operatorv1.ConditionTrue),
			cond("NMStateAvailable", operatorv1.ConditionTrue),
		}, false},
		{"a stack unavailable", []operatorv1.OperatorCondition{
			cond("MetricsAvailable", operatorv1.ConditionFalse), cond("NMStateAvailable", operatorv1.ConditionTrue),
		}, false},
		{"unknown progressing", []operatorv1.OperatorCondition{
			cond("MetricsAvailable", operatorv1.ConditionTrue), cond("NMStateAvailable", operatorv1.ConditionTrue),
			cond("NMStateProgressing", operatorv1.ConditionUnknown),
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, RolledOut(tc.conditions, stacks))
		})
	}
}
