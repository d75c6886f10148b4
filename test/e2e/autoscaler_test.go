//go:build e2e

package e2e

// Node settings rollouts beside the cluster autoscaler's double
// (framework/autoscaler.go) over kwok nodes, the MCO stand-in keeping their
// files in directories (docs/node-config.md "The cluster autoscaler").

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodesettings"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// The soak keeps a pool Verifying long enough for a removal to start and end within it.
var autoscalerArgs = []string{"--node-settings-soak=20s", "--node-settings-gate=40s", "--node-settings-update-timeout=3m"}

// inFlight samples which pools are Applying or Verifying, and when.
type inFlight struct {
	mu      sync.Mutex
	windows map[string][][2]time.Time // pool: [first, last] seen in flight, per stretch
}

func sampleInFlight(t *testing.T, c *framework.Cluster) *inFlight {
	f := &inFlight{windows: map[string][][2]time.Time{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		was := map[string]bool{}
		for {
			if no, err := c.NodeOperator(ctx); err == nil && no.Status.NodeSettings != nil {
				now := time.Now()
				f.mu.Lock()
				for _, p := range no.Status.NodeSettings.Pools {
					in := p.State == nodev1alpha1.NodeSettingsPoolState(nodesettings.Applying) || p.State == nodev1alpha1.NodeSettingsPoolState(nodesettings.Verifying)
					switch w := f.windows[p.Name]; {
					case in && was[p.Name]:
						w[len(w)-1][1] = now
					case in:
						f.windows[p.Name] = append(w, [2]time.Time{now, now})
					}
					was[p.Name] = in
				}
				f.mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return f
}

// during: t lies within a stretch in which pool was seen in flight.
func (f *inFlight) during(pool string, t time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, w := range f.windows[pool] {
		if !t.Before(w[0]) && !t.After(w[1]) {
			return true
		}
	}
	return false
}

// guarded lists the nodes that carry our guard label.
func guarded(t *testing.T, c *framework.Cluster) []string {
	l, err := framework.KubeClient(t).CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: nodesettings.GuardLabel})
	require.NoError(t, err)
	var out []string
	for _, n := range l.Items {
		out = append(out, n.Name)
	}
	return out
}

func waitPoolState(t *testing.T, c *framework.Cluster, pool string, state nodesettings.PoolState, contains string) nodev1alpha1.NodeSettingsPoolStatus {
	t.Helper()
	no := c.WaitForNodeOperator(t, nodeSettingsWait, 100*time.Millisecond, func(no *nodev1alpha1.NodeOperator) string {
		if s := no.Status.NodeSettings; s == nil || string(poolStatus(s, pool).State) != string(state) || !strings.Contains(poolStatus(s, pool).Message, contains) {
			return "pool " + pool + " not " + string(state) + " with " + contains
		}
		return ""
	})
	return poolStatus(no.Status.NodeSettings, pool)
}

// TestNodeSettingsAutoscaler: docs/test-behaviours.md.
func TestNodeSettingsAutoscaler(t *testing.T) {
	c := framework.NewCluster(t)
	requireMachineConfigAPI(t)
	framework.InstallOperatorPrerequisites(t, c.Config)
	c.ResetNodeOperator(t)
	c.PatchNodeOperatorSpec(t, map[string]interface{}{
		"metrics": map[string]interface{}{"state": "Disabled", "managementState": nil},
		"nmstate": map[string]interface{}{"state": "Disabled", "managementState": nil},
	})
	op := framework.StartOperator(t, framework.OperatorOptions{Args: autoscalerArgs})
	t.Cleanup(func() { c.ResetNodeOperator(t) })
	c.WaitForStacks(t, 2*time.Minute, map[nodev1alpha1.StackName]bool{nodev1alpha1.MetricsStack: false, nodev1alpha1.NMStateStack: false})
	deleteLeftoverMachineConfigs(t, c)
	// canary: as-1, as-2; worker: as-3, as-4 (as-4 annotated by someone else), as-5.
	nodes := []string{"as-1", "as-2", "as-3", "as-4", "as-5"}
	framework.CreateKwokNodes(t, c.Config, "worker", nodes...)
	framework.AddNodeRole(t, c.Config, "as-1", "canary")
	framework.AddNodeRole(t, c.Config, "as-2", "canary")
	kube := framework.KubeClient(t)
	_, err := kube.CoreV1().Nodes().Patch(context.Background(), "as-4", "application/merge-patch+json",
		[]byte(`{"metadata":{"annotations":{"cluster-autoscaler.kubernetes.io/scale-down-disabled":"true"}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	for _, p := range []string{"canary", "worker"} {
		framework.CreatePool(t, c.Config, p)
	}
	framework.StartMCOStandInOverFiles(t, c.Config, nodes)
	for _, p := range []string{"canary", "worker"} {
		framework.WaitStandInPool(t, c, p, "pool "+p+" rendered and updated", framework.PoolSettled)
	}
	flight := sampleInFlight(t, c)
	double := framework.StartAutoscalerDouble(t, c.Config, "node-role.kubernetes.io/worker", 200*time.Millisecond)
	tracing := func(rate int) {
		c.PatchNodeOperatorSpec(t, map[string]interface{}{"nodeSettings": map[string]interface{}{
			"tracing": map[string]interface{}{"endpoint": "127.0.0.1:4317", "crio": map[string]interface{}{"samplingRatePerMillion": rate}},
			"rollout": map[string]interface{}{"canaryPool": "canary"},
		}})
	}

	// A removal mid-step: named, left out, no rollback.
	tracing(1000)
	waitPoolState(t, c, "worker", nodesettings.Verifying, "")
	// The worker pool's selector takes the canary's nodes too (their worker role's MachineConfig changes).
	assert.Subset(t, guarded(t, c), []string{"as-1", "as-2", "as-3", "as-5"}, "the worker pool's nodes are guarded")
	assert.NotContains(t, guarded(t, c), "as-4", "a node annotated by someone else is left to them")
	double.StartRemoval(t, "as-5")
	waitPoolState(t, c, "worker", nodesettings.Verifying, "being removed: as-5")
	double.FinishRemoval(t, "as-5")
	on := waitPhase(t, c, "", nodesettings.PhaseComplete)
	assert.Contains(t, poolStatus(on, "worker").Message, "being removed: as-5", "the removed node is named after the gate passed")
	assert.Equal(t, nodev1alpha1.NodeSettingsPoolState(nodesettings.Done), poolStatus(on, "worker").State)
	framework.Eventually(t, time.Minute, 200*time.Millisecond, func() (bool, error) { return len(guarded(t, c)) == 0, nil }, "no guard of ours left")
	for _, name := range nodes[:4] {
		n, err := kube.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
		require.NoError(t, err)
		assert.NotContains(t, n.Annotations, nodesettings.GuardReasonAnnotation, name)
		assert.Equal(t, name == "as-4", n.Annotations["cluster-autoscaler.kubernetes.io/scale-down-disabled"] == "true", "node %s: only another's annotation stays", name)
	}

	// The operator killed mid-step: the restarted one finds its guards and removes them at the end.
	tracing(2000)
	waitPoolState(t, c, "canary", nodesettings.Verifying, "")
	require.NotEmpty(t, guarded(t, c))
	op.Kill()
	framework.StartOperator(t, framework.OperatorOptions{Args: autoscalerArgs})
	waitPhase(t, c, on.Target, nodesettings.PhaseComplete)
	framework.Eventually(t, time.Minute, 200*time.Millisecond, func() (bool, error) { return len(guarded(t, c)) == 0, nil }, "no guard of ours left after the restart")

	pools := map[string][]string{"as-1": {"canary", "worker"}, "as-2": {"canary", "worker"}, "as-3": {"worker"}, "as-5": {"worker"}, "worker-1": {"worker"}, "worker-2": {"worker"}}
	picks := double.Picks()
	require.NotEmpty(t, picks, "the double picks candidates while no pool is in flight")
	for _, p := range picks {
		for _, pool := range pools[p.Node] {
			assert.False(t, flight.during(pool, p.Listed), "node %s picked at %s while pool %s was in flight", p.Node, p.Listed.Format("15:04:05.000"), pool)
		}
	}
}
