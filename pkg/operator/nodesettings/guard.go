package nodesettings

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// The cluster autoscaler's names, as kubernetes/autoscaler reads and
// writes them at tag cluster-autoscaler-1.36.1 (35e8a280), and OpenShift's
// Machine API's.
const (
	// ScaleDownDisabledAnnotation with the exact value "true" keeps a node
	// out of the autoscaler's scale-down candidates, whether it is Ready or
	// not (core/scaledown/eligibility/eligibility.go).
	ScaleDownDisabledAnnotation = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
	// ToBeDeletedTaint is on a node the autoscaler has started to remove
	// (utils/taints/taints.go); the annotation no longer stops it then.
	ToBeDeletedTaint = "ToBeDeletedByClusterAutoscaler"
	// MachineAnnotation names a node's Machine, "namespace/name".
	MachineAnnotation = "machine.openshift.io/machine"
	// DeleteMachineAnnotation marks a Machine its MachineSet removes first
	// when it scales down, as OpenShift's autoscaler does.
	DeleteMachineAnnotation = "machine.openshift.io/delete-machine"

	// GuardLabel marks a node whose scale-down-disabled annotation we
	// added, so that one labelled list finds every guard of ours, in this
	// process or after a restart.
	GuardLabel = "nodeoperator.openshift.io/scale-down-guard"
	// GuardReasonAnnotation says why we added it.
	GuardReasonAnnotation = "nodeoperator.openshift.io/scale-down-disabled-by"
)

var machineGVR = schema.GroupVersionResource{Group: "machine.openshift.io", Version: "v1beta1", Resource: "machines"}

// GuardNode is what the guard decision needs to know of a node.
type GuardNode struct {
	Name string
	// Ours: the node carries GuardLabel.
	Ours bool
	// Others: it carries ScaleDownDisabledAnnotation that we did not add;
	// it is theirs to keep, whatever its value.
	Others bool
	// Removing: the autoscaler has started to remove it, or its Machine is
	// marked for deletion.
	Removing bool
}

// GuardedPools are the pools whose nodes are guarded: from the step that
// writes our MachineConfig for a pool (Applying) until the pool passed its
// gate (Done) or is back at its last good revision (Reverted).
func GuardedPools(r Rollout) []string {
	var out []string
	for _, p := range r.Pools {
		switch p.State {
		case Applying, Verifying, Reverting:
			out = append(out, p.Name)
		}
	}
	return out
}

// GuardPlan is what the guard writes: a guard on each node of a guarded
// pool that has none (joined the pool mid-step, or the step just began),
// and a release of each guard of ours on a node that is in no guarded pool.
type GuardPlan struct {
	// Guard maps a node to the pool it is guarded for.
	Guard   map[string]string
	Release []string
	// LeftOut are a pool's nodes being removed: out of the health gate.
	LeftOut map[string][]string
}

// PlanGuards decides the guards from the nodes of each guarded pool
// (members) and the nodes that carry our label (marked). A node being
// removed is not guarded (the annotation would not stop the removal) and
// a guard we already placed stays until its pool is done.
func PlanGuards(members map[string][]GuardNode, marked []GuardNode) GuardPlan {
	plan := GuardPlan{Guard: map[string]string{}, LeftOut: map[string][]string{}}
	keep := map[string]bool{}
	pools := make([]string, 0, len(members))
	for pool := range members {
		pools = append(pools, pool)
	}
	sort.Strings(pools) // a node in two guarded pools is guarded for the first
	for _, pool := range pools {
		for _, n := range members[pool] {
			keep[n.Name] = true
			switch {
			case n.Removing:
				plan.LeftOut[pool] = append(plan.LeftOut[pool], n.Name)
			case n.Ours || n.Others:
			case plan.Guard[n.Name] == "":
				plan.Guard[n.Name] = pool
			}
		}
		sort.Strings(plan.LeftOut[pool])
	}
	for _, n := range marked {
		if n.Ours && !keep[n.Name] {
			plan.Release = append(plan.Release, n.Name)
		}
	}
	sort.Strings(plan.Release)
	return plan
}

// guardNode reads a node for the decision; removing checks the taint only,
// machineMarked is asked only for the nodes the gate would count against
// the pool (see leftOutMachines).
func guardNode(n *corev1.Node) GuardNode {
	_, ours := n.Labels[GuardLabel]
	_, annotated := n.Annotations[ScaleDownDisabledAnnotation]
	return GuardNode{Name: n.Name, Ours: ours, Others: annotated && !ours,
		Removing: slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == ToBeDeletedTaint })}
}

// guardPatch puts a guard on a node: the autoscaler's annotation, our
// label and why, in one merge patch that fails when the node changed since
// it was read (someone may have annotated it meanwhile).
func guardPatch(resourceVersion, pool string) []byte {
	b, _ := json.Marshal(map[string]interface{}{"metadata": map[string]interface{}{
		"resourceVersion": resourceVersion,
		"labels":          map[string]string{GuardLabel: "true"},
		"annotations": map[string]string{ScaleDownDisabledAnnotation: "true",
			GuardReasonAnnotation: "node-settings rollout of pool " + pool},
	}})
	return b
}

// releasePatch removes exactly what guardPatch added.
var releasePatch = []byte(fmt.Sprintf(`{"metadata":{"labels":{%q:null},"annotations":{%q:null,%q:null}}}`,
	GuardLabel, ScaleDownDisabledAnnotation, GuardReasonAnnotation))

// placeGuards writes the plan's guards, one patch per node. A node that
// changed since it was read is read again and guarded unless it now
// carries someone's annotation or is being removed; one that is gone is
// left.
func placeGuards(ctx context.Context, kube kubernetes.Interface, plan GuardPlan, versions map[string]string) error {
	err := eachNode(sortedKeys(plan.Guard), func(name string) error {
		return guardOne(ctx, kube, name, plan.Guard[name], versions[name])
	})
	if err != nil {
		return fmt.Errorf("guarding nodes from the cluster autoscaler's scale-down: %w", err)
	}
	return nil
}

// nodeWriters is how many node writes are in flight at once: enough for
// the client's rate limit, not its round trips, to set the pace.
const nodeWriters = 8

// eachNode runs write for each node, nodeWriters at a time.
func eachNode(names []string, write func(string) error) error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	next := make(chan string)
	for range min(nodeWriters, len(names)) {
		wg.Go(func() {
			for name := range next {
				if err := write(name); err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("node %s: %w", name, err))
					mu.Unlock()
				}
			}
		})
	}
	for _, name := range names {
		next <- name
	}
	close(next)
	wg.Wait()
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errors.Join(errs...)
}

func guardOne(ctx context.Context, kube kubernetes.Interface, name, pool, version string) error {
	var err error
	for range 3 {
		_, err = kube.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, guardPatch(version, pool), metav1.PatchOptions{})
		if !apierrors.IsConflict(err) {
			break
		}
		n, getErr := kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if getErr != nil {
			err = getErr
			break
		}
		if g := guardNode(n); g.Ours || g.Others || g.Removing {
			return nil
		}
		version = n.ResourceVersion
	}
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// releaseGuards removes our guards from the named nodes.
func releaseGuards(ctx context.Context, kube kubernetes.Interface, names []string) error {
	err := eachNode(names, func(name string) error {
		_, err := kube.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, releasePatch, metav1.PatchOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("releasing the scale-down guards: %w", err)
	}
	return nil
}

// listGuarded lists the nodes carrying our label, from the API server's
// cache.
func listGuarded(ctx context.Context, kube kubernetes.Interface) ([]GuardNode, error) {
	l, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: GuardLabel, ResourceVersion: "0"})
	if err != nil {
		return nil, fmt.Errorf("nodes guarded from scale-down: %w", err)
	}
	out := make([]GuardNode, 0, len(l.Items))
	for i := range l.Items {
		out = append(out, guardNode(&l.Items[i]))
	}
	return out, nil
}

// ReleaseAllGuards removes every guard of ours; it is what remains to do
// where node settings do not run (feature gate off, managementState
// Removed, no MachineConfig API).
func ReleaseAllGuards(ctx context.Context, kube kubernetes.Interface) error {
	marked, err := listGuarded(ctx, kube)
	if err != nil {
		return err
	}
	return releaseGuards(ctx, kube, PlanGuards(nil, marked).Release)
}

// ReleaseGuardsWhenOff runs ReleaseAllGuards once in a process whose
// feature gates hold node settings back (a gate switched off mid-rollout
// restarts the operator), retrying until it succeeds or ctx ends.
func ReleaseGuardsWhenOff(ctx context.Context, kube kubernetes.Interface) {
	_ = wait.ExponentialBackoffWithContext(ctx, wait.Backoff{Duration: pollInterval, Factor: 2, Steps: 1 << 30, Cap: 5 * pollInterval * 60},
		func(ctx context.Context) (bool, error) {
			err := ReleaseAllGuards(ctx, kube)
			if err != nil {
				klog.Warningf("node settings are off: %v", err)
			}
			return err == nil, nil
		})
}

// leftOutMachines: which of the nodes (names, "namespace/name" of their
// Machine) have a Machine marked for deletion. One GET each, asked only for
// nodes that fail the gate, at most maxMachineLooks per sync; a Machine
// API that is not served answers NotFound, as a gone Machine does.
func leftOutMachines(ctx context.Context, dyn dynamic.Interface, machines map[string]string) map[string]bool {
	out := map[string]bool{}
	for i, node := range sortedKeys(machines) {
		if i == maxMachineLooks {
			break
		}
		ns, name, ok := strings.Cut(machines[node], "/")
		if !ok {
			continue
		}
		m, err := dyn.Resource(machineGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			continue // counts as not marked: the gate judges the node
		}
		if _, marked := m.GetAnnotations()[DeleteMachineAnnotation]; marked {
			out[node] = true
		}
	}
	return out
}

const maxMachineLooks = 20

// leftOutNote is the part of a pool's message naming the nodes left out of
// the gate; the names are read back from the message, so that a node named
// once stays named after it is gone.
const leftOutNote = "; left out of the health gate, being removed: "

// maxLeftOutNamed bounds the names in a message.
const maxLeftOutNamed = 10

// withLeftOut returns message with the nodes it already names and names
// added, sorted; message unchanged when there are none.
func withLeftOut(message string, names []string) string {
	base, _, _ := strings.Cut(message, leftOutNote)
	all := append(slices.Clone(names), leftOutOf(message)...)
	if len(all) == 0 {
		return base
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if len(all) > maxLeftOutNamed {
		all = all[:maxLeftOutNamed]
	}
	return base + leftOutNote + strings.Join(all, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// leftOutOf returns the names a message's note holds.
func leftOutOf(message string) []string {
	_, named, ok := strings.Cut(message, leftOutNote)
	if !ok {
		return nil
	}
	return strings.Split(named, ", ")
}
