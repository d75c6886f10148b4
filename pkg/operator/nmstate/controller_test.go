package nmstate

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsfake "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	appslistersv1 "k8s.io/client-go/listers/apps/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/yaml"

	"github.com/openshift/cluster-node-operator/bindata"
	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

var testImages = stack.Images{
	NMStateOperator: "quay.io/test/nmstate-operator:1",
	NMStateHandler:  "quay.io/test/nmstate-handler:1",
	NMStatePlugin:   "quay.io/test/nmstate-console-plugin:1",
	KubeRBACProxy:   "quay.io/test/kube-rbac-proxy:1",
}

// fixture is the controller with fake clients, and a log of every write
// action in the order the clients saw them.
type fixture struct {
	t        *testing.T
	c        *controller
	kube     *kubefake.Clientset
	dynamic  *dynamicfake.FakeDynamicClient
	apiext   *apiextensionsfake.Clientset
	operator v1helpers.OperatorClient
	indexer  cache.Indexer
	clock    *clocktesting.FakeClock
	state    stack.State
	writes   []string
	// staleStatus: the NodeOperator informer has not seen the status that
	// the last syncs applied.
	staleStatus bool
}

func newFixture(t *testing.T, decision nodev1alpha1.StackStatus, kubeObjs []runtime.Object, dynObjs ...runtime.Object) *fixture {
	t.Helper()
	f := &fixture{
		t:        t,
		kube:     kubefake.NewClientset(kubeObjs...),
		apiext:   apiextensionsfake.NewSimpleClientset(), //nolint:staticcheck // NewClientset needs the CRD type for apply, which the fake lacks
		operator: v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}, &operatorv1.OperatorStatus{}, nil),
		indexer:  cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}),
		clock:    clocktesting.NewFakeClock(time.Now()),
	}
	f.dynamic = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		NMStateGVR:                                   "NMStateList",
		{Version: "v1", Resource: "namespaces"}:      "NamespaceList",
		{Version: "v1", Resource: "serviceaccounts"}: "ServiceAccountList",
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}:        "ClusterRoleList",
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}: "ClusterRoleBindingList",
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}:               "RoleList",
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}:        "RoleBindingList",
		csvGVR:          "ClusterServiceVersionList",
		subscriptionGVR: "SubscriptionList",
	}, dynObjs...)
	for _, c := range []interface {
		PrependReactor(verb, resource string, reaction clienttesting.ReactionFunc)
	}{f.kube, f.dynamic, f.apiext} {
		c.PrependReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
			switch a.GetVerb() {
			case "get", "list", "watch":
			default:
				f.writes = append(f.writes, a.GetVerb()+" "+a.GetResource().Resource)
			}
			return false, nil, nil
		})
	}
	f.state = stack.State{Act: true, Decided: true, Enabled: decision.Enabled, Decision: decision, NodeOperator: &nodev1alpha1.NodeOperator{}}
	f.c = &controller{
		readState:      func() (stack.State, error) { return f.state, nil },
		operatorClient: f.operator,
		kube:           f.kube,
		dynamic:        f.dynamic,
		clients:        resourceapply.NewKubeClientHolder(f.kube).WithAPIExtensionsClient(f.apiext),
		deployments:    appslistersv1.NewDeploymentLister(f.indexer).Deployments(Namespace),
		cache:          resourceapply.NewResourceCache(),
		images:         imagesFrom(testImages),
		clock:          f.clock,
		conditions:     stack.Conditions{Prefix: string(nodev1alpha1.NMStateStack)},
	}
	return f
}

// sync runs one sync the way the informers would see the cluster: the
// Deployment cache and the NodeOperator status (generations) are refreshed
// first. It returns the writes of that sync, which must succeed.
func (f *fixture) sync() []string {
	f.t.Helper()
	writes, err := f.trySync()
	require.NoError(f.t, err)
	return writes
}

func (f *fixture) trySync() ([]string, error) {
	f.t.Helper()
	for _, obj := range f.indexer.List() {
		require.NoError(f.t, f.indexer.Delete(obj))
	}
	list, err := f.kube.AppsV1().Deployments(Namespace).List(context.Background(), metav1.ListOptions{})
	require.NoError(f.t, err)
	for i := range list.Items {
		require.NoError(f.t, f.indexer.Add(&list.Items[i]))
	}
	_, status, _, err := f.operator.GetOperatorState()
	require.NoError(f.t, err)
	if f.state.NodeOperator != nil && !f.staleStatus {
		f.state.NodeOperator.Status.OperatorStatus = *status.DeepCopy()
	}

	f.writes = nil
	err = f.c.syncNMState(context.Background(), factory.NewSyncContext("test", events.NewInMemoryRecorder("test", f.clock)))
	return f.writes, err
}

func (f *fixture) condition(suffix string) operatorv1.OperatorCondition {
	f.t.Helper()
	_, status, _, err := f.operator.GetOperatorState()
	require.NoError(f.t, err)
	c := v1helpers.FindOperatorCondition(status.Conditions, "NMState"+suffix)
	require.NotNil(f.t, c, "condition NMState%s", suffix)
	return *c
}

// editDeployment plays someone who changes the Deployment's image.
func (f *fixture) editDeployment() {
	f.t.Helper()
	d, err := f.kube.AppsV1().Deployments(Namespace).Get(context.Background(), DeploymentName, metav1.GetOptions{})
	require.NoError(f.t, err)
	d.Spec.Template.Spec.Containers[0].Image = "quay.io/someone/else:1"
	d.Generation++
	_, err = f.kube.AppsV1().Deployments(Namespace).Update(context.Background(), d, metav1.UpdateOptions{})
	require.NoError(f.t, err)
}

// makeAvailable plays the Deployment controller and kubelet.
func (f *fixture) makeAvailable() {
	f.t.Helper()
	d, err := f.kube.AppsV1().Deployments(Namespace).Get(context.Background(), DeploymentName, metav1.GetOptions{})
	require.NoError(f.t, err)
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1,
		Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue}}}
	_, err = f.kube.AppsV1().Deployments(Namespace).UpdateStatus(context.Background(), d, metav1.UpdateOptions{})
	require.NoError(f.t, err)
}

func manifest(t *testing.T, file string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal(bindata.MustAsset(file), &obj.Object))
	return obj
}

func adminNMState() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "nmstate.io/v1", "kind": "NMState",
		"metadata": map[string]interface{}{"name": CRName},
		"spec":     map[string]interface{}{"nodeSelector": map[string]interface{}{"node-role.kubernetes.io/worker": ""}},
	}}
}

// The stack deploys in order and then writes nothing, and someone's edit of
// the Deployment is put back once; also while the NodeOperator informer has
// not seen the status that recorded the Deployment's generation (a busy API
// server or operator), where an update for nothing would fail with a
// conflict whenever the Deployment controller writes its status in between.
func TestDeployInOrderThenNoWritesAtSteadyState(t *testing.T) {
	for _, stale := range []bool{false, true} {
		t.Run(fmt.Sprintf("status seen late: %v", stale), func(t *testing.T) {
			f := newFixture(t, onByDefault, nil)
			f.staleStatus = stale

			writes := f.sync()
			assert.Equal(t, []string{
				"create customresourcedefinitions", "create namespaces", "create serviceaccounts",
				"create clusterroles", "create clusterrolebindings", "create roles", "create rolebindings",
				"create deployments",
			}, writes, "first sync: static objects in order, then the Deployment; no NMState before it is available")
			assert.Equal(t, operatorv1.ConditionFalse, f.condition("Available").Status)
			assert.Equal(t, operatorv1.ConditionTrue, f.condition("Progressing").Status)
			assert.Empty(t, f.sync(), "nothing more before the Deployment is available")

			f.makeAvailable()
			writes = f.sync()
			assert.Equal(t, []string{"create nmstates"}, writes, "NMState created once the Deployment is available")
			cr, err := f.dynamic.Resource(NMStateGVR).Get(context.Background(), CRName, metav1.GetOptions{})
			require.NoError(t, err)
			assert.Equal(t, StackLabelValue, cr.GetLabels()[StackLabel])
			assert.Equal(t, operatorv1.ConditionTrue, f.condition("Available").Status)
			assert.Equal(t, "PlatformDefault", f.condition("Available").Reason)
			assert.Equal(t, operatorv1.ConditionFalse, f.condition("Progressing").Status)
			assert.Equal(t, operatorv1.ConditionFalse, f.condition("Degraded").Status)

			for i := 0; i < 3; i++ {
				assert.Empty(t, f.sync(), "steady state: sync %d writes nothing", i)
			}

			// Someone edits the Deployment: it is put back, once.
			f.editDeployment()
			assert.Equal(t, []string{"update deployments"}, f.sync())
			d, err := f.kube.AppsV1().Deployments(Namespace).Get(context.Background(), DeploymentName, metav1.GetOptions{})
			require.NoError(t, err)
			assert.Equal(t, testImages.NMStateOperator, d.Spec.Template.Spec.Containers[0].Image)
			assert.Empty(t, f.sync())

			// The administrator tunes our NMState: it is left alone.
			cr.Object["spec"] = map[string]interface{}{"logLevel": "debug"}
			_, err = f.dynamic.Resource(NMStateGVR).Update(context.Background(), cr, metav1.UpdateOptions{})
			require.NoError(t, err)
			f.makeAvailable()
			assert.Empty(t, f.sync())
		})
	}
}

func TestRemoveInOrderKeepsCRDAndUserData(t *testing.T) {
	d, err := readDeployment(imagesFrom(testImages))
	require.NoError(t, err)
	var dyn []runtime.Object
	for _, file := range staticFiles {
		dyn = append(dyn, manifest(t, file))
	}
	ourCR := manifest(t, crFile)
	nncp := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "nmstate.io/v1", "kind": "NodeNetworkConfigurationPolicy", "metadata": map[string]interface{}{"name": "br1"}}}
	f := newFixture(t, offOnAWS, []runtime.Object{d}, append(dyn, ourCR, nncp)...)
	_, err = f.apiext.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), readCRDForTest(t), metav1.CreateOptions{})
	require.NoError(t, err)

	writes := f.sync()
	assert.Equal(t, []string{
		"delete nmstates", "delete deployments",
		"delete rolebindings", "delete roles", "delete clusterrolebindings", "delete clusterroles",
		"delete serviceaccounts", "delete namespaces",
	}, writes, "the NMState CR first, then the NMState operator, then RBAC, ServiceAccount and namespace; never a CRD")
	assert.Equal(t, operatorv1.ConditionTrue, f.condition("Available").Status)
	assert.Equal(t, operatorv1.ConditionTrue, f.condition("Progressing").Status, "until the namespace is gone")

	assert.Empty(t, f.sync(), "once removed, syncs only read")
	assert.Equal(t, offOnAWS.Message, f.condition("Available").Message)
	assert.Equal(t, operatorv1.ConditionFalse, f.condition("Progressing").Status)

	_, err = f.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), "nmstates.nmstate.io", metav1.GetOptions{})
	assert.NoError(t, err, "the nmstates CRD is kept")
	_, err = f.dynamic.Resource(schema.GroupVersionResource{Group: "nmstate.io", Version: "v1", Resource: "nodenetworkconfigurationpolicies"}).
		Get(context.Background(), "br1", metav1.GetOptions{})
	assert.NoError(t, err, "NodeNetworkConfigurationPolicies are kept")
}

func readCRDForTest(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, yaml.Unmarshal(bindata.MustAsset(crdFile), crd))
	return crd
}

func TestAdoptedNMStateIsLeftAloneAndKept(t *testing.T) {
	f := newFixture(t, onByDefault, nil, adminNMState())
	f.sync()
	f.makeAvailable()
	writes := f.sync()
	for _, w := range writes {
		assert.NotContains(t, w, "nmstates", "an administrator's NMState is never written")
	}
	assert.Equal(t, operatorv1.ConditionTrue, f.condition("Available").Status)
	assert.Contains(t, f.condition("Available").Message, "created by an administrator (adopted")

	f.state.Enabled, f.state.Decision = false, offOnAWS
	writes = f.sync()
	assert.NotContains(t, writes, "delete nmstates", "an administrator's NMState survives the opt-out")
	assert.Contains(t, writes, "delete deployments")
	cr, err := f.dynamic.Resource(NMStateGVR).Get(context.Background(), CRName, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, adminNMState().Object["spec"], cr.Object["spec"])
	assert.Contains(t, f.condition("Available").Message, "NMState nmstate, created by an administrator, is kept")
}

func TestOthersObjectsAreNeverTouched(t *testing.T) {
	foreign := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: DeploymentName, Namespace: Namespace,
		Labels: map[string]string{"olm.owner": "kubernetes-nmstate-operator.4.20.0"}}}
	ns := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]interface{}{"name": Namespace}}}

	t.Run("off: nothing without the stack's label is deleted", func(t *testing.T) {
		f := newFixture(t, offOnAWS, []runtime.Object{foreign}, ns, adminNMState())
		assert.Empty(t, f.sync())
	})
	t.Run("on: an NMState operator deployed by someone else is left to run NMState", func(t *testing.T) {
		f := newFixture(t, onByDefault, []runtime.Object{foreign})
		assert.Empty(t, f.sync())
		assert.Equal(t, operatorv1.ConditionTrue, f.condition("Available").Status)
		assert.Equal(t, ReasonProvidedByOLM, f.condition("Available").Reason, "OLM's label says who installed it")
		assert.Equal(t, operatorv1.ConditionFalse, f.condition("Degraded").Status)
	})
}

func olmCSVObject(namespace string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
		"metadata": map[string]interface{}{"name": "kubernetes-nmstate-operator.v4.20.0", "namespace": namespace},
		"spec": map[string]interface{}{"customresourcedefinitions": map[string]interface{}{
			"owned": []interface{}{map[string]interface{}{"name": nmstatesCRD, "version": "v1", "kind": "NMState"}}}},
	}}
}

// An OLM install arriving after the stack deployed: one NMState operator
// stays (OLM's), and what it may use is kept; uninstalling it hands NMState
// back without touching the NMState.
func TestStepsAsideForOLMAndTakesOverAfterIt(t *testing.T) {
	var rbac []runtime.Object
	for _, file := range rbacFiles {
		rbac = append(rbac, manifest(t, file)) // the dynamic client deletes them
	}
	f := newFixture(t, onByDefault, nil, rbac...)
	f.sync()
	f.makeAvailable()
	f.sync() // creates the NMState

	csv := olmCSVObject("nmstate")
	require.NoError(t, f.dynamic.Tracker().Add(csv))
	assert.Equal(t, []string{"delete deployments", "delete rolebindings", "delete roles", "delete clusterrolebindings", "delete clusterroles"},
		f.sync(), "its own Deployment and RBAC go; the namespace, ServiceAccount, CRD and NMState stay")
	assert.Equal(t, ReasonProvidedByOLM, f.condition("Available").Reason)
	assert.Contains(t, f.condition("Available").Message, "ClusterServiceVersion nmstate/kubernetes-nmstate-operator.v4.20.0")
	assert.Empty(t, f.sync(), "nothing more while OLM's operator runs")
	_, status, _, err := f.operator.GetOperatorState()
	require.NoError(t, err)
	assert.True(t, HandedOver(&nodev1alpha1.NodeOperator{Status: nodev1alpha1.NodeOperatorStatus{OperatorStatus: *status}}),
		"the stack's objects are no longer its related objects")
	_, err = f.dynamic.Resource(NMStateGVR).Get(context.Background(), CRName, metav1.GetOptions{})
	require.NoError(t, err, "the NMState, which owns the running handler, is kept")

	require.NoError(t, f.dynamic.Tracker().Delete(csvGVR, "nmstate", csv.GetName()))
	writes := f.sync()
	assert.Contains(t, writes, "create deployments", "the node operator runs NMState again")
	assert.NotContains(t, writes, "create nmstates", "the NMState is kept as it is")
}

func TestProviderOf(t *testing.T) {
	copied := olmCSVObject("default")
	copied.SetLabels(map[string]string{olmCopiedFrom: "nmstate"})
	sub := unstructured.Unstructured{Object: map[string]interface{}{
		"metadata": map[string]interface{}{"name": "nmstate", "namespace": "nmstate"}, "spec": map[string]interface{}{"name": olmPackage}}}
	otherSub := unstructured.Unstructured{Object: map[string]interface{}{
		"metadata": map[string]interface{}{"name": "x", "namespace": "x"}, "spec": map[string]interface{}{"name": "sriov-network-operator"}}}
	ourDeployment, err := readDeployment(imagesFrom(testImages))
	require.NoError(t, err)
	manual := ourDeployment.DeepCopy()
	manual.Labels = nil
	for _, tc := range []struct {
		name       string
		csvs, subs []unstructured.Unstructured
		d          *appsv1.Deployment
		want       provider
	}{
		{"nothing", nil, nil, nil, provider{}},
		{"our own Deployment", nil, []unstructured.Unstructured{otherSub}, ourDeployment, provider{}},
		{"a CSV that owns nmstates.nmstate.io", []unstructured.Unstructured{*olmCSVObject("nmstate")}, nil, ourDeployment, olmCSV},
		{"a copied CSV does not count", []unstructured.Unstructured{*copied}, nil, nil, provider{}},
		{"a Subscription before its CSV", nil, []unstructured.Unstructured{sub}, nil, provider{ReasonProvidedByOLM, "Subscription nmstate/nmstate"}},
		{"a Deployment someone else created", nil, nil, manual, provider{ReasonProvidedExternally, "Deployment openshift-nmstate/nmstate-operator, not created by the node operator"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, providerOf(tc.csvs, tc.subs, tc.d))
		})
	}
}

func TestNothingHappensUnmanagedOrUndecided(t *testing.T) {
	for _, tc := range []struct {
		name  string
		state stack.State
	}{
		{"Unmanaged", stack.State{Act: false, Decided: true, Enabled: false, Decision: offOnAWS}},
		{"no decision yet", stack.State{Act: true, Decided: false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := readDeployment(imagesFrom(testImages))
			require.NoError(t, err)
			f := newFixture(t, offOnAWS, []runtime.Object{d}, manifest(t, crFile), manifest(t, "nmstate/namespace.yaml"))
			f.state = tc.state
			assert.Empty(t, f.sync())
			_, status, _, err := f.operator.GetOperatorState()
			require.NoError(t, err)
			assert.Empty(t, status.Conditions, "no conditions written")
		})
	}
}

func TestWaitsForTerminatingNamespace(t *testing.T) {
	now := metav1.Now()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace, DeletionTimestamp: &now, Finalizers: []string{"kubernetes"}}}
	f := newFixture(t, onByDefault, []runtime.Object{ns})
	assert.Empty(t, f.sync(), "nothing is created in a terminating namespace")
	assert.Equal(t, operatorv1.ConditionTrue, f.condition("Progressing").Status)
	assert.Contains(t, f.condition("Progressing").Message, "namespace openshift-nmstate to finish terminating")
	assert.Equal(t, operatorv1.ConditionFalse, f.condition("Degraded").Status)
}

func TestMissingImagesAreReported(t *testing.T) {
	f := newFixture(t, onByDefault, nil)
	f.c.images = images{}
	err := f.c.syncNMState(context.Background(), factory.NewSyncContext("test", events.NewInMemoryRecorder("test", f.clock)))
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "NMSTATE_OPERATOR_IMAGE, NMSTATE_HANDLER_IMAGE"), err.Error())
	_, err = f.kube.AppsV1().Deployments(Namespace).Get(context.Background(), DeploymentName, metav1.GetOptions{})
	assert.Error(t, err, "no Deployment without images")
}
