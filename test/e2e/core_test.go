//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// TestCore: the operator's ClusterOperator and NodeOperator on one operator (docs/test-behaviours.md names each subtest's claim);
// each subtest starts from settledDefaults, so any one runs alone.
func TestCore(t *testing.T) {
	c, op := framework.Setup(t, framework.OperatorOptions{Version: "4.99.0-e2e"})
	t.Run("ClusterOperatorStatus", func(t *testing.T) { testClusterOperatorStatus(t, c) })
	t.Run("NoWritesAtSteadyStateNorForRefusedInput", func(t *testing.T) { testNoWritesAtSteadyState(t, c, op) })
	t.Run("DeprecatedManagementStateFollowsState", func(t *testing.T) { testDeprecatedManagementState(t, c) })
	t.Run("UnmanagedAndRemoved", func(t *testing.T) { testUnmanagedAndRemoved(t, c, op) })
}

// testClusterOperatorStatus: the four conditions, the operator version, each stack's images and summary line, and relatedObjects that resolve.
func testClusterOperatorStatus(t *testing.T, c *framework.Cluster) {
	settledDefaults(t, c)
	co := c.WaitForClusterOperator(t, 2*time.Minute, func(co *configv1.ClusterOperator) string {
		for _, v := range co.Status.Versions {
			if v.Name == "operator" && v.Version == "4.99.0-e2e" {
				return ""
			}
		}
		return "versions has no operator=4.99.0-e2e"
	})
	for _, typ := range []configv1.ClusterStatusConditionType{configv1.OperatorAvailable, configv1.OperatorProgressing, configv1.OperatorDegraded, configv1.OperatorUpgradeable} {
		cond := framework.COCondition(co, typ)
		require.NotNil(t, cond, "condition %s", typ)
		assert.NotEmpty(t, cond.Reason, "reason of %s", typ)
		assert.NotEmpty(t, cond.Message, "message of %s", typ)
	}
	available := framework.COCondition(co, configv1.OperatorAvailable).Message
	assert.Contains(t, available, "MetricsAvailable: CRI-O metrics served over TLS on 3 of 3 nodes")
	assert.Contains(t, available, "NMStateAvailable:")

	no := c.WaitForNodeOperator(t, time.Minute, time.Second, func(no *nodev1alpha1.NodeOperator) string {
		for _, name := range []nodev1alpha1.StackName{nodev1alpha1.MetricsStack, nodev1alpha1.NMStateStack} {
			if s := framework.StackStatus(no, name); s == nil || s.ObservedVersion != "4.99.0-e2e" {
				return fmt.Sprintf("stack %s has not observed version 4.99.0-e2e: %+v", name, s)
			}
		}
		return ""
	})
	images := map[string]string{}
	for _, s := range no.Status.Stacks {
		for _, c := range s.Containers {
			images[fmt.Sprintf("%s %s %s/%s %s", s.Name, c.ParentKind, c.Namespace, c.ParentName, c.Name)] = c.Image
		}
	}
	assert.Equal(t, map[string]string{
		"Metrics DaemonSet openshift-crio-metrics/crio-metrics kube-rbac-proxy":  "quay.io/openshift/origin-kube-rbac-proxy:e2e",
		"Metrics DaemonSet openshift-crio-metrics/crio-metrics cert-syncer":      "quay.io/openshift/origin-cluster-node-operator:e2e",
		"NMState Deployment openshift-nmstate/nmstate-operator nmstate-operator": "quay.io/openshift/origin-kubernetes-nmstate-operator:e2e",
	}, images, "status.stacks[*].containers")
	summary := "StacksAvailable: CRI-O metrics: operator TLS stack, DaemonSet openshift-crio-metrics/crio-metrics (cert-syncer, kube-rbac-proxy); " +
		"NMState: Deployment openshift-nmstate/nmstate-operator (nmstate-operator)"
	co = c.WaitForClusterOperator(t, time.Minute, func(co *configv1.ClusterOperator) string {
		if !strings.Contains(framework.COCondition(co, configv1.OperatorAvailable).Message, summary) {
			return "the Available message lacks the summary line"
		}
		return ""
	})
	framework.CheckRelatedObjects(t, c.Config, co)
}

// testNoWritesAtSteadyState: docs/test-behaviours.md (NoWritesAtSteadyStateNorForRefusedInput).
func testNoWritesAtSteadyState(t *testing.T, c *framework.Cluster, op *framework.Process) {
	settledDefaults(t, c)
	// Settled: the last rollouts' status and the version reported, two looks 10 s apart agree.
	var before map[string]string
	framework.Eventually(t, 2*time.Minute, 10*time.Second, func() (bool, error) {
		now := writeSnapshot(t, c)
		same := reflect.DeepEqual(before, now)
		before = now
		return same, nil
	}, "the objects to settle")
	for _, tc := range []struct {
		patch string
		want  []string
	}{
		{`{"spec":{"metrics":{"state":"Managed"}}}`, []string{"spec.metrics.state", "Unsupported value", `"Enabled"`, `"Disabled"`}},
		{`{"spec":{"metrics":{}}}`, []string{"spec.metrics", "should have at least 1 properties"}},
		{`{"spec":{"metrics":{"managementState":"Sometimes"}}}`, []string{"spec.metrics.managementState", "Unsupported value", `"Managed"`, `"Removed"`}},
		{`{"spec":{"nmstate":{"managementState":"managed"}}}`, []string{"spec.nmstate.managementState", "Unsupported value"}},
		{`{"spec":{"managementState":"Whenever"}}`, []string{"spec.managementState"}},
		{`{"spec":{"logLevel":"Loud"}}`, []string{"spec.logLevel"}},
		{`{"spec":{"nodeSettings":{"tracing":{"endpoint":"http://collector:4317","crio":{}}}}}`, []string{"spec.nodeSettings.tracing.endpoint", "must be host:port without a scheme"}},
		{`{"spec":{"nodeSettings":{"tracing":{"endpoint":"collector"}}}}`, []string{"spec.nodeSettings.tracing", "set crio, kubelet or both"}},
		{`{"spec":{"nodeSettings":{"tracing":{"endpoint":"collector:99999","crio":{}}}}}`, []string{"spec.nodeSettings.tracing.endpoint", "endpoint port must be at most 65535"}},
		{`{"spec":{"nodeSettings":{"tracing":{"endpoint":"collector:4317","crio":{"samplingRatePerMillion":1000001}}}}}`, []string{"spec.nodeSettings.tracing.crio.samplingRatePerMillion", "less than or equal to 1000000"}},
		{`{"spec":{"nodeSettings":{"tracing":{"endpoint":"collector:4317","kubelet":{"samplingRatePerMillion":-1}}}}}`, []string{"spec.nodeSettings.tracing.kubelet.samplingRatePerMillion"}},
		{`{"spec":{"nodeSettings":{"tracing":{"crio":{}}}}}`, []string{"spec.nodeSettings.tracing.endpoint", "Required value"}},
		{`{"spec":{"nodeSettings":{"tracing":{"endpoint":"collector:4317","crio":{},"toml":"[crio]"}}}}`, []string{".spec.nodeSettings.tracing.toml: field not declared in schema"}},
		{`{"spec":{"nodeSettings":{"rollout":{"canaryPool":"Canary Pool"}}}}`, []string{"spec.nodeSettings.rollout.canaryPool"}},
	} {
		_, err := kubectlApply(t, tc.patch)
		require.Error(t, err, tc.patch)
		for _, w := range tc.want {
			assert.Contains(t, err.Error(), w, tc.patch)
		}
	}
	second := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": nodev1alpha1.GroupVersion.String(), "kind": "NodeOperator",
		"metadata": map[string]interface{}{"name": "another"},
		"spec":     map[string]interface{}{"managementState": "Managed"},
	}}
	_, err := c.Dynamic.Resource(nodev1alpha1.GroupVersionResource).Create(context.Background(), second, metav1.CreateOptions{})
	require.Error(t, err)
	assert.True(t, apierrors.IsInvalid(err), "got %v", err)
	assert.Contains(t, err.Error(), "NodeOperator is a singleton: metadata.name must be 'cluster'")
	// The periodic syncs of the NodeOperator's controllers (every 2, 5 and
	// 10 minutes) run now, twice; then a window outlasts StackDecision's and
	// the status controller's periods. The NodeOperator changes by the
	// touches alone. MetricsClientCA's 10-minute resync is not run here: its
	// no-write is TestEnsureAndConditionFor's.
	c.ResyncNow(t, op)
	touched := c.ResyncNow(t, op)
	before["nodeoperator"], before["nodeoperators//cluster"] = touched, touched // also a relatedObject
	end := time.Now().Add(2*time.Minute + 10*time.Second)
	framework.Eventually(t, 3*time.Minute, 10*time.Second, func() (bool, error) {
		if !assert.Equal(t, before, writeSnapshot(t, c), "objects written at steady state") {
			return true, nil
		}
		return time.Now().After(end), nil
	}, "the steady-state window")
}

// settledDefaults is a TestCore subtest's starting state: Managed with the default knobs, the stack decisions of that spec, the ClusterOperator settled.
func settledDefaults(t *testing.T, c *framework.Cluster) {
	t.Helper()
	c.ResetNodeOperator(t)
	c.WaitForNodeOperator(t, time.Minute, time.Second, decisionCurrent)
	c.WaitForClusterOperator(t, 3*time.Minute, framework.Settled)
}

// writeSnapshot: resourceVersions of NodeOperator, ClusterOperator, relatedObjects but namespaces, MachineConfiguration.
func writeSnapshot(t *testing.T, c *framework.Cluster) map[string]string {
	ctx := context.Background()
	no, err := c.NodeOperator(ctx)
	require.NoError(t, err)
	co, err := c.ClusterOperator(ctx)
	require.NoError(t, err)
	out := map[string]string{"nodeoperator": no.ResourceVersion, "clusteroperator": co.ResourceVersion}
	a := framework.NewApplier(t, c.Config)
	for _, ref := range co.Status.RelatedObjects {
		if ref.Resource == "namespaces" {
			continue
		}
		gvr, err := a.Mapper.ResourceFor(schema.GroupVersionResource{Group: ref.Group, Resource: ref.Resource})
		require.NoError(t, err)
		obj, err := c.Dynamic.Resource(gvr).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		require.NoError(t, err, "%+v", ref)
		out[ref.Resource+"/"+ref.Namespace+"/"+ref.Name] = obj.GetResourceVersion()
	}
	if mc, err := c.Dynamic.Resource(machineConfigurationGVR).Get(ctx, "cluster", metav1.GetOptions{}); err == nil {
		out["machineconfigurations//cluster"] = mc.GetResourceVersion()
	} else if !apierrors.IsNotFound(err) {
		require.NoError(t, err)
	}
	return out
}

// testDeprecatedManagementState: changing the deprecated managementState alone, or dropping state only, is refused.
func testDeprecatedManagementState(t *testing.T, c *framework.Cluster) {
	settledDefaults(t, c)
	c.SetStackState(t, nodev1alpha1.MetricsStack, nodev1alpha1.StackEnabled)
	t.Cleanup(func() { c.SetStackState(t, nodev1alpha1.MetricsStack, "") })
	for _, tc := range []struct{ patch, want string }{
		{`{"spec":{"metrics":{"managementState":"Removed"}}}`, "managementState is deprecated and the operator keeps it in step with state: set state instead"},
		{`{"spec":{"metrics":{"state":null,"managementState":"Managed"}}}`, "managementState is deprecated: to return to the platform default, remove it together with state"},
	} {
		_, err := c.Dynamic.Resource(nodev1alpha1.GroupVersionResource).Patch(context.Background(), nodev1alpha1.SingletonName,
			types.MergePatchType, []byte(tc.patch), metav1.PatchOptions{})
		require.Error(t, err, tc.patch)
		assert.True(t, apierrors.IsInvalid(err), "%s: want Invalid, got %v", tc.patch, err)
		assert.Contains(t, err.Error(), tc.want, tc.patch)
	}
}

// kubectlApply server-side applies the NodeOperator fields of patch (a JSON object with spec) as an administrator's kubectl does.
func kubectlApply(t *testing.T, patch string) ([]byte, error) {
	t.Helper()
	obj := map[string]interface{}{}
	require.NoError(t, json.Unmarshal([]byte(patch), &obj))
	obj["apiVersion"], obj["kind"] = nodev1alpha1.GroupVersion.String(), "NodeOperator"
	obj["metadata"] = map[string]interface{}{"name": nodev1alpha1.SingletonName}
	data, err := json.Marshal(obj)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "nodeoperator.json")
	require.NoError(t, os.WriteFile(file, data, 0o644))
	return framework.Kubectl(t, "apply", "--server-side", "--field-manager=e2e-administrator", "-f", file)
}

// testUnmanagedAndRemoved: Unmanaged stops all writes to operands and the ClusterOperator says so; Removed removes every stack and explains why.
func testUnmanagedAndRemoved(t *testing.T, c *framework.Cluster, op *framework.Process) {
	settledDefaults(t, c)
	ctx := context.Background()
	kube := framework.KubeClient(t)

	c.PatchNodeOperatorSpec(t, map[string]interface{}{"managementState": "Unmanaged"})
	c.WaitForClusterOperator(t, time.Minute, func(co *configv1.ClusterOperator) string {
		if cond := framework.COCondition(co, configv1.OperatorAvailable); cond == nil || cond.Reason != "Unmanaged" {
			return "Available reason is not Unmanaged"
		}
		return ""
	})
	require.NoError(t, kube.CoreV1().Services(crioMetricsNamespace).Delete(ctx, "crio-metrics", metav1.DeleteOptions{}))
	require.NoError(t, kube.AppsV1().DaemonSets(crioMetricsNamespace).Delete(ctx, "crio-metrics", metav1.DeleteOptions{}))
	// Every controller syncs, as on its resync: nothing comes back.
	c.ResyncNow(t, op)
	_, err := kube.CoreV1().Services(crioMetricsNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "Unmanaged: the Service was restored: %v", err)
	_, err = kube.AppsV1().DaemonSets(crioMetricsNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "Unmanaged: the DaemonSet was restored: %v", err)

	c.PatchNodeOperatorSpec(t, map[string]interface{}{"managementState": "Managed"})
	// The ClusterOperator may still look settled from before the patch: wait for the Service itself.
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		_, err := kube.CoreV1().Services(crioMetricsNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
		return err == nil, nil
	}, "Managed again: the Service is back")
	c.WaitForClusterOperator(t, 3*time.Minute, framework.Settled)

	c.PatchNodeOperatorSpec(t, map[string]interface{}{"managementState": "Removed"})
	no := c.WaitForStacks(t, time.Minute, map[nodev1alpha1.StackName]bool{nodev1alpha1.MetricsStack: false, nodev1alpha1.NMStateStack: false})
	for _, s := range no.Status.Stacks {
		assert.Equal(t, "OperatorRemoved", s.Reason)
		assert.Contains(t, s.Message, "spec.managementState is Removed")
	}
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		_, dsErr := kube.AppsV1().DaemonSets(crioMetricsNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
		_, svcErr := kube.CoreV1().Services(crioMetricsNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
		_, depErr := kube.AppsV1().Deployments("openshift-nmstate").Get(ctx, "nmstate-operator", metav1.GetOptions{})
		return apierrors.IsNotFound(dsErr) && apierrors.IsNotFound(svcErr) && apierrors.IsNotFound(depErr), nil
	}, "Removed: the stacks' operands are deleted")
	co := c.WaitForClusterOperator(t, time.Minute, func(co *configv1.ClusterOperator) string {
		if !strings.Contains(framework.COCondition(co, configv1.OperatorAvailable).Message, "spec.managementState is Removed") {
			return "Available message does not explain the removal"
		}
		return ""
	})
	for _, ref := range co.Status.RelatedObjects {
		assert.NotEqual(t, "daemonsets", ref.Resource, "removed stacks leave relatedObjects")
	}

	c.PatchNodeOperatorSpec(t, map[string]interface{}{"managementState": "Managed"})
	c.WaitForClusterOperator(t, 3*time.Minute, framework.Settled)
}
