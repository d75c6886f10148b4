package nmstate

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

// fixture is the controller with fake clients and a log of their write actions, in order.
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
		// Listed: what findProvider looks for; the rest is read by name.
		csvGVR: "ClusterServiceVersionList", subscriptionGVR: "SubscriptionList", PolicyGVR: "NodeNetworkConfigurationPolicyList",
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

// sync refreshes the Deployment cache and the NodeOperator status, then runs one sync that must succeed.
func (f *fixture) sync() []string {
	f.t.Helper()
	writes, err := f.trySync()
	require.NoError(f.t, err)
	return writes
}

func (f *fixture) trySync() ([]string, error) {
	f.t.Helper()
	list, err := f.kube.AppsV1().Deployments(Namespace).List(context.Background(), metav1.ListOptions{})
	require.NoError(f.t, err)
	var deployments []interface{}
	for i := range list.Items {
		deployments = append(deployments, &list.Items[i])
	}
	require.NoError(f.t, f.indexer.Replace(deployments, ""))
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

// Deploys in order, then writes nothing, also on a stale status (docs/test-behaviours.md).
func TestDeployInOrderThenNoWritesAtSteadyState(t *testing.T) {
	for _, stale := range []bool{false, true} {
		t.Run(fmt.Sprintf("status seen late: %v", stale), func(t *testing.T) {
			f := newFixture(t, onByDefault, nil)
			f.staleStatus = stale

			writes := f.sync()
			assert.Equal(t, []string{
				"create customresourcedefinitions", "create namespaces", "create serviceaccounts", "create networkpolicies",
				"create clusterroles", "create clusterrolebindings", "create roles", "create rolebindings",
				"create deployments",
			}, writes, "first sync: static objects in order, then the Deployment; no NMState before it is available")
			assert.Equal(t, []any{operatorv1.ConditionFalse, operatorv1.ConditionTrue}, []any{f.condition("Available").Status, f.condition("Progressing").Status})
			assert.Empty(t, f.sync(), "nothing more before the Deployment is available")

			f.makeAvailable()
			writes = f.sync()
			assert.Equal(t, []string{"create nmstates"}, writes, "NMState created once the Deployment is available")
			cr, err := f.dynamic.Resource(NMStateGVR).Get(context.Background(), CRName, metav1.GetOptions{})
			require.NoError(t, err)
			assert.Equal(t, StackLabelValue, cr.GetLabels()[StackLabel])
			assert.Equal(t, []any{operatorv1.ConditionTrue, "PlatformDefault", operatorv1.ConditionFalse, operatorv1.ConditionFalse},
				[]any{f.condition("Available").Status, f.condition("Available").Reason, f.condition("Progressing").Status, f.condition("Degraded").Status})

			for i := 0; i < 3; i++ {
				assert.Empty(t, f.sync(), "steady state: sync %d writes nothing", i)
			}

			// Someone edits the Deployment: it is put back, once.
			d, err := f.kube.AppsV1().Deployments(Namespace).Get(context.Background(), DeploymentName, metav1.GetOptions{})
			require.NoError(t, err)
			d.Spec.Template.Spec.Containers[0].Image = "quay.io/someone/else:1"
			d.Generation++
			_, err = f.kube.AppsV1().Deployments(Namespace).Update(context.Background(), d, metav1.UpdateOptions{})
			require.NoError(t, err)
			assert.Equal(t, []string{"update deployments"}, f.sync())
			d, err = f.kube.AppsV1().Deployments(Namespace).Get(context.Background(), DeploymentName, metav1.GetOptions{})
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
	crd := &apiextensionsv1.CustomResourceDefinition{}
	require.NoError(t, yaml.Unmarshal(bindata.MustAsset(crdFile), crd))
	require.NoError(t, f.apiext.Tracker().Add(crd))

	writes := f.sync()
	assert.Equal(t, []string{
		"delete nmstates", "delete deployments",
		"delete rolebindings", "delete roles", "delete clusterrolebindings", "delete clusterroles",
		"delete networkpolicies", "delete serviceaccounts", "delete namespaces",
	}, writes, "the NMState CR first, then the NMState operator, then RBAC, NetworkPolicy, ServiceAccount and namespace; never the CRD or a policy, both there")
	assert.Equal(t, operatorv1.ConditionTrue, f.condition("Available").Status)
	assert.Equal(t, operatorv1.ConditionTrue, f.condition("Progressing").Status, "until the namespace is gone")

	assert.Empty(t, f.sync(), "once removed, syncs only read")
	assert.Equal(t, offOnAWS.Message+"; "+unappliedPolicies(offOnAWS.Reason), f.condition("Available").Message, "the policy is there")
	assert.Equal(t, operatorv1.ConditionFalse, f.condition("Progressing").Status)
}

func TestOthersObjectsAreNeverTouched(t *testing.T) {
	foreign := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: DeploymentName, Namespace: Namespace,
		Labels: map[string]string{"olm.owner": "kubernetes-nmstate-operator.4.20.0"}}}
	ns := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]interface{}{"name": Namespace}}}

	f := newFixture(t, offOnAWS, []runtime.Object{foreign}, ns, adminNMState())
	assert.Empty(t, f.sync(), "off: nothing without the stack's label is deleted")
	f = newFixture(t, onByDefault, []runtime.Object{foreign.DeepCopy()})
	assert.Empty(t, f.sync(), "on: an NMState operator deployed by someone else is left to run NMState")
	assert.Equal(t, []any{operatorv1.ConditionTrue, ReasonProvidedByOLM, operatorv1.ConditionFalse},
		[]any{f.condition("Available").Status, f.condition("Available").Reason, f.condition("Degraded").Status}, "OLM's label says who installed it")

	// An administrator's NMState is adopted: never written, kept on opt-out.
	f = newFixture(t, onByDefault, nil, adminNMState())
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

func olmCSVObject(namespace string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
		"metadata": map[string]interface{}{"name": "kubernetes-nmstate-operator.v4.20.0", "namespace": namespace},
		"spec": map[string]interface{}{"customresourcedefinitions": map[string]interface{}{
			"owned": []interface{}{map[string]interface{}{"name": nmstatesCRD, "version": "v1", "kind": "NMState"}}}},
	}}
}

// OLM arriving later: the stack steps aside; OLM gone, it takes NMState back.
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

	require.NoError(t, f.dynamic.Tracker().Delete(csvGVR, "nmstate", csv.GetName()))
	writes := f.sync()
	assert.Contains(t, writes, "create deployments", "the node operator runs NMState again")
	assert.NotContains(t, writes, "create nmstates", "the NMState is kept as it is")
}

// A failed look for OLM's NMState writes nothing on: not the CRD (an OLM
// install may be arriving), not the Deployment (docs/test-behaviours.md).
func TestFailedLookForOLMDeploysNothing(t *testing.T) {
	f := newFixture(t, onByDefault, nil)
	f.dynamic.PrependReactor("list", "subscriptions", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewTooManyRequests("slow down", 1)
	})
	writes, err := f.trySync()
	assert.ErrorContains(t, err, "looking for an NMState operator installed by OLM")
	assert.Empty(t, writes, "a failed look applies nothing")
	_, err = f.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), "nmstates.nmstate.io", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the CRD is applied only after a look that found no other operator")
	assert.Equal(t, ReasonSyncFailing, f.condition("Degraded").Reason)

	lookErr := errors.New("429")
	for _, tt := range []struct {
		enabled bool
		other   provider
		lookErr error
		want    step
	}{
		{true, provider{}, nil, stepDeploy},
		{true, provider{}, lookErr, stepLook},
		{true, provider{ReasonProvidedByOLM, "Subscription x/y"}, lookErr, stepStepAside},
		{false, provider{}, lookErr, stepRemove},
		{false, provider{ReasonProvidedByOLM, "Subscription x/y"}, nil, stepStepAside},
	} {
		assert.Equal(t, tt.want, nextStep(tt.enabled, tt.other, tt.lookErr), "%+v", tt)
	}
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
	// OLM's, by its label or adopted by a CSV's ownerReference, even with our label.
	byLabel, adopted := ourDeployment.DeepCopy(), ourDeployment.DeepCopy()
	byLabel.Labels[olmOwner] = "kubernetes-nmstate-operator.v4.20.0"
	adopted.OwnerReferences = []metav1.OwnerReference{{Kind: "ClusterServiceVersion", Name: "kubernetes-nmstate-operator.v4.20.0"}}
	olmDeployment := provider{ReasonProvidedByOLM, "Deployment openshift-nmstate/nmstate-operator, installed by OLM"}
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
		{"OLM's Deployment by its label", nil, nil, byLabel, olmDeployment},
		{"a Deployment a CSV adopted", nil, nil, adopted, olmDeployment},
		{"a Deployment someone else created", nil, nil, manual, provider{ReasonProvidedExternally, "Deployment openshift-nmstate/nmstate-operator, not created by the node operator"}},
	} {
		assert.Equal(t, tc.want, providerOf(tc.csvs, tc.subs, tc.d), tc.name)
	}
}

func TestNothingHappensUnmanagedOrUndecided(t *testing.T) {
	for name, state := range map[string]stack.State{
		"Unmanaged":       {Act: false, Decided: true, Enabled: false, Decision: offOnAWS},
		"no decision yet": {Act: true, Decided: false},
	} {
		d, err := readDeployment(imagesFrom(testImages))
		require.NoError(t, err)
		f := newFixture(t, offOnAWS, []runtime.Object{d}, manifest(t, crFile), manifest(t, "nmstate/namespace.yaml"))
		f.state = state
		assert.Empty(t, f.sync(), name)
		_, status, _, err := f.operator.GetOperatorState()
		require.NoError(t, err)
		assert.Empty(t, status.Conditions, "%s: no conditions written", name)
	}
}

func TestWaitsForTerminatingNamespace(t *testing.T) {
	now := metav1.Now()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace, DeletionTimestamp: &now, Finalizers: []string{"kubernetes"}}}
	f := newFixture(t, onByDefault, []runtime.Object{ns})
	assert.Empty(t, f.sync(), "nothing is created in a terminating namespace")
	assert.Equal(t, []any{operatorv1.ConditionTrue, operatorv1.ConditionFalse}, []any{f.condition("Progressing").Status, f.condition("Degraded").Status})
	assert.Contains(t, f.condition("Progressing").Message, "namespace openshift-nmstate to finish terminating")
	assert.Contains(t, f.condition("Available").Message, "not available yet: waiting for namespace openshift-nmstate to finish terminating")
}

func TestMissingImagesAreReported(t *testing.T) {
	f := newFixture(t, onByDefault, nil)
	f.c.images = images{}
	writes, err := f.trySync()
	require.ErrorContains(t, err, "NMSTATE_OPERATOR_IMAGE, NMSTATE_HANDLER_IMAGE")
	assert.NotContains(t, writes, "create deployments", "no Deployment without images")
}

// Every embedded manifest is applied and labelled (docs/test-behaviours.md).
func TestEveryManifestIsUsedAndLabelled(t *testing.T) {
	names, err := bindata.Names("nmstate")
	require.NoError(t, err)
	related, err := relatedObjects()
	require.NoError(t, err)
	for _, name := range names {
		m := manifest(t, name)
		resource, _ := stack.ResourceFor(m.GroupVersionKind().GroupKind())
		assert.Contains(t, related, configv1.ObjectReference{Group: m.GroupVersionKind().Group, Resource: resource, Namespace: m.GetNamespace(), Name: m.GetName()},
			"%s is embedded but never applied", name)
		assert.Equal(t, StackLabelValue, m.GetLabels()[StackLabel], "%s lacks the label that lets removal tell the stack's objects from others'", name)
	}
}

// What no e2e test sees of the Deployment (kwok runs no container): docs/test-behaviours.md.
func TestDeploymentFollowsThePlatformConventions(t *testing.T) {
	d, err := readDeployment(imagesFrom(testImages))
	require.NoError(t, err)
	require.Len(t, d.Spec.Template.Spec.Containers, 1)
	c := d.Spec.Template.Spec.Containers[0]
	assert.Equal(t, corev1.TerminationMessageFallbackToLogsOnError, c.TerminationMessagePolicy)
	yes, no := true, false
	assert.Equal(t, &corev1.SecurityContext{ReadOnlyRootFilesystem: &yes, RunAsNonRoot: &yes, AllowPrivilegeEscalation: &no,
		Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}, c.SecurityContext)
}

var (
	onByDefault = nodev1alpha1.StackStatus{Name: nodev1alpha1.NMStateStack, Enabled: true, Reason: "PlatformDefault",
		Message: "deployed by default on platform BareMetal; set spec.nmstate.managementState=Removed to opt out"}
	offOnAWS = nodev1alpha1.StackStatus{Name: nodev1alpha1.NMStateStack, Enabled: false, Reason: "NotDefaultOnPlatform",
		Message: "not deployed (platform AWS is not enabled by default; set spec.nmstate.managementState=Managed to opt in)"}
)

var (
	t0           = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	olmCSV       = provider{ReasonProvidedByOLM, "ClusterServiceVersion nmstate/kubernetes-nmstate-operator.v4.20.0"}
	deployedOurs = "nmstate-operator available (1/1 replicas available), NMState nmstate created by the node operator"
	notReported  = "; the NMState operator has not reported on its handler yet"
)

// handler is what the NMState operator reports of its handler since t.
func handler(available string, since time.Time) operandStatus {
	reason, msg := "SuccessfullyDeployed", "All components are available and ready"
	if available == "False" {
		reason, msg = "Deploying", `DaemonSet "nmstate-handler" is not available (awaiting 2 nodes)`
	}
	return operandStatus{Reported: true,
		Available: operandCondition{Status: available, Reason: reason, Message: msg, Since: since},
		Degraded:  operandCondition{Status: "False", Reason: reason, Message: msg, Since: since}}
}

// deployment: generation, observedGeneration, current, updated and available replicas of one, Available.
func deployment(generation, observed int64, current, updated, available int32, availableCond corev1.ConditionStatus, extra ...appsv1.DeploymentCondition) *appsv1.Deployment {
	one := int32(1)
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: DeploymentName, Namespace: Namespace, Generation: generation,
			Labels: map[string]string{StackLabel: StackLabelValue}},
		Spec: appsv1.DeploymentSpec{Replicas: &one},
		Status: appsv1.DeploymentStatus{
			ObservedGeneration: observed, Replicas: current, UpdatedReplicas: updated, AvailableReplicas: available,
			Conditions: append([]appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: availableCond}}, extra...),
		},
	}
}

func TestConditionsFor(t *testing.T) {
	// calm: a condition with nothing to report; the others are the messages
	// rows share, around what differs.
	calm := condition{false, ReasonAsExpected, ""}
	available := func(note string) condition {
		return condition{true, "PlatformDefault", onByDefault.Message + "; " + deployedOurs + note}
	}
	notYet := func(status bool, why string) condition {
		return condition{status, ReasonDeploying, onByDefault.Message + "; not available yet: " + why}
	}
	rollingOut := func(counts string) condition {
		return condition{true, ReasonRollingOut, "Deployment openshift-nmstate/nmstate-operator is rolling out: " + counts}
	}
	lostPod := condition{false, ReasonDeploymentUnavailable, onByDefault.Message + "; Deployment openshift-nmstate/nmstate-operator is not available: 0/1 replicas available"}
	leftTo := func(decision nodev1alpha1.StackStatus, reason, who string) condition {
		return condition{true, reason, decision.Message + "; NMState is run by " + who + "; the node operator leaves it, the NMState and every policy alone " +
			"(to have the node operator run NMState instead, uninstall that operator; see docs/nmstate.md)"}
	}
	handlerSays := `Deploying: DaemonSet "nmstate-handler" is not available (awaiting 2 nodes)`
	ready := deployment(1, 1, 1, 1, 1, corev1.ConditionTrue)
	stuck := deployment(2, 2, 2, 0, 1, corev1.ConditionTrue, appsv1.DeploymentCondition{
		Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded",
		Message: `ReplicaSet "nmstate-operator-2" has timed out progressing.`})

	for _, tc := range []struct {
		name string
		obs  observation
		want conditions
		// stable: a persistent state, whose conditions a retry days later
		// must not change (or the status is written in a loop).
		stable bool
	}{{name: "removing: progressing, still available", obs: observation{Decision: offOnAWS, Remaining: []string{"Namespace openshift-nmstate"}},
		want: conditions{condition{true, ReasonRemoving, offOnAWS.Message + "; removing: deleting Namespace openshift-nmstate"},
			condition{true, ReasonRemoving, "removing the NMState stack: deleting Namespace openshift-nmstate"}, calm},
	}, {name: "off with policies: available, says nothing applies them and how to opt in", obs: observation{Decision: offOnAWS, Policies: true},
		want: conditions{condition{true, "NotDefaultOnPlatform", offOnAWS.Message + "; NodeNetworkConfigurationPolicies exist and nothing applies them while NMState is not deployed; they are kept; " +
			`to apply them, set spec.nmstate.state=Enabled (oc patch nodeoperator cluster --type=merge -p '{"spec":{"nmstate":{"state":"Enabled"}}}')`}, calm, calm}, stable: true,
	}, {name: "off on a hosted control plane with policies: no opt-in offered", obs: observation{Decision: nodev1alpha1.StackStatus{Reason: "HostedControlPlane", Message: "not deployed"}, Policies: true},
		want: conditions{condition{true, "HostedControlPlane", "not deployed; NodeNetworkConfigurationPolicies exist and nothing applies them while NMState is not deployed; they are kept" +
			" (nodes of a hosted control plane are configured by the hosting cluster)"}, calm, calm},
	}, {name: "on, nothing created yet", obs: observation{Decision: onByDefault},
		want: conditions{notYet(true, "Deployment openshift-nmstate/nmstate-operator not created yet"),
			condition{true, ReasonDeploying, "deploying the NMState stack: creating Deployment openshift-nmstate/nmstate-operator"}, calm},
	}, {name: "on, Deployment created, not observed yet", obs: observation{Decision: onByDefault, Deployment: deployment(1, 0, 0, 0, 0, corev1.ConditionFalse)},
		want: conditions{notYet(true, "nmstate-operator 0/1 replicas updated, 0 available"), rollingOut("0/1 replicas updated, 0 available"), calm},
	}, {name: "on, Deployment created long ago and still not rolled out: unavailable", obs: observation{Decision: onByDefault, Deployment: deployment(1, 0, 0, 0, 0, corev1.ConditionFalse), Now: time.Unix(0, 0).Add(time.Hour)},
		want: conditions{notYet(false, "nmstate-operator 0/1 replicas updated, 0 available"), rollingOut("0/1 replicas updated, 0 available"), calm},
	}, {name: "on, Deployment available, CR not there yet: still deploying (both are required)", obs: observation{Decision: onByDefault, Deployment: ready},
		want: conditions{notYet(true, "NMState nmstate is created once the Deployment is available"),
			condition{true, ReasonDeploying, "deploying the NMState stack: NMState nmstate is created once the Deployment is available"}, calm},
	}, {name: "on and settled, our CR; the NMState operator has not reported yet: available, and says so", obs: observation{Decision: onByDefault, Deployment: ready, CR: crOurs},
		want: conditions{available(notReported), calm, calm},
	}, {name: "on, new spec rolling out while the old pod serves: available and progressing", obs: observation{Decision: onByDefault, CR: crOurs, Deployment: deployment(2, 2, 2, 1, 1, corev1.ConditionTrue)},
		want: conditions{available(notReported), rollingOut("1/1 replicas updated, 1 available"), calm},
	}, {name: "on with an administrator's NMState, first pod not ready yet at the end of the grace: deploying, still available", obs: observation{Decision: onByDefault, CR: crAdopted, Deployment: deployment(1, 1, 1, 1, 0, corev1.ConditionFalse), Now: time.Time{}.Add(stack.FirstRolloutGrace - time.Second)},
		want: conditions{notYet(true, "nmstate-operator 1/1 replicas updated, 0 available"),
			condition{true, ReasonDeploying, "deploying the NMState stack: waiting for Deployment openshift-nmstate/nmstate-operator to become available: 1/1 replicas updated, 0 available"}, calm},
	}, {name: "on, first pod still not ready after the grace: unavailable", obs: observation{Decision: onByDefault, Deployment: deployment(1, 1, 1, 1, 0, corev1.ConditionFalse), Now: time.Time{}.Add(stack.FirstRolloutGrace)},
		want: conditions{lostPod, calm, calm},
	}, {name: "on, pod lost with its node, Deployment created long ago: unavailable but not progressing (no new spec)", obs: observation{Decision: onByDefault, CR: crOurs, Deployment: deployment(1, 1, 1, 1, 0, corev1.ConditionFalse), Now: time.Unix(0, 0).Add(time.Hour)},
		want: conditions{lostPod, calm, calm},
	}, {name: "on, rollout stuck past its deadline: degraded at once (the Deployment controller waited)", obs: observation{Decision: onByDefault, CR: crOurs, Deployment: stuck},
		want: conditions{available(notReported), rollingOut("0/1 replicas updated, 1 available"),
			condition{true, ReasonRolloutStuck, `Deployment openshift-nmstate/nmstate-operator does not roll out: ReplicaSet "nmstate-operator-2" has timed out progressing.`}},
	}, {name: "sync failing, stack available: degraded at once (the ClusterOperator follows after the inertia)", obs: observation{Decision: onByDefault, CR: crOurs, Deployment: ready, SyncError: errors.New("boom")},
		want: conditions{available(notReported), calm, condition{true, ReasonSyncFailing, "boom"}}, stable: true,
	}, {name: "on, an NMState operator installed by OLM: available, the stack steps aside and says how to take over", obs: observation{Decision: onByDefault, Provider: olmCSV},
		want: conditions{leftTo(onByDefault, ReasonProvidedByOLM, "the Kubernetes NMState operator installed by OLM (ClusterServiceVersion nmstate/kubernetes-nmstate-operator.v4.20.0)"), calm, calm},
	}, {name: "off, someone else's NMState operator: the decision's reason stays", obs: observation{Decision: offOnAWS, Provider: provider{ReasonProvidedExternally, "Deployment openshift-nmstate/nmstate-operator, not created by the node operator"}},
		want: conditions{leftTo(offOnAWS, "NotDefaultOnPlatform", "an NMState operator the node operator did not deploy (Deployment openshift-nmstate/nmstate-operator, not created by the node operator)"), calm, calm},
	}, {name: "handler available", obs: observation{Decision: onByDefault, CR: crOurs, Deployment: ready, Operand: handler("True", t0), Now: t0.Add(time.Hour)},
		want: conditions{available("; handler available"), calm, calm},
	}, {name: "handler rolling out, within the grace: still available, with the operand's message", obs: observation{Decision: onByDefault, CR: crOurs, Deployment: ready, Operand: handler("False", t0), Now: t0.Add(HandlerGrace - time.Second)},
		want: conditions{available("; handler not available yet: " + handlerSays), calm, calm},
	}, {name: "handler unavailable past the grace: unavailable, with the operand's message", obs: observation{Decision: onByDefault, CR: crOurs, Deployment: ready, Operand: handler("False", t0), Now: t0.Add(HandlerGrace)},
		want: conditions{condition{false, ReasonHandlerUnavailable, onByDefault.Message + "; " + deployedOurs + "; the NMState operator reports its handler unavailable: " + handlerSays}, calm, calm}, stable: true,
	}, {name: "the NMState operator cannot apply its handler: degraded with its message",
		obs: observation{Decision: onByDefault, CR: crOurs, Deployment: ready, Now: t0, Operand: operandStatus{Reported: true,
			Available: operandCondition{Status: "False", Reason: "InternalError", Message: "failed applying RBAC: forbidden", Since: t0},
			Degraded:  operandCondition{Status: "True", Reason: "InternalError", Message: "failed applying RBAC: forbidden", Since: t0}}},
		want: conditions{available("; handler not available yet: InternalError: failed applying RBAC: forbidden"),
			calm, condition{true, ReasonHandlerDegraded, "the NMState operator reports NMState nmstate degraded: InternalError: failed applying RBAC: forbidden"}},
	}} {
		assert.Equal(t, tc.want, conditionsFor(tc.obs), tc.name)
		if tc.stable {
			later := tc.obs
			later.Now = later.Now.Add(48 * time.Hour)
			assert.Equal(t, tc.want, conditionsFor(later), "%s, two days later", tc.name)
		}
	}
}

func TestOperandOf(t *testing.T) {
	cr := &unstructured.Unstructured{Object: map[string]interface{}{"status": map[string]interface{}{"conditions": []interface{}{
		map[string]interface{}{"type": "Available", "status": "False", "reason": "Deploying", "lastTransitionTime": "2026-01-01T00:00:00Z",
			"message": "Deployment \"nmstate-webhook\" is not available (awaiting 1 nodes)\nDaemonSet \"nmstate-handler\" is not available (awaiting 2 nodes)"},
		map[string]interface{}{"type": "Degraded", "status": "False", "reason": "Deploying"},
	}}}}
	got := operandOf(cr)
	require.True(t, got.Reported)
	assert.Equal(t, operandCondition{Status: "False", Reason: "Deploying", Since: t0,
		Message: `Deployment "nmstate-webhook" is not available (awaiting 1 nodes); DaemonSet "nmstate-handler" is not available (awaiting 2 nodes)`}, got.Available)
	assert.Equal(t, "False", got.Degraded.Status)
	assert.False(t, operandOf(&unstructured.Unstructured{Object: map[string]interface{}{}}).Reported)
}
