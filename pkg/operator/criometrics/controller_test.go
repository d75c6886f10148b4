package criometrics

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubeinformers "k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/certrotation"
	"github.com/openshift/cluster-node-operator/pkg/operator/crioplatform"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodedisruption"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient/operatorclienttest"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

var (
	testImages = stack.Images{KubeRBACProxy: "quay.io/test/kube-rbac-proxy:1", CertSyncer: "quay.io/test/operator:1"}
	allServed  = platform.ServedAPIs{Monitoring: true, MachineConfig: true, MachineConfiguration: true}
)

type fixture struct {
	t          *testing.T
	c          *controller
	no         *operatorclienttest.Fake
	kube       *kubefake.Clientset
	dyn        *dynamicfake.FakeDynamicClient
	operator   v1helpers.OperatorClient
	informers  kubeinformers.SharedInformerFactory
	legacy     kubeinformers.SharedInformerFactory // the operator's namespace
	apiServers cache.Indexer
	clock      *clocktesting.FakeClock
	log        writeLog
	// reads is how many reads the last sync made.
	reads int
	// lag runs after the caches are refreshed: a cache behind the server.
	lag func()
	// later: the keys the last sync queued for later.
	later []any
}

// newFixture: one API server of two fakes (the dynamic one reads built-in kinds from the kube one, keeps applies).
func newFixture(t *testing.T, nodeOperator *nodev1alpha1.NodeOperator, served platform.ServedAPIs, machineConfigurations ...*unstructured.Unstructured) *fixture {
	t.Helper()
	f := &fixture{
		t:        t,
		kube:     kubefake.NewClientset(),
		operator: v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}, &operatorv1.OperatorStatus{}, nil),
		clock:    clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		lag:      func() {},
	}
	f.no = operatorclienttest.New(t, f.clock, nodeOperator)
	listKinds := map[schema.GroupVersionResource]string{
		platform.MachineConfigGVR: "MachineConfigList", platform.SecurityContextConstraintsGVR: "SecurityContextConstraintsList", platform.ServiceMonitorGVR: "ServiceMonitorList",
		platform.MachineConfigurationGVR: "MachineConfigurationList", {Group: "monitoring.coreos.com", Version: "v1", Resource: "prometheusrules"}: "PrometheusRuleList",
	}
	f.dyn = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds)
	for _, o := range machineConfigurations {
		require.NoError(t, f.dyn.Tracker().Create(platform.MachineConfigurationGVR, o, ""))
	}
	f.dyn.PrependReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		switch a.GetResource().Group {
		case "", "apps", "rbac.authorization.k8s.io":
			if a.GetVerb() != "get" {
				return false, nil, nil
			}
			obj, err := f.kube.Tracker().Get(a.GetResource(), a.GetNamespace(), a.(clienttesting.GetAction).GetName())
			if err != nil {
				return true, nil, err
			}
			u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
			return true, &unstructured.Unstructured{Object: u}, err
		}
		p, ok := a.(clienttesting.PatchAction)
		if !ok || p.GetPatchType() != types.ApplyPatchType {
			return false, nil, nil
		}
		u := &unstructured.Unstructured{}
		if err := json.Unmarshal(p.GetPatch(), &u.Object); err != nil {
			return true, nil, err
		}
		err := f.dyn.Tracker().Update(a.GetResource(), u, a.GetNamespace())
		if err != nil {
			err = f.dyn.Tracker().Create(a.GetResource(), u, a.GetNamespace())
		}
		return true, u, err
	})
	f.log.watch(f.kube, f.dyn)
	f.informers = kubeinformers.NewSharedInformerFactoryWithOptions(f.kube, 0, kubeinformers.WithNamespace(namespace))
	f.legacy = kubeinformers.NewSharedInformerFactoryWithOptions(f.kube, 0, kubeinformers.WithNamespace(legacyNamespace))
	configInformers := configinformers.NewSharedInformerFactory(
		configclient.NewForConfigOrDie(&rest.Config{Host: "https://127.0.0.1:1"}), 0) // never started
	f.apiServers = configInformers.Config().V1().APIServers().Informer().GetIndexer()
	f.c = newController(Options{Clock: f.clock, NodeOperators: f.no.NodeOperators, OperatorClient: f.operator, Kube: f.kube, Dynamic: f.dyn,
		Served: platform.FixedServed(served), CRIOPlatform: crioplatform.NewDetector(f.kube, f.dyn, f.clock, time.Minute),
		DaemonSets: f.informers.Apps().V1().DaemonSets(), Secrets: f.informers.Core().V1().Secrets(), ConfigMaps: f.informers.Core().V1().ConfigMaps(),
		LegacyDaemonSets: f.legacy.Apps().V1().DaemonSets(), APIServers: configInformers.Config().V1().APIServers(),
		MonitoringConfigs: f.informers.Core().V1().ConfigMaps(), Images: testImages, Timing: certrotation.DefaultTiming,
		Recorder: events.NewInMemoryRecorder("test", f.clock)})
	return f
}

// syncKey refreshes the caches, runs one sync woken by key: its writes, and whether it queued another.
func (f *fixture) syncKey(key string) ([]string, bool) {
	f.t.Helper()
	ctx := context.Background()
	refresh(f.t, f.informers.Apps().V1().DaemonSets().Informer())(f.kube.AppsV1().DaemonSets(namespace).List(ctx, metav1.ListOptions{}))
	refresh(f.t, f.legacy.Apps().V1().DaemonSets().Informer())(f.kube.AppsV1().DaemonSets(legacyNamespace).List(ctx, metav1.ListOptions{}))
	refresh(f.t, f.informers.Core().V1().ConfigMaps().Informer())(f.kube.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{}))
	refresh(f.t, f.informers.Core().V1().Secrets().Informer())(f.kube.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{}))
	f.no.Refresh()
	f.lag()
	f.log.take()
	f.later = nil
	base := factory.NewSyncContext("test", events.NewInMemoryRecorder("test", f.clock))
	syncCtx := keyed{base, key, delays{base.Queue(), &f.later}}
	err := f.c.sync(ctx, syncCtx)
	f.reads = f.log.reads
	writes := f.log.take()
	require.NoError(f.t, err, "writes: %q", writes)
	return writes, syncCtx.Queue().Len() > 0
}

type keyed struct {
	factory.SyncContext
	key   string
	queue delays
}

func (k keyed) QueueKey() string                       { return k.key }
func (k keyed) Queue() workqueue.RateLimitingInterface { return k.queue }

// delays records AddAfter instead of waiting.
type delays struct {
	workqueue.RateLimitingInterface
	keys *[]any
}

func (d delays) AddAfter(key any, _ time.Duration) { *d.keys = append(*d.keys, key) }

// drain syncs until a sync queues no other, and returns each one's writes.
func (f *fixture) drain() (steps [][]string) {
	for next := true; next; {
		var writes []string
		writes, next = f.syncKey(factory.DefaultQueueKey)
		steps = append(steps, writes)
		require.Less(f.t, len(steps), 10)
	}
	return steps
}

func (f *fixture) sync() []string {
	f.t.Helper()
	writes, _ := f.syncKey(factory.DefaultQueueKey)
	return writes
}

func (f *fixture) conditions() map[string]operatorv1.OperatorCondition {
	f.t.Helper()
	_, status, _, err := f.operator.GetOperatorState()
	require.NoError(f.t, err)
	out := map[string]operatorv1.OperatorCondition{}
	for _, c := range status.Conditions {
		out[c.Type] = c
	}
	return out
}

// proxyArgs: the DaemonSet's kube-rbac-proxy arguments.
func (f *fixture) proxyArgs() []string {
	f.t.Helper()
	ds, err := f.kube.AppsV1().DaemonSets(namespace).Get(context.Background(), DaemonSetName, metav1.GetOptions{})
	require.NoError(f.t, err)
	return ds.Spec.Template.Spec.Containers[0].Args
}

// rollOut plays the DaemonSet controller: n nodes run the current pod.
func (f *fixture) rollOut(n int32) {
	f.t.Helper()
	ds, err := f.kube.AppsV1().DaemonSets(namespace).Get(context.Background(), DaemonSetName, metav1.GetOptions{})
	require.NoError(f.t, err)
	ds.Status = appsv1.DaemonSetStatus{ObservedGeneration: max(ds.Generation, 1), DesiredNumberScheduled: n, CurrentNumberScheduled: n,
		NumberReady: n, NumberAvailable: n, UpdatedNumberScheduled: n}
	_, err = f.kube.AppsV1().DaemonSets(namespace).UpdateStatus(context.Background(), ds, metav1.UpdateOptions{})
	require.NoError(f.t, err)
}

// mcoMachineConfiguration: generation 2, our entry in spec (withEntry) and in a status for observed (listed).
func mcoMachineConfiguration(t *testing.T, withEntry bool, observed int64, listed bool) *unstructured.Unstructured {
	t.Helper()
	mc := &operatorv1.MachineConfiguration{TypeMeta: metav1.TypeMeta{APIVersion: "operator.openshift.io/v1", Kind: "MachineConfiguration"}}
	mc.Name, mc.Generation = MachineConfigurationName, 2
	restart := &operatorv1.RestartService{ServiceName: crioService}
	if withEntry {
		mc.Spec.NodeDisruptionPolicy.Files = []operatorv1.NodeDisruptionPolicySpecFile{{Path: DropInPath,
			Actions: []operatorv1.NodeDisruptionPolicySpecAction{{Type: operatorv1.RestartSpecAction, Restart: restart}}}}
	}
	mc.Status.ObservedGeneration = observed
	if listed {
		mc.Status.NodeDisruptionPolicyStatus.ClusterPolicies.Files = []operatorv1.NodeDisruptionPolicyStatusFile{{Path: DropInPath,
			Actions: []operatorv1.NodeDisruptionPolicyStatusAction{{Type: operatorv1.RestartStatusAction, Restart: restart}}}}
	}
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(mc)
	require.NoError(t, err)
	return &unstructured.Unstructured{Object: raw}
}

var (
	restCreated = []string{
		"create serviceaccounts crio-metrics",
		"create clusterroles crio-metrics-proxy", "create clusterrolebindings crio-metrics-proxy",
		"create clusterroles crio-metrics-client", "create clusterrolebindings crio-metrics-client",
		"create roles prometheus-k8s", "create rolebindings prometheus-k8s",
		"create services crio-metrics",
		"patch securitycontextconstraints crio-metrics",
	}
	monitoringCreated = []string{"create prometheusrules crio-metrics", "create configmaps grafana-dashboard-node-crio"}
	certsCreated      = []string{
		"create secrets " + certrotation.SignerSecretName,
		"create configmaps " + certrotation.CABundleName,
		"create secrets " + certrotation.ServingSecretName,
	}
	mcsApplied = []string{"patch machineconfigs 50-master-crio-metrics-tls", "patch machineconfigs 50-worker-crio-metrics-tls"}
)

// build takes a fixture to the own TLS stack serving, with CMO's metrics client CA (4.19), checking the order of writes.
func build(t *testing.T, f *fixture) {
	t.Helper()
	cmo := kubefake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: monitoringNamespace, Name: cmoClientCAConfigMap},
		Data: map[string]string{ClientCAKey: testCA}})
	f.c.scrapeAuth = NewScrapeAuthLookup(cmo, fakeClusterOperators{monitoringOperator: {ObjectMeta: metav1.ObjectMeta{Name: monitoringOperator},
		Status: configv1.ClusterOperatorStatus{Versions: []configv1.OperandVersion{{Name: "operator", Version: "4.19.0"}}}}}, f.clock, time.Minute)
	assert.Equal(t, slices.Concat(restCreated, monitoringCreated, certsCreated, []string{"create configmaps " + ClientCAConfigMap}), f.sync(),
		"the rest, the certificates and the client CA's copy; the DaemonSet waits for the CA bundle")
	assert.Equal(t, ReasonWaitingForCertificates, f.conditions()[Prefix+"Available"].Reason)
	// A ConfigMap cache behind the copy: the next syncs trust it all the same.
	f.lag = func() {
		_ = f.informers.Core().V1().ConfigMaps().Informer().GetIndexer().Delete(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: ClientCAConfigMap}})
	}
	assert.Equal(t, slices.Concat([]string{"create daemonsets " + DaemonSetName}, mcsApplied), f.sync(),
		"the DaemonSet, then the drop-in MachineConfigs; no ServiceMonitor while no proxy serves")
	assert.Contains(t, f.proxyArgs(), "--client-ca-file="+ClientCAFile)
	assert.Equal(t, ReasonSwitchingToOperatorTLS, f.conditions()[Prefix+"Progressing"].Reason)
	f.rollOut(3)
	before := f.conditions()
	writes, now := f.syncKey(rolloutKey)
	assert.True(t, len(writes) == 0 && f.reads == 0 && !now, "a DaemonSet event's sync takes no step")
	assert.Equal(t, before, f.conditions(), "nor writes the status: it cannot clear what a full sync found")
	assert.Equal(t, []any{factory.DefaultQueueKey}, f.later, "it queues a full sync for later")
	assert.Equal(t, []string{"create servicemonitors crio-metrics"}, f.sync(), "the ServiceMonitor last, once a proxy serves")
	f.lag = func() {}
	sm, err := f.dyn.Resource(platform.ServiceMonitorGVR).Namespace(namespace).Get(context.Background(), serviceName, metav1.GetOptions{})
	require.NoError(t, err)
	class, _, _ := unstructured.NestedString(sm.Object, "spec", "scrapeClass")
	// CMO's class (cluster-monitoring-operator 0147bb52, jsonnet/components/prometheus.libsonnet, scrapeClasses).
	assert.Equal(t, "tls-client-certificate-auth", class)
	assert.Empty(t, f.sync())
}

// Build: every part in order, then no writes; see docs/test-behaviours.md.
func TestBuildOrderThenNoWrites(t *testing.T) {
	f := newFixture(t, metricsDecision(true, nodev1alpha1.OperatorTLS), allServed, mcoMachineConfiguration(t, true, 2, true))
	build(t, f)
	conds := f.conditions()
	assert.Equal(t, []operatorv1.ConditionStatus{"True", "False", "False"}, []operatorv1.ConditionStatus{conds[Prefix+"Available"].Status, conds[Prefix+"Progressing"].Status, conds[Prefix+"Degraded"].Status})
	for i := range 3 {
		f.clock.Step(time.Hour)
		assert.Empty(t, f.sync(), "steady state: sync %d writes nothing", i)
		assert.Equal(t, conds, f.conditions(), "steady state: sync %d changes no condition", i)
	}

	require.NoError(t, f.apiServers.Add(&configv1.APIServer{ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec: configv1.APIServerSpec{TLSSecurityProfile: &configv1.TLSSecurityProfile{Type: configv1.TLSProfileModernType}}}))
	assert.Equal(t, []string{"update daemonsets " + DaemonSetName}, f.sync())
	assert.Contains(t, f.proxyArgs(), "--tls-min-version=VersionTLS13")
	require.NoError(t, f.kube.AppsV1().DaemonSets(namespace).Delete(context.Background(), DaemonSetName, metav1.DeleteOptions{}))
	_, now := f.syncKey(rolloutKey)
	assert.True(t, now, "a DaemonSet gone: the full sync at once")
}

// Removal and switch: one step per sync, last in first out, then no writes.
func TestTearDownOrder(t *testing.T) {
	var removeRest []string // what was created, in the same order; the certificates last
	for _, w := range restCreated {
		removeRest = append(removeRest, "delete "+strings.SplitN(w, " ", 2)[1])
	}
	removeRest = append(removeRest, "delete secrets "+certrotation.ServingSecretName, "delete secrets "+certrotation.SignerSecretName,
		"delete configmaps "+certrotation.CABundleName, "delete configmaps "+ClientCAConfigMap) // the copy after the DaemonSet that mounts it
	tests := []struct {
		name     string
		decision *nodev1alpha1.NodeOperator
		first    []string
	}{
		{"stack off", metricsDecision(false, ""),
			[]string{"delete prometheusrules crio-metrics", "delete configmaps grafana-dashboard-node-crio", "delete servicemonitors crio-metrics"}},
		{"switch to the platform's path", metricsDecision(true, nodev1alpha1.PlatformProxy),
			[]string{"update prometheusrules crio-metrics", "update configmaps grafana-dashboard-node-crio", "delete servicemonitors crio-metrics"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, metricsDecision(true, nodev1alpha1.OperatorTLS), allServed, mcoMachineConfiguration(t, true, 2, true))
			build(t, f)
			f.no.Update(func(no *nodev1alpha1.NodeOperator) { no.Status = tt.decision.Status })
			assert.Equal(t, [][]string{
				tt.first,
				{"delete machineconfigs 50-master-crio-metrics-tls", "delete machineconfigs 50-worker-crio-metrics-tls"},
				{"delete daemonsets " + DaemonSetName},
				removeRest,
				nil,
			}, f.drain())
			assert.Equal(t, operatorv1.ConditionFalse, f.conditions()[Prefix+"Progressing"].Status)
			assert.Empty(t, f.sync(), "once removed, nothing more")
		})
	}
}

// The drop-in MachineConfigs wait for MCO's status to list our entry.
func TestMachineConfigsWaitForDisruptionPolicyStatus(t *testing.T) {
	f := newFixture(t, metricsDecision(true, nodev1alpha1.OperatorTLS), allServed)
	f.sync()
	for i, step := range []struct {
		name string
		mc   *unstructured.Unstructured // MCO's object, put before the sync
		want []string
	}{
		{"no MachineConfiguration cluster", nil, nil},
		{"MCO created it, without our entry", mcoMachineConfiguration(t, false, 1, false), []string{"patch machineconfigurations cluster"}},
		{"status at the generation, without our entry", mcoMachineConfiguration(t, true, 2, false), nil},
		{"status at the generation lists our entry", mcoMachineConfiguration(t, true, 2, true), mcsApplied},
	} {
		if step.mc != nil {
			_ = f.dyn.Tracker().Delete(platform.MachineConfigurationGVR, "", MachineConfigurationName)
			require.NoError(t, f.dyn.Tracker().Create(platform.MachineConfigurationGVR, step.mc, ""))
		}
		got := f.sync()
		if i == 0 {
			got = append([]string(nil), got[1:]...) // the DaemonSet's creation
		}
		assert.Equal(t, step.want, got, step.name)
		if step.want == nil {
			assert.Contains(t, f.conditions()[Prefix+"Progressing"].Message, MachineConfigsHeldBack, step.name)
		}
	}
}

// Persistent problems are reported once; a wait counts from the recorded start.
func TestPersistentProblemsReportedOnce(t *testing.T) {
	f := newFixture(t, metricsDecision(true, nodev1alpha1.OperatorTLS), platform.ServedAPIs{Monitoring: true, MachineConfig: true})
	f.c.images = stack.Images{}
	f.sync()
	f.sync()
	conds := f.conditions()
	assert.Equal(t, ReasonInvalidConfiguration, conds[Prefix+"Degraded"].Reason)
	f.clock.Step(10 * time.Minute)
	assert.Empty(t, f.sync())
	assert.Equal(t, conds, f.conditions(), "a persistent problem changes no condition")

	// The wait's start is in the status: a restarted process neither gives
	// the wait its grace again nor takes its Degraded back.
	for since, want := range map[time.Duration]operatorv1.ConditionStatus{nodedisruption.WaitGrace: operatorv1.ConditionTrue, time.Minute: operatorv1.ConditionFalse} {
		g := newFixture(t, metricsDecision(true, nodev1alpha1.OperatorTLS), allServed)
		g.sync()
		g.operator = v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{}, &operatorv1.OperatorStatus{Conditions: []operatorv1.OperatorCondition{{Type: Prefix + ConditionHeldBack,
			Status: operatorv1.ConditionTrue, LastTransitionTime: metav1.NewTime(g.clock.Now().Add(-since))}}}, nil)
		g.c.operatorClient = g.operator
		g.sync()
		assert.Equal(t, want, g.conditions()[Prefix+"Degraded"].Status, "held back since %v", since)
	}
}

// Unmanaged, or before the first decision: nothing is written.
func TestHeld(t *testing.T) {
	unmanaged := metricsDecision(false, "")
	unmanaged.Spec.ManagementState = operatorv1.Unmanaged
	for name, no := range map[string]*nodev1alpha1.NodeOperator{
		"Unmanaged":   unmanaged,
		"no decision": {Spec: nodev1alpha1.NodeOperatorSpec{OperatorSpec: operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}}},
	} {
		f := newFixture(t, no, allServed)
		assert.Empty(t, f.sync(), name)
		assert.Empty(t, f.conditions(), name)
	}
}

// writeLog records a fake client's writes in order ("<verb> <resource> <name>") and counts reads.
type writeLog struct {
	writes []string
	reads  int
}

func (l *writeLog) watch(clients ...interface {
	PrependReactor(verb, resource string, reaction clienttesting.ReactionFunc)
}) {
	for _, c := range clients {
		c.PrependReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
			switch a.GetVerb() {
			case "get", "list", "watch":
				l.reads++
				return false, nil, nil
			}
			name := ""
			switch a := a.(type) {
			case interface{ GetObject() runtime.Object }: // create, update
				if m, err := meta.Accessor(a.GetObject()); err == nil {
					name = m.GetName()
				}
			case interface{ GetName() string }: // delete, patch
				name = a.GetName()
			}
			l.writes = append(l.writes, a.GetVerb()+" "+a.GetResource().Resource+" "+name)
			return false, nil, nil
		})
	}
}

// take returns and forgets what was logged.
func (l *writeLog) take() []string {
	w := l.writes
	l.writes, l.reads = nil, 0
	return w
}

// refresh fills an informer's cache with the client's list, as after the writes.
func refresh(t *testing.T, informer cache.SharedIndexInformer) func(list runtime.Object, err error) {
	return func(list runtime.Object, err error) {
		t.Helper()
		require.NoError(t, err)
		objs, err := meta.ExtractList(list)
		require.NoError(t, err)
		items := make([]interface{}, 0, len(objs))
		for _, o := range objs {
			items = append(items, o)
		}
		require.NoError(t, informer.GetIndexer().Replace(items, ""))
	}
}

// metricsDecision is the recorded decision of the metrics stack.
func metricsDecision(enabled bool, mode nodev1alpha1.StackMode) *nodev1alpha1.NodeOperator {
	return &nodev1alpha1.NodeOperator{
		Spec: nodev1alpha1.NodeOperatorSpec{OperatorSpec: operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}},
		Status: nodev1alpha1.NodeOperatorStatus{Stacks: []nodev1alpha1.StackStatus{
			{Name: nodev1alpha1.MetricsStack, Enabled: enabled, Reason: platform.ReasonPlatformDefault, Mode: mode},
		}},
	}
}

// An update from a release that ran the operand in the operator's namespace: docs/test-behaviours.md.
func TestMoveFromOperatorNamespace(t *testing.T) {
	f := newFixture(t, metricsDecision(true, nodev1alpha1.OperatorTLS), allServed, mcoMachineConfiguration(t, true, 2, true))
	old := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: legacyNamespace, Name: name} }
	oldDaemonSet := &appsv1.DaemonSet{ObjectMeta: old(DaemonSetName)}
	for _, obj := range []runtime.Object{oldDaemonSet, &corev1.Secret{ObjectMeta: old(certrotation.SignerSecretName)},
		&corev1.ConfigMap{ObjectMeta: old(certrotation.CABundleName)}, &corev1.Service{ObjectMeta: old(serviceName)}} {
		require.NoError(t, f.kube.Tracker().Add(obj))
	}
	writes := f.sync()
	assert.Contains(t, writes, "delete daemonsets "+DaemonSetName, "the old DaemonSet first")
	assert.NotContains(t, writes, "delete secrets "+certrotation.SignerSecretName, "the rest stays")
	// Foreground deletion: the old DaemonSet stays while its pods go.
	oldDaemonSet.DeletionTimestamp = &metav1.Time{Time: f.clock.Now()}
	require.NoError(t, f.kube.Tracker().Add(oldDaemonSet))
	assert.NotContains(t, f.sync(), "create daemonsets "+DaemonSetName, "the new DaemonSet waits for the old pods")
	assert.Equal(t, ReasonMoving, f.conditions()[Prefix+"Available"].Reason)
	require.NoError(t, f.kube.Tracker().Delete(appsv1.SchemeGroupVersion.WithResource("daemonsets"), legacyNamespace, DaemonSetName))
	writes = f.sync()
	assert.Contains(t, writes, "create daemonsets "+DaemonSetName, "then the new one")
	assert.NotContains(t, writes, "delete services "+serviceName, "the rest waits for its rollout")
	f.rollOut(3)
	writes = f.sync()
	for _, w := range []string{"delete secrets " + certrotation.SignerSecretName, "delete configmaps " + certrotation.CABundleName, "delete services " + serviceName} {
		assert.Contains(t, writes, w, "the rest once the new DaemonSet rolled out")
	}
	_, err := f.kube.CoreV1().Services(namespace).Get(context.Background(), serviceName, metav1.GetOptions{})
	require.NoError(t, err, "the new Service stays")
	_, err = f.kube.CoreV1().Services(legacyNamespace).Get(context.Background(), serviceName, metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the old Service is gone: %v", err)
	f.sync()
	assert.Empty(t, f.sync(), "steady state: no writes")
}

// The same on the platform's path: no new DaemonSet to wait for, the rest right after the old one.
func TestMoveFromOperatorNamespaceOnThePlatformPath(t *testing.T) {
	f := newFixture(t, metricsDecision(true, nodev1alpha1.PlatformProxy), allServed, mcoMachineConfiguration(t, true, 2, true))
	for _, obj := range []runtime.Object{&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: legacyNamespace, Name: DaemonSetName}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: legacyNamespace, Name: serviceName}}} {
		require.NoError(t, f.kube.Tracker().Add(obj))
	}
	first := slices.Concat(f.drain()...)
	assert.Contains(t, first, "delete daemonsets "+DaemonSetName, "the old DaemonSet first")
	assert.NotContains(t, first, "delete services "+serviceName)
	rest := slices.Concat(f.drain()...) // woken by the old DaemonSet's delete event
	assert.Contains(t, rest, "delete services "+serviceName, "then the rest")
	assert.NotContains(t, slices.Concat(first, rest), "create daemonsets "+DaemonSetName)
	assert.Empty(t, f.sync(), "then no writes")
}
