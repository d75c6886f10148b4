package nodesettings

import (
	"fmt"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
)

func TestIdleFor(t *testing.T) {
	served := platform.ServedAPIs{MachineConfig: true}
	unknown := platform.ServedAPIs{Unknown: []string{"machineconfiguration.openshift.io/v1"}}
	for _, tc := range []struct {
		name string
		in   idleInput
		want idle
	}{
		{"Removed releases the guards, whatever is served", idleInput{State: operatorv1.Removed, Traced: true}, idleRemoved},
		{"Unmanaged does nothing", idleInput{State: operatorv1.Unmanaged, Traced: true, Served: served}, idleUnmanaged},
		{"discovery has not answered", idleInput{State: operatorv1.Managed, Traced: true, Served: unknown}, idleDiscovery},
		{"MachineConfigs not served", idleInput{State: operatorv1.Managed, Traced: true}, idleNotServed},
		{"settings asked for", idleInput{State: operatorv1.Managed, Traced: true, Served: served}, rollout},
		{"a rollout recorded, settings gone", idleInput{State: operatorv1.Managed, Recorded: true, Served: served}, rollout},
		{"nothing asked or recorded: look for ours once", idleInput{State: operatorv1.Managed, Served: served}, listOurs},
		{"nothing asked, recorded or left", idleInput{State: operatorv1.Managed, Served: served, NoneLeft: true}, idleNoSettings},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, idleFor(tc.in))
		})
	}
}

func TestPlanRollout(t *testing.T) {
	const ns = "openshift-cluster-node-operator"
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tracing := nodev1alpha1.NodeSettings{Tracing: nodev1alpha1.NodeTracing{Endpoint: "collector.example.com:4317",
		CRIO: &nodev1alpha1.TracingSampling{SamplingRatePerMillion: ptr(1000)}}}
	mco := func(collector bool) *mcoObjects {
		return &mcoObjects{pools: []string{"worker"}, pool: map[string]*mcfgv1.MachineConfigPool{"worker": {}},
			facts: map[string]PoolFacts{"worker": {}}, collector: collector}
	}
	complete := Rollout{Phase: PhaseComplete, Pools: []PoolStatus{{Name: "worker", State: Done}}}
	for _, tc := range []struct {
		name string
		o    rolloutObservation
		// want: the collector, the written pool, the collector removed,
		// the recorded collector, the Progressing reason, the recheck.
		collector, write  string
		remove, reference bool
		reason            string
		recheck           time.Duration
		note, filesTo     string
	}{
		{name: "settings where the collector API is served: the collector first, then the first pool",
			o:         rolloutObservation{Spec: tracing, MCO: mco(true), Pools: map[string]PoolObservation{"worker": {Healthy: true}}, Now: now},
			collector: "collector.example.com:4317", write: "worker", reference: true, reason: ReasonRollingOut, recheck: pollInterval,
			note: "spans go to a collector on each node (OpenTelemetryCollector " + ns + "/node-tracing", filesTo: "127.0.0.1:9417"},
		{name: "settings without the collector API: spans go as given; a recorded collector is kept while pools change",
			o: rolloutObservation{Spec: tracing, MCO: mco(false), CollectorRecorded: true,
				Pools: map[string]PoolObservation{"worker": {Healthy: true}}, Now: now, NoScrapes: "no Prometheus"},
			write: "worker", reference: true, reason: ReasonRollingOut, recheck: pollInterval,
			note:    "spans go to collector.example.com:4317 as given: the OpenTelemetry collector API (opentelemetry.io) is not served; the health gate checks node readiness but not CRI-O's metrics: no Prometheus",
			filesTo: "collector.example.com:4317"},
		{name: "no settings, a complete rollout: the recorded collector goes",
			o:      rolloutObservation{Previous: complete, MCO: mco(true), CollectorRecorded: true, Pools: map[string]PoolObservation{"worker": {Healthy: true}}, Now: now},
			remove: true, reason: ReasonAsExpected},
		{name: "a collector seen gone is not recorded again",
			o:      rolloutObservation{Previous: complete, MCO: mco(true), CollectorRecorded: true, CollectorGone: true, Pools: map[string]PoolObservation{"worker": {Healthy: true}}, Now: now},
			remove: true, reason: ReasonAsExpected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := planRollout(tc.o, ns, testTiming)
			collector, write := "", ""
			if p.Collector != nil {
				collector, _, _ = unstructured.NestedString(p.Collector.Object, "spec", "config", "exporters", "otlp", "endpoint")
			}
			if p.Step.Write != nil {
				write = p.Step.Write.Pool
				assert.Equal(t, p.Step.Write.Revision, RevisionOf(p.Files), "the files of the written revision")
				assert.Contains(t, fmt.Sprint(p.Files), tc.filesTo, "where the nodes send spans")
			}
			assert.Equal(t, tc.collector, collector, "collector")
			assert.Equal(t, tc.write, write, "write")
			assert.Equal(t, tc.remove, p.RemoveCollector, "collector removed")
			assert.Equal(t, tc.reference, p.Status.OpenTelemetryCollector.Name != "", "collector recorded")
			assert.Equal(t, tc.reason, p.Conditions.Progressing.Reason)
			assert.Equal(t, tc.recheck, p.Recheck)
			assert.Contains(t, p.Conditions.Progressing.Message, tc.note)
		})
	}
}
