//go:build e2e

package e2e

// Node settings (docs/node-config.md) over three nodes with real CRI-O whose
// pools the MCO stand-in (framework/mcostandin.go) updates.

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodesettings"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

const (
	nodeSettingsWait = 4 * time.Minute
	// The operator's timing for the test: a short soak, and a gate long
	// enough for a CRI-O restart on a busy machine.
	nodeSettingsSoak = 3 * time.Second
	nodeSettingsGate = 15 * time.Second
)

var otelCollectorGVR = schema.GroupVersionResource{Group: "opentelemetry.io", Version: "v1beta1", Resource: "opentelemetrycollectors"}

// CRI-O exports a batch every 5 s (docs/node-tracing-fixture.md).
const (
	crioTracingService  = "crio"
	crioSpanExportDelay = 12 * time.Second
)

// crioTracedCalls need no pod or image.
var crioTracedCalls = []string{"runtime.v1.RuntimeService/Version", "runtime.v1.RuntimeService/Status",
	"runtime.v1.RuntimeService/ListPodSandbox", "runtime.v1.ImageService/ListImages"}

func callCRI(t *testing.T, node *framework.PlatformNode) {
	t.Helper()
	cri := framework.DialCRI(t, node.CRISocket())
	for _, m := range crioTracedCalls {
		require.NoError(t, framework.CRICallsWithoutPod[m](t.Context(), cri), "CRI call %s to node %s", m, node.Name)
	}
}

// nodeSettingsWorld is the test's cluster, nodes, stand-in and receiver.
type nodeSettingsWorld struct {
	c     *framework.Cluster
	s     *framework.MCOStandIn
	recv  *framework.OTLPReceiver
	nodes map[string]*framework.PlatformNode // by pool
	order []string                           // pools in rollout order
	pki   *framework.PlatformPKI
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

// waitPhase waits for a new rollout's (target not previous) status.nodeSettings to reach phase.
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

// firstEvent is the index of the first event of kind on pool from from on, -1 if none.
func firstEvent(events []framework.MCOEvent, from int, pool string, kind framework.MCOEventKind) int {
	for i := from; i < len(events); i++ {
		if events[i].Pool == pool && events[i].Kind == kind {
			return i
		}
	}
	return -1
}

// assertPoolByPool: each pool's first desired config comes after the previous pool was updated.
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

// assertCRISpans: CRI calls to each node export a SERVER span of each call, host.name this machine's, to recv.
func (w *nodeSettingsWorld) assertCRISpans(t *testing.T, recv *framework.OTLPReceiver) {
	t.Helper()
	hostname, err := os.Hostname()
	require.NoError(t, err)
	for _, pool := range w.order {
		called := time.Now()
		callCRI(t, w.nodes[pool])
		framework.Eventually(t, time.Minute, 250*time.Millisecond, func() (bool, error) {
			spans := recv.ServiceSpans(t, crioTracingService, called)
			for _, m := range crioTracedCalls {
				if !slices.ContainsFunc(spans, func(s framework.OTLPSpan) bool { return s.Kind == "SERVER" && s.Name == m && s.Host == hostname }) {
					return false, nil
				}
			}
			return true, nil
		}, fmt.Sprintf("pool %s: a SERVER span of each of %q from host %s at %s", pool, crioTracedCalls, hostname, recv.Addr))
	}
}

// TestNodeSettingsTracing: tracing on, two canary failures, through the
// collector, and off, each pool by pool (docs/test-behaviours.md).
func TestNodeSettingsTracing(t *testing.T) {
	w := startNodeSettingsWorld(t)
	on := w.turnOn(t)
	end := framework.ExpectDisruption(t, "node settings rollouts fail their gate on the canary pool and are rolled back: NodeSettingsDegraded")
	// A CRI-O that cannot start with the change: MCO degrades the node.
	canary := w.nodes["canary"]
	stopped, _ := w.canaryFails(t, on, on, canary.CRIOFailingWith(t, "tracing_sampling_rate_per_million = 500000",
		"e2e fault: this CRI-O build cannot start with a sampling rate of 500000"), 500000)
	assert.Contains(t, poolStatus(stopped, "canary").Message, "restarting crio.service service failed")
	d := framework.NodeOperatorCondition(mustNodeOperator(t, w.c), "NodeSettingsDegraded")
	require.NotNil(t, d)
	assert.Equal(t, "True", string(d.Status))
	assert.Contains(t, d.Message, "stopped at pool canary")
	// A CRI-O that starts and then hangs: MCO sees nothing, the gate's
	// scrapes do.
	stopped, ev := w.canaryFails(t, on, stopped, canary.CRIOHangingWith(t, "tracing_sampling_rate_per_million = 250000"), 250000)
	assert.Contains(t, stopped.Message, `CRI-O's metrics were not scraped without failure (up{job="crio"}) since the pool was updated on node `+canary.Name)
	assert.Zero(t, framework.CountEvents(ev, canary.Name, framework.MCONodeDegraded, ""), "MCO saw nothing wrong: only the scrapes did")
	viaCollector, onNode := w.throughCollector(t, stopped)
	w.turnOff(t, viaCollector, onNode, end)
}

// startNodeSettingsWorld: the operator with node settings only, pools master, worker and canary with real CRI-O, the stand-in, an OTLP receiver and Prometheus (docs/platform-fixture.md).
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
	framework.RemoveOpenTelemetryCollectors(t) // an interrupted run's
	c.ResetNodeOperator(t)
	c.PatchNodeOperatorSpec(t, map[string]interface{}{
		"metrics": map[string]interface{}{"state": "Disabled", "managementState": nil},
		"nmstate": map[string]interface{}{"state": "Disabled", "managementState": nil},
	})
	// The gate asks the query endpoint (Thanos Querier) with the operator's token.
	query := framework.NewQueryProxy(t)
	operatorToken := framework.ServiceAccountTokenFile(t, framework.OperatorNamespace, framework.OperatorServiceAccount)
	framework.StartOperator(t, framework.OperatorOptions{Args: []string{
		"--node-settings-soak=" + nodeSettingsSoak.String(), "--node-settings-gate=" + nodeSettingsGate.String(),
		"--node-settings-update-timeout=3m",
		"--prometheus-url=" + query.URL, "--prometheus-ca-file=" + query.CAFile, "--prometheus-token-file=" + operatorToken,
	}})
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
	w.startMonitoring(t, query)
	t.Cleanup(func() { c.ResetNodeOperator(t) })
	return w
}

// turnOn: pool by pool, our CRI-O and kubelet drop-ins with their restarts and no reboot nor drain; spans arrive.
func (w *nodeSettingsWorld) turnOn(t *testing.T) *nodev1alpha1.NodeSettingsStatus {
	t.Helper()
	e0 := len(w.s.Events())
	before := ""
	if s := mustNodeOperator(t, w.c).Status.NodeSettings; s != nil {
		before = s.Target // an earlier test's
	}
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
	w.assertCRISpans(t, w.recv)
	return on
}

// canaryFails: a change crioBin cannot take stops at the canary, which goes back; the other pools see nothing.
func (w *nodeSettingsWorld) canaryFails(t *testing.T, on, prev *nodev1alpha1.NodeSettingsStatus, crioBin string, rate int) (*nodev1alpha1.NodeSettingsStatus, []framework.MCOEvent) {
	t.Helper()
	canary := w.nodes["canary"]
	canary.CRIOBin = crioBin
	e1 := len(w.s.Events())
	w.setTracing(t, rate)
	s := waitPhase(t, w.c, prev.Target, nodesettings.PhaseStopped)
	k := poolStatus(s, "canary")
	assert.Equal(t, nodesettings.Reverted, nodesettings.PoolState(k.State))
	assert.Equal(t, poolStatus(on, "canary").Revision, k.Revision, "the canary is back at its last good revision")
	for _, pool := range []string{"worker", "master"} {
		p := poolStatus(s, pool)
		assert.Equal(t, nodesettings.Held, nodesettings.PoolState(p.State), pool)
		assert.Equal(t, poolStatus(on, pool).Revision, p.Revision, "pool %s keeps its revision", pool)
		assert.Zero(t, framework.CountEvents(w.s.Events()[e1:], w.nodes[pool].Name, "", ""), "nothing happens on pool %s's node", pool)
	}
	framework.Eventually(t, time.Minute, 250*time.Millisecond, func() (bool, error) {
		p := framework.GetMCOPool(t, w.c.Config, "canary")
		return framework.PoolSettled(p) && p.Status.DegradedMachineCount == 0 && framework.CRIOHealthy(canary) == nil, nil
	}, "pool canary updated back, not degraded, its CRI-O answering")
	dropIn, err := framework.CRIODropIn(canary, nodesettings.CRIODropInPath)
	require.NoError(t, err)
	assert.Contains(t, dropIn, "tracing_sampling_rate_per_million = 1000000", "the canary runs the last good drop-in")
	assert.Zero(t, w.s.Reboots())
	return s, w.s.Events()[e1:]
}

// throughCollector: with the OpenTelemetry API served, the drop-ins point at the node's collector, pool by pool.
func (w *nodeSettingsWorld) throughCollector(t *testing.T, stopped *nodev1alpha1.NodeSettingsStatus) (*nodev1alpha1.NodeSettingsStatus, *framework.OTLPReceiver) {
	t.Helper()
	w.nodes["canary"].CRIOBin = ""
	onNode := framework.StartOTLPReceiverAt(t, nodesettings.CollectorEndpoint, "node-collector")
	framework.ServeOpenTelemetryCollectors(t)
	e3 := len(w.s.Events())
	w.setTracing(t, 1000000)
	s := waitPhase(t, w.c, stopped.Target, nodesettings.PhaseComplete)
	w.assertPoolByPool(t, e3, w.order...)
	collector, err := w.c.Dynamic.Resource(otelCollectorGVR).Namespace(framework.OperatorNamespace).Get(context.Background(), nodesettings.CollectorName, metav1.GetOptions{})
	require.NoError(t, err, "our OpenTelemetryCollector, accepted by the OpenTelemetry operator's CRD")
	assert.Equal(t, "daemonset", collector.Object["spec"].(map[string]interface{})["mode"], "a collector on each node")
	for pool, n := range w.nodes {
		dropIn, err := framework.CRIODropIn(n, nodesettings.CRIODropInPath)
		require.NoError(t, err, pool)
		assert.Contains(t, dropIn, fmt.Sprintf("tracing_endpoint = %q", nodesettings.CollectorEndpoint), "pool %s: CRI-O sends to the collector on its node", pool)
	}
	w.assertCRISpans(t, onNode)
	return s, onNode
}

// turnOff: the drop-ins go pool by pool (end closes the disruption window); no spans arrive afterwards.
func (w *nodeSettingsWorld) turnOff(t *testing.T, viaCollector *nodev1alpha1.NodeSettingsStatus, onNode *framework.OTLPReceiver, end func()) {
	t.Helper()
	e2 := len(w.s.Events())
	w.setTracing(t, nil)
	off := waitPhase(t, w.c, viaCollector.Target, nodesettings.PhaseComplete)
	end()
	// The canary selects the worker role too: its node keeps the worker
	// pool's drop-in until the worker pool's turn.
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
	quiet := time.Now()
	for _, n := range w.nodes {
		callCRI(t, n)
	}
	// Spans the calls made would be exported within crioSpanExportDelay: none may arrive during it.
	exportedBy := time.Now().Add(crioSpanExportDelay)
	framework.Eventually(t, 2*crioSpanExportDelay, time.Second, func() (bool, error) {
		if !assert.Empty(t, w.recv.ServiceSpans(t, crioTracingService, quiet), "no spans once tracing is off") ||
			!assert.Empty(t, onNode.ServiceSpans(t, crioTracingService, quiet), "no spans to the collector's address once tracing is off") {
			return true, nil
		}
		return time.Now().After(exportedBy), nil
	}, "the span export window")
	assert.Zero(t, w.s.Reboots())
}

// startMonitoring: Prometheus scrapes each node's kube-rbac-proxy-crio as job="crio" behind the query proxy; metrics stack on (PlatformProxy).
func (w *nodeSettingsWorld) startMonitoring(t *testing.T, query *framework.QueryProxy) {
	t.Helper()
	var nodes []*framework.PlatformNode // each runs its kube-rbac-proxy-crio (StartPlatformNode)
	for _, pool := range w.order {
		nodes = append(nodes, w.nodes[pool])
	}
	// Every 250 ms: a hanging CRI-O must show within the seconds-long soak.
	prom := framework.StartPlatformPrometheus(t, w.pki, nodes, 250*time.Millisecond)
	prom.WaitTargetsUp(t, len(nodes), time.Minute)
	query.Start(t, prom)
	w.c.PatchNodeOperatorSpec(t, map[string]interface{}{"metrics": map[string]interface{}{"state": "Enabled", "managementState": nil}})
	no := w.c.WaitForStacks(t, 2*time.Minute, map[nodev1alpha1.StackName]bool{nodev1alpha1.MetricsStack: true})
	for _, s := range no.Status.Stacks {
		if s.Name == nodev1alpha1.MetricsStack {
			require.Equal(t, nodev1alpha1.PlatformProxy, s.Mode, "the metrics stack on the platform's path")
		}
	}
}

// deleteLeftoverMachineConfigs deletes every MachineConfig but MCO's 01-* and waits until they are gone.
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

func mustNodeOperator(t *testing.T, c *framework.Cluster) *nodev1alpha1.NodeOperator {
	t.Helper()
	no, err := c.NodeOperator(context.Background())
	require.NoError(t, err)
	return no
}
