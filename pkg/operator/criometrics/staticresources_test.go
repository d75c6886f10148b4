package criometrics

import (
	"context"
	"fmt"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/staticresourcecontroller"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient/operatorclienttest"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

var prometheusRuleGVR = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "prometheusrules"}

type staticFixture struct {
	t    *testing.T
	c    *staticresourcecontroller.StaticResourceController
	no   *operatorclienttest.Fake
	kube *kubefake.Clientset
	dyn  *dynamicfake.FakeDynamicClient
	log  writeLog
}

// newStaticFixture: built-in kinds live in the kube fake, the others (crs:
// ServiceMonitor, MachineConfig, ...) in the dynamic fake, whose GETs of
// built-in kinds read the kube fake: one API server, as the controller sees.
func newStaticFixture(t *testing.T, nodeOperator *nodev1alpha1.NodeOperator, crs ...*unstructured.Unstructured) *staticFixture {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Now())
	f := &staticFixture{t: t, no: operatorclienttest.New(t, clk, nodeOperator), kube: kubefake.NewClientset(), dyn: tlsStackClient(crs...)}
	f.log.watch(f.kube, f.dyn)
	f.dyn.PrependReactor("get", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		switch a.GetResource().Group {
		case "", "apps", "rbac.authorization.k8s.io":
		default:
			return false, nil, nil
		}
		obj, err := f.kube.Tracker().Get(a.GetResource(), a.GetNamespace(), a.(clienttesting.GetAction).GetName())
		if err != nil {
			return true, nil, err
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		return true, &unstructured.Unstructured{Object: u}, err
	})
	operator := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}, &operatorv1.OperatorStatus{}, nil)
	served := stack.FixedServedAPIs(platform.ServedAPIs{Monitoring: true, MachineConfig: true, MachineConfiguration: true})
	f.c = NewStaticResourcesController(f.no.NodeOperators, operator, f.kube, f.dyn, served, NewTLSObserver(f.dyn, clk, 0), nil,
		events.NewInMemoryRecorder("test", clk)).(*staticresourcecontroller.StaticResourceController)
	return f
}

func (f *staticFixture) sync() []string {
	f.t.Helper()
	f.no.Refresh()
	f.log.take()
	require.NoError(f.t, f.c.Sync(context.Background(), factory.NewSyncContext("test", events.NewInMemoryRecorder("test", clocktesting.NewFakeClock(time.Now())))))
	return f.log.take()
}

var (
	staticCreated = []string{
		"create serviceaccounts crio-metrics",
		"create clusterroles crio-metrics-proxy", "create clusterrolebindings crio-metrics-proxy",
		"create clusterroles crio-metrics-client", "create clusterrolebindings crio-metrics-client",
		"create roles prometheus-k8s", "create rolebindings prometheus-k8s",
		"create services crio-metrics",
	}
	monitoringCreated = []string{"create prometheusrules crio-metrics", "create configmaps grafana-dashboard-node-crio"}
)

// Own TLS path: RBAC and Service, then alerts and dashboard; the
// ServiceMonitor only once a node's proxy serves and CRI-O has the drop-in.
// Then nothing is written.
func TestStaticResourcesBuildServiceMonitorLast(t *testing.T) {
	f := newStaticFixture(t, metricsDecision(true, nodev1alpha1.OperatorTLS))
	assert.Equal(t, append(append([]string{}, staticCreated...), monitoringCreated...), f.sync())
	assert.Empty(t, f.sync(), "no ServiceMonitor while no proxy serves")

	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: DaemonSetName},
		Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, NumberAvailable: 1}}
	require.NoError(t, f.kube.Tracker().Add(ds))
	assert.Empty(t, f.sync(), "no ServiceMonitor before the drop-in MachineConfigs")

	for _, name := range machineConfigNames() {
		require.NoError(t, f.dyn.Tracker().Add(object(machineConfigGVR, "MachineConfig", "", name)))
	}
	assert.Equal(t, []string{"create servicemonitors crio-metrics"}, f.sync())
	for i := range 3 {
		assert.Empty(t, f.sync(), "steady state: sync %d writes nothing", i)
	}
}

// Where the platform's proxy serves: only the alerts and the dashboard, for
// its job.
func TestStaticResourcesOnThePlatformPath(t *testing.T) {
	f := newStaticFixture(t, metricsDecision(true, nodev1alpha1.PlatformProxy))
	assert.Equal(t, monitoringCreated, f.sync())
	rule, err := f.dyn.Resource(prometheusRuleGVR).Namespace(namespace).Get(context.Background(), "crio-metrics", metav1.GetOptions{})
	require.NoError(t, err)
	groups, _, _ := unstructured.NestedSlice(rule.Object, "spec", "groups")
	require.NotEmpty(t, groups)
	assert.Contains(t, fmt.Sprint(groups), `job="`+PlatformJob+`"`)
	assert.NotContains(t, fmt.Sprint(groups), `job="`+OperatorJob+`"`)
	assert.Empty(t, f.sync())
}

// Stack off: the ServiceMonitor, alerts and dashboard go at once; RBAC and
// the Service only once no scraper or proxy needs them; then no writes.
func TestStaticResourcesTeardownOrder(t *testing.T) {
	f := newStaticFixture(t, metricsDecision(true, nodev1alpha1.OperatorTLS),
		object(serviceMonitorGVR, "ServiceMonitor", namespace, serviceName))
	require.Equal(t, append(append([]string{}, staticCreated...), monitoringCreated...), f.sync())

	f.no.Update(func(no *nodev1alpha1.NodeOperator) { no.Status = metricsDecision(false, "").Status })
	assert.Equal(t, []string{"delete servicemonitors crio-metrics", "delete prometheusrules crio-metrics", "delete configmaps grafana-dashboard-node-crio"},
		f.sync(), "the ServiceMonitor first; RBAC and the Service stay while it was there")
	assert.Equal(t, []string{
		"delete serviceaccounts crio-metrics",
		"delete clusterroles crio-metrics-proxy", "delete clusterrolebindings crio-metrics-proxy",
		"delete clusterroles crio-metrics-client", "delete clusterrolebindings crio-metrics-client",
		"delete roles prometheus-k8s", "delete rolebindings prometheus-k8s",
		"delete services crio-metrics",
	}, f.sync())
	assert.Empty(t, f.sync(), "once removed, syncs only read")
}

// A spec change landing between library-go's two questions must not make
// both answers yes: each group reads the state once.
func TestAgreeingConditionsReadTheStateOnce(t *testing.T) {
	on := stack.State{Act: true, Decided: true, Enabled: true, Decision: nodev1alpha1.StackStatus{Mode: nodev1alpha1.OperatorTLS}}
	off := stack.State{Act: true, Decided: true}
	reads := 0
	flipping := func() stack.State {
		reads++
		if reads%2 == 1 {
			return on
		}
		return off
	}
	build := func(s stack.State) bool { return IntentFor(s) == Build }
	tearDown := func(s stack.State) bool { return IntentFor(s) == TearDown }
	create, remove := agreeing(flipping, build, tearDown)
	for i := 0; i < 4; i++ {
		c, d := create(), remove()
		if c && d {
			t.Fatalf("sync %d: create and delete both true", i)
		}
		if c == d {
			t.Fatalf("sync %d: neither create nor delete for a decided stack", i)
		}
	}
}
