//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// TestSuiteMonitorNamesUndeclaredIntervals shows that the suite monitor
// (TestMain) catches a ClusterOperator that turns Available=False outside
// any declared window and names the interval: with no operator running, the
// test writes the ClusterOperator's status itself, False for two seconds,
// then asks the suite monitor what it would fail a test for.
func TestSuiteMonitorNamesUndeclaredIntervals(t *testing.T) {
	if framework.UndeclaredIntervalsNow() != nil {
		t.Log("intervals left by earlier tests were reported here")
	}
	cos := configclient.NewForConfigOrDie(framework.KubeConfig(t)).ConfigV1().ClusterOperators()
	ctx := framework.Context(t, 2*time.Minute)
	co, err := cos.Get(ctx, nodeClusterOperator, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		co, err = cos.Create(ctx, &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: nodeClusterOperator}}, metav1.CreateOptions{})
		if err == nil {
			t.Cleanup(func() { _ = cos.Delete(context.Background(), nodeClusterOperator, metav1.DeleteOptions{}) })
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	original := co.Status.DeepCopy()
	t.Cleanup(func() {
		live, err := cos.Get(context.Background(), nodeClusterOperator, metav1.GetOptions{})
		if err == nil {
			live.Status = *original
			_, err = cos.UpdateStatus(context.Background(), live, metav1.UpdateOptions{})
		}
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("restoring clusteroperator/%s: %v", nodeClusterOperator, err)
		}
	})
	setAvailable := func(status configv1.ConditionStatus, reason string) {
		t.Helper()
		live, err := cos.Get(ctx, nodeClusterOperator, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var conds []configv1.ClusterOperatorStatusCondition
		for _, c := range live.Status.Conditions {
			if c.Type != configv1.OperatorAvailable {
				conds = append(conds, c)
			}
		}
		live.Status.Conditions = append(conds, configv1.ClusterOperatorStatusCondition{
			Type: configv1.OperatorAvailable, Status: status, Reason: reason, Message: "written by the suite monitor's test", LastTransitionTime: metav1.Now(),
		})
		if _, err := cos.UpdateStatus(ctx, live, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	setAvailable(configv1.ConditionTrue, "AsExpected")
	time.Sleep(time.Second)
	setAvailable(configv1.ConditionFalse, "E2ESelfTest")
	time.Sleep(2 * time.Second)
	setAvailable(configv1.ConditionTrue, "AsExpected")

	got := framework.UndeclaredIntervalsNow()
	t.Logf("the suite monitor would fail a test with:\n%s", strings.Join(got, "\n"))
	if len(got) != 1 || !strings.Contains(got[0], "was Available=False from +") || !strings.Contains(got[0], "reason E2ESelfTest: written by the suite monitor's test") {
		t.Errorf("want one undeclared Available=False interval named with its reason, got %q", got)
	}
}
