//go:build e2e

package e2e

// Node settings on the real node (hack/node.sh): the MCO stand-in writes
// the rendered drop-ins where its kubelet and CRI-O read them and restarts
// them as the node disruption policy says (docs/mco-standin.md).

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/wait"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodesettings"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// The kubelet's resource is service.name kubelet, host.name the node's name
// (cmd/kubelet/app/server.go newTracerProvider, k8s.io/kubernetes v1.36.2).
const kubeletTracingService = "kubelet"

// TestNodeSettingsTracingRealNode: a rollout on the worker pool, whose only
// node is the real one, makes its kubelet and CRI-O export spans; the
// rollback removes both drop-ins and the spans stop (docs/test-behaviours.md).
func TestNodeSettingsTracingRealNode(t *testing.T) {
	c := framework.NewCluster(t)
	requireMachineConfigAPI(t)
	node := framework.StartRealNode(t)
	framework.InstallOperatorPrerequisites(t, c.Config)
	framework.RemoveOpenTelemetryCollectors(t) // an interrupted run's: the drop-ins name the destination
	c.ResetNodeOperator(t)
	// The gate looks at the node's Ready (the kubelet's own report) only:
	// with the metrics stack off it asks Prometheus nothing.
	c.PatchNodeOperatorSpec(t, map[string]interface{}{
		"metrics": map[string]interface{}{"state": "Disabled", "managementState": nil},
		"nmstate": map[string]interface{}{"state": "Disabled", "managementState": nil},
	})
	// Reset once the operator is gone: a running one would re-enable the
	// NMState stack just before it stops, listing what it never installed.
	t.Cleanup(func() { c.ResetNodeOperator(t) })
	framework.StartOperator(t, framework.OperatorOptions{Args: []string{
		"--node-settings-soak=" + nodeSettingsSoak.String(), "--node-settings-gate=" + nodeSettingsGate.String(),
		"--node-settings-update-timeout=3m",
	}})
	c.WaitForStacks(t, 2*time.Minute, map[nodev1alpha1.StackName]bool{nodev1alpha1.MetricsStack: false, nodev1alpha1.NMStateStack: false})
	deleteLeftoverMachineConfigs(t, c)
	// MCO's MachineConfigs: the worker kubelet's unit passes --config-dir.
	framework.InstallPlatformCRIOMetrics(t, c.Config, nil)
	framework.CreatePool(t, c.Config, "worker")
	// On this machine's side of the node's veth pair: the node's only way out.
	recv := framework.StartOTLPReceiverAt(t, net.JoinHostPort(node.HostIP(t), strconv.Itoa(framework.FreePort(t))), "otlp-receiver-real-node")
	s := framework.StartMCOStandInOnRealNode(t, c.Config, node)
	t.Cleanup(s.Stop)
	framework.WaitStandInPool(t, c, "worker", "pool worker rendered and updated", framework.PoolSettled)
	cri := framework.DialCRI(t, node.CRISocket())
	callCRI := func() {
		for _, m := range crioTracedCalls {
			require.NoError(t, framework.CRICallsWithoutPod[m](t.Context(), cri), "CRI call %s to the real node", m)
		}
	}

	e0 := len(s.Events())
	before := ""
	if st := mustNodeOperator(t, c).Status.NodeSettings; st != nil {
		before = st.Target // an earlier test's
	}
	c.PatchNodeOperatorSpec(t, map[string]interface{}{"nodeSettings": map[string]interface{}{"tracing": map[string]interface{}{
		"endpoint": recv.Addr,
		"crio":     map[string]interface{}{"samplingRatePerMillion": 1000000},
		"kubelet":  map[string]interface{}{"samplingRatePerMillion": 1000000},
	}}})
	on := waitPhase(t, c, before, nodesettings.PhaseComplete)
	rolledOut := time.Now()
	ev := s.Events()[e0:]
	for path, want := range map[string]string{
		"/etc/crio/crio.conf.d/60-node-settings.conf":         fmt.Sprintf("tracing_endpoint = %q", recv.Addr),
		"/etc/openshift/kubelet.conf.d/60-node-settings.conf": fmt.Sprintf("endpoint: %q", recv.Addr),
	} {
		got, err := os.ReadFile(node.HostPath(path))
		if assert.NoError(t, err, "%s on the node", path) {
			assert.Contains(t, string(got), want, path)
		}
	}
	assert.Equal(t, 1, framework.CountEvents(ev, node.Name, framework.MCOServiceRestarted, "crio.service"), "CRI-O restarted once (events %v)", ev)
	assert.Equal(t, 1, framework.CountEvents(ev, node.Name, framework.MCOServiceRestarted, "kubelet.service"), "the kubelet restarted for its drop-in (events %v)", ev)
	kubelet, crio := realNodeSpans(t, recv, node.Name, rolledOut, time.Minute, callCRI, oneTrace)
	t.Logf("after the rollout: %d kubelet and %d CRI-O spans within %s", len(kubelet), len(crio), time.Since(rolledOut).Round(time.Second))
	assert.NotEmpty(t, kubelet, "the kubelet's spans, host.name %s, at %s", node.Name, recv.Addr)
	assert.NotEmpty(t, crio, "CRI-O's SERVER spans of CRI calls at %s", recv.Addr)
	assert.True(t, oneTrace(kubelet, crio), "a CRI call of the kubelet traced on both sides, in one trace")

	e1 := len(s.Events())
	c.PatchNodeOperatorSpec(t, map[string]interface{}{"nodeSettings": nil})
	waitPhase(t, c, on.Target, nodesettings.PhaseComplete)
	quiet := time.Now()
	ev = s.Events()[e1:]
	for _, path := range []string{"/etc/crio/crio.conf.d/60-node-settings.conf", "/etc/openshift/kubelet.conf.d/60-node-settings.conf"} {
		_, err := os.Stat(node.HostPath(path))
		assert.True(t, os.IsNotExist(err), "%s removed from the node (%v)", path, err)
	}
	assert.Equal(t, 1, framework.CountEvents(ev, node.Name, framework.MCOServiceRestarted, "crio.service"), "CRI-O restarted once (events %v)", ev)
	assert.Equal(t, 1, framework.CountEvents(ev, node.Name, framework.MCOServiceRestarted, "kubelet.service"), "the kubelet restarted (events %v)", ev)
	// Both export a batch every 5 s (OpenTelemetry's batch span processor);
	// the kubelet makes CRI calls every second (PLEG) and the test some
	// more, so a traced kubelet or CRI-O would send spans within the window.
	kubelet, crio = realNodeSpans(t, recv, node.Name, quiet, crioSpanExportDelay, callCRI, nil)
	assert.Empty(t, kubelet, "no kubelet span once tracing is off")
	assert.Empty(t, crio, "no CRI-O span once tracing is off")
	assert.Zero(t, s.Reboots())
}

// oneTrace: a CRI call's CLIENT span of the kubelet and CRI-O's SERVER span of it share a trace.
func oneTrace(kubelet, crio []framework.OTLPSpan) bool {
	return slices.ContainsFunc(crio, func(c framework.OTLPSpan) bool {
		return slices.ContainsFunc(kubelet, func(k framework.OTLPSpan) bool {
			return k.Kind == "CLIENT" && k.TraceID == c.TraceID && k.Name == c.Name
		})
	})
}

// realNodeSpans calls CRI-O every second and returns the kubelet's spans
// of node and CRI-O's SERVER spans of CRI calls started since since, once
// enough (nil: never) says so or window passed.
func realNodeSpans(t *testing.T, recv *framework.OTLPReceiver, node string, since time.Time, window time.Duration, callCRI func(),
	enough func(kubelet, crio []framework.OTLPSpan) bool) (kubelet, crio []framework.OTLPSpan) {
	t.Helper()
	_ = wait.PollUntilContextTimeout(context.Background(), time.Second, window, true, func(context.Context) (bool, error) {
		callCRI()
		kubelet = slices.DeleteFunc(recv.ServiceSpans(t, kubeletTracingService, since), func(s framework.OTLPSpan) bool { return s.Host != node })
		crio = slices.DeleteFunc(recv.ServiceSpans(t, crioTracingService, since), func(s framework.OTLPSpan) bool {
			return s.Kind != "SERVER" || !strings.HasPrefix(s.Name, "runtime.v1.")
		})
		return enough != nil && enough(kubelet, crio), nil
	})
	return kubelet, crio
}
