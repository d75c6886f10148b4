package framework

// A TEST DOUBLE of the cluster autoscaler's scale-down, which is not served
// on the local control plane. Written from kubernetes/autoscaler at tag
// cluster-autoscaler-1.36.1 (commit 35e8a280425c76a4040f57ae0fa232a952c02024):
//   - cluster-autoscaler/core/scaledown/eligibility/eligibility.go: a node
//     being deleted is no candidate, nor is one annotated
//     cluster-autoscaler.kubernetes.io/scale-down-disabled with exactly
//     "true"; both are checked before readiness, so an annotated node that
//     is NotReady is no candidate either.
//   - cluster-autoscaler/utils/taints/taints.go: a removal starts with the
//     NoSchedule taint ToBeDeletedByClusterAutoscaler, its value the Unix
//     time; the node is deleted afterwards.
// Left out: utilization, node groups and their sizes, pods and drains, the
// DeletionCandidateOfClusterAutoscaler taint. It removes a node only when a
// test asks (StartRemoval, FinishRemoval), whether or not it is a candidate,
// as an autoscaler that began before the annotation would.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// AutoscalerPick is one scale-down candidate the double chose, with when it listed the nodes.
type AutoscalerPick struct {
	Listed time.Time
	Node   string
}

// AutoscalerDouble looks at the nodes a label selector picks every interval and records its candidates.
type AutoscalerDouble struct {
	kube     kubernetes.Interface
	selector string
	mu       sync.Mutex
	picks    []AutoscalerPick
	looks    int
}

// The autoscaler's own names (the files above), as literals: what the operator must match.
const (
	autoscalerScaleDownDisabled = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
	autoscalerToBeDeleted       = "ToBeDeletedByClusterAutoscaler"
)

// ScaleDownCandidate is the eligibility rule the double keeps.
func ScaleDownCandidate(n *corev1.Node) bool {
	being := slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == autoscalerToBeDeleted })
	return n.DeletionTimestamp == nil && !being && n.Annotations[autoscalerScaleDownDisabled] != "true"
}

// StartAutoscalerDouble runs the double until the test ends.
func StartAutoscalerDouble(t testing.TB, admin *rest.Config, selector string, interval time.Duration) *AutoscalerDouble {
	a := &AutoscalerDouble{kube: kubernetes.NewForConfigOrDie(admin), selector: selector}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			a.look(ctx)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done; t.Logf("autoscaler double: %d looks, %d picks", a.looks, len(a.Picks())) })
	return a
}

func (a *AutoscalerDouble) look(ctx context.Context) {
	listed := time.Now()
	l, err := a.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: a.selector})
	if err != nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.looks++
	for i := range l.Items {
		if ScaleDownCandidate(&l.Items[i]) {
			a.picks = append(a.picks, AutoscalerPick{Listed: listed, Node: l.Items[i].Name})
		}
	}
}

// Picks are the candidates chosen so far.
func (a *AutoscalerDouble) Picks() []AutoscalerPick {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.picks)
}

// StartRemoval taints the node ToBeDeletedByClusterAutoscaler, as the autoscaler does before it drains it.
func (a *AutoscalerDouble) StartRemoval(t testing.TB, node string) {
	t.Helper()
	ctx := Context(t, time.Minute)
	n, err := a.kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	require.NoError(t, err)
	n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: autoscalerToBeDeleted, Value: strconv.FormatInt(time.Now().Unix(), 10), Effect: corev1.TaintEffectNoSchedule})
	_, err = a.kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
	require.NoError(t, err, "autoscaler double: tainting node %s", node)
}

// FinishRemoval deletes the node, as the autoscaler's cloud provider does after the drain.
func (a *AutoscalerDouble) FinishRemoval(t testing.TB, node string) {
	t.Helper()
	require.NoError(t, a.kube.CoreV1().Nodes().Delete(Context(t, time.Minute), node, metav1.DeleteOptions{}), fmt.Sprintf("autoscaler double: deleting node %s", node))
}

// CreateKwokNodes creates nodes of a role that kwok keeps Ready, deleted when the test ends.
func CreateKwokNodes(t testing.TB, admin *rest.Config, role string, names ...string) {
	t.Helper()
	nodes := kubernetes.NewForConfigOrDie(admin).CoreV1().Nodes()
	for _, name := range names {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
			Labels: map[string]string{"kubernetes.io/hostname": name, "node-role.kubernetes.io/" + role: ""}}}
		_ = nodes.Delete(Context(t, time.Minute), name, metav1.DeleteOptions{}) // an interrupted run's
		Eventually(t, time.Minute, 200*time.Millisecond, func() (bool, error) {
			_, err := nodes.Create(Context(t, time.Minute), n, metav1.CreateOptions{})
			return err == nil, nil
		}, "creating node "+name)
		t.Cleanup(func() { _ = nodes.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
	Eventually(t, time.Minute, 200*time.Millisecond, func() (bool, error) {
		for _, name := range names {
			n, err := nodes.Get(Context(t, time.Minute), name, metav1.GetOptions{})
			if err != nil || !slices.ContainsFunc(n.Status.Conditions, func(c corev1.NodeCondition) bool {
				return c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
			}) {
				return false, nil
			}
		}
		return true, nil
	}, fmt.Sprintf("kwok reports nodes %v Ready", names))
}
