package criometrics

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

// RolloutState summarises a DaemonSet's status the way an administrator
// reads it.
type RolloutState struct {
	// Available: at least one node serves metrics, or there is no node to
	// serve (Available=False only when the stack really does not work).
	Available bool
	// Progressing: a new pod template is rolling out. Nodes joining or
	// leaving never make it true: only nodes that still run a pod of an older
	// template count.
	Progressing bool
	// TooManyUnavailable: more nodes lack metrics than a rolling update may
	// take down at once (maxUnavailable). It turns Degraded after inertia.
	TooManyUnavailable bool
	// Deploying: the DaemonSet was just created and no node serves yet.
	Deploying bool
	Message   string
}

// Rollout reads a DaemonSet's status at time now.
func Rollout(ds *appsv1.DaemonSet, now time.Time) RolloutState {
	st := ds.Status
	desired, ready := st.DesiredNumberScheduled, st.NumberAvailable
	state := RolloutState{
		Available: ready > 0 || desired == 0,
		// A node runs an outdated pod when it runs a pod (current) that is not
		// of the newest template (updated). A new node without a pod yet is in
		// neither count.
		Progressing: st.ObservedGeneration < ds.Generation || st.UpdatedNumberScheduled < st.CurrentNumberScheduled,
	}
	allowed := maxUnavailable(ds, desired)
	state.TooManyUnavailable = desired-ready > allowed

	// A DaemonSet that was just created (the stack was switched on) is
	// deploying, not broken.
	if !state.Available && now.Sub(ds.CreationTimestamp.Time) < stack.FirstRolloutGrace {
		state.Available = true
		state.Progressing = true
		state.Deploying = true
		state.TooManyUnavailable = false
		state.Message = fmt.Sprintf("deploying: %d of %d nodes serve metrics so far", ready, desired)
		return state
	}

	switch {
	case st.ObservedGeneration < ds.Generation:
		// The counts are still those of the previous template: "all
		// updated" would mislead.
		state.Message = fmt.Sprintf("rolling out a new configuration: not started yet, %d of %d nodes serving metrics", ready, desired)
	case state.Progressing:
		state.Message = fmt.Sprintf("rolling out a new configuration: %d of %d nodes updated, %d serving metrics", st.UpdatedNumberScheduled, desired, ready)
	default:
		state.Message = fmt.Sprintf("CRI-O metrics served over TLS on %d of %d nodes", ready, desired)
	}
	return state
}

func maxUnavailable(ds *appsv1.DaemonSet, desired int32) int32 {
	value := intstr.FromString("10%")
	if ru := ds.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.MaxUnavailable != nil {
		value = *ru.MaxUnavailable
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(&value, int(desired), true)
	if err != nil || n < 1 {
		n = 1
	}
	return int32(n)
}
