package criometrics

import (
	"context"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
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
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient/operatorclienttest"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

// writeLog records the writes a fake client sees, in order, as
// "<verb> <resource> <name>"; reads are counted.
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
			case clienttesting.CreateAction:
				if m, ok := a.GetObject().(metav1.Object); ok {
					name = m.GetName()
				}
			case clienttesting.UpdateAction:
				if m, ok := a.GetObject().(metav1.Object); ok {
					name = m.GetName()
				}
			case clienttesting.DeleteAction:
				name = a.GetName()
			case clienttesting.PatchAction:
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

// refresh fills an informer's cache with a list from the client, as the
// informer would after the writes.
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

// tlsStackClient is a dynamic client holding the given parts of the own
// TLS stack, for ObserveTLSStack.
func tlsStackClient(objects ...*unstructured.Unstructured) *dynamicfake.FakeDynamicClient {
	listKinds := map[schema.GroupVersionResource]string{
		machineConfigGVR: "MachineConfigList", sccGVR: "SecurityContextConstraintsList",
		serviceMonitorGVR: "ServiceMonitorList", daemonSetGVR: "DaemonSetList", serviceGVR: "ServiceList",
		configMapGVR: "ConfigMapList", machineConfigurationGVR: "MachineConfigurationList",
	}
	objs := make([]runtime.Object, 0, len(objects))
	for _, o := range objects {
		objs = append(objs, o)
	}
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, objs...)
}

type certFixture struct {
	t         *testing.T
	c         *certController
	no        *operatorclienttest.Fake
	kube      *kubefake.Clientset
	operator  v1helpers.OperatorClient
	informers kubeinformers.SharedInformerFactory
	kubeLog   writeLog
	dynLog    writeLog
}

func newCertFixture(t *testing.T, nodeOperator *nodev1alpha1.NodeOperator, tlsStack ...*unstructured.Unstructured) *certFixture {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Now())
	f := &certFixture{
		t:        t,
		no:       operatorclienttest.New(t, clk, nodeOperator),
		kube:     kubefake.NewClientset(),
		operator: v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}, &operatorv1.OperatorStatus{}, nil),
	}
	dyn := tlsStackClient(tlsStack...)
	f.kubeLog.watch(f.kube)
	f.dynLog.watch(dyn)
	// Not started: sync refreshes the caches itself, so that each sync sees
	// every earlier write.
	f.informers = kubeinformers.NewSharedInformerFactoryWithOptions(f.kube, 0, kubeinformers.WithNamespace(namespace))
	secrets, configMaps := f.informers.Core().V1().Secrets(), f.informers.Core().V1().ConfigMaps()
	served := stack.FixedServedAPIs(platform.ServedAPIs{Monitoring: true, MachineConfig: true, MachineConfiguration: true})
	f.c = &certController{
		nodeOperators: f.no.NodeOperators,
		kube:          f.kube,
		served:        served,
		observer:      NewTLSObserver(dyn, clk, 0),
		rotation: criometricscerts.New(namespace, serviceName, criometricscerts.DefaultTiming, f.kube, secrets, configMaps,
			f.operator, events.NewInMemoryRecorder("test", clk)),
		secrets: secrets.Lister(),
		configs: configMaps.Lister(),
	}
	return f
}

func (f *certFixture) sync() []string {
	f.t.Helper()
	ctx := context.Background()
	core := f.kube.CoreV1()
	refresh(f.t, f.informers.Core().V1().Secrets().Informer())(core.Secrets(namespace).List(ctx, metav1.ListOptions{}))
	refresh(f.t, f.informers.Core().V1().ConfigMaps().Informer())(core.ConfigMaps(namespace).List(ctx, metav1.ListOptions{}))
	f.no.Refresh()
	f.kubeLog.take()
	f.dynLog.take()
	require.NoError(f.t, f.c.syncCertificates(ctx, nil))
	return f.kubeLog.take()
}

var certsCreated = []string{
	"create secrets " + criometricscerts.SignerSecretName,
	"create configmaps " + criometricscerts.CABundleName,
	"create secrets " + criometricscerts.ServingSecretName,
}

// First sync: the CA, then the bundle that trusts it, then the serving
// certificate it signs; the second sync writes nothing.
func TestCertificatesCreatedInOrderThenNoWrites(t *testing.T) {
	f := newCertFixture(t, metricsDecision(true, nodev1alpha1.OperatorTLS))
	assert.Equal(t, certsCreated, f.sync())

	serving, err := f.kube.CoreV1().Secrets(namespace).Get(context.Background(), criometricscerts.ServingSecretName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.NotEmpty(t, serving.Data["tls.crt"])
	assert.NotEmpty(t, serving.Data["tls.key"])
	_, status, _, err := f.operator.GetOperatorState()
	require.NoError(t, err)
	cond := v1helpers.FindOperatorCondition(status.Conditions, criometricscerts.ConditionType())
	require.NotNil(t, cond)
	assert.Equal(t, operatorv1.ConditionFalse, cond.Status)

	for i := range 3 {
		assert.Empty(t, f.sync(), "steady state: sync %d writes nothing", i)
	}
}

// The stack off or served by the platform's proxy: the certificates go once
// nothing of the own TLS stack uses them, and then syncs make no API call.
func TestCertificatesTornDown(t *testing.T) {
	ds := object(daemonSetGVR, "DaemonSet", namespace, DaemonSetName)
	removed := []string{
		"delete secrets " + criometricscerts.ServingSecretName,
		"delete secrets " + criometricscerts.SignerSecretName,
		"delete configmaps " + criometricscerts.CABundleName,
	}
	tests := []struct {
		name     string
		decision *nodev1alpha1.NodeOperator
		tlsStack []*unstructured.Unstructured
		want     []string
	}{
		{"stack off", metricsDecision(false, ""), nil, removed},
		{"platform path serves", metricsDecision(true, nodev1alpha1.PlatformProxy), nil, removed},
		{"the DaemonSet still runs: kept", metricsDecision(false, ""), []*unstructured.Unstructured{ds}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newCertFixture(t, metricsDecision(true, nodev1alpha1.OperatorTLS), tt.tlsStack...)
			require.Equal(t, certsCreated, f.sync())

			f.no.Update(func(no *nodev1alpha1.NodeOperator) { no.Status = tt.decision.Status })
			assert.Equal(t, tt.want, f.sync())
			if tt.want == nil {
				return
			}
			assert.Empty(t, f.sync(), "once gone, nothing more")
			assert.Zero(t, f.kubeLog.reads+f.dynLog.reads, "an off stack costs no API call")
		})
	}
}

// Unmanaged, or before the first decision: neither created nor removed.
func TestCertificatesHeld(t *testing.T) {
	unmanaged := metricsDecision(false, "")
	unmanaged.Spec.ManagementState = operatorv1.Unmanaged
	for name, no := range map[string]*nodev1alpha1.NodeOperator{
		"Unmanaged":    unmanaged,
		"no decision":  {Spec: nodev1alpha1.NodeOperatorSpec{OperatorSpec: operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}}},
		"mode unknown": metricsDecision(true, ""),
	} {
		t.Run(name, func(t *testing.T) {
			f := newCertFixture(t, no)
			assert.Empty(t, f.sync())
		})
	}
}
