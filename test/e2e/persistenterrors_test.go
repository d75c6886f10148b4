//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/yaml"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// denyDaemonSetWrites makes every write of the crio-metrics DaemonSet fail at admission: a denied write the operator keeps retrying.
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

// TestPersistentErrorsNoStatusWrites: docs/test-behaviours.md.
func TestPersistentErrorsNoStatusWrites(t *testing.T) {
	c, op := framework.Setup(t, framework.OperatorOptions{})
	ctx := context.Background()
	kube := framework.KubeClient(t)
	endDisruption := framework.ExpectDisruption(t, "a denied DaemonSet write, no Infrastructure and no NMState images")
	// The DaemonSet first: an earlier test may have left the metrics stack
	// removed, and Setup's settled ClusterOperator can still be the earlier
	// operator's.
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		_, err := kube.AppsV1().DaemonSets(framework.CRIOMetricsNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
		return err == nil, nil
	}, "DaemonSet crio-metrics created by the operator")
	op.Stop()
	undeny := denyDaemonSetWritesNow(t, c)
	op = framework.StartOperator(t, framework.OperatorOptions{Env: []string{"NMSTATE_OPERATOR_IMAGE=", "NMSTATE_HANDLER_IMAGE="}})
	op.WaitLeading(t, 2*time.Minute)
	// Setup's cleanup puts the Infrastructure back.
	require.NoError(t, c.Config1.ConfigV1().Infrastructures().Delete(ctx, "cluster", metav1.DeleteOptions{}))

	degraded := []string{"StackDecisionDegraded", "MetricsDegraded", string(nodev1alpha1.NMStateStack) + "Degraded"}
	no := c.WaitForNodeOperator(t, 4*time.Minute, time.Second, func(no *nodev1alpha1.NodeOperator) string {
		for _, d := range degraded {
			if why := framework.ConditionIs(d, operatorv1.ConditionTrue)(no); why != "" {
				return why
			}
		}
		return ""
	})
	since := framework.NodeOperatorCondition(no, "StackDecisionDegraded").LastTransitionTime.Time
	// Within the inertia: Degraded=False, with every problem's message.
	c.WaitForClusterOperator(t, time.Minute, func(co *configv1.ClusterOperator) string {
		d := framework.COCondition(co, configv1.OperatorDegraded)
		if d == nil || d.Status != configv1.ConditionFalse || !strings.Contains(d.Message, "Infrastructure cluster is missing") {
			return "not Degraded=False with the Infrastructure's message"
		}
		for _, typ := range degraded {
			if !strings.Contains(d.Message, typ+": ") {
				return "the Degraded message lacks " + typ
			}
		}
		return ""
	})
	checkOneWriteAfterInertia(t, watchWrites(t, c), since)
	require.False(t, op.Exited(), "the operator exited")
	no, err := c.NodeOperator(ctx)
	require.NoError(t, err)
	for _, name := range []nodev1alpha1.StackName{nodev1alpha1.MetricsStack, nodev1alpha1.NMStateStack} {
		assert.True(t, framework.StackStatus(no, name).Enabled, "the last decision is kept for %s", name)
	}
	_, err = kube.AppsV1().DaemonSets(framework.CRIOMetricsNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the denied DaemonSet was created after all: %v", err)

	_, err = c.Config1.ConfigV1().Infrastructures().Create(ctx, &configv1.Infrastructure{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	c.WaitForClusterOperator(t, time.Minute, func(co *configv1.ClusterOperator) string {
		if !strings.Contains(framework.COCondition(co, configv1.OperatorDegraded).Message, "no status.platformStatus") {
			return "Degraded message does not mention the empty platform"
		}
		return ""
	})
	require.False(t, op.Exited(), "the operator exited")

	// Repaired and recovered inside the window: otherwise the next test's operator starts on Degraded conditions long past their inertia.
	op.Stop()
	undeny()
	c.SetInfrastructure(t, configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode)
	framework.StartOperator(t, framework.OperatorOptions{})
	c.WaitForClusterOperator(t, 4*time.Minute, framework.Settled)
	endDisruption()
}

// checkOneWriteAfterInertia: the only write is the ClusterOperator's turn to
// Degraded=True, once the inertia has passed since the problem's transition.
func checkOneWriteAfterInertia(t *testing.T, writes []write, since time.Time) {
	t.Helper()
	var other []string
	flips := 0
	for _, w := range writes {
		co := &configv1.ClusterOperator{}
		_ = runtime.DefaultUnstructuredConverter.FromUnstructured(w.obj.Object, co)
		if d := framework.COCondition(co, configv1.OperatorDegraded); d != nil && d.Status == configv1.ConditionTrue && flips == 0 {
			flips++
			assert.GreaterOrEqual(t, w.at.Sub(since), 2*time.Minute, "Degraded=True before the inertia")
			assert.Contains(t, d.Message, "Infrastructure cluster is missing")
			continue
		}
		other = append(other, fmt.Sprintf("%s %s at resourceVersion %s (%s)", w.obj.GetKind(), w.obj.GetName(), w.obj.GetResourceVersion(), w.at.Sub(since).Round(time.Second)))
	}
	assert.Equal(t, 1, flips, "the ClusterOperator turns Degraded=True once")
	assert.Empty(t, other, "status writes while persistent errors are reported (times since the problem)")
}

// denyDaemonSetWritesNow denies and deletes DaemonSet crio-metrics; undeny (also at the end) lifts the denial.
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
	// The policy is enforced once the API server has loaded it: a write of ours is denied too.
	framework.Eventually(t, time.Minute, time.Second, func() (bool, error) {
		ds, err := kube.AppsV1().DaemonSets(framework.CRIOMetricsNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		ds.Labels["e2e-touch"] = time.Now().Format("150405.000")
		_, err = kube.AppsV1().DaemonSets(framework.CRIOMetricsNamespace).Update(ctx, ds, metav1.UpdateOptions{})
		return apierrors.IsInvalid(err) || apierrors.IsForbidden(err), nil
	}, "the admission policy denies writes of DaemonSet crio-metrics")
	require.NoError(t, kube.AppsV1().DaemonSets(framework.CRIOMetricsNamespace).Delete(ctx, "crio-metrics", metav1.DeleteOptions{}))
	return undeny
}

type write struct {
	at  time.Time
	obj *unstructured.Unstructured
}

// watchWrites watches the NodeOperator and the ClusterOperator until the ClusterOperator's first write is a status resync old (65 s), or 5 minutes.
func watchWrites(t *testing.T, c *framework.Cluster) []write {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var out []write
	var wg sync.WaitGroup
	co := schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusteroperators"}
	for gvr, name := range map[schema.GroupVersionResource]string{nodev1alpha1.GroupVersionResource: nodev1alpha1.SingletonName, co: "node"} {
		obj, err := c.Dynamic.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			watchFrom(ctx, c.Dynamic.Resource(gvr), "metadata.name="+name, obj.GetResourceVersion(), func(_ watch.EventType, u *unstructured.Unstructured) {
				mu.Lock()
				defer mu.Unlock()
				out = append(out, write{time.Now(), u})
			}, func(err error) { t.Errorf("the writes are not known: %v", err) })
		}()
	}
	// Until the ClusterOperator's write is 65 s old (past the status resync), or 5 minutes without one.
	_ = wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Minute, true, func(context.Context) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		i := slices.IndexFunc(out, func(w write) bool { return w.obj.GetKind() == "ClusterOperator" })
		return i >= 0 && time.Since(out[i].at) > 65*time.Second, nil
	})
	cancel()
	wg.Wait()
	return out
}
