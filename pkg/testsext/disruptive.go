package testsext

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
)

// recoverTimeout is how long a replaced operator may take: a new pod, and the
// lease, which a killed leader does not release (137 s on HA).
const recoverTimeout = 5 * time.Minute

// testOperatorPodRecovers deletes the operator's pods: a new one takes the
// lease and the ClusterOperator never turns Degraded.
func testOperatorPodRecovers(t *T) error {
	kube := t.Cluster.Kube
	if why, err := healthy(t); err != nil || why != "" {
		return fmt.Errorf("not healthy before the test: %s %v", why, err)
	}
	pods, err := kube.CoreV1().Pods(operatorNamespace).List(t.Ctx, metav1.ListOptions{LabelSelector: operatorPodLabel})
	if err != nil {
		return err
	}
	if len(pods.Items) == 0 {
		return fmt.Errorf("no pod %s in %s", operatorPodLabel, operatorNamespace)
	}
	old := map[types.UID]bool{}
	for _, p := range pods.Items {
		old[p.UID] = true
		t.Logf("deleting pod %s", p.Name)
		if err := kube.CoreV1().Pods(operatorNamespace).Delete(t.Ctx, p.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	deleted := time.Now()
	return t.Eventually(recoverTimeout, "a new operator pod to lead with clusteroperator/node not Degraded", func() (string, error) {
		co, err := t.Cluster.Configs.ConfigV1().ClusterOperators().Get(t.Ctx, clusterOperator, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		if s, msg := coCondition(co, configv1.OperatorDegraded); s == configv1.ConditionTrue {
			return "", fmt.Errorf("clusteroperator/node turned Degraded while its pod was replaced: %s", msg)
		}
		pods, err := kube.CoreV1().Pods(operatorNamespace).List(t.Ctx, metav1.ListOptions{LabelSelector: operatorPodLabel})
		if err != nil {
			return "", err
		}
		fresh := ""
		for _, p := range pods.Items {
			if !old[p.UID] && p.DeletionTimestamp == nil && podReady(p.Status.Conditions) {
				fresh = p.Name
			}
		}
		if fresh == "" {
			return "no new ready operator pod", nil
		}
		lease, err := kube.CoordinationV1().Leases(operatorNamespace).Get(t.Ctx, operatorLease, metav1.GetOptions{})
		if err != nil {
			return fmt.Sprintf("lease %s: %v", operatorLease, err), nil
		}
		if lease.Spec.AcquireTime == nil || lease.Spec.AcquireTime.Time.Before(deleted.Truncate(time.Second)) {
			return fmt.Sprintf("lease %s not taken since the deletion (holder %v)", operatorLease, ptrString(lease.Spec.HolderIdentity)), nil
		}
		if why, err := healthy(t); err != nil || why != "" {
			return why, err
		}
		t.Logf("pod %s runs; lease %s taken by %s after %s", fresh, operatorLease, ptrString(lease.Spec.HolderIdentity), time.Since(deleted).Round(time.Second))
		return "", nil
	})
}

// testStackOffAndOn switches the CRI-O metrics stack off and back on: its
// operands go and return, and the administrator's spec is restored as it
// was, whatever happens in between.
func testStackOffAndOn(t *T) error {
	if _, err := enabledStack(t, "Metrics"); err != nil {
		return err
	}
	nodeOperators := t.Cluster.Dynamic.Resource(nodeOperatorsGVR)
	before, err := nodeOperators.Get(t.Ctx, nodeOperatorName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	spec, _, _ := unstructured.NestedMap(before.Object, "spec")
	monitoring, err := t.Cluster.Serves(monitoringGroup)
	if err != nil {
		return err
	}
	// Restored even when the test fails or is interrupted.
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := setSpec(ctx, t.Cluster, spec); err != nil {
			t.Logf("restoring the spec: %v", err)
		}
	}()

	patch, _ := json.Marshal(map[string]any{"spec": map[string]any{"metrics": map[string]any{"state": "Disabled"}}})
	if _, err := nodeOperators.Patch(t.Ctx, nodeOperatorName, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return err
	}
	t.Logf("spec.metrics.state=Disabled")
	if err := t.Eventually(settle, "the Metrics stack to be removed", func() (string, error) {
		return metricsStackIs(t, false, monitoring)
	}); err != nil {
		return err
	}

	if err := setSpec(t.Ctx, t.Cluster, spec); err != nil {
		return fmt.Errorf("restoring the spec: %w", err)
	}
	t.Logf("spec restored")
	if err := t.Eventually(2*settle, "the Metrics stack back, clusteroperator/node healthy", func() (string, error) {
		if why, err := metricsStackIs(t, true, monitoring); why != "" || err != nil {
			return why, err
		}
		return healthy(t)
	}); err != nil {
		return err
	}
	after, err := nodeOperators.Get(t.Ctx, nodeOperatorName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if restored, _, _ := unstructured.NestedMap(after.Object, "spec"); !reflect.DeepEqual(restored, spec) {
		return fmt.Errorf("the spec is not the administrator's: before %v, after %v", spec, restored)
	}
	return nil
}

// metricsStackIs says what keeps the Metrics stack from being on (or off):
// its decision, its DaemonSet where the operator serves metrics, its rules
// where monitoring runs.
func metricsStackIs(t *T, on bool, monitoring bool) (string, error) {
	no, err := t.Cluster.NodeOperator(t.Ctx)
	if err != nil {
		return "", err
	}
	s, err := stack(no, "Metrics")
	if err != nil || s.Enabled != on {
		return fmt.Sprintf("Metrics enabled=%v (%s: %s)", s.Enabled, s.Reason, s.Message), err
	}
	if monitoring {
		_, err := t.Cluster.Dynamic.Resource(prometheusRulesGVR).Namespace(crioMetricsNamespace).Get(t.Ctx, crioMetricsName, metav1.GetOptions{})
		if exists := err == nil; exists != on {
			return fmt.Sprintf("prometheusrule/%s exists=%v (%v)", crioMetricsName, exists, err), nil
		}
	}
	_, err = t.Cluster.Kube.AppsV1().DaemonSets(crioMetricsNamespace).Get(t.Ctx, crioMetricsName, metav1.GetOptions{})
	if exists := err == nil; exists && !on {
		return fmt.Sprintf("daemonset/%s still exists", crioMetricsName), nil
	}
	if on && s.Mode == "OperatorTLS" {
		if exists := err == nil; !exists {
			return fmt.Sprintf("daemonset/%s is missing: %v", crioMetricsName, err), nil
		}
	}
	return "", nil
}

// setSpec replaces the NodeOperator's whole spec.
func setSpec(ctx context.Context, c *Cluster, spec map[string]any) error {
	nodeOperators := c.Dynamic.Resource(nodeOperatorsGVR)
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		live, err := nodeOperators.Get(ctx, nodeOperatorName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := unstructured.SetNestedMap(live.Object, spec, "spec"); err != nil {
			return err
		}
		_, err = nodeOperators.Update(ctx, live, metav1.UpdateOptions{})
		return err
	})
}
