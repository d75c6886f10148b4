package nodesettings

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodedisruption"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient/operatorclienttest"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
)

// fakeMCO is MCO's objects behind a fake dynamic client, the log of our
// writes to them, and just enough of MCO to finish a pool's update.
type fakeMCO struct {
	t               *testing.T
	client          *dynamicfake.FakeDynamicClient
	writes          []string
	gen             int
	collectorServed bool // the OpenTelemetry operator's API is served
}

func newFakeMCO(t *testing.T, withPolicy bool, pools ...string) *fakeMCO {
	t.Helper()
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		platform.MachineConfigGVR: "MachineConfigList", platform.MachineConfigPoolGVR: "MachineConfigPoolList", platform.MachineConfigNodeGVR: "MachineConfigNodeList",
		platform.KubeletConfigGVR: "KubeletConfigList", platform.MachineConfigurationGVR: "MachineConfigurationList", platform.OpenTelemetryCollectorGVR: "OpenTelemetryCollectorList",
	})
	m := &fakeMCO{t: t, client: client}
	client.PrependReactor("*", "opentelemetrycollectors", func(clienttesting.Action) (bool, runtime.Object, error) {
		if m.collectorServed {
			return false, nil, nil
		}
		return true, nil, apierrors.NewNotFound(platform.OpenTelemetryCollectorGVR.GroupResource(), "")
	})
	client.PrependReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		switch a := a.(type) {
		case clienttesting.PatchAction:
			m.writes = append(m.writes, fmt.Sprintf("apply %s %s", a.GetResource().Resource, a.GetName()))
			if a.GetPatchType() == types.ApplyPatchType {
				return true, m.apply(a), nil
			}
		case clienttesting.DeleteAction:
			m.writes = append(m.writes, fmt.Sprintf("delete %s %s", a.GetResource().Resource, a.GetName()))
		case clienttesting.CreateAction:
			m.writes = append(m.writes, fmt.Sprintf("create %s", a.GetResource().Resource))
		}
		return false, nil, nil
	})
	if withPolicy {
		m.createPolicy()
		m.syncPolicy()
	}
	for _, p := range pools {
		selector := map[string]interface{}{"matchLabels": map[string]interface{}{roleLabel: p}}
		if !isBasePool(p) {
			selector = map[string]interface{}{"matchExpressions": []interface{}{map[string]interface{}{
				"key": roleLabel, "operator": "In", "values": []interface{}{"worker", p}}}}
		}
		m.create(platform.MachineConfigPoolGVR, &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfigPool",
			"metadata": map[string]interface{}{"name": p},
			"spec": map[string]interface{}{"machineConfigSelector": selector,
				"nodeSelector": map[string]interface{}{"matchLabels": map[string]interface{}{"node-role.kubernetes.io/" + p: ""}}},
		}})
		m.finish(p)
	}
	m.writes = nil
	return m
}

func (m *fakeMCO) create(gvr schema.GroupVersionResource, u *unstructured.Unstructured) {
	m.t.Helper()
	require.NoError(m.t, m.client.Tracker().Create(gvr, u, ""))
}

// createPolicy is MCO creating MachineConfiguration cluster, without a status.
func (m *fakeMCO) createPolicy() {
	m.create(platform.MachineConfigurationGVR, &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "operator.openshift.io/v1", "kind": "MachineConfiguration",
		"metadata": map[string]interface{}{"name": "cluster", "generation": int64(1)},
		"spec":     map[string]interface{}{"managementState": "Managed"},
	}})
}

// apply stores ours whole; for MachineConfiguration cluster, the entries.
func (m *fakeMCO) apply(a clienttesting.PatchAction) runtime.Object {
	u := &unstructured.Unstructured{}
	require.NoError(m.t, json.Unmarshal(a.GetPatch(), &u.Object))
	gvr := a.GetResource()
	live, err := m.client.Tracker().Get(gvr, a.GetNamespace(), a.GetName())
	if apierrors.IsNotFound(err) {
		require.NoError(m.t, m.client.Tracker().Create(gvr, u, a.GetNamespace()))
		return u
	}
	require.NoError(m.t, err)
	l := live.(*unstructured.Unstructured)
	if gvr == platform.MachineConfigurationGVR {
		files, _, _ := unstructured.NestedSlice(u.Object, "spec", "nodeDisruptionPolicy", "files")
		require.NoError(m.t, unstructured.SetNestedSlice(l.Object, files, "spec", "nodeDisruptionPolicy", "files"))
		// A spec change: the API server bumps the generation.
		l.SetGeneration(l.GetGeneration() + 1)
		u = l
	}
	u.SetResourceVersion("")
	require.NoError(m.t, m.client.Tracker().Update(gvr, u, a.GetNamespace()))
	return u
}

// syncPolicy is MCO's operator listing the spec's entries in the status
// for the object's generation, logged as "mco: policy status".
func (m *fakeMCO) syncPolicy() {
	m.t.Helper()
	u := m.get(platform.MachineConfigurationGVR, "cluster")
	if u == nil {
		return
	}
	if seen, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration"); seen == u.GetGeneration() {
		return
	}
	// The status's files and actions have the spec's fields.
	files, _, _ := unstructured.NestedSlice(u.Object, "spec", "nodeDisruptionPolicy", "files")
	u.Object["status"] = map[string]interface{}{"observedGeneration": u.GetGeneration(),
		"nodeDisruptionPolicyStatus": map[string]interface{}{"clusterPolicies": map[string]interface{}{"files": files}}}
	require.NoError(m.t, m.client.Tracker().Update(platform.MachineConfigurationGVR, u, ""))
	m.writes = append(m.writes, "mco: policy status")
}

func (m *fakeMCO) get(gvr schema.GroupVersionResource, name string) *unstructured.Unstructured {
	obj, err := m.client.Tracker().Get(gvr, "", name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	require.NoError(m.t, err)
	return obj.(*unstructured.Unstructured)
}

// finish renders a pool from our MachineConfigs it selects and reports
// every machine updated to it.
func (m *fakeMCO) finish(pool string) {
	m.t.Helper()
	roles := []string{pool}
	if !isBasePool(pool) {
		roles = []string{"worker", pool}
	}
	files := map[string]interface{}{}
	for _, r := range roles {
		if mc := m.get(platform.MachineConfigGVR, MachineConfigName(r)); mc != nil {
			fs, _, _ := unstructured.NestedSlice(mc.Object, "spec", "config", "storage", "files")
			for _, f := range fs {
				files[f.(map[string]interface{})["path"].(string)] = f
			}
		}
	}
	var merged []interface{}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		merged = append(merged, files[p])
	}
	m.gen++
	rendered := fmt.Sprintf("rendered-%s-%d", pool, m.gen)
	m.create(platform.MachineConfigGVR, &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfig",
		"metadata": map[string]interface{}{"name": rendered},
		"spec":     map[string]interface{}{"config": map[string]interface{}{"storage": map[string]interface{}{"files": merged}}},
	}})
	p := m.get(platform.MachineConfigPoolGVR, pool)
	require.NoError(m.t, unstructured.SetNestedField(p.Object, rendered, "spec", "configuration", "name"))
	require.NoError(m.t, unstructured.SetNestedField(p.Object, map[string]interface{}{
		"configuration": map[string]interface{}{"name": rendered},
		"machineCount":  int64(2), "updatedMachineCount": int64(2),
		"conditions": []interface{}{map[string]interface{}{"type": "Updated", "status": "True"}},
	}, "status"))
	require.NoError(m.t, m.client.Tracker().Update(platform.MachineConfigPoolGVR, p, ""))
}

type fixture struct {
	t     *testing.T
	clock *clocktesting.FakeClock
	no    *operatorclienttest.Fake
	mco   *fakeMCO
	c     *Controller
}

// newFixture is the controller asked for spec, and MCO with its pools.
func newFixture(t *testing.T, spec nodev1alpha1.NodeSettings, withPolicy bool, pools ...string) (*fixture, *fakeMCO) {
	mco := newFakeMCO(t, withPolicy, pools...)
	f := &fixture{t: t, clock: clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), mco: mco}
	f.no = operatorclienttest.New(t, f.clock, &nodev1alpha1.NodeOperator{
		ObjectMeta: metav1.ObjectMeta{Generation: 1},
		Spec: nodev1alpha1.NodeOperatorSpec{
			OperatorSpec: operatorv1.OperatorSpec{ManagementState: operatorv1.Managed},
			NodeSettings: spec,
		},
	})
	f.c = &Controller{clock: f.clock, nodeOperators: f.no.NodeOperators, dynamic: mco.client, kube: kubefake.NewClientset(),
		served:    platform.FixedServed(platform.ServedAPIs{MachineConfig: true, MachineConfiguration: true}),
		namespace: "openshift-cluster-node-operator", timing: testTiming, recorder: events.NewInMemoryRecorder("test", f.clock)}
	return f, mco
}

// sync runs one sync and refreshes the NodeOperator cache.
func (f *fixture) sync() time.Duration {
	f.t.Helper()
	recheck, err := f.c.Sync(context.Background())
	require.NoError(f.t, err)
	f.no.Refresh()
	return recheck
}

func (f *fixture) status() *nodev1alpha1.NodeSettingsStatus { return f.no.Get().Status.NodeSettings }

func (f *fixture) poolState(pool string) nodev1alpha1.NodeSettingsPoolState {
	for _, p := range f.status().Pools {
		if p.Name == pool {
			return p.State
		}
	}
	return ""
}

func (f *fixture) condition(t string) operatorv1.OperatorCondition {
	for _, c := range f.no.Get().Status.Conditions {
		if c.Type == Prefix+t {
			return c
		}
	}
	return operatorv1.OperatorCondition{}
}

// run syncs, MCO finishing each pool we changed and the soak passing,
// until the rollout is no longer in progress.
func (f *fixture) run() {
	f.t.Helper()
	for i := 0; i < 60; i++ {
		f.sync()
		f.mco.syncPolicy()
		if f.condition("Progressing").Reason == ReasonWaitingForPolicy {
			continue
		}
		s := f.status()
		if s == nil || (s.Phase != nodev1alpha1.NodeSettingsPhase(PhaseRollingOut) && s.Phase != nodev1alpha1.NodeSettingsPhase(PhaseRollingBack)) {
			return
		}
		for _, p := range s.Pools {
			if p.State == nodev1alpha1.NodeSettingsPoolState(Applying) || p.State == nodev1alpha1.NodeSettingsPoolState(Reverting) {
				f.mco.finish(p.Name)
			}
		}
		f.clock.Step(testTiming.Soak)
	}
	f.t.Fatalf("the rollout did not end: %+v", f.status())
}

// quiet syncs n times, step apart: nothing written to MCO's objects or status.
func (f *fixture) quiet(n int, step time.Duration, msg string) {
	f.t.Helper()
	f.mco.writes, f.no.Writes = nil, nil
	for i := 0; i < n; i++ {
		f.clock.Step(step)
		f.sync()
	}
	assert.Empty(f.t, f.mco.writes, msg)
	assert.Empty(f.t, f.no.Writes, msg)
}

func tracingOn(canary string) nodev1alpha1.NodeSettings {
	return nodev1alpha1.NodeSettings{
		Tracing: nodev1alpha1.NodeTracing{Endpoint: "collector.example.com:4317",
			CRIO: &nodev1alpha1.TracingSampling{SamplingRatePerMillion: ptr(1000)}, Kubelet: &nodev1alpha1.TracingSampling{}},
		Rollout: nodev1alpha1.NodeSettingsRollout{CanaryPool: canary},
	}
}

// No settings, then no MachineConfig without MachineConfiguration (docs/test-behaviours.md).
func TestControllerWaitsForMachineConfiguration(t *testing.T) {
	f, mco := newFixture(t, nodev1alpha1.NodeSettings{}, false, "master", "worker")
	mco.client.ClearActions()
	f.sync()
	assert.Nil(t, f.status())
	assert.Equal(t, ReasonNoSettings, f.condition("Progressing").Reason)
	// No pools, no MCO MachineConfigs, no KubeletConfigs read.
	reads := mco.client.Actions()
	require.Len(t, reads, 1)
	assert.Equal(t, "list machineconfigs", reads[0].GetVerb()+" "+reads[0].GetResource().Resource)
	mco.client.ClearActions()
	f.quiet(1, time.Second, "no settings: the conditions written once")
	assert.Empty(t, mco.client.Actions(), "the next sync reads nothing")

	f.no.Update(func(no *nodev1alpha1.NodeOperator) { no.Spec.NodeSettings = tracingOn("") })
	recheck := f.sync()
	assert.Equal(t, pollInterval, recheck, "within the grace the wait is looked at often")
	assert.Empty(t, mco.writes)
	assert.Nil(t, f.status(), "no step taken")
	p := f.condition("Progressing")
	held := "node settings MachineConfigs held back: " + nodedisruption.WaitNoCluster
	assert.Equal(t, []any{operatorv1.ConditionTrue, ReasonWaitingForPolicy, held}, []any{p.Status, p.Reason, p.Message})
	assert.Equal(t, operatorv1.ConditionFalse, f.condition("Degraded").Status)

	f.quiet(10, 10*time.Second, "the same wait is not written again")
	f.clock.Step(nodedisruption.WaitGrace)
	assert.Zero(t, f.sync(), "past the grace the resync looks again")
	d := f.condition("Degraded")
	assert.Equal(t, []any{operatorv1.ConditionTrue, ReasonPolicyNotReady, held}, []any{d.Status, d.Reason, d.Message})
	assert.Len(t, f.no.Writes, 1, "Degraded written once")

	f.quiet(5, time.Minute, "a persistent wait is written once")

	// A restarted operator: the wait's start was kept in memory only, but
	// the Degraded condition that reports it is not taken back.
	restarted := *f.c
	restarted.mem = memory{}
	f.c = &restarted
	f.sync()
	assert.Equal(t, operatorv1.ConditionTrue, f.condition("Degraded").Status)
	assert.Empty(t, f.no.Writes, "a restart does not take Degraded back")

	mco.createPolicy()
	f.sync()
	f.sync()
	assert.Equal(t, []string{"apply machineconfigurations cluster"}, mco.writes, "the entries, once; no MachineConfig")
	assert.Equal(t, "node settings MachineConfigs held back: "+nodedisruption.WaitStatus, f.condition("Progressing").Message)
	assert.Equal(t, operatorv1.ConditionFalse, f.condition("Degraded").Status, "a new wait has its grace")
	f.run()
	assert.Equal(t, []string{"apply machineconfigurations cluster", "mco: policy status", "apply machineconfigs 60-worker-node-settings",
		"apply machineconfigs 60-master-node-settings"}, mco.writes)
	assert.Equal(t, operatorv1.ConditionFalse, f.condition("Degraded").Status)
	assert.Contains(t, f.condition("Progressing").Message, "spans go to collector.example.com:4317 as given: the OpenTelemetry collector API (opentelemetry.io) is not served")
}

// A change failing on the canary goes back to the last good revision (docs/test-behaviours.md).
func TestControllerRollsBackToTheLastGoodRevision(t *testing.T) {
	f, mco := newFixture(t, tracingOn("canary"), true, "master", "worker", "canary")
	f.run()
	good := f.status()
	f.no.Update(func(no *nodev1alpha1.NodeOperator) {
		no.Spec.NodeSettings.Tracing.CRIO.SamplingRatePerMillion = ptr(500000)
	})
	mco.writes = nil
	f.sync()
	require.Equal(t, nodev1alpha1.NodeSettingsPoolState(Applying), f.poolState("canary"))
	// MCO marks the pool Degraded as when a node's update fails.
	p := mco.get(platform.MachineConfigPoolGVR, "canary")
	require.NoError(t, unstructured.SetNestedSlice(p.Object, []interface{}{map[string]interface{}{"type": "Updated", "status": "False"},
		map[string]interface{}{"type": "Degraded", "status": "True", "message": "restarting crio.service service failed"}}, "status", "conditions"))
	require.NoError(t, mco.client.Tracker().Update(platform.MachineConfigPoolGVR, p, ""))
	// The revert, and a sync on the NodeOperator cache from before it: the
	// controller must not act on its own stale record.
	_, err := f.c.Sync(context.Background())
	require.NoError(t, err)
	_, err = f.c.Sync(context.Background())
	require.NoError(t, err)
	f.no.Refresh()
	mco.finish("canary")
	f.run()
	require.Equal(t, nodev1alpha1.NodeSettingsPhase(PhaseStopped), f.status().Phase, "%+v", f.status())
	assert.Equal(t, []string{
		"apply machineconfigs 60-canary-node-settings",
		"apply machineconfigs 60-canary-node-settings",
	}, mco.writes, "the failed revision, then one revert")
	assert.Equal(t, good.Pools[0].Revision, mco.get(platform.MachineConfigGVR, MachineConfigName("canary")).GetAnnotations()[RevisionAnnotation], "the last good")
	assert.Equal(t, nodev1alpha1.NodeSettingsPoolState(Held), f.poolState("worker"))
	d := f.condition("Degraded")
	assert.Equal(t, [2]string{"True", ReasonRolledBackCond}, [2]string{string(d.Status), d.Reason})
	assert.Contains(t, d.Message, "stopped at pool canary (PoolDegraded): MachineConfigPool canary is degraded: restarting crio.service service failed")

	f.quiet(5, 2*time.Second, "a stopped rollout writes nothing")
}

// The kubelet part goes only where the pool's kubelet takes it (docs/test-behaviours.md).
func TestControllerKubeletPartFollowsThePool(t *testing.T) {
	f, mco := newFixture(t, tracingOn(""), true, "master", "worker")
	for role, unit := range map[string]string{
		"worker": "[Service]\nExecStart=/usr/bin/kubelet \\\n  --config=/etc/kubernetes/kubelet.conf \\\n  " + KubeletConfigDir + " \\\n",
		"master": "[Service]\nExecStart=/usr/bin/kubelet --config=/etc/kubernetes/kubelet.conf\n",
	} {
		mco.create(platform.MachineConfigGVR, &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfig",
			"metadata": map[string]interface{}{"name": "01-" + role + "-kubelet"},
			"spec": map[string]interface{}{"config": map[string]interface{}{"systemd": map[string]interface{}{"units": []interface{}{
				map[string]interface{}{"name": "kubelet.service", "contents": unit}}}}},
		}})
	}
	f.run()
	paths := func(pool string) []string {
		return slices.Sorted(maps.Keys(oursIn(t, mco.get(platform.MachineConfigGVR, MachineConfigName(pool)))))
	}
	assert.Equal(t, []string{CRIODropInPath, KubeletDropInPath}, paths("worker"))
	assert.Equal(t, []string{CRIODropInPath}, paths("master"))
	assert.Contains(t, f.condition("Progressing").Message, "pool master: kubelet tracing skipped: the pool's kubelet does not read /etc/openshift/kubelet.conf.d")
	assert.NotContains(t, f.condition("Progressing").Message, "pool worker: kubelet")

	// An administrator's KubeletConfig setting tracing for the worker pool:
	// the kubelet part is theirs, ours goes.
	mco.create(platform.KubeletConfigGVR, &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "KubeletConfig",
		"metadata": map[string]interface{}{"name": "admin-tracing"},
		"spec": map[string]interface{}{
			"machineConfigPoolSelector": map[string]interface{}{"matchLabels": map[string]interface{}{"pools.operator.machineconfiguration.openshift.io/worker": ""}},
			"kubeletConfig":             map[string]interface{}{"tracing": map[string]interface{}{"endpoint": "admin:4317"}},
		},
	}})
	p := mco.get(platform.MachineConfigPoolGVR, "worker")
	p.SetLabels(map[string]string{"pools.operator.machineconfiguration.openshift.io/worker": ""})
	require.NoError(t, mco.client.Tracker().Update(platform.MachineConfigPoolGVR, p, ""))
	f.run()
	assert.Equal(t, []string{CRIODropInPath}, paths("worker"))
	assert.Contains(t, f.condition("Progressing").Message, "pool worker: kubelet tracing skipped: a KubeletConfig sets tracing for the pool")
}

func TestRelatedObjects(t *testing.T) {
	assert.Nil(t, RelatedObjects(nil))
	// The collector as the previous release recorded it (docs/api.md).
	got := RelatedObjects(&nodev1alpha1.NodeSettingsStatus{Collector: "ns/otel", Pools: []nodev1alpha1.NodeSettingsPoolStatus{
		{Name: "canary", Revision: "abc"}, {Name: "master"},
	}})
	assert.ElementsMatch(t, []configv1.ObjectReference{
		{Group: "operator.openshift.io", Resource: "machineconfigurations", Name: "cluster"},
		{Group: "machineconfiguration.openshift.io", Resource: "machineconfigpools", Name: "canary"},
		{Group: "machineconfiguration.openshift.io", Resource: "machineconfigs", Name: "60-canary-node-settings"},
		{Group: "machineconfiguration.openshift.io", Resource: "machineconfigpools", Name: "master"},
		{Group: "opentelemetry.io", Resource: "opentelemetrycollectors", Namespace: "ns", Name: "otel"},
	}, got)
}

// fakeScrapes answers the gate's CRI-O question from a set of nodes.
type fakeScrapes struct {
	scraped map[string]bool
	calls   []string
}

func (f *fakeScrapes) ScrapedThroughout(_ context.Context, job string, window time.Duration) (map[string]bool, error) {
	f.calls = append(f.calls, fmt.Sprintf("%s over %s", job, window))
	return f.scraped, nil
}

func workers(ready corev1.ConditionStatus, names ...string) *kubefake.Clientset {
	var objs []runtime.Object
	for _, n := range names {
		objs = append(objs, &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: n, Labels: map[string]string{"node-role.kubernetes.io/worker": ""}},
			Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, Message: "container runtime is down"}}},
		})
	}
	return kubefake.NewClientset(objs...)
}

// The health gate: CRI-O's scrapes and node readiness (docs/test-behaviours.md).
func TestControllerGate(t *testing.T) {
	platformPath := &nodev1alpha1.StackStatus{Name: nodev1alpha1.MetricsStack, Enabled: true, Mode: nodev1alpha1.PlatformProxy}
	for _, tc := range []struct {
		name        string
		metrics     *nodev1alpha1.StackStatus // nil: not decided yet
		kube        *kubefake.Clientset
		scrapedLate bool      // worker-2's CRI-O scraped a soak after the first query
		wantState   PoolState // Done: the rollout completes; Reverting: it rolls back
		wantInMsg   string
		wantInProg  string
	}{
		{"scraped within the gate", platformPath, workers(corev1.ConditionTrue, "worker-1", "worker-2"), true, Done, "", ""},
		{"never scraped", platformPath, workers(corev1.ConditionTrue, "worker-1", "worker-2"), false, Reverting,
			`CRI-O's metrics were not scraped without failure (up{job="crio"}) since the pool was updated on node worker-2`, ""},
		{"a node not Ready", nil, workers(corev1.ConditionFalse, "worker-1"), false, Reverting, "node worker-1 is not Ready: container runtime is down",
			"the health gate checks node readiness but not CRI-O's metrics: the metrics stack is not decided yet"},
		{"metrics stack off", &nodev1alpha1.StackStatus{Name: nodev1alpha1.MetricsStack}, workers(corev1.ConditionTrue, "worker-1"), false, Done, "",
			"the health gate checks node readiness but not CRI-O's metrics: the metrics stack is off"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, mco := newFixture(t, tracingOn(""), true, "worker")
			if tc.metrics != nil {
				f.no.Update(func(no *nodev1alpha1.NodeOperator) { no.Status.Stacks = []nodev1alpha1.StackStatus{*tc.metrics} })
			}
			f.c.kube = tc.kube
			probe := &fakeScrapes{scraped: map[string]bool{"worker-1": true}}
			f.c.scrapes = probe
			f.sync() // the policy entries
			mco.syncPolicy()
			f.sync() // the MachineConfig
			mco.finish("worker")
			f.sync() // Verifying
			require.Equal(t, nodev1alpha1.NodeSettingsPoolState(Verifying), f.poolState("worker"))
			require.Empty(t, probe.calls, "no query before the pool is verified")
			f.clock.Step(testTiming.Soak)
			f.sync()
			if tc.metrics == platformPath {
				require.Equal(t, nodev1alpha1.NodeSettingsPoolState(Verifying), f.poolState("worker"), "worker-2 is not scraped yet")
				assert.Equal(t, "crio over "+testTiming.Soak.String(), probe.calls[0], "the scrapes since the pool was updated")
			} else {
				assert.Empty(t, probe.calls, "no query without the platform's job")
			}
			if tc.scrapedLate {
				f.clock.Step(testTiming.Soak)
				probe.scraped["worker-2"] = true
			} else {
				f.clock.Step(testTiming.Gate)
			}
			f.sync()
			assert.Equal(t, nodev1alpha1.NodeSettingsPoolState(tc.wantState), f.poolState("worker"))
			wantPhase := map[PoolState]Phase{Done: PhaseComplete, Reverting: PhaseRollingBack}[tc.wantState]
			assert.Equal(t, nodev1alpha1.NodeSettingsPhase(wantPhase), f.status().Phase)
			assert.Contains(t, f.status().Message, tc.wantInMsg)
			progressing := f.condition("Progressing").Message
			assert.Contains(t, progressing, tc.wantInProg)
			assert.Equal(t, tc.wantInProg != "", strings.Contains(progressing, "not CRI-O's metrics"), progressing)
		})
	}
}

// Tracing on and off, pool by pool (docs/test-behaviours.md).
func TestControllerRollsOutPoolByPool(t *testing.T) {
	f, mco := newFixture(t, tracingOn("canary"), true, "master", "worker", "canary")
	mco.collectorServed = true
	denied := true // a collector that cannot be put in place holds every MachineConfig back
	mco.client.PrependReactor("patch", "opentelemetrycollectors", func(clienttesting.Action) (bool, runtime.Object, error) {
		return denied, nil, apierrors.NewForbidden(platform.OpenTelemetryCollectorGVR.GroupResource(), CollectorName, fmt.Errorf("denied"))
	})
	_, err := f.c.Sync(context.Background())
	require.Error(t, err)
	f.no.Refresh()
	assert.Empty(t, mco.writes)
	assert.Contains(t, f.condition("Degraded").Message, "the MachineConfigs that point nodes at it are held back")
	denied = false
	f.run()
	assert.Equal(t, []string{
		"apply opentelemetrycollectors node-tracing",
		"apply machineconfigurations cluster",
		"mco: policy status",
		"apply machineconfigs 60-canary-node-settings",
		"apply machineconfigs 60-worker-node-settings",
		"apply machineconfigs 60-master-node-settings",
	}, mco.writes)
	for _, p := range []string{"canary", "worker", "master"} {
		assert.Equal(t, nodev1alpha1.NodeSettingsPoolState(Done), f.poolState(p), p)
	}
	assert.Equal(t, operatorv1.ConditionFalse, f.condition("Degraded").Status)
	policy := mco.get(platform.MachineConfigurationGVR, "cluster")
	entries, _, _ := unstructured.NestedSlice(policy.Object, "spec", "nodeDisruptionPolicy", "files")
	assert.Len(t, entries, 2, "an entry for each drop-in path")
	files := oursIn(t, mco.get(platform.MachineConfigGVR, MachineConfigName("worker")))
	assert.Contains(t, files[CRIODropInPath], `tracing_endpoint = "127.0.0.1:9417"`)
	obj, err := mco.client.Tracker().Get(platform.OpenTelemetryCollectorGVR, "openshift-cluster-node-operator", CollectorName)
	require.NoError(t, err)
	exporter, _, _ := unstructured.NestedString(obj.(*unstructured.Unstructured).Object, "spec", "config", "exporters", "otlp", "endpoint")
	assert.Equal(t, "collector.example.com:4317", exporter)
	assert.Contains(t, f.condition("Progressing").Message, "spans go to a collector on each node (OpenTelemetryCollector openshift-cluster-node-operator/node-tracing, 127.0.0.1:9417), which exports them to collector.example.com:4317")
	assert.Equal(t, nodev1alpha1.OpenTelemetryCollectorReference{Namespace: "openshift-cluster-node-operator", Name: "node-tracing"}, f.status().OpenTelemetryCollector)
	assert.Contains(t, RelatedObjects(f.status()), configv1.ObjectReference{Group: "opentelemetry.io", Resource: "opentelemetrycollectors",
		Namespace: "openshift-cluster-node-operator", Name: "node-tracing"}, "must-gather collects the collector")

	f.quiet(3, time.Hour, "no writes at steady state")

	// A new destination reaches the collector; the nodes' files stay.
	f.no.Update(func(no *nodev1alpha1.NodeOperator) { no.Spec.NodeSettings.Tracing.Endpoint = "other.example.com:4317" })
	f.run()
	assert.Equal(t, []string{"apply opentelemetrycollectors node-tracing"}, mco.writes)

	mco.writes = nil
	f.no.Update(func(no *nodev1alpha1.NodeOperator) { no.Spec.NodeSettings.Tracing = nodev1alpha1.NodeTracing{} })
	f.run()
	assert.Equal(t, []string{
		"delete machineconfigs 60-canary-node-settings",
		"delete machineconfigs 60-worker-node-settings",
		"delete machineconfigs 60-master-node-settings",
		"delete opentelemetrycollectors node-tracing",
	}, mco.writes)
	f.quiet(3, time.Hour, "no writes once it is gone")
	assert.Zero(t, f.status().OpenTelemetryCollector)
}
