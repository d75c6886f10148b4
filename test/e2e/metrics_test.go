//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// metricsObject is one operand of the CRI-O metrics stack (our own list, not the operator's).
type metricsObject struct {
	gvr       schema.GroupVersionResource
	namespace string
	name      string
}

func (o metricsObject) String() string {
	return fmt.Sprintf("%s %s/%s", o.gvr.Resource, o.namespace, o.name)
}

var metricsObjects = []metricsObject{
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}, crioMetricsNamespace, "crio-metrics"},
	{schema.GroupVersionResource{Version: "v1", Resource: "services"}, crioMetricsNamespace, "crio-metrics"},
	{schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, crioMetricsNamespace, "crio-metrics"},
	{schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, crioMetricsNamespace, "crio-metrics-serving-cert"},
	{schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, crioMetricsNamespace, "crio-metrics-signer"},
	{schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, crioMetricsNamespace, "crio-metrics-ca-bundle"},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}, "", "crio-metrics-proxy"},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}, "", "crio-metrics-client"},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}, "", "crio-metrics-proxy"},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}, "", "crio-metrics-client"},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}, crioMetricsNamespace, "prometheus-k8s"},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}, crioMetricsNamespace, "prometheus-k8s"},
	{schema.GroupVersionResource{Group: "security.openshift.io", Version: "v1", Resource: "securitycontextconstraints"}, "", "crio-metrics"},
	{schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigs"}, "", "50-master-crio-metrics-tls"},
	{schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigs"}, "", "50-worker-crio-metrics-tls"},
	{schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}, crioMetricsNamespace, "crio-metrics"},
	{schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "prometheusrules"}, crioMetricsNamespace, "crio-metrics"},
}

func (o metricsObject) in(c *framework.Cluster) dynamic.ResourceInterface {
	return c.Dynamic.Resource(o.gvr).Namespace(o.namespace)
}

func getObject(c *framework.Cluster, o metricsObject) error {
	_, err := o.in(c).Get(context.Background(), o.name, metav1.GetOptions{})
	return err
}

func deleteObject(c *framework.Cluster, o metricsObject) error {
	return o.in(c).Delete(context.Background(), o.name, metav1.DeleteOptions{})
}

// waitForMetricsObjects waits until every operand but those of the resources named in except is present (or gone).
func waitForMetricsObjects(t *testing.T, c *framework.Cluster, present bool, timeout time.Duration, except ...string) {
	t.Helper()
	var wrong []string
	framework.Eventually(t, timeout, 2*time.Second, func() (bool, error) {
		wrong = nil
		for _, o := range metricsObjects {
			if slices.Contains(except, o.gvr.Resource) {
				continue
			}
			err := getObject(c, o)
			switch {
			case present && err != nil:
				wrong = append(wrong, o.String()+" missing")
			case !present && !apierrors.IsNotFound(err):
				wrong = append(wrong, o.String()+" still present")
			}
		}
		return len(wrong) == 0, nil
	}, fmt.Sprintf("CRI-O metrics operands (but %q) present=%v", except, present))
}

// TestMetricsStack runs its steps on one operator (docs/test-behaviours.md).
func TestMetricsStack(t *testing.T) {
	c, _ := framework.Setup(t, framework.OperatorOptions{})
	t.Run("OptOutAndIn", func(t *testing.T) { testMetricsStackOptOutAndIn(t, c) })
	t.Run("OperandsAreRestored", func(t *testing.T) { testMetricsOperandsAreRestored(t, c) })
}

// testMetricsStackOptOutAndIn: docs/test-behaviours.md (OptOutAndIn).
func testMetricsStackOptOutAndIn(t *testing.T, c *framework.Cluster) {
	c.PatchNodeOperatorSpec(t, map[string]interface{}{"metrics": map[string]interface{}{"state": "Disabled", "managementState": nil}})
	no := c.WaitForStacks(t, time.Minute, map[nodev1alpha1.StackName]bool{nodev1alpha1.MetricsStack: false})
	assert.Equal(t, "OptedOut", framework.StackStatus(no, nodev1alpha1.MetricsStack).Reason)
	waitForMetricsObjects(t, c, false, 2*time.Minute)
	c.WaitForClusterOperator(t, time.Minute, func(co *configv1.ClusterOperator) string {
		for _, ref := range co.Status.RelatedObjects {
			if strings.HasPrefix(ref.Name, "crio-metrics") || strings.HasSuffix(ref.Name, "crio-metrics-tls") {
				return "relatedObjects still list " + ref.Name
			}
		}
		if !strings.Contains(framework.COCondition(co, configv1.OperatorAvailable).Message, "spec.metrics.state is Disabled") {
			return "Available message does not say the stack was opted out"
		}
		return framework.Settled(co)
	})
	c.PatchNodeOperatorSpec(t, map[string]interface{}{"metrics": nil})
	no = c.WaitForStacks(t, time.Minute, map[nodev1alpha1.StackName]bool{nodev1alpha1.MetricsStack: true})
	waitForMetricsObjects(t, c, true, 2*time.Minute)
	assert.Equal(t, "PlatformDefault", framework.StackStatus(no, nodev1alpha1.MetricsStack).Reason)
	c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
}

// testMetricsOperandsAreRestored: deleting or editing any operand is undone.
func testMetricsOperandsAreRestored(t *testing.T, c *framework.Cluster) {
	ctx := context.Background()
	for _, o := range metricsObjects {
		if o.gvr.Resource == "secrets" && o.name == "crio-metrics-signer" {
			continue // deleting the CA starts a new trust chain; covered by library-go
		}
		require.NoError(t, deleteObject(c, o), o.String())
	}
	waitForMetricsObjects(t, c, true, 3*time.Minute)

	kube := framework.KubeClient(t)
	edits := []struct {
		what  string
		patch func() error
		check func() (bool, error)
	}{
		{"DaemonSet args", func() error {
			_, err := kube.AppsV1().DaemonSets(crioMetricsNamespace).Patch(ctx, "crio-metrics", types.JSONPatchType,
				[]byte(`[{"op":"replace","path":"/spec/template/spec/containers/0/args/1","value":"--upstream=http://127.0.0.1:1/"}]`), metav1.PatchOptions{})
			return err
		}, func() (bool, error) {
			ds, err := kube.AppsV1().DaemonSets(crioMetricsNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
			return err == nil && ds.Spec.Template.Spec.Containers[0].Args[1] == "--upstream=https://127.0.0.1:9537/", nil
		}},
		{"ClusterRole rules", func() error {
			_, err := kube.RbacV1().ClusterRoles().Patch(ctx, "crio-metrics-client", types.JSONPatchType,
				[]byte(`[{"op":"replace","path":"/rules/0/nonResourceURLs","value":["/*"]}]`), metav1.PatchOptions{})
			return err
		}, func() (bool, error) {
			cr, err := kube.RbacV1().ClusterRoles().Get(ctx, "crio-metrics-client", metav1.GetOptions{})
			return err == nil && len(cr.Rules) == 1 && len(cr.Rules[0].NonResourceURLs) == 1 && cr.Rules[0].NonResourceURLs[0] == "/metrics", nil
		}},
		{"SCC privileged", func() error {
			_, err := c.Dynamic.Resource(metricsObjects[12].gvr).Patch(ctx, "crio-metrics", types.MergePatchType,
				[]byte(`{"allowPrivilegedContainer":true}`), metav1.PatchOptions{})
			return err
		}, func() (bool, error) {
			scc, err := c.Dynamic.Resource(metricsObjects[12].gvr).Get(ctx, "crio-metrics", metav1.GetOptions{})
			return err == nil && scc.Object["allowPrivilegedContainer"] == false, nil
		}},
	}
	// The edits touch objects of different controllers, some of which are
	// not watched and wait for a resync: all at once, so that one resync
	// period covers them all.
	for _, e := range edits {
		require.NoError(t, e.patch(), e.what)
	}
	for _, e := range edits {
		framework.Eventually(t, 2*time.Minute, 500*time.Millisecond, e.check, "edit undone: "+e.what)
	}
	c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
}
