package versioncontroller

import (
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

func TestNextStep(t *testing.T) {
	stacks := []string{"Metrics", "NMState"}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	ready := []operatorv1.OperatorCondition{
		cond("MetricsAvailable", operatorv1.ConditionTrue), cond("MetricsProgressing", operatorv1.ConditionFalse),
		cond("NMStateAvailable", operatorv1.ConditionTrue), cond("NMStateProgressing", operatorv1.ConditionFalse),
	}
	announced := func(ago time.Duration, extra ...operatorv1.OperatorCondition) []operatorv1.OperatorCondition {
		c := operatorv1.OperatorCondition{Type: ConditionProgressing, Status: operatorv1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-ago))}
		return append(append([]operatorv1.OperatorCondition{c}, ready...), extra...)
	}
	for _, tc := range []struct {
		name       string
		reported   string
		conditions []operatorv1.OperatorCondition
		// workloadsPending: a workload has not rolled out although no
		// condition says so (a DaemonSet's last batch between its old pods'
		// deletion and its new pods' creation).
		workloadsPending bool
		want             Step
	}{
		{"restart at the reported version: no announcement", "4.22.1", ready, false, Step{Report: true}},
		{"restart at the reported version while a workload rolls: the version stands", "4.22.1", ready, true, Step{Report: true}},
		{"upgrade: announce first", "4.22.0", ready, false, Step{Announce: true, Wait: Announce}},
		{"install: announce first", "", ready, false, Step{Announce: true, Wait: Announce}},
		{"announced a moment ago: wait", "4.22.0", announced(4 * time.Second), false, Step{Wait: Announce - 4*time.Second}},
		{"announced long enough, operands ready: report", "4.22.0", announced(Announce), false, Step{Report: true}},
		{"announced long enough, a stack still rolling out: wait for it", "4.22.0",
			announced(time.Minute, cond("NMStateProgressing", operatorv1.ConditionTrue))[0:1], false, Step{}},
		{"announced long enough, conditions settled but a DaemonSet's last batch not created: wait for it", "4.22.0",
			announced(time.Minute), true, Step{}},
		{"reported, announcement to clear", "4.22.1", announced(time.Minute), false, Step{Report: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, NextStep(tc.reported, "4.22.1", tc.conditions, stacks, !tc.workloadsPending, now))
		})
	}
}
