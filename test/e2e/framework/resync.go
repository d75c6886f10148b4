package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	applynodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/generated/applyconfiguration/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
)

// nodeOperatorWatchers: the controllers an update of NodeOperator cluster queues.
var nodeOperatorWatchers = []string{"StackDecision", "CRIOMetrics", "NMStateStack", "OperatorVersion"}

var queueMetric = regexp.MustCompile(`(?m)^workqueue_(adds_total|depth|unfinished_work_seconds)\{name="([^"]+)"\} (\S+)$`)

// queues reads client-go's workqueue metrics from the process's /metrics: queue name -> metric -> value.
func (o *Process) queues() (map[string]map[string]float64, error) {
	_, body, err := HTTPGet(nil, "http://"+o.Listen+"/metrics", "")
	out := map[string]map[string]float64{}
	for _, m := range queueMetric.FindAllStringSubmatch(string(body), -1) {
		if out[m[2]] == nil {
			out[m[2]] = map[string]float64{}
		}
		out[m[2]][m[1]], _ = strconv.ParseFloat(m[3], 64)
	}
	return out, err
}

// waitQueues polls the watchers' queues until each is idle (nothing queued, nothing in progress) and, when before is set, has more adds than then.
func (o *Process) waitQueues(t testing.TB, before map[string]map[string]float64) map[string]map[string]float64 {
	t.Helper()
	var now map[string]map[string]float64
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		var err error
		if now, err = o.queues(); err != nil {
			last = err.Error()
			return false, nil
		}
		for _, name := range nodeOperatorWatchers {
			// A queue is missing until the controllers start, after the feature gates are read.
			n, ok := now[name]
			if last = fmt.Sprintf("%s: %v (before %v)", name, n, before[name]); !ok || n["depth"] != 0 || n["unfinished_work_seconds"] != 0 ||
				before != nil && n["adds_total"] <= before[name]["adds_total"] {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("the controllers' queues (before: %v): %v (last: %s)", before != nil, err, last)
	}
	return now
}

// ResyncNow does for the controllers what their periodic resync does, without waiting for it (docs/testing.md, "Not waiting out the resync").
// It returns the NodeOperator's resourceVersion after its touch, so that a caller can tell the touch from a write of the operator.
func (c *Cluster) ResyncNow(t testing.TB, o *Process) string {
	t.Helper()
	if o.Listen == "" {
		t.Fatal("ResyncNow needs the operator's /metrics (a process started by StartOperator)")
	}
	before := o.waitQueues(t, nil)
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		"e2e.cluster-node-operator/resync": time.Now().Format(time.RFC3339Nano)}}})
	touched, err := c.Dynamic.Resource(nodev1alpha1.GroupVersionResource).Patch(context.Background(), nodev1alpha1.SingletonName,
		types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("touching the NodeOperator: %v", err)
	}
	o.waitQueues(t, before)
	return touched.GetResourceVersion()
}

// RediscoverNow is ResyncNow once the operator's cache of served APIs has expired (platform.ServedTTL).
func (c *Cluster) RediscoverNow(t testing.TB, o *Process) {
	t.Helper()
	expired := time.Now().Add(platform.ServedTTL + time.Second)
	Eventually(t, 2*platform.ServedTTL, 100*time.Millisecond, func() (bool, error) { return time.Now().After(expired), nil }, "the served-API cache to expire")
	c.ResyncNow(t, o)
}

// ReportedSince makes NodeOperator cluster carry conditionType=True since since, as an earlier process left it.
func ReportedSince(ctx context.Context, client dynamic.Interface, fieldManager, conditionType, message string, since time.Time) error {
	u, err := client.Resource(nodev1alpha1.GroupVersionResource).Get(ctx, nodev1alpha1.SingletonName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	no := &nodev1alpha1.NodeOperator{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, no); err != nil {
		return err
	}
	owned, err := applynodev1alpha1.ExtractNodeOperatorStatus(no, fieldManager)
	if err != nil {
		return err
	}
	if owned.Status == nil {
		owned.WithStatus(applynodev1alpha1.NodeOperatorStatus())
	}
	var conditions []applyoperatorv1.OperatorConditionApplyConfiguration
	for _, c := range owned.Status.Conditions {
		if c.Type == nil || *c.Type != conditionType {
			conditions = append(conditions, c)
		}
	}
	owned.Status.Conditions = append(conditions, *applyoperatorv1.OperatorCondition().
		WithType(conditionType).WithStatus(operatorv1.ConditionTrue).WithReason("E2EEarlierProcess").
		WithMessage(message).WithLastTransitionTime(metav1.NewTime(since)))
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(owned)
	if err != nil {
		return err
	}
	_, err = client.Resource(nodev1alpha1.GroupVersionResource).ApplyStatus(ctx, nodev1alpha1.SingletonName,
		&unstructured.Unstructured{Object: obj}, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
	return err
}
