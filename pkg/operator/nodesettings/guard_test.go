package nodesettings

import (
	"context"
	"fmt"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
)

// Which pools are guarded, which nodes guarded and released (docs/test-behaviours.md).

// scaleDownDisabled is the cluster autoscaler's annotation (an external
// contract, so a literal here).
const scaleDownDisabled = "cluster-autoscaler.kubernetes.io/scale-down-disabled"

func TestGuardDecision(t *testing.T) {
	for state, guarded := range map[PoolState]bool{Pending: false, Applying: true, Verifying: true, Done: false, Reverting: true, Reverted: false, Held: false} {
		r := Rollout{Pools: []PoolStatus{{Name: "worker", State: state}, {Name: "master", State: Done}}}
		assert.Equal(t, guarded, len(GuardedPools(r)) == 1, "a pool %s is guarded: %t", state, guarded)
	}
	ours, others, removing := GuardNode{Name: "ours", Ours: true}, GuardNode{Name: "others", Others: true}, GuardNode{Name: "going", Removing: true}
	plain, joined := GuardNode{Name: "plain"}, GuardNode{Name: "joined"}
	for _, tc := range []struct {
		name    string
		members map[string][]GuardNode
		marked  []GuardNode
		want    GuardPlan
	}{
		{"step starts: every node but another's", map[string][]GuardNode{"worker": {plain, others, removing}}, nil,
			GuardPlan{Guard: map[string]string{"plain": "worker"}, LeftOut: map[string][]string{"worker": {"going"}}}},
		{"mid-step: ours stay, a joined node is guarded", map[string][]GuardNode{"worker": {ours, joined}}, []GuardNode{ours},
			GuardPlan{Guard: map[string]string{"joined": "worker"}, LeftOut: map[string][]string{}}},
		{"ours being removed stays until the pool is done", map[string][]GuardNode{"worker": {{Name: "ours", Ours: true, Removing: true}}}, []GuardNode{ours},
			GuardPlan{Guard: map[string]string{}, LeftOut: map[string][]string{"worker": {"ours"}}}},
		{"a node in the next guarded pool keeps its guard", map[string][]GuardNode{"master": {ours}}, []GuardNode{ours},
			GuardPlan{Guard: map[string]string{}, LeftOut: map[string][]string{}}},
		{"pool done: ours released, another's kept", nil, []GuardNode{ours, others},
			GuardPlan{Guard: map[string]string{}, Release: []string{"ours"}, LeftOut: map[string][]string{}}},
		{"a node that left the guarded pool is released", map[string][]GuardNode{"worker": {plain}}, []GuardNode{ours},
			GuardPlan{Guard: map[string]string{"plain": "worker"}, Release: []string{"ours"}, LeftOut: map[string][]string{}}},
	} {
		assert.Equal(t, tc.want, PlanGuards(tc.members, tc.marked), tc.name)
	}
	assert.Equal(t, "waiting; left out of the health gate, being removed: a, b", withLeftOut(withLeftOut("waiting", []string{"b"}), []string{"a", "b"}))
	assert.Equal(t, "waiting", withLeftOut("waiting", nil))
}

// node is a worker node; ready false makes it NotReady, annotations and taints are another's.
func node(name string, ready bool, annotations map[string]string, taints ...corev1.Taint) *corev1.Node {
	status := map[bool]corev1.ConditionStatus{true: corev1.ConditionTrue, false: corev1.ConditionFalse}[ready]
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations, Labels: map[string]string{"node-role.kubernetes.io/worker": ""}},
		Spec: corev1.NodeSpec{Taints: taints}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}}}
}

// nodePatches counts the patches of each node.
func nodePatches(kube *kubefake.Clientset) map[string]int {
	out := map[string]int{}
	for _, a := range kube.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok && a.GetResource().Resource == "nodes" {
			out[p.GetName()]++
		}
	}
	return out
}

func guards(t *testing.T, kube *kubefake.Clientset) map[string]string {
	out := map[string]string{}
	l, err := kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	for _, n := range l.Items {
		if v, ok := n.Annotations[scaleDownDisabled]; ok {
			out[n.Name] = v + " " + n.Labels[GuardLabel] + " " + n.Annotations[GuardReasonAnnotation]
		}
	}
	return out
}

// The guard over a rollout, a restart and removals (docs/test-behaviours.md).
func TestControllerGuardsNodes(t *testing.T) {
	f, mco := newFixture(t, tracingOn(""), true, "worker")
	kube := kubefake.NewClientset(node("worker-1", true, map[string]string{scaleDownDisabled: "false"}), node("worker-2", true, nil), node("worker-3", true, nil))
	f.c.kube = kube
	conflicted := false // worker-2 changes between the list and the guard: read again, guarded
	kube.PrependReactor("patch", "nodes", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.(clienttesting.PatchAction).GetName() != "worker-2" || conflicted {
			return false, nil, nil
		}
		conflicted = true
		return true, nil, apierrors.NewConflict(corev1.Resource("nodes"), "worker-2", fmt.Errorf("changed"))
	})
	f.sync() // the policy entries
	mco.syncPolicy()
	f.sync() // MachineConfig written, nodes guarded
	require.Equal(t, nodev1alpha1.NodeSettingsPoolState(Applying), f.poolState("worker"))
	guarded := "true true node-settings rollout of pool worker"
	assert.Equal(t, map[string]string{"worker-1": "false  ", "worker-2": guarded, "worker-3": guarded}, guards(t, kube))

	// A restart mid-step: the guards are found on the nodes.
	f.c = &Controller{clock: f.clock, nodeOperators: f.no.NodeOperators, dynamic: mco.client, kube: kube, served: f.c.served, namespace: f.c.namespace, timing: testTiming, recorder: f.c.recorder}
	// worker-4 joins NotReady; its Machine is being deleted (OpenShift's autoscaler marks it).
	_, err := kube.CoreV1().Nodes().Create(context.Background(), node("worker-4", false, map[string]string{MachineAnnotation: "openshift-machine-api/m-4"}), metav1.CreateOptions{})
	require.NoError(t, err)
	machine := &unstructured.Unstructured{}
	machine.SetAPIVersion("machine.openshift.io/v1beta1")
	machine.SetKind("Machine")
	machine.SetNamespace("openshift-machine-api")
	machine.SetName("m-4")
	machine.SetAnnotations(map[string]string{"machine.openshift.io/delete-machine": ""})
	require.NoError(t, mco.client.Tracker().Create(machineGVR, machine, "openshift-machine-api"))
	mco.finish("worker")
	f.sync()
	require.Equal(t, nodev1alpha1.NodeSettingsPoolState(Verifying), f.poolState("worker"))
	assert.Equal(t, guarded, guards(t, kube)["worker-4"], "a node that joined mid-step")
	// The autoscaler removes worker-3: NotReady, not a failure.
	going, err := kube.CoreV1().Nodes().Get(context.Background(), "worker-3", metav1.GetOptions{})
	require.NoError(t, err)
	going.Spec.Taints = []corev1.Taint{{Key: "ToBeDeletedByClusterAutoscaler", Value: "1767225600", Effect: corev1.TaintEffectNoSchedule}}
	going.Status.Conditions[0].Status = corev1.ConditionFalse
	_, err = kube.CoreV1().Nodes().Update(context.Background(), going, metav1.UpdateOptions{})
	require.NoError(t, err)
	f.clock.Step(testTiming.Gate)
	f.sync()
	assert.Equal(t, nodev1alpha1.NodeSettingsPoolState(Done), f.poolState("worker"))
	assert.Contains(t, poolMessage(f, "worker"), "; left out of the health gate, being removed: worker-3, worker-4")
	assert.Equal(t, map[string]string{"worker-1": "false  "}, guards(t, kube), "ours removed, another's kept")
	assert.Equal(t, map[string]int{"worker-2": 3, "worker-3": 2, "worker-4": 2}, nodePatches(kube), "one patch per node at the step's start (worker-2's again after a conflict), one at its end")

	kube.ClearActions()
	f.quiet(3, 0, "no writes at steady state")
	assert.Empty(t, kube.Actions(), "no node read at steady state")

	// A guard left behind is released where node settings do not run.
	_, err = kube.CoreV1().Nodes().Patch(context.Background(), "worker-2", "application/merge-patch+json", guardPatch("", "worker"), metav1.PatchOptions{})
	require.NoError(t, err)
	f.c.mem.guardsClear = false
	f.no.Update(func(no *nodev1alpha1.NodeOperator) { no.Spec.ManagementState = operatorv1.Removed })
	f.sync()
	assert.Equal(t, map[string]string{"worker-1": "false  "}, guards(t, kube), "managementState Removed")
	_, err = kube.CoreV1().Nodes().Patch(context.Background(), "worker-2", "application/merge-patch+json", guardPatch("", "worker"), metav1.PatchOptions{})
	require.NoError(t, err)
	ReleaseGuardsWhenOff(context.Background(), kube)
	assert.Equal(t, map[string]string{"worker-1": "false  "}, guards(t, kube), "feature gate off")
}

func poolMessage(f *fixture, pool string) string {
	for _, p := range f.status().Pools {
		if p.Name == pool {
			return p.Message
		}
	}
	return ""
}
