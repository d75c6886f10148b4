//go:build e2e

package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/yaml"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/stackdecision"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// denyDaemonSetWrites makes every write of the crio-metrics DaemonSet fail
// at admission: a denied write the operator keeps retrying.
const denyDaemonSetWrites = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: e2e-deny-crio-metrics-daemonset
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["daemonsets"]
  validations:
  - expression: "object.metadata.name != 'crio-metrics'"
    message: "e2e: writes of DaemonSet crio-metrics are denied"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: e2e-deny-crio-metrics-daemonset
spec:
  policyName: e2e-deny-crio-metrics-daemonset
  validationActions: [Deny]
`

// TestPersistentErrorsNoStatusWrites: while persistent errors are reported
// (missing operand images, an unreadable Infrastructure, a denied write), the
// operator writes neither the NodeOperator nor the ClusterOperator once the
// errors are reported: nothing in a condition changes with time alone.
func TestPersistentErrorsNoStatusWrites(t *testing.T) {
	c, op := framework.Setup(t, framework.OperatorOptions{})
	ctx := context.Background()
	kube := framework.KubeClient(t)
	// Degraded=True is what this test wants, and it ends with the errors
	// still there (Setup's cleanup repairs the Infrastructure).
	framework.ExpectDisruption(t, "a denied DaemonSet write, no Infrastructure and no NMState images, all persistent")
	// The DaemonSet first: an earlier test may have left the metrics stack
	// removed, and Setup's settled ClusterOperator can still be the earlier
	// operator's.
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		_, err := kube.AppsV1().DaemonSets(framework.OperatorNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
		return err == nil, nil
	}, "DaemonSet crio-metrics created by the operator")
	op.Stop()
	undeny := denyDaemonSetWritesNow(t, c)

	// The Infrastructure goes (Setup's cleanup puts it back).
	require.NoError(t, c.Config1.ConfigV1().Infrastructures().Delete(ctx, "cluster", metav1.DeleteOptions{}))

	// The Infrastructure has been unreadable for longer than the Degraded
	// inertia: the operator restarts where an earlier process of it left
	// StackDecisionDegraded=True that long ago, and keeps that transition
	// time, so the ClusterOperator turns Degraded=True at once instead of
	// after two minutes. (TestCoreMissingInfrastructure waits the inertia
	// out in real time.)
	const earlierMessage = "e2e: reported by an earlier process of the operator"
	require.NoError(t, framework.ReportedSince(ctx, c.Dynamic, stackdecision.FieldManager, stackdecision.ConditionDegraded,
		earlierMessage, time.Now().Add(-2*time.Minute-5*time.Second)))

	// The operator restarts without the NMState images.
	op = framework.StartOperator(t, framework.OperatorOptions{Env: []string{"NMSTATE_OPERATOR_IMAGE=", "NMSTATE_HANDLER_IMAGE="}})
	op.WaitLeading(t, 2*time.Minute)

	degraded := []string{"StackDecisionDegraded", "MetricsDegraded", string(nodev1alpha1.NMStateStack) + "Degraded"}
	c.WaitForNodeOperator(t, 4*time.Minute, 2*time.Second, func(no *nodev1alpha1.NodeOperator) string {
		for _, d := range degraded {
			if why := framework.ConditionIs(d, operatorv1.ConditionTrue)(no); why != "" {
				return why
			}
		}
		return ""
	})
	// Past the inertia, the ClusterOperator is Degraded, with the messages
	// of this process: a change of the world's time, written once.
	c.WaitForClusterOperator(t, 4*time.Minute, func(co *configv1.ClusterOperator) string {
		if d := framework.COCondition(co, configv1.OperatorDegraded); d == nil || d.Status != configv1.ConditionTrue {
			return "ClusterOperator not Degraded yet"
		} else if strings.Contains(d.Message, earlierMessage) {
			return "the Degraded message is still the earlier process's"
		}
		return ""
	})

	no, err := c.NodeOperator(ctx)
	require.NoError(t, err)
	co, err := c.ClusterOperator(ctx)
	require.NoError(t, err)
	require.NotNil(t, no)
	writes := watchWrites(t, c, 2*time.Minute+10*time.Second)
	assert.Empty(t, writes, "status writes while persistent errors are reported (ClusterOperator Degraded: %s)",
		framework.COCondition(co, configv1.OperatorDegraded).Message)
	_, err = kube.AppsV1().DaemonSets(framework.OperatorNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the denied DaemonSet was created after all: %v", err)

	// Leave the world repaired and the operator recovered, inside this
	// test's window: otherwise the next test's operator starts on the
	// Degraded conditions left here, long past their inertia, and the
	// ClusterOperator is Degraded for the moment before its controllers
	// look again (seen in a full run: 20 ms, a failure of that test).
	op.Stop()
	undeny()
	c.SetInfrastructure(t, configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode)
	framework.StartOperator(t, framework.OperatorOptions{})
	c.WaitForClusterOperator(t, 4*time.Minute, func(co *configv1.ClusterOperator) string {
		if d := framework.COCondition(co, configv1.OperatorDegraded); d == nil || d.Status != configv1.ConditionFalse {
			return "ClusterOperator still Degraded"
		}
		return ""
	})
}

// denyDaemonSetWritesNow makes every write of DaemonSet crio-metrics fail
// at admission from now on, and deletes it; the function it returns lifts
// the denial (also done when the test ends).
func denyDaemonSetWritesNow(t *testing.T, c *framework.Cluster) (undeny func()) {
	t.Helper()
	ctx := context.Background()
	kube := framework.KubeClient(t)
	applier := framework.NewApplier(t, c.Config)
	var policies []*unstructured.Unstructured
	for _, doc := range strings.Split(denyDaemonSetWrites, "\n---\n") {
		obj := &unstructured.Unstructured{}
		require.NoError(t, yaml.Unmarshal([]byte(doc), &obj.Object))
		require.NoError(t, applier.Apply(ctx, obj, "e2e"))
		policies = append(policies, obj)
	}
	undeny = func() {
		for _, p := range policies {
			if ri, err := applier.Resource(p); err == nil {
				if err := ri.Delete(context.Background(), p.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
					t.Errorf("deleting %s: %v", p.GetName(), err)
				}
			}
		}
	}
	t.Cleanup(undeny)
	// The policy is enforced once the API server has loaded it: a write of
	// ours is denied too.
	framework.Eventually(t, time.Minute, time.Second, func() (bool, error) {
		ds, err := kube.AppsV1().DaemonSets(framework.OperatorNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		ds.Labels["e2e-touch"] = time.Now().Format("150405.000")
		_, err = kube.AppsV1().DaemonSets(framework.OperatorNamespace).Update(ctx, ds, metav1.UpdateOptions{})
		return apierrors.IsInvalid(err) || apierrors.IsForbidden(err), nil
	}, "the admission policy denies writes of DaemonSet crio-metrics")
	require.NoError(t, kube.AppsV1().DaemonSets(framework.OperatorNamespace).Delete(ctx, "crio-metrics", metav1.DeleteOptions{}))
	return undeny
}

// watchWrites watches the NodeOperator and the ClusterOperator for d and
// returns one line per write.
func watchWrites(t *testing.T, c *framework.Cluster, d time.Duration) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var mu sync.Mutex
	var out []string
	var wg sync.WaitGroup
	co := schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusteroperators"}
	for gvr, name := range map[schema.GroupVersionResource]string{nodev1alpha1.GroupVersionResource: nodev1alpha1.SingletonName, co: "node"} {
		obj, err := c.Dynamic.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			watchFrom(ctx, c.Dynamic.Resource(gvr), "metadata.name="+name, obj.GetResourceVersion(), func(typ watch.EventType, u *unstructured.Unstructured) {
				mu.Lock()
				defer mu.Unlock()
				out = append(out, string(typ)+" "+gvr.Resource+"/"+name+" at resourceVersion "+u.GetResourceVersion())
			})
		}()
	}
	wg.Wait()
	return out
}
