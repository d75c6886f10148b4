package criometrics

import (
	"testing"

	"github.com/stretchr/testify/assert"
	appsv1 "k8s.io/api/apps/v1"
)

func ds(generation, observed int64, desired, current, updated, available int32) *appsv1.DaemonSet {
	d := &appsv1.DaemonSet{}
	d.Generation = generation
	d.Status = appsv1.DaemonSetStatus{
		ObservedGeneration: observed, DesiredNumberScheduled: desired, CurrentNumberScheduled: current,
		UpdatedNumberScheduled: updated, NumberAvailable: available,
	}
	return d
}

func TestRollout(t *testing.T) {
	for _, tc := range []struct {
		name                            string
		ds                              *appsv1.DaemonSet
		available, progressing, tooMany bool
	}{
		{"steady", ds(2, 2, 10, 10, 10, 10), true, false, false},
		{"spec not yet observed", ds(3, 2, 10, 10, 10, 10), true, true, false},
		{"rolling out", ds(3, 3, 10, 10, 4, 9), true, true, false},
		{"rolling out, a node between old and new pod", ds(3, 3, 10, 9, 4, 9), true, true, false},
		{"node joined, no pod yet: not progressing", ds(2, 2, 11, 10, 10, 10), true, false, false},
		{"node joined, pod not ready: not progressing", ds(2, 2, 11, 11, 11, 10), true, false, false},
		{"node left", ds(2, 2, 9, 9, 9, 9), true, false, false},
		{"5000 nodes, 500 joining", ds(2, 2, 5000, 4500, 4500, 4500), true, false, false},
		{"no node serves", ds(2, 2, 3, 3, 3, 0), false, false, true},
		{"no nodes at all", ds(1, 1, 0, 0, 0, 0), true, false, false},
		{"more than 10% down", ds(2, 2, 20, 20, 20, 17), true, false, true},
		{"10% down", ds(2, 2, 20, 20, 20, 18), true, false, false},
		{"small cluster, one node down", ds(2, 2, 3, 3, 3, 2), true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Rollout(tc.ds)
			assert.Equal(t, tc.available, got.Available, "available")
			assert.Equal(t, tc.progressing, got.Progressing, "progressing")
			assert.Equal(t, tc.tooMany, got.TooManyUnavailable, "too many unavailable")
			assert.NotEmpty(t, got.Message)
		})
	}
}
