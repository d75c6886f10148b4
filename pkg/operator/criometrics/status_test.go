package criometrics

import (
	"cmp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var created = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ds(generation, observed int64, desired, current, updated, available int32) *appsv1.DaemonSet {
	d := &appsv1.DaemonSet{}
	d.Generation = generation
	d.CreationTimestamp = metav1.NewTime(created)
	d.Status = appsv1.DaemonSetStatus{
		ObservedGeneration: observed, DesiredNumberScheduled: desired, CurrentNumberScheduled: current,
		UpdatedNumberScheduled: updated, NumberAvailable: available,
	}
	return d
}

// Rollout, an hour after the DaemonSet's creation unless a case says
// otherwise. Until the DaemonSet controller observes a new template, its
// counts are those of the old one: the message must not say every node is
// updated. A DaemonSet being switched on is deploying, not broken, for its
// first-rollout grace.
func TestRollout(t *testing.T) {
	for _, tc := range []struct {
		name                            string
		ds                              *appsv1.DaemonSet
		available, progressing, tooMany bool
		message                         string // a part of it
		at                              time.Duration
	}{
		{name: "steady", ds: ds(2, 2, 10, 10, 10, 10), available: true},
		{name: "spec not yet observed", ds: ds(3, 2, 10, 10, 10, 10), available: true, progressing: true},
		{name: "rolling out", ds: ds(3, 3, 10, 10, 4, 9), available: true, progressing: true},
		{name: "rolling out, a node between old and new pod", ds: ds(3, 3, 10, 9, 4, 9), available: true, progressing: true},
		{name: "node joined, no pod yet: not progressing", ds: ds(2, 2, 11, 10, 10, 10), available: true},
		{name: "node joined, pod not ready: not progressing", ds: ds(2, 2, 11, 11, 11, 10), available: true},
		{name: "node left", ds: ds(2, 2, 9, 9, 9, 9), available: true},
		{name: "5000 nodes, 500 joining", ds: ds(2, 2, 5000, 4500, 4500, 4500), available: true},
		{name: "no node serves", ds: ds(2, 2, 3, 3, 3, 0), tooMany: true},
		{name: "no nodes at all", ds: ds(1, 1, 0, 0, 0, 0), available: true},
		{name: "more than 10% down", ds: ds(2, 2, 20, 20, 20, 17), available: true, tooMany: true},
		{name: "10% down", ds: ds(2, 2, 20, 20, 20, 18), available: true},
		{name: "small cluster, one node down", ds: ds(2, 2, 3, 3, 3, 2), available: true},
		{name: "template not observed", ds: ds(3, 2, 250, 250, 250, 250), available: true, progressing: true,
			message: "rolling out a new configuration: not started yet, 250 of 250 nodes serving metrics"},
		{name: "template observed", ds: ds(3, 3, 250, 250, 25, 240), available: true, progressing: true,
			message: "rolling out a new configuration: 25 of 250 nodes updated, 240 serving metrics"},
		{name: "new DaemonSet", ds: ds(1, 1, 3, 3, 3, 0), at: time.Minute, available: true, progressing: true, message: "deploying"},
		{name: "new DaemonSet past the grace", ds: ds(1, 1, 3, 3, 3, 0), at: 11 * time.Minute, tooMany: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Rollout(tc.ds, created.Add(cmp.Or(tc.at, time.Hour)))
			assert.Equal(t, tc.available, got.Available, "available")
			assert.Equal(t, tc.progressing, got.Progressing, "progressing")
			assert.Equal(t, tc.tooMany, got.TooManyUnavailable, "too many unavailable")
			assert.Equal(t, tc.message == "deploying", got.Deploying, "deploying")
			assert.Contains(t, got.Message, tc.message)
			assert.NotEmpty(t, got.Message)
		})
	}
}
