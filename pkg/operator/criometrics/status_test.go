package criometrics

import (
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
			got := Rollout(tc.ds, created.Add(time.Hour))
			assert.Equal(t, tc.available, got.Available, "available")
			assert.Equal(t, tc.progressing, got.Progressing, "progressing")
			assert.Equal(t, tc.tooMany, got.TooManyUnavailable, "too many unavailable")
			assert.NotEmpty(t, got.Message)
		})
	}
}

// TestRolloutOfAnUnobservedTemplateDoesNotCountItsNodesUpdated: until the
// DaemonSet controller observes a new template, its counts are those of the
// old one; the message must not say every node is updated.
func TestRolloutOfAnUnobservedTemplateDoesNotCountItsNodesUpdated(t *testing.T) {
	got := Rollout(ds(3, 2, 250, 250, 250, 250), created.Add(time.Hour))
	assert.Equal(t, "rolling out a new configuration: not started yet, 250 of 250 nodes serving metrics", got.Message)
	got = Rollout(ds(3, 3, 250, 250, 25, 240), created.Add(time.Hour))
	assert.Equal(t, "rolling out a new configuration: 25 of 250 nodes updated, 240 serving metrics", got.Message)
}

func TestRolloutOfANewDaemonSetIsProgressingNotUnavailable(t *testing.T) {
	fresh := ds(1, 1, 3, 3, 3, 0)
	got := Rollout(fresh, created.Add(time.Minute))
	assert.True(t, got.Available, "a stack being switched on is not broken")
	assert.True(t, got.Progressing)
	assert.False(t, got.TooManyUnavailable)
	assert.Contains(t, got.Message, "deploying")
	assert.True(t, got.Deploying)

	got = Rollout(fresh, created.Add(11*time.Minute))
	assert.False(t, got.Available, "past the grace, no node serving metrics is unavailable")
	assert.True(t, got.TooManyUnavailable)
}
