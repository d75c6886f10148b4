//go:build e2e

package e2e

// Node settings (issue 14, docs/node-config.md): the operator turns CRI-O
// tracing on through its own MachineConfigs, pool by pool, over three
// simulated nodes with real CRI-O (master-0 in pool master, worker-1 in
// pool worker, worker-2 in the custom pool canary), whose pools the MCO
// stand-in (framework/mcostandin.go, a test double) updates; the spans go
// to a real OTLP receiver.

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodesettings"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

const (
	nodeSettingsWait = 4 * time.Minute
	// The operator's timing for the test: a short soak, and a gate long
	// enough for a CRI-O restart on a busy machine.
	nodeSettingsSoak = 3 * time.Second
	nodeSettingsGate = 15 * time.Second
	// adminPolicyPath is an administrator's node disruption policy entry
	// that must survive ours.
	adminPolicyPath = "/etc/e2e-admin/owned-by-the-administrator.conf"
)

var otelCollectorGVR = schema.GroupVersionResource{Group: "opentelemetry.io", Version: "v1beta1", Resource: "opentelemetrycollectors"}

// nodeSettingsWorld is the test's cluster, nodes, stand-in and receiver.
type nodeSettingsWorld struct {
	c     *framework.Cluster
	s     *framework.MCOStandIn
	recv  *framework.OTLPReceiver
	nodes map[string]*framework.PlatformNode // by pool
	order []string                           // pools in rollout order
	pki   *framework.PlatformPKI
	prom  *framework.Prometheus
	query *framework.QueryProxy
}

func (w *nodeSettingsWorld) setTracing(t *testing.T, samplingPerMillion interface{}) {
	t.Helper()
	var tracing interface{}
	if samplingPerMillion != nil {
		tracing = map[string]interface{}{
			"endpoint": w.recv.Addr,
			"crio":     map[string]interface{}{"samplingRatePerMillion": samplingPerMillion},
			"kubelet":  map[string]interface{}{"samplingRatePerMillion": 1000000},
		}
	}
	w.c.PatchNodeOperatorSpec(t, map[string]interface{}{"nodeSettings": map[string]interface{}{
		"tracing": tracing,
		"rollout": map[string]interface{}{"canaryPool": "canary"},
	}})
}

// waitPhase waits for status.nodeSettings of a new rollout (target not
// previous) to reach phase.
func waitPhase(t *testing.T, c *framework.Cluster, previous string, phase nodesettings.Phase) *nodev1alpha1.NodeSettingsStatus {
	t.Helper()
	no := c.WaitForNodeOperator(t, nodeSettingsWait, 250*time.Millisecond, func(no *nodev1alpha1.NodeOperator) string {
		s := no.Status.NodeSettings
		switch {
		case s == nil:
			return "no status.nodeSettings"
		case s.Target == previous:
			return "still the previous rollout " + previous
		case string(s.Phase) != string(phase):
			return fmt.Sprintf("phase %s (%s); pools %s", s.Phase, s.Message, describePools(s))
		}
		return ""
	})
	return no.Status.NodeSettings
}

func describePools(s *nodev1alpha1.NodeSettingsStatus) string {
	var out []string
	for _, p := range s.Pools {
		out = append(out, fmt.Sprintf("%s=%s/%s(%s)", p.Name, p.State, p.Reason, p.Revision))
	}
	return strings.Join(out, " ")
}

func poolStatus(s *nodev1alpha1.NodeSettingsStatus, name string) nodev1alpha1.NodeSettingsPoolStatus {
	for _, p := range s.Pools {
		if p.Name == name {
			return p
		}
	}
	return nodev1alpha1.NodeSettingsPoolStatus{}
}

// firstEvent is the index of the first stand-in event of a kind on a pool
// at or after from, -1 when there is none.
func firstEvent(events []framework.MCOEvent, from int, pool string, kind framework.MCOEventKind) int {
	for i := from; i < len(events); i++ {
		if events[i].Pool == pool && events[i].Kind == kind {
			return i
		}
	}
	return -1
}

// assertPoolByPool: each pool's first change on its node (a desired config)
// comes after the pool before it was updated, in the order given.
func (w *nodeSettingsWorld) assertPoolByPool(t *testing.T, from int, order ...string) {
	t.Helper()
	ev := w.s.Events()
	prevUpdated := -1
	for _, pool := range order {
		desired := firstEvent(ev, from, pool, framework.MCODesired)
		updated := firstEvent(ev, max(desired, from), pool, framework.MCOPoolUpdated)
		if !assert.True(t, desired >= 0 && updated > desired, "pool %s: a desired config, then Updated (events %v)", pool, ev[from:]) {
			return
		}
		assert.Greater(t, desired, prevUpdated, "pool %s starts only after the pool before it was updated (events %v)", pool, ev[from:])
		prevUpdated = updated
	}
}

// assertSpansFrom: CRI calls to each node make its CRI-O export spans to
// the receiver (one node at a time: no other CRI calls are made).
func (w *nodeSettingsWorld) assertSpansFrom(t *testing.T) {
	t.Helper()
	for _, pool := range w.order {
		n := w.nodes[pool]
		called := time.Now()
		callCRI(t, n)
		w.recv.WaitForSpans(t, crioTracingService, called, len(crioTracedCalls), time.Minute)
	}
}

// TestNodeSettingsTracing: tracing on reaches every pool's real CRI-O pool
// by pool (canary, worker, master) with CRI-O and kubelet restarts (the
// kubelet's drop-in written; no kubelet runs here) and no reboot, each pool
// gated on its CRI-O being scraped by the platform's Prometheus; a change
// that the canary's CRI-O cannot start with, and one after which it hangs,
// stop there and go back; where the OpenTelemetry operator's API is served
// the nodes send to our collector on their loopback; tracing off goes pool
// by pool too and removes the collector last. Nothing administrators own
// is touched.
func TestNodeSettingsTracing(t *testing.T) {
	w := startNodeSettingsWorld(t)
	adminBefore := adminObjects(t, w.c)
	on := w.turnOn(t)
	end := framework.ExpectDisruption(t, "node settings rollouts fail their gate on the canary pool and are rolled back: NodeSettingsDegraded")
	stopped := w.canaryCannotStart(t, on)
	stopped = w.canaryHangs(t, on, stopped)
	viaCollector, onNode := w.throughCollector(t, stopped)
	w.turnOff(t, viaCollector, onNode, end)
	assert.Equal(t, adminBefore, adminObjects(t, w.c), "what administrators and MCO own is untouched")
}

// startNodeSettingsWorld runs the operator with only the node settings (the
// stacks off, so that no MachineConfig of theirs rolls) in the world of an
// OpenShift 4.21 cluster: MCO's 01-<role>-kubelet (kubelet.service with
// --config-dir; kube-rbac-proxy-crio) and 01-<role>-container-runtime, the
// pools master, worker and canary with a node each running real CRI-O, the
// MCO stand-in, an OTLP receiver, the platform's Prometheus and an
// administrator's node disruption policy entry.
func startNodeSettingsWorld(t *testing.T) *nodeSettingsWorld {
	c := framework.NewCluster(t)
	requireMachineConfigAPI(t)
	if err := framework.EnsureTool(t, "crio"); err != nil {
		framework.Unavailable(t, "crio is not available: %v", err)
	}
	names := platformNodeNames(t) // master, worker
	master, worker, canary := names[0], names[1], "worker-2"
	if _, err := framework.KubeClient(t).CoreV1().Nodes().Get(context.Background(), canary, metav1.GetOptions{}); err != nil {
		t.Fatalf("the local world needs node %s (hack/local-cluster.sh, LCP_NODES>=3): %v", canary, err)
	}
	framework.InstallOperatorPrerequisites(t, c.Config)
	framework.RemoveOpenTelemetryCollectors(t, c.Config) // an interrupted run's
	c.ResetNodeOperator(t)
	c.PatchNodeOperatorSpec(t, map[string]interface{}{
		"metrics": map[string]interface{}{"state": "Disabled", "managementState": nil},
		"nmstate": map[string]interface{}{"state": "Disabled", "managementState": nil},
	})
	// The gate asks the cluster's query endpoint (on OpenShift Thanos
	// Querier's web port) with the operator's ServiceAccount token.
	query := framework.NewQueryProxy(t)
	operatorToken := framework.ServiceAccountTokenFile(t, framework.OperatorNamespace, framework.OperatorServiceAccount)
	framework.StartOperator(t, framework.OperatorOptions{Args: []string{
		"--node-settings-soak=" + nodeSettingsSoak.String(), "--node-settings-gate=" + nodeSettingsGate.String(),
		"--node-settings-update-timeout=3m",
		"--prometheus-url=" + query.URL, "--prometheus-ca-file=" + query.CAFile, "--prometheus-token-file=" + operatorToken,
	}})
	// The stacks hold until the decision for this spec is recorded
	// (stackdecision.Current); once it is, what earlier tests left goes.
	c.WaitForStacks(t, 2*time.Minute, map[nodev1alpha1.StackName]bool{nodev1alpha1.MetricsStack: false, nodev1alpha1.NMStateStack: false})
	deleteLeftoverMachineConfigs(t, c)

	pki := framework.NewPlatformPKI(t)
	framework.InstallPlatformCRIOMetrics(t, c.Config, []string{master, worker, canary})
	framework.AddNodeRole(t, c.Config, canary, "canary")
	for _, p := range []string{"master", "worker", "canary"} {
		framework.CreatePool(t, c.Config, p)
	}
	w := &nodeSettingsWorld{c: c, pki: pki, order: []string{"canary", "worker", "master"}, nodes: map[string]*framework.PlatformNode{
		"master": framework.StartPlatformNode(t, c.Config, pki, master),
		"worker": framework.StartPlatformNode(t, c.Config, pki, worker),
		"canary": framework.StartPlatformNode(t, c.Config, pki, canary),
	}}
	w.recv = framework.StartOTLPReceiver(t)
	w.s = framework.StartMCOStandIn(t, c.Config, []*framework.PlatformNode{w.nodes["master"], w.nodes["worker"], w.nodes["canary"]})
	t.Cleanup(w.s.Stop)
	for _, p := range w.order {
		framework.WaitStandInPool(t, c, p, "pool "+p+" rendered and updated", framework.PoolSettled)
	}
	w.startMonitoring(t, query, operatorToken)
	framework.ApplyStandInPolicy(t, c, map[string]string{adminPolicyPath: "crio.service"})
	// Leave the knobs at their defaults for the next test (this runs before
	// the operator stops).
	t.Cleanup(func() { c.ResetNodeOperator(t) })
	return w
}

// turnOn: every pool in order, our CRI-O and kubelet drop-ins on each node
// with a CRI-O restart and a kubelet restart for its drop-in and one more
// with CRI-O's (Requires=crio.service), no reboot nor drain; the gate asked
// Prometheus; spans reach the receiver; relatedObjects name our
// MachineConfigs and MachineConfiguration cluster.
func (w *nodeSettingsWorld) turnOn(t *testing.T) *nodev1alpha1.NodeSettingsStatus {
	t.Helper()
	e0 := len(w.s.Events())
	before := ""
	if s := mustNodeOperator(t, w.c).Status.NodeSettings; s != nil {
		before = s.Target // an earlier test's
	}
	queriesBefore := w.gateQueries(t)
	w.setTracing(t, 1000000)
	on := waitPhase(t, w.c, before, nodesettings.PhaseComplete)
	w.assertPoolByPool(t, e0, w.order...)
	ev := w.s.Events()[e0:]
	for pool, n := range w.nodes {
		dropIn, err := framework.CRIODropIn(n, nodesettings.CRIODropInPath)
		require.NoError(t, err, "pool %s: our drop-in in CRI-O's directory", pool)
		assert.Contains(t, dropIn, fmt.Sprintf("tracing_endpoint = %q", w.recv.Addr))
		assert.Contains(t, dropIn, "tracing_sampling_rate_per_million = 1000000")
		assert.Equal(t, 1, framework.CountEvents(ev, n.Name, framework.MCOServiceRestarted, "crio.service"), "pool %s: one CRI-O restart", pool)
		kubelet, err := os.ReadFile(n.HostPath(nodesettings.KubeletDropInPath))
		require.NoError(t, err, "pool %s: our kubelet drop-in (the fixture's kubelet unit passes --config-dir)", pool)
		assert.Contains(t, string(kubelet), fmt.Sprintf("endpoint: %q", w.recv.Addr))
		assert.Equal(t, 1, framework.CountEvents(ev, n.Name, framework.MCOServiceRestarted, "kubelet.service"), "pool %s: one kubelet restart for its drop-in", pool)
		assert.Equal(t, 1, framework.CountEvents(ev, n.Name, framework.MCODependentRestarted, "kubelet.service"), "pool %s: one more with CRI-O's (Requires=crio.service)", pool)
		assert.Equal(t, nodesettings.Done, nodesettings.PoolState(poolStatus(on, pool).State), pool)
	}
	assert.Zero(t, w.s.Reboots(), "no node rebooted: the disruption policy entries were in place first")
	assert.Zero(t, framework.CountEvents(ev, "", framework.MCODrained, ""), "no node drained")
	w.assertSpansFrom(t)
	assertDestinationNote(t, w.c)
	assert.Greater(t, w.gateQueries(t), queriesBefore, "the gate asked Prometheus whether CRI-O's metrics were scraped")
	assert.NotContains(t, framework.NodeOperatorCondition(mustNodeOperator(t, w.c), "NodeSettingsProgressing").Message, "not CRI-O's metrics")
	co := w.c.WaitForClusterOperator(t, time.Minute, func(co *configv1.ClusterOperator) string {
		for _, pool := range w.order {
			want := configv1.ObjectReference{Group: "machineconfiguration.openshift.io", Resource: "machineconfigs", Name: nodesettings.MachineConfigName(pool)}
			if !slices.Contains(co.Status.RelatedObjects, want) {
				return fmt.Sprintf("relatedObjects without %v", want)
			}
		}
		return ""
	})
	assert.Contains(t, co.Status.RelatedObjects, configv1.ObjectReference{Group: "operator.openshift.io", Resource: "machineconfigurations", Name: "cluster"}, "must-gather collects our node disruption policy entries")
	return on
}

// canaryCannotStart: a change the canary's CRI-O cannot start with stops
// the rollout at the canary, which goes back to the last good revision
// (NodeSettingsDegraded says so); worker and master are not touched.
func (w *nodeSettingsWorld) canaryCannotStart(t *testing.T, on *nodev1alpha1.NodeSettingsStatus) *nodev1alpha1.NodeSettingsStatus {
	t.Helper()
	const faulty = "tracing_sampling_rate_per_million = 500000"
	w.nodes["canary"].CRIOBin = w.nodes["canary"].CRIOFailingWith(t, faulty, "e2e fault: this CRI-O build cannot start with a sampling rate of 500000")
	e1 := len(w.s.Events())
	w.setTracing(t, 500000)
	stopped := waitPhase(t, w.c, on.Target, nodesettings.PhaseStopped)
	k := poolStatus(stopped, "canary")
	assert.Equal(t, nodesettings.Reverted, nodesettings.PoolState(k.State))
	assert.Contains(t, k.Message, "restarting crio.service service failed")
	w.assertOnlyCanaryMoved(t, on, stopped, e1)
	d := framework.NodeOperatorCondition(mustNodeOperator(t, w.c), "NodeSettingsDegraded")
	require.NotNil(t, d)
	assert.Equal(t, "True", string(d.Status))
	assert.Contains(t, d.Message, "stopped at pool canary")
	framework.Eventually(t, time.Minute, 250*time.Millisecond, func() (bool, error) {
		p := framework.GetMCOPool(t, w.c.Config, "canary")
		return framework.PoolSettled(p) && p.Status.DegradedMachineCount == 0, nil
	}, "pool canary updated and no longer degraded")
	w.assertCanaryBackAtLastGood(t)
	assert.Zero(t, w.s.Reboots())
	return stopped
}

// canaryHangs: a change after which the canary's CRI-O starts and then
// hangs: MCO updates the pool and the node stays Ready, but CRI-O's metrics
// are no longer scraped; the gate sees that, and the canary goes back.
func (w *nodeSettingsWorld) canaryHangs(t *testing.T, on, stopped *nodev1alpha1.NodeSettingsStatus) *nodev1alpha1.NodeSettingsStatus {
	t.Helper()
	w.nodes["canary"].CRIOBin = w.nodes["canary"].CRIOHangingWith(t, "tracing_sampling_rate_per_million = 250000")
	e1 := len(w.s.Events())
	w.setTracing(t, 250000)
	hung := waitPhase(t, w.c, stopped.Target, nodesettings.PhaseStopped)
	assert.Equal(t, nodesettings.Reverted, nodesettings.PoolState(poolStatus(hung, "canary").State))
	assert.Contains(t, hung.Message, `CRI-O's metrics were not scraped without failure (up{job="crio"}) since the pool was updated on node `+w.nodes["canary"].Name)
	assert.Zero(t, framework.CountEvents(w.s.Events()[e1:], w.nodes["canary"].Name, framework.MCONodeDegraded, ""), "MCO saw nothing wrong: only the scrapes did")
	w.assertOnlyCanaryMoved(t, on, hung, e1)
	framework.Eventually(t, time.Minute, 250*time.Millisecond, func() (bool, error) {
		return framework.PoolSettled(framework.GetMCOPool(t, w.c.Config, "canary")) && framework.CRIOHealthy(w.nodes["canary"]) == nil, nil
	}, "pool canary updated back and its CRI-O answering")
	w.assertCanaryBackAtLastGood(t)
	return hung
}

// assertOnlyCanaryMoved: the canary is back at on's revision; worker and
// master are held at theirs, and nothing happened on their nodes since
// event from.
func (w *nodeSettingsWorld) assertOnlyCanaryMoved(t *testing.T, on, s *nodev1alpha1.NodeSettingsStatus, from int) {
	t.Helper()
	assert.Equal(t, poolStatus(on, "canary").Revision, poolStatus(s, "canary").Revision, "the canary is back at its last good revision")
	for _, pool := range []string{"worker", "master"} {
		p := poolStatus(s, pool)
		assert.Equal(t, nodesettings.Held, nodesettings.PoolState(p.State), pool)
		assert.Equal(t, poolStatus(on, pool).Revision, p.Revision, "pool %s keeps its revision", pool)
		assert.Zero(t, framework.CountEvents(w.s.Events()[from:], w.nodes[pool].Name, "", ""), "nothing happens on pool %s's node", pool)
	}
}

func (w *nodeSettingsWorld) assertCanaryBackAtLastGood(t *testing.T) {
	t.Helper()
	dropIn, err := framework.CRIODropIn(w.nodes["canary"], nodesettings.CRIODropInPath)
	require.NoError(t, err)
	assert.Contains(t, dropIn, "tracing_sampling_rate_per_million = 1000000", "the canary runs the last good drop-in")
	assert.NoError(t, framework.CRIOHealthy(w.nodes["canary"]), "CRI-O healthy on the canary again")
}

// throughCollector: the OpenTelemetry operator's API appears and the
// canary's CRI-O is fixed: our collector goes in first, then each pool's
// drop-ins point at it on the node's loopback, pool by pool, and the spans
// go through it. Nothing runs collector pods here (the OpenTelemetry
// operator would): a receiver on the loopback address stands for them.
func (w *nodeSettingsWorld) throughCollector(t *testing.T, stopped *nodev1alpha1.NodeSettingsStatus) (*nodev1alpha1.NodeSettingsStatus, *framework.OTLPReceiver) {
	t.Helper()
	w.nodes["canary"].CRIOBin = ""
	onNode := framework.StartOTLPReceiverAt(t, nodesettings.CollectorEndpoint, "node-collector")
	framework.ServeOpenTelemetryCollectors(t, w.c.Config)
	e3 := len(w.s.Events())
	w.setTracing(t, 1000000)
	s := waitPhase(t, w.c, stopped.Target, nodesettings.PhaseComplete)
	w.assertPoolByPool(t, e3, w.order...)
	collector, err := w.c.Dynamic.Resource(otelCollectorGVR).Namespace(framework.OperatorNamespace).Get(context.Background(), nodesettings.CollectorName, metav1.GetOptions{})
	require.NoError(t, err, "our OpenTelemetryCollector, accepted by the OpenTelemetry operator's CRD")
	mode, _, _ := unstructured.NestedString(collector.Object, "spec", "mode")
	exporter, _, _ := unstructured.NestedString(collector.Object, "spec", "config", "exporters", "otlp", "endpoint")
	assert.Equal(t, "daemonset", mode)
	assert.Equal(t, w.recv.Addr, exporter, "the collector exports to the administrator's endpoint")
	if first := firstEvent(w.s.Events(), e3, "canary", framework.MCODesired); assert.GreaterOrEqual(t, first, 0) {
		assert.False(t, collector.GetCreationTimestamp().Time.After(w.s.Events()[first].Time), "the collector exists before the first node is pointed at it")
	}
	for pool, n := range w.nodes {
		dropIn, err := framework.CRIODropIn(n, nodesettings.CRIODropInPath)
		require.NoError(t, err, pool)
		assert.Contains(t, dropIn, fmt.Sprintf("tracing_endpoint = %q", nodesettings.CollectorEndpoint), "pool %s: CRI-O sends to the collector on its node", pool)
	}
	for _, pool := range w.order {
		called := time.Now()
		callCRI(t, w.nodes[pool])
		onNode.WaitForSpans(t, crioTracingService, called, len(crioTracedCalls), time.Minute)
	}
	assert.Equal(t, nodev1alpha1.OpenTelemetryCollectorReference{Namespace: framework.OperatorNamespace, Name: nodesettings.CollectorName}, s.OpenTelemetryCollector)
	w.c.WaitForClusterOperator(t, time.Minute, func(co *configv1.ClusterOperator) string {
		want := configv1.ObjectReference{Group: "opentelemetry.io", Resource: "opentelemetrycollectors", Namespace: framework.OperatorNamespace, Name: nodesettings.CollectorName}
		if !slices.Contains(co.Status.RelatedObjects, want) {
			return fmt.Sprintf("relatedObjects without %v", want)
		}
		return ""
	})
	assert.Contains(t, framework.NodeOperatorCondition(mustNodeOperator(t, w.c), "NodeSettingsProgressing").Message, "spans go to a collector on each node")
	return s, onNode
}

// turnOff: our MachineConfigs go pool by pool, and the drop-ins with them;
// the collector goes after the last pool (end closes the disruption window
// once the rollout is complete); no spans arrive anywhere afterwards.
func (w *nodeSettingsWorld) turnOff(t *testing.T, viaCollector *nodev1alpha1.NodeSettingsStatus, onNode *framework.OTLPReceiver, end func()) {
	t.Helper()
	e2 := len(w.s.Events())
	w.setTracing(t, nil)
	off := waitPhase(t, w.c, viaCollector.Target, nodesettings.PhaseComplete)
	end()
	_, err := w.c.Dynamic.Resource(otelCollectorGVR).Namespace(framework.OperatorNamespace).Get(context.Background(), nodesettings.CollectorName, metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "our OpenTelemetryCollector deleted once no pool points at it (%v)", err)
	assert.Zero(t, off.OpenTelemetryCollector)
	// The canary selects the worker role too: until the worker pool's turn
	// its nodes keep the worker pool's drop-in (removing the canary's own
	// MachineConfig changes nothing on them), so the canary's node changes
	// with the worker pool, and master comes last.
	w.assertPoolByPool(t, e2, "worker", "master")
	ev := w.s.Events()
	if kc, wc := firstEvent(ev, e2, "canary", framework.MCODesired), firstEvent(ev, e2, "worker", framework.MCODesired); assert.True(t, kc >= 0 && wc >= 0, "events %v", ev[e2:]) {
		assert.False(t, ev[kc].Time.Before(ev[wc].Time.Add(-framework.MCOStandInInterval)),
			"the canary's node changes in the stand-in's sync that takes the worker pool's change, not before (events %v)", ev[e2:])
	}
	for pool, n := range w.nodes {
		_, err := framework.CRIODropIn(n, nodesettings.CRIODropInPath)
		assert.True(t, os.IsNotExist(err), "pool %s: drop-in removed (%v)", pool, err)
		_, err = os.Stat(n.HostPath(nodesettings.KubeletDropInPath))
		assert.True(t, os.IsNotExist(err), "pool %s: kubelet drop-in removed (%v)", pool, err)
		assert.NoError(t, framework.CRIOHealthy(n), "pool %s: CRI-O healthy", pool)
		assert.Equal(t, "", poolStatus(off, pool).Revision, pool)
	}
	for _, pool := range w.order {
		_, err := w.c.Dynamic.Resource(machineConfigGVR).Get(context.Background(), nodesettings.MachineConfigName(pool), metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "MachineConfig %s deleted (%v)", nodesettings.MachineConfigName(pool), err)
	}
	quiet := time.Now()
	for _, n := range w.nodes {
		callCRI(t, n)
	}
	time.Sleep(crioSpanExportDelay)
	assert.Empty(t, spanNames(w.recv.ServiceSpans(t, crioTracingService, quiet)), "no spans once tracing is off")
	assert.Empty(t, spanNames(onNode.ServiceSpans(t, crioTracingService, quiet)), "no spans to the collector's address once tracing is off")
	assert.Zero(t, w.s.Reboots())
}

// startMonitoring starts the platform's CRI-O scrape as OpenShift runs it:
// Prometheus scraping each node's kube-rbac-proxy-crio static pod as
// job="crio", with the query proxy in front; it checks that the proxy
// lets the operator's token query and refuses a ServiceAccount that may
// not get namespaces; and it turns the metrics stack on, which the
// platform path makes PlatformProxy, so that the gate checks job="crio".
func (w *nodeSettingsWorld) startMonitoring(t *testing.T, query *framework.QueryProxy, operatorToken string) {
	t.Helper()
	var nodes []*framework.PlatformNode // each runs its kube-rbac-proxy-crio (StartPlatformNode)
	for _, pool := range w.order {
		nodes = append(nodes, w.nodes[pool])
	}
	// Scrapes every 250 ms: the soak is seconds here (minutes on a
	// cluster, over scrapes every 30 s), and a CRI-O that hangs must show
	// in the soak's window (a failed scrape is recorded one timeout later).
	w.prom = framework.StartPlatformPrometheus(t, w.pki, nodes, 250*time.Millisecond)
	w.prom.WaitTargetsUp(t, len(nodes), time.Minute)
	query.Start(t, w.prom)
	w.query = query

	token, err := os.ReadFile(operatorToken)
	require.NoError(t, err)
	code, body := query.Query(t, string(token), `up{job="crio"}`)
	require.Equal(t, 200, code, "the operator's ServiceAccount may query: %s", body)
	other, err := os.ReadFile(framework.ServiceAccountTokenFile(t, "default", "e2e-no-monitoring-access"))
	require.NoError(t, err)
	code, body = query.Query(t, string(other), `up{job="crio"}`)
	require.Equal(t, 403, code, "a ServiceAccount that may not get namespaces may not query: %s", body)

	w.c.PatchNodeOperatorSpec(t, map[string]interface{}{"metrics": map[string]interface{}{"state": "Enabled", "managementState": nil}})
	no := w.c.WaitForStacks(t, 2*time.Minute, map[nodev1alpha1.StackName]bool{nodev1alpha1.MetricsStack: true})
	for _, s := range no.Status.Stacks {
		if s.Name == nodev1alpha1.MetricsStack {
			require.Equal(t, nodev1alpha1.PlatformProxy, s.Mode, "the metrics stack on the platform's path")
		}
	}
}

// gateQueries counts the successful requests to Prometheus's query API
// (its own counter, read from its /metrics); only the operator's gate
// queries while a rollout runs.
func (w *nodeSettingsWorld) gateQueries(t *testing.T) int {
	t.Helper()
	_, body, err := framework.HTTPGet(nil, w.prom.URL+"/metrics", "")
	require.NoError(t, err)
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, `prometheus_http_requests_total{code="200",handler="/api/v1/query"} `) {
			n, err := strconv.Atoi(strings.Fields(line)[1])
			require.NoError(t, err, line)
			return n
		}
	}
	return 0
}

// deleteLeftoverMachineConfigs deletes the MachineConfigs that are not
// MCO's own (01-*) and waits until they are gone.
func deleteLeftoverMachineConfigs(t *testing.T, c *framework.Cluster) {
	t.Helper()
	ctx := context.Background()
	framework.Eventually(t, time.Minute, 250*time.Millisecond, func() (bool, error) {
		mcs, err := c.Dynamic.Resource(machineConfigGVR).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		left := 0
		for _, mc := range mcs.Items {
			if !strings.HasPrefix(mc.GetName(), "01-") {
				left++
				if err := c.Dynamic.Resource(machineConfigGVR).Delete(ctx, mc.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
					return false, err
				}
			}
		}
		return left == 0, nil
	}, "no MachineConfig left but MCO's 01-*")
}

// assertDestinationNote: nothing was skipped, and status says where spans
// go.
func assertDestinationNote(t *testing.T, c *framework.Cluster) {
	t.Helper()
	no, err := c.NodeOperator(context.Background())
	require.NoError(t, err)
	p := framework.NodeOperatorCondition(no, "NodeSettingsProgressing")
	require.NotNil(t, p)
	assert.Equal(t, "False", string(p.Status))
	assert.Contains(t, p.Message, "the OpenTelemetry collector API (opentelemetry.io) is not served")
	assert.NotContains(t, p.Message, "skipped")
}

// adminObjects are the resourceVersions and field managers of what the
// operator must not write: MCO's pools and MachineConfigs, and the
// administrator's node disruption policy entry.
func adminObjects(t *testing.T, c *framework.Cluster) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	mcs, err := c.Dynamic.Resource(machineConfigGVR).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, mc := range mcs.Items {
		if strings.HasPrefix(mc.GetName(), "01-") {
			out["MachineConfig "+mc.GetName()] = mc.GetResourceVersion()
		}
	}
	pools, err := c.Dynamic.Resource(platform.MachineConfigPoolGVR).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, p := range pools.Items {
		var managers []string
		for _, f := range p.GetManagedFields() {
			if f.Subresource == "" {
				managers = append(managers, f.Manager)
			}
		}
		out["MachineConfigPool "+p.GetName()+" spec managers"] = strings.Join(managers, ",")
	}
	policy, err := c.Dynamic.Resource(framework.MachineConfigurationGVR).Get(ctx, "cluster", metav1.GetOptions{})
	require.NoError(t, err)
	files, _, _ := unstructured.NestedSlice(policy.Object, "spec", "nodeDisruptionPolicy", "files")
	for _, f := range files {
		if m, ok := f.(map[string]interface{}); ok && m["path"] == adminPolicyPath {
			out["policy entry "+adminPolicyPath] = fmt.Sprint(m["actions"])
		}
	}
	return out
}

func mustNodeOperator(t *testing.T, c *framework.Cluster) *nodev1alpha1.NodeOperator {
	t.Helper()
	no, err := c.NodeOperator(context.Background())
	require.NoError(t, err)
	return no
}
