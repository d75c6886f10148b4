//go:build e2e

package e2e

// Node tracing (issue 14): a real CRI-O of the platform fixture
// (framework/platform.go) given a [crio.tracing] drop-in exports its spans
// over OTLP/gRPC to a real receiver (hack/tools/otlp-receiver), and stops
// when the drop-in is gone (docs/node-tracing-fixture.md).

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

const (
	// crioTracingService is the service.name of CRI-O's spans (its
	// internal/opentelemetry sets the resource to "crio").
	crioTracingService = "crio"
	// crioTracingDropIn is the drop-in name the operator renders node
	// settings to (pkg/operator/nodesettings: 60-node-settings.conf).
	crioTracingDropIn = "60-node-settings.conf"
	// crioSpanExportDelay bounds how long CRI-O holds a finished span: its
	// batch span processor exports every 5 s (the OpenTelemetry SDK's
	// default schedule delay); twice that and some slack for a busy machine.
	crioSpanExportDelay = 12 * time.Second
)

// crioTracedCalls are CRI calls that need no pod or image: each one makes
// CRI-O's gRPC server record spans named after the method.
var crioTracedCalls = []string{
	"runtime.v1.RuntimeService/Version",
	"runtime.v1.RuntimeService/Status",
	"runtime.v1.RuntimeService/ListPodSandbox",
	"runtime.v1.ImageService/ListImages",
}

func crioTracingDropInFor(endpoint string, perMillion int) []byte {
	return []byte(fmt.Sprintf(`# Written by TestCRIOTracingReachesOTLPReceiver: what the operator's node
# settings render for CRI-O tracing.
[crio.tracing]
enable_tracing = true
tracing_endpoint = %q
tracing_sampling_rate_per_million = %d
`, endpoint, perMillion))
}

func callCRI(t *testing.T, node *framework.PlatformNode) {
	t.Helper()
	cri := framework.DialCRI(t, node.CRISocket())
	for _, m := range crioTracedCalls {
		require.NoError(t, framework.CRICallsWithoutPod[m](t.Context(), cri), "CRI call %s to node %s", m, node.Name)
	}
}

func spanNames(spans []framework.OTLPSpan) []string {
	seen := map[string]bool{}
	var names []string
	for _, s := range spans {
		if !seen[s.Name] {
			seen[s.Name] = true
			names = append(names, s.Name)
		}
	}
	sort.Strings(names)
	return names
}

// TestCRIOTracingReachesOTLPReceiver: CRI-O of one platform node, with a
// [crio.tracing] drop-in naming the receiver and sampling every trace,
// exports spans of its CRI calls (service.name "crio", host.name this
// machine's hostname); once the drop-in is removed and CRI-O restarted, new
// calls export nothing.
func TestCRIOTracingReachesOTLPReceiver(t *testing.T) {
	began := time.Now()
	c := framework.NewCluster(t)
	requireMachineConfigAPI(t)
	if err := framework.EnsureTool(t, "crio"); err != nil {
		framework.Unavailable(t, "crio is not available: %v", err)
	}
	worker := platformNodeNames(t)[1]
	framework.InstallPlatformContainerRuntime(t, c.Config, []string{worker})
	node := framework.StartPlatformNode(t, c.Config, framework.NewPlatformPKI(t), worker)
	recv := framework.StartOTLPReceiver(t)
	hostname, err := os.Hostname()
	require.NoError(t, err)
	setup := time.Since(began)

	// On: the drop-in, a CRI-O restart, CRI calls, their spans.
	onAt := time.Now()
	require.True(t, node.SetCRIODropIn(t, crioTracingDropIn, crioTracingDropInFor(recv.Addr, 1000000)),
		"writing the tracing drop-in must restart CRI-O")
	require.Contains(t, node.CRIODropIns(t), crioTracingDropIn)
	restartOn := time.Since(onAt)
	called := time.Now()
	callCRI(t, node)
	// Each call is a trace of its own (no parent from a caller, sampled by
	// the rate) with a server span named after the method (CRI-O's otelgrpc
	// server handler); batches may split them, so wait for all of them.
	spans := recv.WaitForSpans(t, crioTracingService, called, len(crioTracedCalls), time.Minute)
	framework.Eventually(t, 30*time.Second, 250*time.Millisecond, func() (bool, error) {
		spans = recv.ServiceSpans(t, crioTracingService, called)
		for _, m := range crioTracedCalls {
			if !slices.ContainsFunc(spans, func(s framework.OTLPSpan) bool { return s.Kind == "SERVER" && s.Name == m }) {
				return false, nil
			}
		}
		return true, nil
	}, fmt.Sprintf("a server span of each CRI call %q (have %q)", crioTracedCalls, spanNames(spans)))
	firstSpans := time.Since(called)
	traces := map[string]bool{}
	for _, s := range spans {
		assert.Equal(t, hostname, s.Host, "host.name of span %s", s.Name)
		assert.False(t, s.Start.Before(called.Add(-time.Second)), "span %s started before the calls", s.Name)
		traces[s.TraceID] = true
	}
	assert.GreaterOrEqual(t, len(traces), len(crioTracedCalls), "one trace per CRI call at least")
	t.Logf("CRI-O exported %d spans in %d traces within %s of the calls; span names: %q",
		len(spans), len(traces), firstSpans.Round(time.Millisecond), spanNames(spans))

	// Off: the drop-in removed, a CRI-O restart; new calls export nothing.
	offAt := time.Now()
	require.True(t, node.SetCRIODropIn(t, crioTracingDropIn, nil), "removing the tracing drop-in must restart CRI-O")
	require.NotContains(t, node.CRIODropIns(t), crioTracingDropIn)
	restartOff := time.Since(offAt)
	before := len(recv.Spans(t))
	quiet := time.Now()
	callCRI(t, node)
	time.Sleep(crioSpanExportDelay)
	assert.Empty(t, spanNames(recv.ServiceSpans(t, crioTracingService, quiet)), "spans of calls made with tracing off")
	assert.Len(t, recv.Spans(t), before, "no span at all may arrive once tracing is off")

	t.Logf("durations: setup (node, CRI-O, receiver) %s; on: restart %s, spans %s after the calls; off: restart %s, quiet wait %s; total %s",
		setup.Round(time.Millisecond), restartOn.Round(time.Millisecond), firstSpans.Round(time.Millisecond),
		restartOff.Round(time.Millisecond), crioSpanExportDelay, time.Since(began).Round(time.Millisecond))
}
