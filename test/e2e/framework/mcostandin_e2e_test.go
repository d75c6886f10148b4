//go:build e2e

package framework

// The self-test of the MCO stand-in, the test double of MCO's pool
// machinery (mcostandin.go, docs/mco-standin.md), over two
// simulated nodes with real CRI-O: worker-1 in pool worker, worker-2 in the
// custom pool canary. No operator runs.

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const (
	standInCRIODropIn    = "/etc/crio/crio.conf.d/70-e2e-standin.conf"
	standInKubeletDropIn = "/etc/openshift/kubelet.conf.d/70-e2e-standin.conf"
	standInWorkerMC      = "70-worker-e2e-standin"
	standInCanaryMC      = "71-canary-e2e-standin"
)

// standInMachineConfig is a MachineConfig of role with files (path ->
// contents).
func standInMachineConfig(name, role string, files map[string]string) *unstructured.Unstructured {
	var fs []interface{}
	for p, c := range files {
		fs = append(fs, map[string]interface{}{
			"path": p, "mode": int64(0o644), "overwrite": true,
			"contents": map[string]interface{}{"source": "data:," + url.PathEscape(c)},
		})
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "machineconfiguration.openshift.io/v1",
		"kind":       "MachineConfig",
		"metadata":   map[string]interface{}{"name": name, "labels": map[string]interface{}{"machineconfiguration.openshift.io/role": role}},
		"spec": map[string]interface{}{"config": map[string]interface{}{
			"ignition": map[string]interface{}{"version": "3.2.0"},
			"storage":  map[string]interface{}{"files": fs},
		}},
	}}
}

// applyStandInMachineConfig creates or replaces a MachineConfig, deleted
// when the test ends.
func applyStandInMachineConfig(t *testing.T, c *Cluster, mc *unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	res := c.Dynamic.Resource(mcGVR)
	cur, err := res.Get(ctx, mc.GetName(), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = res.Create(ctx, mc, metav1.CreateOptions{})
		require.NoError(t, err)
		t.Cleanup(func() {
			if err := res.Delete(context.Background(), mc.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting MachineConfig %s: %v", mc.GetName(), err)
			}
		})
	case err != nil:
		t.Fatal(err)
	default:
		mc.SetResourceVersion(cur.GetResourceVersion())
		_, err = res.Update(ctx, mc, metav1.UpdateOptions{})
		require.NoError(t, err)
	}
}

func deleteStandInMachineConfig(t *testing.T, c *Cluster, name string) {
	t.Helper()
	err := c.Dynamic.Resource(mcGVR).Delete(context.Background(), name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
}

// sinceEvents returns the events after the first n.
func sinceEvents(s *MCOStandIn, n int) []MCOEvent { return s.Events()[n:] }

// updatingThenUpdated: the pool's Updating event for target comes before
// its Updated event for target.
func updatingThenUpdated(events []MCOEvent, pool, target string) bool {
	updating := -1
	for i, e := range events {
		if e.Pool != pool || !strings.HasSuffix(e.Detail, target) {
			continue
		}
		if e.Kind == MCOPoolUpdating && updating < 0 {
			updating = i
		}
		if e.Kind == MCOPoolUpdated && updating >= 0 {
			return true
		}
	}
	return false
}

// TestMCOStandIn: the stand-in renders pools worker and canary (role in
// (worker, canary)); its daemons wait while MachineConfiguration cluster's
// status does not list the policy entries for the object's generation
// (they are in the spec only); then it rolls a valid CRI-O and kubelet
// drop-in out with a CRI-O restart per node, a kubelet restart for the
// kubelet's drop-in and one more because CRI-O restarted (kubelet.service
// Requires=crio.service), and no reboot; it lets a canary
// MachineConfig win on the canary pool, degrades the canary node and pool
// when the drop-in makes the real CRI-O fail (files rolled back, CRI-O
// back, no retry), recovers when the MachineConfig is reverted or
// removed, and drains and reboots (recorded) for a file the status has no
// entry for.
func TestMCOStandIn(t *testing.T) {
	start := time.Now()
	x := startStandInTest(t)
	// Stopped before the cleanups take the test's MachineConfigs and policy
	// entries away, so that it does not roll their removal out.
	defer x.s.Stop()
	for _, step := range []func(*testing.T){x.policyStatusThenRoll, x.canaryMachineConfigWins, x.refusedDropInDegrades,
		x.revertRecovers, x.removalRemovesDropIns, x.noPolicyEntryReboots} {
		step(t)
	}
	t.Logf("TestMCOStandIn took %s", time.Since(start).Round(time.Millisecond))
}

const (
	workerNode, canaryNode = "worker-1", "worker-2"
	validWorker            = "# e2e: the MCO stand-in's self-test\n[crio.tracing]\nenable_tracing = false\n"
	validCanary            = "# e2e: the canary's own\n[crio.tracing]\nenable_tracing = false\n"
)

// standInTest is the world of TestMCOStandIn and the pools as its steps
// found them.
type standInTest struct {
	c                  *Cluster
	s                  *MCOStandIn
	w, k               *PlatformNode
	nodes              map[string]*PlatformNode
	w0, k0, w1, k1, k2 MCOPool
}

func startStandInTest(t *testing.T) *standInTest {
	t.Helper()
	c := NewCluster(t)
	if !Served(t, KubeClient(t), mcGVR) {
		t.Fatal("machineconfiguration.openshift.io/v1 is not served (hack/local-cluster.sh with LCP_MACHINECONFIG_CRDS=1)")
	}
	if !Served(t, KubeClient(t), MachineConfigurationGVR) {
		t.Fatalf("operator.openshift.io/v1 machineconfigurations is not served (LCP_MACHINECONFIG_CRDS=0?)")
	}
	for _, n := range []string{workerNode, canaryNode} {
		if _, err := KubeClient(t).CoreV1().Nodes().Get(context.Background(), n, metav1.GetOptions{}); err != nil {
			t.Fatalf("the local world needs nodes %s and %s (hack/local-cluster.sh, LCP_NODES>=3): %v", workerNode, canaryNode, err)
		}
	}

	// The stand-in renders a pool from every MachineConfig of its role, and
	// this test names the sources it expects: it starts from none. Earlier
	// tests stop the operator and leave its MachineConfigs (such as
	// 50-worker-crio-metrics-tls); the next test's operator applies them
	// again.
	mcs := c.Dynamic.Resource(mcGVR)
	left, err := mcs.List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	for _, mc := range left.Items {
		t.Logf("removing MachineConfig %s, left by an earlier test", mc.GetName())
		require.NoError(t, mcs.Delete(context.Background(), mc.GetName(), metav1.DeleteOptions{}))
	}

	// The world: MCO's namespace and 01-<role>-container-runtime (CRI-O's
	// 00-default), pools worker and canary, the two nodes with real CRI-O.
	pki := NewPlatformPKI(t)
	InstallPlatformContainerRuntime(t, c.Config, []string{workerNode, canaryNode})
	AddNodeRole(t, c.Config, canaryNode, "canary")
	CreatePool(t, c.Config, "worker")
	CreatePool(t, c.Config, "canary")
	w := StartPlatformNode(t, c.Config, pki, workerNode)
	k := StartPlatformNode(t, c.Config, pki, canaryNode)
	nodes := map[string]*PlatformNode{workerNode: w, canaryNode: k}
	s := StartMCOStandIn(t, c.Config, []*PlatformNode{w, k})

	// Rendered from 01-worker-container-runtime; nodes adopted as they are.
	w0 := WaitStandInPool(t, c, "worker", "pool worker rendered and updated", PoolSettled)
	k0 := WaitStandInPool(t, c, "canary", "pool canary rendered and updated", PoolSettled)
	assert.Equal(t, []string{"01-worker-container-runtime"}, w0.Source)
	assert.Equal(t, []string{"01-worker-container-runtime"}, k0.Source)
	assert.EqualValues(t, 1, w0.MachineCount, "worker-2 is in pool canary, not worker")
	assert.EqualValues(t, 1, k0.MachineCount)
	assert.Equal(t, strings.TrimPrefix(w0.Target, "rendered-worker-"), strings.TrimPrefix(k0.Target, "rendered-canary-"), "same MachineConfigs, same hash")
	for name, pool := range map[string]MCOPool{workerNode: w0, canaryNode: k0} {
		node, err := KubeClient(t).CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, pool.Target, node.Annotations[MCOCurrentConfigAnnotation], name)
		assert.Equal(t, pool.Target, node.Annotations[MCODesiredConfigAnnotation], name)
		assert.Equal(t, MCOStateDone, node.Annotations[MCOStateAnnotation], name)
		st, _, cur, des := MCONodeCondition(t, c.Config, name, "Updated")
		assert.Equal(t, "True", st, "MachineConfigNode %s Updated", name)
		assert.Equal(t, pool.Target, cur)
		assert.Equal(t, pool.Target, des)
	}

	return &standInTest{c: c, s: s, w: w, k: k, nodes: nodes, w0: w0, k0: k0}
}

// policyStatusThenRoll: a valid CRI-O drop-in and a kubelet drop-in for the worker role,
// with their policy entries first, but in the spec only (MCO's
// operator part off): the pools target the new config, the daemons
// wait. Once the status lists the entries, both pools roll: one CRI-O
// restart, the kubelet restarted twice (its drop-in; CRI-O's restart)
// per node, no reboot.
func (x *standInTest) policyStatusThenRoll(t *testing.T) {
	c, s, nodes, w0, k0 := x.c, x.s, x.nodes, x.w0, x.k0
	s.SetOperatorPart(false)
	ApplyStandInPolicy(t, c, map[string]string{standInCRIODropIn: "crio.service", standInKubeletDropIn: "kubelet.service"})
	const kubeletDropIn = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
	n0 := len(s.Events())
	applyStandInMachineConfig(t, c, standInMachineConfig(standInWorkerMC, "worker", map[string]string{standInCRIODropIn: validWorker, standInKubeletDropIn: kubeletDropIn}))
	WaitStandInPool(t, c, "worker", "pool worker targets "+standInWorkerMC, func(p MCOPool) bool {
		return p.Target != w0.Target && p.Condition("Updating")
	})
	time.Sleep(3 * time.Second)
	for name := range nodes {
		assert.Zero(t, CountEvents(sinceEvents(s, n0), name, MCOFileWritten, ""), "node %s updated while the policy is in the spec only", name)
	}
	assert.Zero(t, s.Reboots(), "no node rebooted while the status lacks the entries")
	s.SetOperatorPart(true)
	x.w1 = WaitStandInPool(t, c, "worker", "pool worker updated with "+standInWorkerMC, func(p MCOPool) bool {
		return PoolSettled(p) && p.Target != w0.Target
	})
	x.k1 = WaitStandInPool(t, c, "canary", "pool canary updated with "+standInWorkerMC, func(p MCOPool) bool {
		return PoolSettled(p) && p.Target != k0.Target
	})
	assert.Equal(t, []string{"01-worker-container-runtime", standInWorkerMC}, x.w1.Source)
	ev := sinceEvents(s, n0)
	assert.True(t, updatingThenUpdated(ev, "worker", x.w1.Target), "pool worker: Updating, then Updated")
	assert.True(t, updatingThenUpdated(ev, "canary", x.k1.Target), "pool canary: Updating, then Updated")
	for name, n := range nodes {
		got, err := CRIODropIn(n, standInCRIODropIn)
		require.NoError(t, err, "node %s: the drop-in in CRI-O's directory", name)
		assert.Equal(t, validWorker, got, name)
		kb, err := os.ReadFile(n.HostPath(standInKubeletDropIn))
		require.NoError(t, err, "node %s: the kubelet drop-in", name)
		assert.Equal(t, kubeletDropIn, string(kb))
		assert.Equal(t, 1, CountEvents(ev, name, MCOServiceRestarted, "crio.service"), "node %s: one CRI-O restart", name)
		assert.Equal(t, 1, CountEvents(ev, name, MCOServiceRestarted, "kubelet.service"), "node %s: one kubelet restart for its drop-in", name)
		assert.Equal(t, 1, CountEvents(ev, name, MCODependentRestarted, "kubelet.service"), "node %s: one more kubelet restart with CRI-O's", name)
		assert.NoError(t, CRIOHealthy(n), "node %s: CRI-O healthy", name)
	}
	assert.Equal(t, 1, CountEvents(ev, "", MCOPolicyStatusSynced, ""), "the status computed once for the new generation")
	assert.Zero(t, s.Reboots(), "no node rebooted")
	assert.Zero(t, CountEvents(ev, "", MCODrained, ""), "no node drained")
}

// canaryMachineConfigWins: a canary MachineConfig for the same path wins on the canary pool;
// the worker pool and its node are untouched.
func (x *standInTest) canaryMachineConfigWins(t *testing.T) {
	c, s, w, k, w1, k1 := x.c, x.s, x.w, x.k, x.w1, x.k1
	n1 := len(s.Events())
	applyStandInMachineConfig(t, c, standInMachineConfig(standInCanaryMC, "canary", map[string]string{standInCRIODropIn: validCanary}))
	x.k2 = WaitStandInPool(t, c, "canary", "pool canary updated with "+standInCanaryMC, func(p MCOPool) bool {
		return PoolSettled(p) && p.Target != k1.Target
	})
	assert.Equal(t, []string{"01-worker-container-runtime", standInWorkerMC, standInCanaryMC}, x.k2.Source)
	got, err := CRIODropIn(k, standInCRIODropIn)
	require.NoError(t, err)
	assert.Equal(t, validCanary, got, "the canary's MachineConfig wins on the canary pool")
	got, err = CRIODropIn(w, standInCRIODropIn)
	require.NoError(t, err)
	assert.Equal(t, validWorker, got, "the worker node keeps the worker's drop-in")
	ev := sinceEvents(s, n1)
	assert.Zero(t, CountEvents(ev, workerNode, "", ""), "nothing happens on %s", workerNode)
	assert.Equal(t, w1.Target, GetMCOPool(t, c.Config, "worker").Target)
	assert.Equal(t, 1, CountEvents(ev, canaryNode, MCOServiceRestarted, "crio.service"))
	assert.Zero(t, CountEvents(ev, canaryNode, MCOServiceRestarted, "kubelet.service"), "the kubelet drop-in did not change")
	assert.Equal(t, 1, CountEvents(ev, canaryNode, MCODependentRestarted, "kubelet.service"), "the kubelet restarts with CRI-O")
}

// refusedDropInDegrades: a drop-in CRI-O refuses (a string where it wants a boolean): the
// restart fails, the files go back, CRI-O comes back with them; the
// node and the canary pool are degraded and nothing is retried.
func (x *standInTest) refusedDropInDegrades(t *testing.T) {
	c, s, k, k2 := x.c, x.s, x.k, x.k2
	const invalid = "# e2e: CRI-O refuses this\n[crio.tracing]\nenable_tracing = \"yes\"\n"
	n2 := len(s.Events())
	applyStandInMachineConfig(t, c, standInMachineConfig(standInCanaryMC, "canary", map[string]string{standInCRIODropIn: invalid}))
	k3 := WaitStandInPool(t, c, "canary", "pool canary degraded", func(p MCOPool) bool {
		return p.Target != k2.Target && p.Condition("Degraded") && p.Condition("NodeDegraded") && p.DegradedCount == 1
	})
	assert.False(t, k3.Condition("Updated"))
	assert.Equal(t, k2.Target, k3.Current, "status.configuration stays at the last config every node reached")
	assert.Contains(t, k3.Conditions["Degraded"][1], "Node "+canaryNode+" is reporting")
	node, err := KubeClient(t).CoreV1().Nodes().Get(context.Background(), canaryNode, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, MCOStateDegraded, node.Annotations[MCOStateAnnotation])
	assert.Equal(t, k2.Target, node.Annotations[MCOCurrentConfigAnnotation])
	assert.Equal(t, k3.Target, node.Annotations[MCODesiredConfigAnnotation])
	assert.Contains(t, node.Annotations[MCOReasonAnnotation], "restarting crio.service service failed")
	assert.Contains(t, node.Annotations[MCOReasonAnnotation], "incompatible types", "CRI-O's own complaint")
	st, msg, _, _ := MCONodeCondition(t, c.Config, canaryNode, "NodeDegraded")
	assert.Equal(t, "True", st, "MachineConfigNode %s NodeDegraded: %s", canaryNode, msg)
	ev := sinceEvents(s, n2)
	assert.Equal(t, 1, CountEvents(ev, canaryNode, MCOServiceRestartFailed, ""))
	assert.Equal(t, 1, CountEvents(ev, canaryNode, MCOCRIOStartedBySystemd, ""))
	got, err := CRIODropIn(k, standInCRIODropIn)
	require.NoError(t, err)
	assert.Equal(t, validCanary, got, "the daemon rolled the file back")
	assert.NoError(t, CRIOHealthy(k), "CRI-O back with the old files")
	time.Sleep(3 * time.Second)
	assert.Equal(t, 1, s.Count(canaryNode, MCOServiceRestartFailed, ""), "the failed update is not retried")
	assert.Zero(t, CountEvents(sinceEvents(s, n2), workerNode, "", ""), "nothing happens on %s", workerNode)
	assert.True(t, PoolSettled(GetMCOPool(t, c.Config, "worker")), "pool worker untouched")
}

// revertRecovers: the MachineConfig back at its last good content: the pool targets
// the node's current config again, the node is Done without a restart.
func (x *standInTest) revertRecovers(t *testing.T) {
	c, s, k, k2 := x.c, x.s, x.k, x.k2
	n3 := len(s.Events())
	applyStandInMachineConfig(t, c, standInMachineConfig(standInCanaryMC, "canary", map[string]string{standInCRIODropIn: validCanary}))
	k4 := WaitStandInPool(t, c, "canary", "pool canary back at its last good config", func(p MCOPool) bool {
		return PoolSettled(p) && p.DegradedCount == 0
	})
	assert.Equal(t, k2.Target, k4.Target)
	assert.Zero(t, CountEvents(sinceEvents(s, n3), canaryNode, MCOServiceRestarted, ""), "no file changed: no restart")
	st, _, _, _ := MCONodeCondition(t, c.Config, canaryNode, "NodeDegraded")
	assert.Equal(t, "False", st)
	assert.NoError(t, CRIOHealthy(k))
}

// removalRemovesDropIns: the canary MachineConfig removed: the canary pool is the worker's
// configuration again. Then the worker's removed: the drop-ins go.
func (x *standInTest) removalRemovesDropIns(t *testing.T) {
	c, s, k, nodes, w0, k0, k1 := x.c, x.s, x.k, x.nodes, x.w0, x.k0, x.k1
	deleteStandInMachineConfig(t, c, standInCanaryMC)
	WaitStandInPool(t, c, "canary", "pool canary without "+standInCanaryMC, func(p MCOPool) bool {
		return PoolSettled(p) && p.Target == k1.Target
	})
	got, err := CRIODropIn(k, standInCRIODropIn)
	require.NoError(t, err)
	assert.Equal(t, validWorker, got)
	n5 := len(s.Events())
	deleteStandInMachineConfig(t, c, standInWorkerMC)
	WaitStandInPool(t, c, "worker", "pool worker without "+standInWorkerMC, func(p MCOPool) bool { return PoolSettled(p) && p.Target == w0.Target })
	WaitStandInPool(t, c, "canary", "pool canary without "+standInWorkerMC, func(p MCOPool) bool { return PoolSettled(p) && p.Target == k0.Target })
	ev := sinceEvents(s, n5)
	for name, n := range nodes {
		_, err := CRIODropIn(n, standInCRIODropIn)
		assert.True(t, os.IsNotExist(err), "node %s: drop-in removed from CRI-O's directory (%v)", name, err)
		_, err = os.Stat(n.HostPath(standInKubeletDropIn))
		assert.True(t, os.IsNotExist(err), "node %s: kubelet drop-in removed (%v)", name, err)
		assert.Equal(t, 1, CountEvents(ev, name, MCOFileRemoved, standInCRIODropIn), name)
		assert.Equal(t, 1, CountEvents(ev, name, MCOServiceRestarted, "crio.service"), name)
		assert.NoError(t, CRIOHealthy(n), "node %s: CRI-O healthy", name)
	}
	assert.Zero(t, s.Reboots(), "no node rebooted")
}

// noPolicyEntryReboots: a file the status has no entry for: each node is drained and
// rebooted (recorded), once when it appears and once when it goes.
func (x *standInTest) noPolicyEntryReboots(t *testing.T) {
	c, s, nodes, w0, k0 := x.c, x.s, x.nodes, x.w0, x.k0
	const noPolicyFile = "/etc/e2e-standin/no-policy-entry.conf"
	n6 := len(s.Events())
	applyStandInMachineConfig(t, c, standInMachineConfig(standInWorkerMC, "worker", map[string]string{noPolicyFile: "x\n"}))
	WaitStandInPool(t, c, "worker", "pool worker with "+noPolicyFile, func(p MCOPool) bool { return PoolSettled(p) && p.Target != w0.Target })
	WaitStandInPool(t, c, "canary", "pool canary with "+noPolicyFile, func(p MCOPool) bool { return PoolSettled(p) && p.Target != k0.Target })
	deleteStandInMachineConfig(t, c, standInWorkerMC)
	WaitStandInPool(t, c, "worker", "pool worker without "+noPolicyFile, func(p MCOPool) bool { return PoolSettled(p) && p.Target == w0.Target })
	WaitStandInPool(t, c, "canary", "pool canary without "+noPolicyFile, func(p MCOPool) bool { return PoolSettled(p) && p.Target == k0.Target })
	ev := sinceEvents(s, n6)
	for name, n := range nodes {
		assert.Equal(t, 2, CountEvents(ev, name, MCODrained, ""), "node %s drained for the file's arrival and removal", name)
		assert.Equal(t, 2, CountEvents(ev, name, MCORebooted, ""), "node %s rebooted for the file's arrival and removal", name)
		assert.Zero(t, CountEvents(ev, name, MCOServiceRestarted, ""), "node %s: a reboot, not a restart", name)
		assert.NoError(t, CRIOHealthy(n), "node %s: CRI-O healthy after the reboot", name)
	}
}
