package criometrics

import (
	"context"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configlistersv1 "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubeinformers "k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/criometricscerts"
	"github.com/openshift/cluster-node-operator/pkg/operator/crioplatform"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient/operatorclienttest"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

var testImages = stack.Images{KubeRBACProxy: "quay.io/test/kube-rbac-proxy:1", CertSyncer: "quay.io/test/operator:1"}

type daemonSetFixture struct {
	t          *testing.T
	c          *daemonSetController
	no         *operatorclienttest.Fake
	kube       *kubefake.Clientset
	operator   v1helpers.OperatorClient
	informers  kubeinformers.SharedInformerFactory
	apiServers cache.Indexer
	clock      *clocktesting.FakeClock
	kubeLog    writeLog
}

// newDaemonSetFixture: kubeObjects are in the operator's namespace (the
// DaemonSet, the CA bundle); tlsStack is what ObserveTLSStack finds.
func newDaemonSetFixture(t *testing.T, decision *nodev1alpha1.NodeOperator, kubeObjects []runtime.Object, tlsStack ...*unstructured.Unstructured) *daemonSetFixture {
	t.Helper()
	f := &daemonSetFixture{
		t:          t,
		kube:       kubefake.NewClientset(kubeObjects...),
		operator:   v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}, &operatorv1.OperatorStatus{}, nil),
		apiServers: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
		clock:      clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
	}
	f.no = operatorclienttest.New(t, f.clock, decision)
	dyn := tlsStackClient(tlsStack...)
	f.kubeLog.watch(f.kube)
	f.informers = kubeinformers.NewSharedInformerFactoryWithOptions(f.kube, 0, kubeinformers.WithNamespace(namespace))
	f.c = &daemonSetController{
		clock:          f.clock,
		nodeOperators:  f.no.NodeOperators,
		operatorClient: f.operator,
		kube:           f.kube,
		dynamic:        dyn,
		served:         stack.FixedServedAPIs(platform.ServedAPIs{Monitoring: true, MachineConfig: true, MachineConfiguration: true}),
		observer:       NewTLSObserver(dyn, f.clock, 0),
		crioPlatform:   crioplatform.NewDetector(f.kube, dyn, f.clock, time.Minute),
		images:         testImages,
		conditions:     stack.Conditions{Prefix: Prefix},
		daemonSets:     f.informers.Apps().V1().DaemonSets().Lister(),
		configMaps:     f.informers.Core().V1().ConfigMaps().Lister(),
		apiServers:     configlistersv1.NewAPIServerLister(f.apiServers),
	}
	return f
}

// sync refreshes the caches and runs one sync; it returns the writes.
func (f *daemonSetFixture) sync() []string {
	f.t.Helper()
	ctx := context.Background()
	refresh(f.t, f.informers.Apps().V1().DaemonSets().Informer())(f.kube.AppsV1().DaemonSets(namespace).List(ctx, metav1.ListOptions{}))
	refresh(f.t, f.informers.Core().V1().ConfigMaps().Informer())(f.kube.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{}))
	f.no.Refresh()
	f.kubeLog.take()
	syncCtx := factory.NewSyncContext("test", events.NewInMemoryRecorder("test", f.clock))
	require.NoError(f.t, f.c.syncDaemonSet(ctx, syncCtx))
	return f.kubeLog.take()
}

func (f *daemonSetFixture) conditions() map[string]operatorv1.OperatorCondition {
	f.t.Helper()
	_, status, _, err := f.operator.GetOperatorState()
	require.NoError(f.t, err)
	out := map[string]operatorv1.OperatorCondition{}
	for _, c := range status.Conditions {
		out[c.Type] = c
	}
	return out
}

// rollOut plays the DaemonSet controller: every one of n nodes runs the
// current pod.
func (f *daemonSetFixture) rollOut(n int32) {
	f.t.Helper()
	ds, err := f.kube.AppsV1().DaemonSets(namespace).Get(context.Background(), DaemonSetName, metav1.GetOptions{})
	require.NoError(f.t, err)
	ds.Status = appsv1.DaemonSetStatus{ObservedGeneration: ds.Generation, DesiredNumberScheduled: n, CurrentNumberScheduled: n,
		NumberReady: n, NumberAvailable: n, UpdatedNumberScheduled: n}
	_, err = f.kube.AppsV1().DaemonSets(namespace).UpdateStatus(context.Background(), ds, metav1.UpdateOptions{})
	require.NoError(f.t, err)
}

func caBundle() *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: criometricscerts.CABundleName},
		Data: map[string]string{criometricscerts.CABundleKey: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"}}
}

// The DaemonSet waits for the CA bundle, is created once, and then left
// alone: no write, and no status change, at steady state.
func TestDaemonSetWaitsForCertificatesThenNoWrites(t *testing.T) {
	sm := object(serviceMonitorGVR, "ServiceMonitor", namespace, serviceName)
	f := newDaemonSetFixture(t, metricsDecision(true, nodev1alpha1.OperatorTLS), nil, sm)

	assert.Empty(t, f.sync(), "nothing before the CA bundle exists")
	assert.Equal(t, ReasonWaitingForCertificates, f.conditions()[Prefix+"Progressing"].Reason)

	_, err := f.kube.CoreV1().ConfigMaps(namespace).Create(context.Background(), caBundle(), metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"create daemonsets " + DaemonSetName}, f.sync())
	ds, err := f.kube.AppsV1().DaemonSets(namespace).Get(context.Background(), DaemonSetName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, testImages.KubeRBACProxy, ds.Spec.Template.Spec.Containers[0].Image)

	f.rollOut(3)
	assert.Empty(t, f.sync())
	conds := f.conditions()
	assert.Equal(t, operatorv1.ConditionTrue, conds[Prefix+"Available"].Status)
	assert.Equal(t, ReasonAsExpected, conds[Prefix+"Available"].Reason)
	assert.Equal(t, operatorv1.ConditionFalse, conds[Prefix+"Progressing"].Status)
	assert.Equal(t, operatorv1.ConditionFalse, conds[Prefix+"Degraded"].Status)

	for i := range 3 {
		f.clock.Step(time.Hour)
		assert.Empty(t, f.sync(), "steady state: sync %d writes nothing", i)
		assert.Equal(t, conds, f.conditions(), "steady state: sync %d changes no condition", i)
	}

	// A stricter TLS profile: the DaemonSet is updated once.
	require.NoError(t, f.apiServers.Add(&configv1.APIServer{ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec: configv1.APIServerSpec{TLSSecurityProfile: &configv1.TLSSecurityProfile{Type: configv1.TLSProfileModernType}}}))
	assert.Equal(t, []string{"update daemonsets " + DaemonSetName}, f.sync())
	ds, err = f.kube.AppsV1().DaemonSets(namespace).Get(context.Background(), DaemonSetName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Contains(t, ds.Spec.Template.Spec.Containers[0].Args, "--tls-min-version=VersionTLS13")
}

// Missing operand images are reported once and write nothing.
func TestDaemonSetMissingImagesReportedOnce(t *testing.T) {
	f := newDaemonSetFixture(t, metricsDecision(true, nodev1alpha1.OperatorTLS), []runtime.Object{caBundle()})
	f.c.images = stack.Images{}
	assert.Empty(t, f.sync())
	conds := f.conditions()
	assert.Equal(t, operatorv1.ConditionTrue, conds[Prefix+"Degraded"].Status)
	assert.Equal(t, ReasonInvalidConfiguration, conds[Prefix+"Degraded"].Reason)
	f.clock.Step(10 * time.Minute)
	assert.Empty(t, f.sync())
	assert.Equal(t, conds, f.conditions(), "a persistent problem changes no condition")
}

// Teardown: the DaemonSet goes only after the ServiceMonitor and the
// drop-in MachineConfigs, then nothing is written.
func TestDaemonSetTeardownOrder(t *testing.T) {
	ds, err := RenderDaemonSet(testImages, nil, "", false)
	require.NoError(t, err)
	sm := object(serviceMonitorGVR, "ServiceMonitor", namespace, serviceName)
	mc := object(machineConfigGVR, "MachineConfig", "", machineConfigNames()[0])
	tests := []struct {
		name     string
		decision *nodev1alpha1.NodeOperator
		tlsStack []*unstructured.Unstructured
		want     []string
	}{
		{"off, ServiceMonitor still there: kept", metricsDecision(false, ""), []*unstructured.Unstructured{sm, mc}, nil},
		{"off, MachineConfigs still there: kept", metricsDecision(false, ""), []*unstructured.Unstructured{mc}, nil},
		{"off, both gone: deleted", metricsDecision(false, ""), nil, []string{"delete daemonsets " + DaemonSetName}},
		{"platform path serves, both gone: deleted", metricsDecision(true, nodev1alpha1.PlatformProxy), nil, []string{"delete daemonsets " + DaemonSetName}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newDaemonSetFixture(t, tt.decision, []runtime.Object{ds.DeepCopy()}, tt.tlsStack...)
			assert.Equal(t, tt.want, f.sync())
			if tt.want != nil {
				assert.Empty(t, f.sync(), "once gone, nothing more")
			}
		})
	}
}

// In Build, the DaemonSet controller syncs on every DaemonSet status change:
// thousands of times while a large cluster rolls out. Once it has seen the
// ServiceMonitor it makes no more reads until the intent changes.
func TestObserveBuildReadsUntilTheServiceMonitorIsSeen(t *testing.T) {
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{serviceMonitorGVR: "ServiceMonitorList"})
	gets := 0
	client.PrependReactor("get", "*", func(clienttesting.Action) (bool, runtime.Object, error) {
		gets++
		return false, nil, nil
	})
	c := &daemonSetController{dynamic: client}
	served := platform.ServedAPIs{Monitoring: true}
	ctx := context.Background()

	require.False(t, c.observeBuild(ctx, served).ServiceMonitor)
	require.False(t, c.observeBuild(ctx, served).ServiceMonitor)
	require.Equal(t, 2, gets, "reads while the ServiceMonitor is missing")

	sm := &unstructured.Unstructured{}
	sm.SetAPIVersion("monitoring.coreos.com/v1")
	sm.SetKind("ServiceMonitor")
	sm.SetNamespace(namespace)
	sm.SetName(serviceName)
	_, err := client.Resource(serviceMonitorGVR).Namespace(namespace).Create(ctx, sm, metav1.CreateOptions{})
	require.NoError(t, err)

	for i := 0; i < 100; i++ {
		require.True(t, c.observeBuild(ctx, served).ServiceMonitor)
	}
	require.Equal(t, 3, gets, "one read sees it, none after")

	require.False(t, (&daemonSetController{dynamic: client}).observeBuild(ctx, platform.ServedAPIs{}).ServiceMonitor,
		"without the monitoring API there is no ServiceMonitor to wait for")
	require.Equal(t, 3, gets)
}

func TestNextLook(t *testing.T) {
	tests := []struct {
		name       string
		intent     Intent
		tls        TLSStack
		sinceStart time.Duration
		want       time.Duration
	}{
		{"removal waits for the ServiceMonitor to go", TearDown, TLSStack{ServiceMonitor: true, MachineConfigs: true, DaemonSet: true}, 0, firstStepsPollInterval},
		{"removal waits for the MachineConfigs to go", TearDown, TLSStack{MachineConfigs: true, DaemonSet: true}, time.Second, firstStepsPollInterval},
		{"a removal held longer (a failing delete) is looked at every second", TearDown, TLSStack{ServiceMonitor: true, DaemonSet: true}, firstStepsWindow, switchPollInterval},
		{"the DaemonSet may go: this controller's own step, then the rest", TearDown, TLSStack{DaemonSet: true, Rest: true}, 0, switchPollInterval},
		{"only the rest is left", TearDown, TLSStack{Rest: true}, 0, switchPollInterval},
		{"a build waits for the DaemonSet to serve: minutes on a real cluster", Build, TLSStack{}, 0, switchPollInterval},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, nextLook(tt.intent, tt.tls, tt.sinceStart))
		})
	}
}
