//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

const (
	nmstateNamespace  = "openshift-nmstate"
	nmstateDeployment = "nmstate-operator"
	nmstateCR         = "nmstate"
	nmstateLabel      = "nodeoperator.openshift.io/stack"
	nmstateWait       = 2 * time.Minute
	nmstatePoll       = 250 * time.Millisecond
)

var (
	nmstatesGVR = schema.GroupVersionResource{Group: "nmstate.io", Version: "v1", Resource: "nmstates"}
	nncpGVR     = schema.GroupVersionResource{Group: "nmstate.io", Version: "v1", Resource: "nodenetworkconfigurationpolicies"}
	crdGVR      = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// nmstateEnv is what the NMState scenarios share: one operator, started once (leader election makes restarts slow), and the clients.
type nmstateEnv struct {
	c    *framework.Cluster
	op   *framework.Process
	kube kubernetes.Interface
}

// TestNMState: docs/test-behaviours.md. Each subtest brings the cluster to its own starting state (from), so any one runs alone;
// in this order each start is what the previous subtest left, so from only waits for a settled stack.
func TestNMState(t *testing.T) {
	c, op := framework.Setup(t, framework.OperatorOptions{})
	e := &nmstateEnv{c: c, op: op, kube: framework.KubeClient(t)}
	t.Cleanup(func() {
		// Cleanups run in reverse order: this one runs before the operator stops, so that the stack settles on the restored defaults.
		c.SetInfrastructure(t, configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode)
		c.ResetNodeOperator(t)
		e.waitDeployed(t, "PlatformDefault")
	})
	t.Run("BareMetalDeployedByDefault", e.testBareMetalDeployedByDefault)
	t.Run("NMStateOperatorDeploysItsHandler", e.testOperandDeploysItsHandler)
	t.Run("OLMInstallAdoptsTheDeploymentThenTakeover", e.testOLMSameNamespace)
	t.Run("AWSNotDeployedUntilOptIn", e.testAWSNotDeployedUntilOptIn)
	t.Run("KnobFlippedTenTimes", e.testKnobFlippedTenTimes)
	t.Run("OptInWhileTheNamespaceTerminates", e.testOptInWhileTheNamespaceTerminates)
}

// from brings the cluster to a subtest's starting state: platform, the NMState knob (state, "" for the platform default), and the stack settled for both.
func (e *nmstateEnv) from(t *testing.T, platform configv1.PlatformType, state nodev1alpha1.StackState) {
	t.Helper()
	e.c.SetInfrastructure(t, platform, configv1.HighlyAvailableTopologyMode)
	e.c.SetStackState(t, nodev1alpha1.NMStateStack, state)
	switch {
	case state == nodev1alpha1.StackEnabled:
		e.waitDeployed(t, "OptedIn")
	case state == nodev1alpha1.StackDisabled:
		e.waitRemoved(t, "OptedOut")
	case platform == configv1.BareMetalPlatformType:
		e.waitDeployed(t, "PlatformDefault")
	default:
		e.waitRemoved(t, "NotDefaultOnPlatform")
	}
}

// testBareMetalDeployedByDefault: with no configuration, on bare metal, the stack is deployed and the ClusterOperator is Available.
func (e *nmstateEnv) testBareMetalDeployedByDefault(t *testing.T) {
	e.from(t, configv1.BareMetalPlatformType, "")
	no := e.waitDeployed(t, "PlatformDefault")
	assert.Contains(t, framework.StackStatus(no, nodev1alpha1.NMStateStack).Message, "deployed by default on platform BareMetal")

	ctx := framework.Context(t, time.Minute)
	d, err := e.kube.AppsV1().Deployments(nmstateNamespace).Get(ctx, nmstateDeployment, metav1.GetOptions{})
	require.NoError(t, err)
	spec := d.Spec.Template.Spec
	assert.Equal(t, map[string]string{"node-role.kubernetes.io/master": ""}, spec.NodeSelector)
	assert.Equal(t, "system-cluster-critical", spec.PriorityClassName)
	c := spec.Containers[0]
	assert.Equal(t, "quay.io/openshift/origin-kubernetes-nmstate-operator:e2e", c.Image, "image from NMSTATE_OPERATOR_IMAGE")
	assert.Contains(t, c.Env, corev1.EnvVar{Name: "RELATED_IMAGE_HANDLER_IMAGE", Value: "quay.io/openshift/origin-kubernetes-nmstate-handler:e2e"})
	assert.NotEmpty(t, c.Resources.Requests)
	assert.Empty(t, c.Resources.Limits)

	pods, err := e.kube.CoreV1().Pods(nmstateNamespace).List(ctx, metav1.ListOptions{LabelSelector: "name=kubernetes-nmstate-operator"})
	require.NoError(t, err)
	require.Len(t, pods.Items, 1)
	assert.Equal(t, "master-0", pods.Items[0].Spec.NodeName, "runs on the control plane (its taint is tolerated)")

	cr, err := e.c.Dynamic.Resource(nmstatesGVR).Get(ctx, nmstateCR, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "nmstate", cr.GetLabels()[nmstateLabel], "created by the operator")

}

// testAWSNotDeployedUntilOptIn: on AWS nothing of the stack exists and the message says how to opt in; opting in deploys it.
// From BareMetal deployed, so that the move to AWS removes what was there.
func (e *nmstateEnv) testAWSNotDeployedUntilOptIn(t *testing.T) {
	e.from(t, configv1.BareMetalPlatformType, "")
	e.c.SetInfrastructure(t, configv1.AWSPlatformType, configv1.HighlyAvailableTopologyMode)
	optIn := "not deployed (platform AWS is not enabled by default; set spec.nmstate.state=Enabled to opt in)"
	e.waitRemoved(t, "NotDefaultOnPlatform", optIn)

	co := e.c.WaitForClusterOperator(t, nmstateWait, func(co *configv1.ClusterOperator) string {
		a := framework.COCondition(co, configv1.OperatorAvailable)
		if a == nil || !strings.Contains(a.Message, "NMStateAvailable: "+optIn) {
			return "the Available message does not say how to opt in"
		}
		for _, ref := range co.Status.RelatedObjects {
			if ref.Namespace == nmstateNamespace || ref.Name == nmstateNamespace || ref.Group == "nmstate.io" {
				return fmt.Sprintf("relatedObjects still lists %+v", ref)
			}
		}
		return ""
	})
	assert.Equal(t, configv1.ConditionTrue, framework.COCondition(co, configv1.OperatorAvailable).Status)

	e.c.SetStackState(t, nodev1alpha1.NMStateStack, nodev1alpha1.StackEnabled)
	e.waitDeployed(t, "OptedIn")
}

// testKnobFlippedTenTimes: ten flips end in the last value's state, nothing left, and no sync failed meanwhile; from opted in on AWS.
func (e *nmstateEnv) testKnobFlippedTenTimes(t *testing.T) {
	e.from(t, configv1.AWSPlatformType, nodev1alpha1.StackEnabled)
	for _, run := range []struct {
		name   string
		values []nodev1alpha1.StackState
		on     bool
	}{
		{"ending opted out", []nodev1alpha1.StackState{"Enabled", "Disabled"}, false},
		{"ending on through the platform default and opt-in", []nodev1alpha1.StackState{"", "Enabled"}, true},
	} {
		degraded := e.degradedSince(t)
		for i := 0; i < 10; i++ {
			e.c.SetStackState(t, nodev1alpha1.NMStateStack, run.values[i%2])
			// Flips overlap what the previous one started: wait until the
			// operator has recorded the decision for this spec, not until
			// the stack has settled.
			e.c.WaitForNodeOperator(t, nmstateWait, 50*time.Millisecond, decisionCurrent)
		}
		if run.on {
			e.waitDeployed(t, "OptedIn")
		} else {
			e.waitRemoved(t, "OptedOut", "not deployed: spec.nmstate.state is Disabled")
		}
		// NMStateDegraded turns True at once on a failing sync (the
		// ClusterOperator follows after nmstate.DegradedInertia): an
		// unchanged transition time means it never did during the flips.
		assert.Equal(t, degraded, e.degradedSince(t), "%s: NMStateDegraded changed during the flips", run.name)
	}
}

// testOptInWhileTheNamespaceTerminates: an opt-in that meets openshift-nmstate still terminating waits for it, without a failed sync,
// and deploys once it is gone; from opted in on AWS.
func (e *nmstateEnv) testOptInWhileTheNamespaceTerminates(t *testing.T) {
	e.from(t, configv1.AWSPlatformType, nodev1alpha1.StackEnabled)
	ctx := context.Background()
	// A finalizer of ours holds the namespace in Terminating until the test lets go.
	hold := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: nmstateNamespace, Name: "e2e-hold", Finalizers: []string{"e2e.cluster-node-operator/hold"}}}
	_, err := e.kube.CoreV1().ConfigMaps(nmstateNamespace).Create(ctx, hold, metav1.CreateOptions{})
	require.NoError(t, err)
	release := func() {
		_, err := e.kube.CoreV1().ConfigMaps(nmstateNamespace).Patch(ctx, hold.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("releasing the namespace: %v", err)
		}
	}
	t.Cleanup(release)
	degraded := e.degradedSince(t)

	e.c.SetStackState(t, nodev1alpha1.NMStateStack, nodev1alpha1.StackDisabled)
	framework.Eventually(t, nmstateWait, nmstatePoll, func() (bool, error) {
		ns, err := e.kube.CoreV1().Namespaces().Get(ctx, nmstateNamespace, metav1.GetOptions{})
		return err == nil && ns.DeletionTimestamp != nil, err
	}, "the opt-out to delete namespace "+nmstateNamespace)

	e.c.SetStackState(t, nodev1alpha1.NMStateStack, nodev1alpha1.StackEnabled)
	e.c.WaitForNodeOperator(t, nmstateWait, nmstatePoll, func(no *nodev1alpha1.NodeOperator) string {
		if why := decisionCurrent(no); why != "" {
			return why
		}
		p := framework.NodeOperatorCondition(no, "NMStateProgressing")
		if p == nil || !strings.Contains(p.Message, "waiting for namespace openshift-nmstate to finish terminating") {
			return fmt.Sprintf("NMStateProgressing does not wait for the namespace: %+v", p)
		}
		return ""
	})
	release()
	e.waitDeployed(t, "OptedIn")
	assert.Equal(t, degraded, e.degradedSince(t), "NMStateDegraded changed while the namespace terminated")
}

// degradedSince: NMStateDegraded's status and last transition, which stay the same while no sync fails.
func (e *nmstateEnv) degradedSince(t *testing.T) string {
	t.Helper()
	no, err := e.c.NodeOperator(context.Background())
	require.NoError(t, err)
	d := framework.NodeOperatorCondition(no, "NMStateDegraded")
	require.NotNil(t, d)
	require.Equal(t, operatorv1.ConditionFalse, d.Status, "NMStateDegraded: %s", d.Message)
	return d.LastTransitionTime.UTC().String()
}

// waitDeployed: the current spec's decision is on for reason, NMStateAvailable, and in the same poll the cluster
// agrees (after quick flips the status can still be an earlier on-decision's while the stack is being removed).
func (e *nmstateEnv) waitDeployed(t testing.TB, reason string) *nodev1alpha1.NodeOperator {
	t.Helper()
	return e.c.WaitForNodeOperator(t, nmstateWait, nmstatePoll, func(no *nodev1alpha1.NodeOperator) string {
		if why := decisionCurrent(no); why != "" {
			return why
		}
		s := framework.StackStatus(no, nodev1alpha1.NMStateStack)
		if s == nil || !s.Enabled || s.Reason != reason {
			return fmt.Sprintf("status.stacks NMState is %+v, want enabled for %s", s, reason)
		}
		if why := framework.ConditionIs("NMStateAvailable", operatorv1.ConditionTrue)(no); why != "" {
			return why
		}
		if c := framework.NodeOperatorCondition(no, "NMStateAvailable"); c.Reason != reason {
			return "NMStateAvailable reason is " + c.Reason
		}
		if why := framework.ConditionIs("NMStateProgressing", operatorv1.ConditionFalse)(no); why != "" {
			return why
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		d, err := e.kube.AppsV1().Deployments(nmstateNamespace).Get(ctx, nmstateDeployment, metav1.GetOptions{})
		if err != nil {
			return fmt.Sprintf("NMStateAvailable=True (%s), but reading Deployment %s: %v", reason, nmstateDeployment, err)
		}
		if d.Status.AvailableReplicas != 1 {
			return fmt.Sprintf("NMStateAvailable=True (%s), but Deployment %s has %d available replicas, want 1", reason, nmstateDeployment, d.Status.AvailableReplicas)
		}
		if _, err := e.c.Dynamic.Resource(nmstatesGVR).Get(ctx, nmstateCR, metav1.GetOptions{}); err != nil {
			return fmt.Sprintf("NMStateAvailable=True (%s) requires the NMState CR: %v", reason, err)
		}
		return ""
	})
}

// decisionCurrent says why the recorded stack decisions are not those of the NodeOperator's current spec yet, "" when they are.
func decisionCurrent(no *nodev1alpha1.NodeOperator) string {
	if no.Status.ObservedGeneration < no.Generation {
		return fmt.Sprintf("the stack decisions are of generation %d, the spec is at %d", no.Status.ObservedGeneration, no.Generation)
	}
	return ""
}

// waitRemoved: the decision is off for reason, NMStateAvailable has messages, nothing is left; the CRD stays.
func (e *nmstateEnv) waitRemoved(t testing.TB, reason string, messages ...string) {
	t.Helper()
	e.c.WaitForNodeOperator(t, nmstateWait, nmstatePoll, func(no *nodev1alpha1.NodeOperator) string {
		if why := decisionCurrent(no); why != "" {
			return why
		}
		s := framework.StackStatus(no, nodev1alpha1.NMStateStack)
		if s == nil || s.Enabled || s.Reason != reason {
			return fmt.Sprintf("status.stacks NMState is %+v, want disabled for %s", s, reason)
		}
		if why := framework.ConditionIs("NMStateAvailable", operatorv1.ConditionTrue, messages...)(no); why != "" {
			return why
		}
		if why := framework.ConditionIs("NMStateProgressing", operatorv1.ConditionFalse)(no); why != "" {
			return why
		}
		return e.leftovers()
	})
	_, err := e.c.Dynamic.Resource(crdGVR).Get(context.Background(), "nmstates.nmstate.io", metav1.GetOptions{})
	assert.NoError(t, err, "the nmstates.nmstate.io CRD is never deleted")
}

// leftovers describes what of the stack still exists, "" when nothing.
func (e *nmstateEnv) leftovers() string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var left []string
	for what, err := range map[string]error{
		"namespace " + nmstateNamespace:           get(ctx, e.kube.CoreV1().Namespaces().Get, nmstateNamespace),
		"clusterrole " + nmstateDeployment:        get(ctx, e.kube.RbacV1().ClusterRoles().Get, nmstateDeployment),
		"clusterrolebinding " + nmstateDeployment: get(ctx, e.kube.RbacV1().ClusterRoleBindings().Get, nmstateDeployment),
	} {
		if !apierrors.IsNotFound(err) {
			left = append(left, what)
		}
	}
	if cr, err := e.c.Dynamic.Resource(nmstatesGVR).Get(ctx, nmstateCR, metav1.GetOptions{}); err == nil && cr.GetLabels()[nmstateLabel] == "nmstate" {
		left = append(left, "the operator's NMState "+nmstateCR)
	}
	if len(left) == 0 {
		return ""
	}
	return "left over: " + strings.Join(left, ", ")
}

// nncpCRD is the NodeNetworkConfigurationPolicy CRD the NMState operator applies (the fixture, as the operand has it).
func nncpCRD(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	for _, o := range framework.ReadManifests(t, filepath.Join(framework.RepoRoot(t), "test", "fixtures", "nmstateoperand", "10-crds.yaml")) {
		if o.GetName() == "nodenetworkconfigurationpolicies.nmstate.io" {
			return o
		}
	}
	t.Fatal("no NodeNetworkConfigurationPolicy CRD in the fixture")
	return nil
}

// testOperandDeploysItsHandler: docs/test-behaviours.md (NMStateOperatorDeploysItsHandler); from BareMetal deployed.
func (e *nmstateEnv) testOperandDeploysItsHandler(t *testing.T) {
	e.from(t, configv1.BareMetalPlatformType, "")
	double := framework.StartNMStateOperatorDouble(t, e.c.Config)
	e.c.WaitForNodeOperator(t, nmstateWait, nmstatePoll, func(no *nodev1alpha1.NodeOperator) string {
		e.c.ResyncNow(t, e.op) // the NMState is read on a resync, not watched
		return framework.ConditionIs("NMStateAvailable", operatorv1.ConditionTrue, "handler available")(no)
	})
	assert.Empty(t, double.Refused(), "the API server refused requests of the NMState operator")

	ctx := framework.Context(t, time.Minute)
	images := map[string]string{}
	ds, err := e.kube.AppsV1().DaemonSets(nmstateNamespace).Get(ctx, "nmstate-handler", metav1.GetOptions{})
	require.NoError(t, err, "the handler DaemonSet")
	for _, c := range ds.Spec.Template.Spec.Containers {
		images["nmstate-handler/"+c.Name] = c.Image
	}
	for _, name := range []string{"nmstate-webhook", "nmstate-metrics", "nmstate-console-plugin"} {
		d, err := e.kube.AppsV1().Deployments(nmstateNamespace).Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err, "Deployment %s", name)
		for _, c := range d.Spec.Template.Spec.Containers {
			images[name+"/"+c.Name] = c.Image
		}
	}
	const handler = "quay.io/openshift/origin-kubernetes-nmstate-handler:e2e"
	assert.Equal(t, map[string]string{
		"nmstate-handler/nmstate-handler":               handler,
		"nmstate-webhook/nmstate-webhook":               handler,
		"nmstate-metrics/nmstate-metrics":               handler,
		"nmstate-metrics/kube-rbac-proxy":               "quay.io/openshift/origin-kube-rbac-proxy:e2e",
		"nmstate-console-plugin/nmstate-console-plugin": "quay.io/openshift/origin-nmstate-console-plugin:e2e",
	}, images, "the payload's images, passed by the node operator's environment")

	cr, err := e.c.Dynamic.Resource(nmstatesGVR).Get(ctx, nmstateCR, metav1.GetOptions{})
	require.NoError(t, err)
	for path, want := range map[string]string{"probeConfiguration.dns.host": "root-servers.net", "logLevel": "info", "metricsConfiguration.bindAddress": ":8089"} {
		got, _, _ := unstructured.NestedString(cr.Object, append([]string{"spec"}, strings.Split(path, ".")...)...)
		assert.Equal(t, want, got, "spec.%s defaulted by the CRD", path)
	}
}

// testOLMSameNamespace: docs/test-behaviours.md (OLMInstallAdoptsTheDeploymentThenTakeover); from BareMetal deployed.
func (e *nmstateEnv) testOLMSameNamespace(t *testing.T) {
	e.from(t, configv1.BareMetalPlatformType, "")
	policy := e.createPolicy(t)
	cr := e.nmstate(t)
	olm := framework.InstallOLMNMState(t, e.c.Config, nmstateNamespace)
	e.waitProvidedByOLM(t, olm)
	before := olm.Versions(t)
	e.c.ResyncNow(t, e.op)
	assert.Equal(t, before, olm.Versions(t), "the stack changed objects of the OLM install")
	now := e.nmstate(t)
	assert.Equal(t, cr.GetUID(), now.GetUID(), "the NMState is kept")
	assert.Equal(t, cr.Object["spec"], now.Object["spec"])
	ctx := framework.Context(t, time.Minute)
	_, crdErr := e.c.Dynamic.Resource(crdGVR).Get(ctx, "nmstates.nmstate.io", metav1.GetOptions{})
	for _, err := range []error{crdErr,
		get(ctx, e.kube.AppsV1().Deployments(nmstateNamespace).Get, nmstateDeployment),
		get(ctx, e.kube.CoreV1().ServiceAccounts(nmstateNamespace).Get, nmstateDeployment),
		get(ctx, e.kube.CoreV1().Namespaces().Get, nmstateNamespace),
	} {
		assert.NoError(t, err, "kept for the OLM install")
	}

	olm.Uninstall(t)
	e.c.ResyncNow(t, e.op) // OLM's objects are looked at on a resync, not watched
	e.waitDeployed(t, "PlatformDefault")
	after, err := e.c.Dynamic.Resource(nncpGVR).Get(framework.Context(t, time.Minute), policy.GetName(), metav1.GetOptions{})
	require.NoError(t, err, "the policy survives")
	assert.Equal(t, policy.GetResourceVersion(), after.GetResourceVersion(), "and is unchanged")
}

func get[T any](ctx context.Context, fn func(context.Context, string, metav1.GetOptions) (T, error), name string) error {
	_, err := fn(ctx, name, metav1.GetOptions{})
	return err
}

func (e *nmstateEnv) waitProvidedByOLM(t *testing.T, olm *framework.OLMNMState) {
	t.Helper()
	e.c.ResyncNow(t, e.op) // OLM's objects are looked at on a resync, not watched
	no := e.c.WaitForNodeOperator(t, nmstateWait, nmstatePoll, framework.ConditionIs("NMStateAvailable", operatorv1.ConditionTrue,
		"NMState is run by the Kubernetes NMState operator installed by OLM ("+olm.String()+")"))
	assert.Equal(t, "ProvidedByOLM", framework.NodeOperatorCondition(no, "NMStateAvailable").Reason)
	co := e.c.WaitForClusterOperator(t, nmstateWait, func(co *configv1.ClusterOperator) string {
		if a := framework.COCondition(co, configv1.OperatorAvailable); a == nil || !strings.Contains(a.Message, olm.String()) {
			return "the Available message does not name the OLM install yet"
		}
		return ""
	})
	assert.Equal(t, configv1.ConditionTrue, framework.COCondition(co, configv1.OperatorAvailable).Status)
}

func (e *nmstateEnv) nmstate(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	cr, err := e.c.Dynamic.Resource(nmstatesGVR).Get(framework.Context(t, time.Minute), nmstateCR, metav1.GetOptions{})
	require.NoError(t, err)
	return cr
}

// createPolicy creates a NodeNetworkConfigurationPolicy (and its CRD, as the NMState operator would have) and deletes it when the test ends.
func (e *nmstateEnv) createPolicy(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	ctx := framework.Context(t, time.Minute)
	require.NoError(t, framework.NewApplier(t, e.c.Config).Apply(ctx, nncpCRD(t), "e2e-nmstate"))
	policy := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "nmstate.io/v1", "kind": "NodeNetworkConfigurationPolicy",
		"metadata": map[string]interface{}{"name": "e2e-" + strings.ToLower(strings.ReplaceAll(t.Name()[len("TestNMState/"):], "/", "-"))},
		"spec":     map[string]interface{}{"desiredState": map[string]interface{}{"interfaces": []interface{}{}}},
	}}
	var created *unstructured.Unstructured
	framework.Eventually(t, time.Minute, nmstatePoll, func() (bool, error) {
		var err error
		created, err = e.c.Dynamic.Resource(nncpGVR).Create(ctx, policy, metav1.CreateOptions{})
		return err == nil, nil // the CRD may not be served for a moment
	}, "creating a NodeNetworkConfigurationPolicy")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = e.c.Dynamic.Resource(nncpGVR).Delete(ctx, created.GetName(), metav1.DeleteOptions{})
	})
	return created
}
