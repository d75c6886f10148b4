//go:build e2e

package e2e

import (
	"context"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodedisruption"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodesettings"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// TestNodeSettingsWaitsForDisruptionPolicyStatus: MCO's daemon decides a
// node's disruption from MachineConfiguration cluster's status, so the
// operator writes no MachineConfig while MachineConfiguration cluster is
// missing, nor while it exists with our entries in its spec but not in a
// status computed for its generation; NodeSettingsProgressing says why.
// Once the MCO stand-in's operator part lists them, the rollout proceeds
// and the stand-in reports restarts on the node, never a drain or a
// reboot; turning the settings off does the same. One node (worker-1,
// real CRI-O) in pool worker; the stacks off; no Prometheus (the gate
// checks node readiness).
func TestNodeSettingsWaitsForDisruptionPolicyStatus(t *testing.T) {
	w := startPolicyWaitWorld(t)
	before := ""
	if s := mustNodeOperator(t, w.c).Status.NodeSettings; s != nil {
		before = s.Target
	}
	w.c.PatchNodeOperatorSpec(t, map[string]interface{}{"nodeSettings": map[string]interface{}{"tracing": map[string]interface{}{
		"endpoint": w.recv.Addr, "crio": map[string]interface{}{"samplingRatePerMillion": 1000000},
	}}})
	w.waitHeldBack(t, nodedisruption.WaitNoCluster)
	_, err := w.c.Dynamic.Resource(machineConfigurationGVR).Get(context.Background(), "cluster", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "the operator must never create MachineConfiguration cluster: %v", err)

	// MCO creates MachineConfiguration cluster, without a status: our
	// entries go into the spec, still no MachineConfig.
	applyMachineConfiguration(t, w.c)
	framework.Eventually(t, time.Minute, 250*time.Millisecond, func() (bool, error) {
		mc, _ := getMachineConfiguration(t, w.c)
		for path := range nodesettings.DisruptionPolicy() {
			if policyFile(mc, path) == nil {
				return false, nil
			}
		}
		return true, nil
	}, "our node disruption policy entries in the spec")
	w.waitHeldBack(t, nodedisruption.WaitStatus)
	mc, _ := getMachineConfiguration(t, w.c)
	assert.NotEqual(t, mc.Generation, mc.Status.ObservedGeneration, "no one computed the status")
	assert.Equal(t, w.pool.Spec.Configuration.Name, framework.GetMCOPool(t, w.c.Config, "worker").Spec.Configuration.Name, "the pool was not rendered again")

	done := w.proceedsOnceStatusLists(t, before)
	// Tracing off: the MachineConfig goes, with a restart, no reboot.
	e2 := len(w.s.Events())
	w.c.PatchNodeOperatorSpec(t, map[string]interface{}{"nodeSettings": nil})
	waitPhase(t, w.c, done.Target, nodesettings.PhaseComplete)
	assert.Empty(t, w.ours(t))
	ev := w.s.Events()[e2:]
	assert.Equal(t, 1, framework.CountEvents(ev, w.n.Name, framework.MCOFileRemoved, nodesettings.CRIODropInPath))
	assert.Equal(t, 1, framework.CountEvents(ev, w.n.Name, framework.MCOServiceRestarted, "crio.service"))
	assert.Zero(t, w.s.Reboots(), "no node rebooted, ever")
	assert.Zero(t, framework.CountEvents(w.s.Events(), "", framework.MCODrained, ""), "no node drained, ever")
}

// policyWaitWorld: the operator with only the node settings, without
// MachineConfiguration cluster, and the MCO stand-in without its operator
// part over one node (worker-1, real CRI-O) in pool worker.
type policyWaitWorld struct {
	c    *framework.Cluster
	s    *framework.MCOStandIn
	n    *framework.PlatformNode
	recv *framework.OTLPReceiver
	pool *mcfgv1.MachineConfigPool // as first rendered
	e0   int                       // the stand-in's events before any change
}

func startPolicyWaitWorld(t *testing.T) *policyWaitWorld {
	c := framework.NewCluster(t)
	requireMachineConfigAPI(t)
	if !framework.Served(t, framework.KubeClient(t), machineConfigurationGVR) {
		t.Fatalf("operator.openshift.io/v1 machineconfigurations is not served (LCP_MACHINECONFIG_CRDS=0?)")
	}
	if err := framework.EnsureTool(t, "crio"); err != nil {
		framework.Unavailable(t, "crio is not available: %v", err)
	}
	framework.InstallOperatorPrerequisites(t, c.Config)
	c.ResetNodeOperator(t)
	c.PatchNodeOperatorSpec(t, map[string]interface{}{
		"metrics": map[string]interface{}{"state": "Disabled", "managementState": nil},
		"nmstate": map[string]interface{}{"state": "Disabled", "managementState": nil},
	})
	deleteMachineConfiguration(t, c)
	t.Cleanup(func() {
		// Leave a MachineConfiguration cluster, as hack/local-cluster.sh does.
		if _, err := c.Dynamic.Resource(machineConfigurationGVR).Get(context.Background(), "cluster", metav1.GetOptions{}); apierrors.IsNotFound(err) {
			applyMachineConfiguration(t, c)
		}
	})
	framework.StartOperator(t, framework.OperatorOptions{NoMCOPolicyStatus: true, Args: []string{
		"--node-settings-soak=" + nodeSettingsSoak.String(), "--node-settings-gate=" + nodeSettingsGate.String(),
		"--node-settings-update-timeout=3m", "--prometheus-url=",
	}})
	c.WaitForStacks(t, 2*time.Minute, map[nodev1alpha1.StackName]bool{nodev1alpha1.MetricsStack: false, nodev1alpha1.NMStateStack: false})
	deleteLeftoverMachineConfigs(t, c)
	const node = "worker-1"
	framework.InstallPlatformContainerRuntime(t, c.Config, []string{node})
	framework.CreatePool(t, c.Config, "worker")
	w := &policyWaitWorld{c: c, n: framework.StartPlatformNode(t, c.Config, framework.NewPlatformPKI(t), node), recv: framework.StartOTLPReceiver(t)}
	w.s = framework.StartMCOStandIn(t, c.Config, []*framework.PlatformNode{w.n}, framework.WithoutMCOOperator())
	t.Cleanup(w.s.Stop)
	w.pool = framework.WaitStandInPool(t, c, "worker", "pool worker rendered and updated", framework.PoolSettled)
	t.Cleanup(func() { c.ResetNodeOperator(t) })
	w.e0 = len(w.s.Events())
	return w
}

// ours lists our node settings MachineConfigs.
func (w *policyWaitWorld) ours(t *testing.T) []string {
	t.Helper()
	list, err := w.c.Dynamic.Resource(machineConfigGVR).List(context.Background(), metav1.ListOptions{LabelSelector: "nodeoperator.openshift.io/node-settings"})
	require.NoError(t, err)
	var names []string
	for _, mc := range list.Items {
		names = append(names, mc.GetName())
	}
	return names
}

// waitHeldBack: NodeSettingsProgressing says the MachineConfigs wait, not
// Degraded within the wait's grace, and a few of the operator's looks
// later there is still no MachineConfig of ours and nothing happened on
// the node.
func (w *policyWaitWorld) waitHeldBack(t *testing.T, wait string) {
	t.Helper()
	w.c.WaitForNodeOperator(t, 2*time.Minute, 250*time.Millisecond,
		framework.ConditionIs("NodeSettingsProgressing", operatorv1.ConditionTrue, "node settings MachineConfigs held back: "+wait))
	no := mustNodeOperator(t, w.c)
	assert.Equal(t, nodesettings.ReasonWaitingForPolicy, framework.NodeOperatorCondition(no, "NodeSettingsProgressing").Reason)
	assert.Equal(t, operatorv1.ConditionFalse, framework.NodeOperatorCondition(no, "NodeSettingsDegraded").Status, "a wait within its grace is not Degraded")
	time.Sleep(6 * time.Second) // the operator looks every 2 s
	assert.Empty(t, w.ours(t), "a MachineConfig of ours while: %s", wait)
	assert.Zero(t, framework.CountEvents(w.s.Events()[w.e0:], w.n.Name, "", ""), "something happened on the node while: %s", wait)
}

// proceedsOnceStatusLists: once MCO's operator (the stand-in's part) lists
// the entries in the status, the pool is rendered with our MachineConfig
// and the node restarts CRI-O (and with it the kubelet), without a drain
// or a reboot.
func (w *policyWaitWorld) proceedsOnceStatusLists(t *testing.T, before string) *nodev1alpha1.NodeSettingsStatus {
	t.Helper()
	e1 := len(w.s.Events())
	w.s.SetOperatorPart(true)
	done := waitPhase(t, w.c, before, nodesettings.PhaseComplete)
	assert.Equal(t, []string{nodesettings.MachineConfigName("worker")}, w.ours(t))
	ev := w.s.Events()[e1:]
	synced, rendered := -1, -1
	for i, e := range ev {
		if e.Kind == framework.MCOPolicyStatusSynced && synced < 0 {
			synced = i
		}
		if e.Kind == framework.MCORendered && e.Pool == "worker" && rendered < 0 {
			rendered = i
		}
	}
	assert.True(t, synced >= 0 && rendered > synced, "the status was computed before the pool was rendered with our MachineConfig (events %v)", ev)
	assert.Equal(t, 1, framework.CountEvents(ev, w.n.Name, framework.MCOServiceRestarted, "crio.service"), "one CRI-O restart")
	assert.Equal(t, 1, framework.CountEvents(ev, w.n.Name, framework.MCODependentRestarted, "kubelet.service"), "the kubelet restarts with CRI-O")
	assert.Zero(t, framework.CountEvents(ev, "", framework.MCORebooted, ""), "no reboot")
	assert.Zero(t, framework.CountEvents(ev, "", framework.MCODrained, ""), "no drain")
	dropIn, err := framework.CRIODropIn(w.n, nodesettings.CRIODropInPath)
	require.NoError(t, err)
	assert.Contains(t, dropIn, "tracing_sampling_rate_per_million = 1000000")
	no := mustNodeOperator(t, w.c)
	for _, typ := range []string{"NodeSettingsProgressing", "NodeSettingsDegraded"} {
		assert.Equal(t, operatorv1.ConditionFalse, framework.NodeOperatorCondition(no, typ).Status, typ)
	}
	return done
}
