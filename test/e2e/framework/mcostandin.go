package framework

// A TEST DOUBLE of MCO's pool machinery over the platform fixture's
// nodes; what it does, leaves out, and the MCO commit: docs/mco-standin.md.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
)

// MCO's names (pkg/daemon/constants/constants.go).
const (
	mcoCurrentConfig   = "machineconfiguration.openshift.io/currentConfig"
	mcoDesiredConfig   = "machineconfiguration.openshift.io/desiredConfig"
	mcoState           = "machineconfiguration.openshift.io/state"
	mcoReason          = "machineconfiguration.openshift.io/reason"
	mcoDone            = "Done"
	mcoDegraded        = "Degraded"
	workerPool         = "worker"
	masterPool         = "master"
	standInManager     = "e2e-mco-standin"
	MCOStandInInterval = 300 * time.Millisecond // how often it syncs
	mcoPolicyWait      = 2 * time.Minute        // the daemon's wait for the policy status
)

var (
	mcpGVR                  = platform.MachineConfigPoolGVR
	mcnGVR                  = platform.MachineConfigNodeGVR
	MachineConfigurationGVR = platform.MachineConfigurationGVR
)

// MCOEventKind says what the stand-in did (docs/mco-standin.md); Detail in brackets.
type MCOEventKind string

const (
	MCODesired            MCOEventKind = "DesiredConfigSet"          // the node controller gave a node a desired config (its name)
	MCOServiceRestarted   MCOEventKind = "ServiceRestarted"          // (unit); crio.service: the real CRI-O came back
	MCODependentRestarted MCOEventKind = "DependentServiceRestarted" // systemd restarted a unit that Requires= the restarted one (unit)
	MCODrained            MCOEventKind = "Drained"                   // recorded only
	MCORebooted           MCOEventKind = "Rebooted"                  // recorded; CRI-O restarted with the new files instead
	MCONodeUpdated        MCOEventKind = "NodeUpdated"               // (config)
	MCONodeDegraded       MCOEventKind = "NodeDegraded"              // (reason)
	MCOPoolUpdated        MCOEventKind = "PoolUpdated"               // its Updated condition became True
)

// MCOEvent is one thing the stand-in did.
type MCOEvent struct {
	Time   time.Time
	Pool   string
	Node   string
	Kind   MCOEventKind
	Detail string
}

func (e MCOEvent) String() string {
	return fmt.Sprintf("%s pool=%s node=%s %s %s", e.Time.Format("15:04:05.000"), e.Pool, e.Node, e.Kind, e.Detail)
}

// CountEvents counts the events of a kind on a node with a detail; empty matches any.
func CountEvents(events []MCOEvent, node string, kind MCOEventKind, detail string) int {
	c := 0
	for _, e := range events {
		if (kind == "" || e.Kind == kind) && (node == "" || e.Node == node) && (detail == "" || e.Detail == detail) {
			c++
		}
	}
	return c
}

// standInNode is a node as MCO's daemon acts on it.
type standInNode interface {
	HostPath(path string) string // where the node's file is on this machine
	RestartCRIO() error          // systemctl restart crio.service (and so the kubelet)
	RestartKubelet() error       // systemctl restart kubelet.service
}

// MCOStandIn is the running test double. Start it with StartMCOStandIn.
type MCOStandIn struct {
	t     testing.TB
	dyn   dynamic.Interface
	kube  kubernetes.Interface
	nodes map[string]standInNode
	names []string // sorted: the daemons go one node after another

	mu           sync.Mutex // guards events and lastErr
	events       []MCOEvent
	lastErr      string
	operatorPart atomic.Bool // it also plays MCO's operator (mcopolicy.go)

	// Only the sync goroutine touches these.
	failed   map[string]string    // node: the desired config that failed, not retried
	waiting  map[string]time.Time // node: since when its daemon waits for the policy status
	rendered map[string]bool      // the rendered configs it created, removed at the end

	stop, done chan struct{}
}

func newMCOStandIn(t testing.TB, dyn dynamic.Interface, kube kubernetes.Interface, nodes map[string]standInNode) *MCOStandIn {
	s := &MCOStandIn{t: t, dyn: dyn, kube: kube, nodes: nodes, failed: map[string]string{}, waiting: map[string]time.Time{},
		rendered: map[string]bool{}, stop: make(chan struct{}), done: make(chan struct{})}
	for n := range nodes {
		s.names = append(s.names, n)
	}
	sort.Strings(s.names)
	s.operatorPart.Store(true)
	return s
}

// SetOperatorPart turns the MCO operator part (the policy status) on or off.
func (s *MCOStandIn) SetOperatorPart(on bool) { s.operatorPart.Store(on) }

// StartMCOStandIn runs the double over nodes until the test ends, then removes what it wrote.
func StartMCOStandIn(t testing.TB, admin *rest.Config, nodes []*PlatformNode) *MCOStandIn {
	t.Helper()
	byName := map[string]standInNode{}
	for _, n := range nodes {
		byName[n.Name] = crioNode{t: t, pn: n}
	}
	s := newMCOStandIn(t, dynamic.NewForConfigOrDie(admin), kubernetes.NewForConfigOrDie(admin), byName)
	// A fresh start: what an earlier run may have left on the nodes goes.
	require.NoError(t, s.forget(Context(t, time.Minute)), "MCO stand-in")
	go s.run()
	t.Cleanup(s.cleanup)
	t.Logf("MCO stand-in (test double) started over nodes %v", s.names)
	return s
}

// StartMCOStandInOverFiles runs the double over nodes without CRI-O (kwok's):
// their files are kept in a directory of the test, a restart does nothing,
// and the worker role gets a base MachineConfig so that its pools render.
func StartMCOStandInOverFiles(t testing.TB, admin *rest.Config, nodes []string) *MCOStandIn {
	t.Helper()
	p := &PlatformObjects{dyn: dynamic.NewForConfigOrDie(admin)}
	for _, mc := range platformMachineConfigs(t) {
		if mc.GetName() == "01-worker-container-runtime" {
			p.createMachineConfig(t, Context(t, time.Minute), mc)
			t.Cleanup(func() {
				p.delete(t, p.dyn.Resource(mcGVR).Delete(context.Background(), mc.GetName(), metav1.DeleteOptions{}))
			})
		}
	}
	byName := map[string]standInNode{}
	for _, n := range nodes {
		byName[n] = FileNode{Root: filepath.Join(t.TempDir(), n)}
	}
	s := newMCOStandIn(t, p.dyn, kubernetes.NewForConfigOrDie(admin), byName)
	require.NoError(t, s.forget(Context(t, time.Minute)), "MCO stand-in")
	go s.run()
	t.Cleanup(s.cleanup)
	return s
}

// FileNode keeps a node's files below Root; it has no CRI-O to restart.
type FileNode struct{ Root string }

func (n FileNode) HostPath(p string) string { return filepath.Join(n.Root, p) }
func (n FileNode) RestartCRIO() error       { return nil }
func (n FileNode) RestartKubelet() error    { return nil }

func (s *MCOStandIn) run() {
	defer close(s.done)
	tick := time.NewTicker(MCOStandInInterval)
	defer tick.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		err := s.sync(ctx)
		cancel()
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		s.mu.Lock()
		if msg != "" && msg != s.lastErr { // log each error once, not every 300 ms
			s.t.Logf("MCO stand-in: %v (retrying)", err)
		}
		s.lastErr = msg
		s.mu.Unlock()
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
	}
}

// Stop stops the loop; an update in progress finishes first.
func (s *MCOStandIn) Stop() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
}

// forget removes the MCO annotations and MachineConfigNodes of its nodes.
func (s *MCOStandIn) forget(ctx context.Context) error {
	var errs []error
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:null,%q:null,%q:null,%q:null}}}`, mcoCurrentConfig, mcoDesiredConfig, mcoState, mcoReason)
	for _, name := range s.names {
		if _, err := s.kube.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
		if err := s.dyn.Resource(mcnGVR).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (s *MCOStandIn) cleanup() {
	s.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	errs := []error{s.forget(ctx)}
	for name := range s.rendered {
		if err := s.dyn.Resource(mcGVR).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		s.t.Errorf("MCO stand-in cleanup: %v", err)
	}
	var lines []string
	for _, e := range s.Events() {
		lines = append(lines, "  "+e.String())
	}
	s.t.Logf("MCO stand-in stopped; what it did:\n%s", strings.Join(lines, "\n"))
}

func (s *MCOStandIn) record(pool, node string, kind MCOEventKind, detail string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, MCOEvent{Time: time.Now(), Pool: pool, Node: node, Kind: kind, Detail: detail})
}

// Events returns what the stand-in did, in order.
func (s *MCOStandIn) Events() []MCOEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events)
}

// Reboots counts the reboots the node disruption policy asked for (recorded only).
func (s *MCOStandIn) Reboots() int { return CountEvents(s.Events(), "", MCORebooted, "") }

// One sync: MCO's operator, render controller, node controller, daemons.

type standInWorld struct {
	pools   []*mcfgv1.MachineConfigPool // by name
	mcs     map[string]*unstructured.Unstructured
	nodes   map[string]*corev1.Node
	policy  *operatorv1.MachineConfiguration // nil: no object cluster
	poolOf  map[string]string                // node: its pool
	nodesOf map[string][]string
}

func (s *MCOStandIn) sync(ctx context.Context) error {
	if s.operatorPart.Load() {
		if _, err := syncPolicyStatus(ctx, s.dyn); err != nil {
			return fmt.Errorf("MachineConfiguration cluster status: %w", err)
		}
	}
	w, err := s.observe(ctx)
	if err != nil {
		return err
	}
	for _, pool := range w.pools {
		if err := s.render(ctx, w, pool); err != nil {
			return fmt.Errorf("rendering pool %s: %w", pool.Name, err)
		}
		if err := s.nodeController(ctx, w, pool); err != nil {
			return fmt.Errorf("pool %s: %w", pool.Name, err)
		}
	}
	if err := s.writePoolStatuses(ctx, w); err != nil {
		return err
	}
	worked := false
	for _, name := range s.names {
		select {
		case <-s.stop:
			return nil
		default:
		}
		did, err := s.daemon(ctx, w, name)
		if err != nil {
			return fmt.Errorf("node %s: %w", name, err)
		}
		worked = worked || did
	}
	if worked {
		return s.writePoolStatuses(ctx, w)
	}
	return nil
}

func (s *MCOStandIn) observe(ctx context.Context) (*standInWorld, error) {
	w := &standInWorld{mcs: map[string]*unstructured.Unstructured{}, nodes: map[string]*corev1.Node{}, poolOf: map[string]string{}, nodesOf: map[string][]string{}}
	pools, err := s.dyn.Resource(mcpGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	if w.pools, err = platform.TypedList[mcfgv1.MachineConfigPool](pools); err != nil {
		return nil, err
	}
	sort.Slice(w.pools, func(i, j int) bool { return w.pools[i].Name < w.pools[j].Name })
	mcs, err := s.dyn.Resource(mcGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range mcs.Items {
		w.mcs[mcs.Items[i].GetName()] = &mcs.Items[i]
	}
	u, err := s.dyn.Resource(MachineConfigurationGVR).Get(ctx, "cluster", metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return nil, err
	default:
		if w.policy, err = platform.Typed[operatorv1.MachineConfiguration](u); err != nil {
			return nil, err
		}
	}
	for _, name := range s.names {
		n, err := s.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err): // removed: MCO no longer counts it
			continue
		case err != nil:
			return nil, err
		}
		w.nodes[name] = n
		if pool := primaryPool(w.nodes[name], w.pools); pool != "" {
			w.poolOf[name] = pool
			w.nodesOf[pool] = append(w.nodesOf[pool], name)
		}
	}
	return w, nil
}

// primaryPool is helpers.GetPoolsForNode's choice: master, a custom pool, else worker.
func primaryPool(node *corev1.Node, pools []*mcfgv1.MachineConfigPool) string {
	rank := func(pool string) int {
		if r, ok := map[string]int{"": 0, workerPool: 1, masterPool: 3}[pool]; ok {
			return r
		}
		return 2 // a custom pool
	}
	best := ""
	for _, p := range pools {
		sel, err := metav1.LabelSelectorAsSelector(p.Spec.NodeSelector)
		if err == nil && p.Spec.NodeSelector != nil && !sel.Empty() && sel.Matches(labels.Set(node.Labels)) && rank(p.Name) > rank(best) {
			best = p.Name
		}
	}
	return best
}

// Render controller

// renderPool merges a pool's MachineConfigs as MergeMachineConfigs does (docs/mco-standin.md "Render").
func renderPool(pool string, mcs []*unstructured.Unstructured) (string, map[string]interface{}, error) {
	sorted := slices.Clone(mcs)
	sort.SliceStable(sorted, func(i, j int) bool {
		wi, wj := sorted[i].GetLabels()[mcoRoleLabel] == workerPool, sorted[j].GetLabels()[mcoRoleLabel] == workerPool
		if wi != wj {
			return wi
		}
		return sorted[i].GetName() < sorted[j].GetName()
	})
	byPath := map[string]interface{}{}
	for _, mc := range sorted {
		files, _, err := unstructured.NestedSlice(mc.Object, "spec", "config", "storage", "files")
		if err != nil {
			return "", nil, fmt.Errorf("MachineConfig %s: %w", mc.GetName(), err)
		}
		for _, f := range files {
			m, ok := f.(map[string]interface{})
			if !ok {
				return "", nil, fmt.Errorf("MachineConfig %s: a file is not an object", mc.GetName())
			}
			m = runtime.DeepCopyJSON(m)
			if _, ok := m["overwrite"]; !ok {
				m["overwrite"] = true
			}
			p, _ := m["path"].(string)
			byPath[p] = m
		}
	}
	files := []interface{}{}
	for _, p := range slices.Sorted(maps.Keys(byPath)) {
		files = append(files, byPath[p])
	}
	spec := map[string]interface{}{"config": map[string]interface{}{
		"ignition": map[string]interface{}{"version": "3.5.0"},
		"storage":  map[string]interface{}{"files": files},
	}}
	raw, err := json.Marshal(spec)
	sum := sha256.Sum256(raw)
	return "rendered-" + pool + "-" + hex.EncodeToString(sum[:16]), spec, err
}

// render points the pool at the rendered config of its MachineConfigs; without any it waits.
func (s *MCOStandIn) render(ctx context.Context, w *standInWorld, pool *mcfgv1.MachineConfigPool) error {
	sel, err := metav1.LabelSelectorAsSelector(pool.Spec.MachineConfigSelector)
	if err != nil || pool.Spec.MachineConfigSelector == nil || sel.Empty() {
		return err
	}
	var selected []*unstructured.Unstructured
	for _, mc := range w.mcs {
		if sel.Matches(labels.Set(mc.GetLabels())) {
			selected = append(selected, mc)
		}
	}
	if len(selected) == 0 {
		return nil
	}
	name, spec, err := renderPool(pool.Name, selected)
	if err != nil {
		return err
	}
	if _, ok := w.mcs[name]; !ok {
		controller := true
		mc := &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfig",
			"metadata": map[string]interface{}{"name": name, "annotations": map[string]interface{}{mcoGeneratedByAnnotation: standInManager}},
			"spec":     spec,
		}}
		mc.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "machineconfiguration.openshift.io/v1", Kind: "MachineConfigPool",
			Name: pool.Name, UID: pool.UID, Controller: &controller, BlockOwnerDeletion: &controller}})
		created, err := s.dyn.Resource(mcGVR).Create(ctx, mc, metav1.CreateOptions{FieldManager: standInManager})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		if err == nil {
			w.mcs[name] = created
		}
		s.rendered[name] = true
	}
	if pool.Spec.Configuration.Name == name {
		return nil
	}
	patch, _ := json.Marshal(map[string]interface{}{"spec": map[string]interface{}{"configuration": map[string]interface{}{"name": name}}})
	return s.patchPool(ctx, pool, patch, "")
}

// patchPool merge-patches a pool (or its subresource) and keeps the result.
func (s *MCOStandIn) patchPool(ctx context.Context, pool *mcfgv1.MachineConfigPool, patch []byte, subresource string) error {
	var sub []string
	if subresource != "" {
		sub = []string{subresource}
	}
	u, err := s.dyn.Resource(mcpGVR).Patch(ctx, pool.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: standInManager}, sub...)
	if err != nil {
		return err
	}
	updated, err := platform.Typed[mcfgv1.MachineConfigPool](u)
	if err == nil {
		*pool = *updated
	}
	return err
}

// Node controller

func (s *MCOStandIn) patchNodeAnnotations(ctx context.Context, w *standInWorld, node string, annos map[string]interface{}) error {
	patch, _ := json.Marshal(map[string]interface{}{"metadata": map[string]interface{}{"annotations": annos}})
	n, err := s.kube.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: standInManager})
	if err == nil {
		w.nodes[node] = n
	}
	return err
}

// nodeDone is IsNodeDone: current = desired, state Done.
func nodeDone(n *corev1.Node) bool {
	a := n.Annotations
	return a[mcoCurrentConfig] != "" && a[mcoCurrentConfig] == a[mcoDesiredConfig] && a[mcoState] == mcoDone
}

// nodeFailing is IsNodeMCDFailing.
func nodeFailing(n *corev1.Node) bool {
	return n.Annotations[mcoCurrentConfig] != n.Annotations[mcoDesiredConfig] && n.Annotations[mcoState] == mcoDegraded
}

// nodeController is the node controller's pass over a pool (docs/mco-standin.md "Which node, when").
func (s *MCOStandIn) nodeController(ctx context.Context, w *standInWorld, pool *mcfgv1.MachineConfigPool) error {
	target := pool.Spec.Configuration.Name
	if target == "" {
		return nil
	}
	capacity := 1 // maxUnavailable
	for _, name := range w.nodesOf[pool.Name] {
		n := w.nodes[name]
		if n.Annotations[mcoCurrentConfig] == "" {
			if err := s.patchNodeAnnotations(ctx, w, name, map[string]interface{}{
				mcoCurrentConfig: target, mcoDesiredConfig: target, mcoState: mcoDone, mcoReason: ""}); err != nil {
				return err
			}
			if err := s.writeMCN(ctx, w, name, pool.Name, ""); err != nil {
				return err
			}
			n = w.nodes[name]
		}
		if (!nodeDone(n) && !nodeFailing(n)) || (n.Annotations[mcoDesiredConfig] == target && nodeFailing(n)) {
			capacity--
		}
	}
	for _, name := range w.nodesOf[pool.Name] { // by name: s.names is sorted
		if capacity <= 0 || w.nodes[name].Annotations[mcoDesiredConfig] == target {
			continue
		}
		capacity--
		if err := s.patchNodeAnnotations(ctx, w, name, map[string]interface{}{mcoDesiredConfig: target}); err != nil {
			return err
		}
		s.record(pool.Name, name, MCODesired, target)
	}
	return nil
}

// Pool status

// poolStatus is calculateStatus (docs/mco-standin.md "Pool status"), transition times kept.
func poolStatus(pool *mcfgv1.MachineConfigPool, nodes []*corev1.Node, now metav1.Time) mcfgv1.MachineConfigPoolStatus {
	st := *pool.Status.DeepCopy()
	target := pool.Spec.Configuration.Name
	st.MachineCount, st.UpdatedMachineCount, st.UnavailableMachineCount, st.DegradedMachineCount = int32(len(nodes)), 0, 0, 0
	st.ObservedGeneration = pool.Generation
	var reasons []string
	for _, n := range nodes {
		if nodeDone(n) && n.Annotations[mcoDesiredConfig] == target {
			st.UpdatedMachineCount++
		}
		if n.Annotations[mcoState] == mcoDegraded {
			st.DegradedMachineCount++
			reasons = append(reasons, fmt.Sprintf("Node %s is reporting: %q", n.Name, n.Annotations[mcoReason]))
		} else if !nodeDone(n) {
			st.UnavailableMachineCount++
		}
	}
	st.ReadyMachineCount = st.UpdatedMachineCount // the local world's nodes are always Ready
	set := func(typ, status, reason, message string) {
		c := mcfgv1.MachineConfigPoolCondition{Type: mcfgv1.MachineConfigPoolConditionType(typ), Status: corev1.ConditionStatus(status),
			Reason: reason, Message: message, LastTransitionTime: now}
		for i := range st.Conditions {
			if string(st.Conditions[i].Type) == typ {
				if st.Conditions[i].Status == c.Status {
					c.LastTransitionTime = st.Conditions[i].LastTransitionTime
				}
				st.Conditions[i] = c
				return
			}
		}
		st.Conditions = append(st.Conditions, c)
	}
	if st.UpdatedMachineCount == st.MachineCount && st.UnavailableMachineCount == 0 {
		set("Updated", "True", "", "All nodes are updated with MachineConfig "+target)
		set("Updating", "False", "", "")
		st.Configuration = mcfgv1.MachineConfigPoolStatusConfiguration{ObjectReference: corev1.ObjectReference{Name: target}}
	} else {
		set("Updated", "False", "", "")
		set("Updating", "True", "", "All nodes are updating to MachineConfig "+target)
	}
	if msg := strings.Join(reasons, ", "); st.DegradedMachineCount > 0 {
		set("NodeDegraded", "True", fmt.Sprintf("%d nodes are reporting degraded status on sync", st.DegradedMachineCount), msg)
		set("Degraded", "True", "", msg)
	} else {
		set("NodeDegraded", "False", "", "")
		set("Degraded", "False", "", "")
	}
	return st
}

func (s *MCOStandIn) writePoolStatuses(ctx context.Context, w *standInWorld) error {
	for _, pool := range w.pools {
		if pool.Spec.Configuration.Name == "" {
			continue
		}
		var nodes []*corev1.Node
		for _, name := range w.nodesOf[pool.Name] {
			nodes = append(nodes, w.nodes[name])
		}
		old := pool.Status
		st := poolStatus(pool, nodes, metav1.Now())
		if reflect.DeepEqual(old, st) {
			continue
		}
		fields := map[string]interface{}{"observedGeneration": st.ObservedGeneration, "machineCount": st.MachineCount,
			"updatedMachineCount": st.UpdatedMachineCount, "readyMachineCount": st.ReadyMachineCount,
			"unavailableMachineCount": st.UnavailableMachineCount, "degradedMachineCount": st.DegradedMachineCount, "conditions": st.Conditions}
		if st.Configuration.Name != "" {
			fields["configuration"] = st.Configuration
		}
		patch, _ := json.Marshal(map[string]interface{}{"status": fields})
		if err := s.patchPool(ctx, pool, patch, "status"); err != nil {
			return fmt.Errorf("pool %s status: %w", pool.Name, err)
		}
		if was := poolCondition(&old, "Updated"); poolCondition(&st, "Updated").Status == corev1.ConditionTrue && (was == nil || was.Status != corev1.ConditionTrue) {
			s.record(pool.Name, "", MCOPoolUpdated, "")
		}
	}
	return nil
}

func poolCondition(st *mcfgv1.MachineConfigPoolStatus, typ string) *mcfgv1.MachineConfigPoolCondition {
	for i := range st.Conditions {
		if string(st.Conditions[i].Type) == typ {
			return &st.Conditions[i]
		}
	}
	return nil
}

// writeMCN writes the node's MachineConfigNode (docs/mco-standin.md); degraded is the update's error.
func (s *MCOStandIn) writeMCN(ctx context.Context, w *standInWorld, node, pool string, degraded string) error {
	n := w.nodes[node]
	desired := n.Annotations[mcoDesiredConfig]
	u, err := s.dyn.Resource(mcnGVR).Get(ctx, node, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		mcn := &mcfgv1.MachineConfigNode{TypeMeta: metav1.TypeMeta{APIVersion: "machineconfiguration.openshift.io/v1", Kind: "MachineConfigNode"},
			ObjectMeta: metav1.ObjectMeta{Name: node, OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node, UID: n.UID}}},
			Spec: mcfgv1.MachineConfigNodeSpec{Node: mcfgv1.MCOObjectReference{Name: node}, Pool: mcfgv1.MCOObjectReference{Name: pool},
				ConfigVersion: mcfgv1.MachineConfigNodeSpecMachineConfigVersion{Desired: desired}}}
		obj, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(mcn)
		u, err = s.dyn.Resource(mcnGVR).Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{FieldManager: standInManager})
	}
	if err != nil {
		return err
	}
	mcn, err := platform.Typed[mcfgv1.MachineConfigNode](u)
	if err != nil {
		return err
	}
	if mcn.Spec.Pool.Name != pool || mcn.Spec.ConfigVersion.Desired != desired {
		patch, _ := json.Marshal(map[string]interface{}{"spec": map[string]interface{}{"pool": map[string]interface{}{"name": pool},
			"configVersion": map[string]interface{}{"desired": desired}}})
		if _, err := s.dyn.Resource(mcnGVR).Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: standInManager}); err != nil {
			return err
		}
	}
	st := mcn.Status.DeepCopy()
	updated, nodeDegraded := metav1.Condition{Type: "Updated", Status: metav1.ConditionTrue, Reason: "Updated", Message: fmt.Sprintf("Node %s Updated", node)},
		metav1.Condition{Type: "NodeDegraded", Status: metav1.ConditionFalse, Reason: "NodeDegraded", Message: fmt.Sprintf("Node %s upgrade succeeded", node)}
	if degraded != "" {
		updated.Status, updated.Message = metav1.ConditionFalse, fmt.Sprintf("Node %s needs an update", node)
		nodeDegraded.Status, nodeDegraded.Message = metav1.ConditionTrue, fmt.Sprintf("Node %s upgrade failure. %s", node, degraded)
	}
	meta.SetStatusCondition(&st.Conditions, updated)
	meta.SetStatusCondition(&st.Conditions, nodeDegraded)
	st.ObservedGeneration = mcn.Generation
	st.ConfigVersion = &mcfgv1.MachineConfigNodeStatusMachineConfigVersion{Current: n.Annotations[mcoCurrentConfig], Desired: desired}
	if reflect.DeepEqual(st, &mcn.Status) {
		return nil
	}
	patch, _ := json.Marshal(map[string]interface{}{"status": map[string]interface{}{"conditions": st.Conditions,
		"configVersion": st.ConfigVersion, "observedGeneration": st.ObservedGeneration}})
	_, err = s.dyn.Resource(mcnGVR).Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: standInManager}, "status")
	return err
}

// Daemon

// DisruptionAction is one action of MCO's node disruption policy.
type DisruptionAction struct {
	Type    string // Reboot, None, Restart (the others: recorded nowhere)
	Service string // for Restart
}

// DisruptionActions: the daemon's actions for the changed paths (docs/mco-standin.md "Node disruption policy").
func DisruptionActions(paths []string, policy []operatorv1.NodeDisruptionPolicyStatusFile) []DisruptionAction {
	reboot := []DisruptionAction{{Type: "Reboot"}}
	var actions []DisruptionAction
	for _, p := range paths {
		best := -1
		for i, f := range policy {
			if (p == f.Path || strings.HasPrefix(filepath.Clean(p), filepath.Clean(f.Path)+"/")) && (best < 0 || len(f.Path) > len(policy[best].Path)) {
				best = i
			}
		}
		if best < 0 {
			return reboot
		}
		for _, a := range policy[best].Actions {
			da := DisruptionAction{Type: string(a.Type)}
			switch {
			case a.Type == operatorv1.RebootStatusAction:
				return reboot
			case a.Type == operatorv1.NoneStatusAction:
				continue
			case a.Restart != nil:
				da.Service = string(a.Restart.ServiceName)
			}
			actions = append(actions, da)
		}
	}
	if len(actions) == 0 {
		return []DisruptionAction{{Type: "None"}}
	}
	return actions
}

// fileDiff is CalculateConfigFileDiffs: removed, then added or changed, in map order.
func fileDiff(oldFiles, newFiles map[string]map[string]interface{}) []string {
	var out []string
	for p := range oldFiles {
		if _, ok := newFiles[p]; !ok {
			out = append(out, p)
		}
	}
	for p, f := range newFiles {
		if o, ok := oldFiles[p]; !ok || !reflect.DeepEqual(o, f) {
			out = append(out, p)
		}
	}
	return out
}

func renderedFiles(mc *unstructured.Unstructured) map[string]map[string]interface{} {
	out := map[string]map[string]interface{}{}
	files, _, _ := unstructured.NestedSlice(mc.Object, "spec", "config", "storage", "files")
	for _, f := range files {
		if m, ok := f.(map[string]interface{}); ok {
			p, _ := m["path"].(string)
			out[p] = m
		}
	}
	return out
}

// daemon is MCO's daemon on one node (docs/mco-standin.md "The daemon's update"); true if it worked.
func (s *MCOStandIn) daemon(ctx context.Context, w *standInWorld, node string) (bool, error) {
	n, pool := w.nodes[node], w.poolOf[node]
	if n == nil {
		return false, nil
	}
	cur, des, state := n.Annotations[mcoCurrentConfig], n.Annotations[mcoDesiredConfig], n.Annotations[mcoState]
	if pool == "" || cur == "" || des == "" || (cur == des && state == mcoDone) || (state == mcoDegraded && s.failed[node] == des) {
		return false, nil
	}
	var updateErr error
	if !PolicyStatusReady(w.policy) {
		if _, ok := s.waiting[node]; !ok {
			s.waiting[node] = time.Now()
		}
		if time.Since(s.waiting[node]) < mcoPolicyWait {
			return false, nil
		}
		why := "NodeDisruptionPolicyStatus is not up to date"
		if w.policy == nil {
			why = "MachineConfiguration/cluster has not been created yet"
		}
		updateErr = fmt.Errorf("NodeDisruptionPolicyStatus was not ready: %s", why)
	}
	delete(s.waiting, node)
	oldMC, newMC := w.mcs[cur], w.mcs[des]
	if oldMC == nil || newMC == nil {
		return false, fmt.Errorf("rendered config %s or %s not found", cur, des)
	}
	if updateErr == nil {
		oldFiles, newFiles := renderedFiles(oldMC), renderedFiles(newMC)
		diff := fileDiff(oldFiles, newFiles)
		actions := DisruptionActions(diff, w.policy.Status.NodeDisruptionPolicyStatus.ClusterPolicies.Files)
		if slices.ContainsFunc(actions, func(a DisruptionAction) bool { return a.Type == "Reboot" || a.Type == "Drain" }) {
			s.record(pool, node, MCODrained, "")
		}
		updateErr = s.apply(pool, node, oldFiles, newFiles, diff, actions)
	}
	return true, s.finish(ctx, w, pool, node, updateErr)
}

// finish: the node Done on its desired config, or Degraded (handleErr).
func (s *MCOStandIn) finish(ctx context.Context, w *standInWorld, pool, node string, updateErr error) error {
	des := w.nodes[node].Annotations[mcoDesiredConfig]
	if updateErr != nil {
		s.failed[node] = des
		reason := fmt.Sprintf("%.2000s", updateErr.Error())
		if err := s.patchNodeAnnotations(ctx, w, node, map[string]interface{}{mcoState: mcoDegraded, mcoReason: reason}); err != nil {
			return err
		}
		s.record(pool, node, MCONodeDegraded, reason)
		return s.writeMCN(ctx, w, node, pool, updateErr.Error())
	}
	delete(s.failed, node)
	if err := s.patchNodeAnnotations(ctx, w, node, map[string]interface{}{mcoCurrentConfig: des, mcoState: mcoDone, mcoReason: ""}); err != nil {
		return err
	}
	s.record(pool, node, MCONodeUpdated, des)
	return s.writeMCN(ctx, w, node, pool, "")
}

// apply writes the files and acts; on a failure the files go back and CRI-O starts again.
func (s *MCOStandIn) apply(pool, node string, oldFiles, newFiles map[string]map[string]interface{}, diff []string, actions []DisruptionAction) error {
	if err := s.writeFiles(node, newFiles, diff); err != nil {
		return err
	}
	var failed error
	for _, a := range actions {
		if failed = s.act(pool, node, a); failed != nil {
			break
		}
	}
	if failed == nil {
		return nil
	}
	if err := s.writeFiles(node, oldFiles, diff); err != nil {
		return fmt.Errorf("%w; error rolling back files writes: %v", failed, err)
	}
	if err := s.nodes[node].RestartCRIO(); err != nil { // systemd's Restart=on-failure
		s.t.Logf("MCO stand-in: node %s: CRI-O did not start again with the old files either: %v", node, err)
	}
	return failed
}

// act carries out one action: the node restarts CRI-O and the kubelet (a
// simulated node's kubelet restart does nothing); the rest is recorded.
func (s *MCOStandIn) act(pool, node string, a DisruptionAction) error {
	switch {
	case a.Type == "Reboot":
		s.record(pool, node, MCORebooted, "")
		if err := s.nodes[node].RestartCRIO(); err != nil {
			return fmt.Errorf("CRI-O did not come back after the reboot: %w", err)
		}
	case a.Type == "Restart" && a.Service == "crio.service":
		if err := s.nodes[node].RestartCRIO(); err != nil {
			return fmt.Errorf("could not apply update: restarting %s service failed. Error: %w", a.Service, err)
		}
		s.record(pool, node, MCOServiceRestarted, a.Service)
		// kubelet.service Requires=crio.service.
		s.record(pool, node, MCODependentRestarted, "kubelet.service")
	case a.Type == "Restart" && a.Service == "kubelet.service":
		if err := s.nodes[node].RestartKubelet(); err != nil {
			return fmt.Errorf("could not apply update: restarting %s service failed. Error: %w", a.Service, err)
		}
		s.record(pool, node, MCOServiceRestarted, a.Service)
	case a.Type == "Restart":
		s.record(pool, node, MCOServiceRestarted, a.Service)
	}
	return nil
}

// writeFiles makes the node's files at paths what to says.
func (s *MCOStandIn) writeFiles(node string, to map[string]map[string]interface{}, paths []string) error {
	for _, p := range paths {
		file := s.nodes[node].HostPath(p)
		f, ok := to[p]
		if !ok {
			if err := os.Remove(file); err != nil && !os.IsNotExist(err) {
				return err
			}
			continue
		}
		source, _, _ := unstructured.NestedString(f, "contents", "source")
		data, err := decodeDataURL(source)
		if err != nil {
			return fmt.Errorf("file %s: %w", p, err)
		}
		mode, _ := f["mode"].(int64) // as the API server's JSON decodes it
		if mode == 0 {
			mode = 0o644
		}
		if err := errors.Join(os.MkdirAll(filepath.Dir(file), 0o755), os.WriteFile(file, data, os.FileMode(mode)), os.Chmod(file, os.FileMode(mode))); err != nil {
			return err
		}
	}
	return nil
}

// The nodes: PlatformNodes with their real CRI-O

// crioNode is a PlatformNode whose failures become errors (not t.Fatal).
type crioNode struct {
	t  testing.TB
	pn *PlatformNode
}

func (n crioNode) HostPath(p string) string { return n.pn.HostPath(p) }

// RestartKubelet does nothing: the simulated node's kubelet is kwok.
func (n crioNode) RestartKubelet() error { return nil }

// RestartCRIO syncs the drop-ins and restarts CRI-O; the error is hack/crio.sh's first line.
func (n crioNode) RestartCRIO() error {
	err := catchErrors(n.t, func(tb testing.TB) {
		n.pn.syncCRIODropIns(tb)
		n.pn.stopCRIO(tb, false)
		n.pn.startCRIO(tb)
	})
	if err == nil {
		return nil
	}
	n.t.Logf("MCO stand-in: node %s: %v", n.pn.Name, err)
	first, _, _ := strings.Cut(err.Error(), "\n")
	return errors.New(first)
}

// errTB turns a testing.TB's failures into errors (catchErrors).
type errTB struct {
	testing.TB
	errs []string
}

type errTBExit struct{}

func (e *errTB) Helper()                           {}
func (e *errTB) Error(args ...interface{})         { e.errs = append(e.errs, fmt.Sprint(args...)) }
func (e *errTB) Errorf(f string, a ...interface{}) { e.errs = append(e.errs, fmt.Sprintf(f, a...)) }
func (e *errTB) Fail()                             { e.Error("failed") }
func (e *errTB) FailNow()                          { e.Fail(); panic(errTBExit{}) }
func (e *errTB) Fatal(args ...interface{})         { e.Error(args...); panic(errTBExit{}) }
func (e *errTB) Fatalf(f string, a ...interface{}) { e.Errorf(f, a...); panic(errTBExit{}) }

// catchErrors runs f with a testing.TB whose failures become the error.
func catchErrors(t testing.TB, f func(testing.TB)) (err error) {
	e := &errTB{TB: t}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(errTBExit); !ok {
				panic(r)
			}
		}
		if len(e.errs) > 0 {
			err = errors.New(strings.Join(e.errs, "; "))
		}
	}()
	f(e)
	return nil
}

// Pools and roles for tests

// mcoPoolObject is a MachineConfigPool in MCO's shape (docs/mco-standin.md "Pools").
func mcoPoolObject(name string) *unstructured.Unstructured {
	mcSelector := map[string]interface{}{"matchLabels": map[string]interface{}{mcoRoleLabel: name}}
	poolLabels := map[string]interface{}{"pools.operator.machineconfiguration.openshift.io/" + name: ""}
	switch name {
	case masterPool, workerPool:
		poolLabels["machineconfiguration.openshift.io/mco-built-in"] = ""
	default:
		mcSelector = map[string]interface{}{"matchExpressions": []interface{}{map[string]interface{}{
			"key": mcoRoleLabel, "operator": "In", "values": []interface{}{workerPool, name}}}}
	}
	if name == masterPool {
		poolLabels["operator.machineconfiguration.openshift.io/required-for-upgrade"] = ""
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfigPool",
		"metadata": map[string]interface{}{"name": name, "labels": poolLabels},
		"spec": map[string]interface{}{"machineConfigSelector": mcSelector,
			"nodeSelector": map[string]interface{}{"matchLabels": map[string]interface{}{"node-role.kubernetes.io/" + name: ""}}},
	}}
}

// CreatePool creates pool name in MCO's shape until the test ends.
func CreatePool(t testing.TB, admin *rest.Config, name string) {
	t.Helper()
	pools := dynamic.NewForConfigOrDie(admin).Resource(mcpGVR)
	deletePool := func(ctx context.Context) error {
		if err := pools.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		return wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			_, err := pools.Get(ctx, name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
	}
	ctx := Context(t, 2*time.Minute)
	require.NoError(t, deletePool(ctx), "MachineConfigPool %s left by an earlier run", name)
	_, err := pools.Create(ctx, mcoPoolObject(name), metav1.CreateOptions{FieldManager: fixtureManager})
	require.NoError(t, err, "creating MachineConfigPool %s", name)
	t.Cleanup(func() {
		if err := deletePool(Context(t, time.Minute)); err != nil {
			t.Errorf("deleting MachineConfigPool %s: %v", name, err)
		}
	})
}

// AddNodeRole labels a node node-role.kubernetes.io/<role> until the test ends.
func AddNodeRole(t testing.TB, admin *rest.Config, node, role string) {
	t.Helper()
	nodes := kubernetes.NewForConfigOrDie(admin).CoreV1().Nodes()
	patch := func(value string) error {
		raw := fmt.Sprintf(`{"metadata":{"labels":{%q:%s}}}`, "node-role.kubernetes.io/"+role, value)
		_, err := nodes.Patch(Context(t, time.Minute), node, types.MergePatchType, []byte(raw), metav1.PatchOptions{})
		return err
	}
	require.NoError(t, patch(`""`), "labelling node %s with role %s", node, role)
	t.Cleanup(func() {
		if err := patch("null"); err != nil {
			t.Errorf("removing role %s of node %s: %v", role, node, err)
		}
	})
}

// GetMCOPool reads a MachineConfigPool.
func GetMCOPool(t testing.TB, admin *rest.Config, name string) *mcfgv1.MachineConfigPool {
	t.Helper()
	u, err := dynamic.NewForConfigOrDie(admin).Resource(mcpGVR).Get(Context(t, time.Minute), name, metav1.GetOptions{})
	require.NoError(t, err)
	p, err := platform.Typed[mcfgv1.MachineConfigPool](u)
	require.NoError(t, err)
	return p
}

func describePool(p *mcfgv1.MachineConfigPool) string {
	conds := []string{}
	for _, c := range p.Status.Conditions {
		conds = append(conds, fmt.Sprintf("%s=%s", c.Type, c.Status))
	}
	st := p.Status
	return fmt.Sprintf("pool %s: target %s, current %s, machines %d updated %d ready %d unavailable %d degraded %d, %s", p.Name,
		p.Spec.Configuration.Name, st.Configuration.Name, st.MachineCount, st.UpdatedMachineCount, st.ReadyMachineCount,
		st.UnavailableMachineCount, st.DegradedMachineCount, strings.Join(conds, " "))
}

// WaitStandInPool waits for pool name to be ok.
func WaitStandInPool(t testing.TB, c *Cluster, name, what string, ok func(*mcfgv1.MachineConfigPool) bool) *mcfgv1.MachineConfigPool {
	t.Helper()
	var p *mcfgv1.MachineConfigPool
	Eventually(t, 3*time.Minute, 200*time.Millisecond, func() (bool, error) {
		p = GetMCOPool(t, c.Config, name)
		return ok(p), nil
	}, what)
	t.Logf("%s", describePool(p))
	return p
}

// PoolSettled: MCO is done with the pool.
func PoolSettled(p *mcfgv1.MachineConfigPool) bool {
	st := &p.Status
	isTrue := func(typ string) bool {
		c := poolCondition(st, typ)
		return c != nil && c.Status == corev1.ConditionTrue
	}
	return p.Spec.Configuration.Name != "" && st.Configuration.Name == p.Spec.Configuration.Name && isTrue("Updated") &&
		!isTrue("Updating") && !isTrue("Degraded") && st.MachineCount == st.UpdatedMachineCount && st.ObservedGeneration == p.Generation
}

// CRIOHealthy GETs the node's CRI-O metrics (plain HTTP).
func CRIOHealthy(n *PlatformNode) error {
	return crioMetrics(HTTPGet(nil, "http://"+n.MetricsAddr+"/metrics", ""))
}

// CRIODropIn reads a drop-in from the node's CRI-O's own directory.
func CRIODropIn(n *PlatformNode, path string) (string, error) {
	b, err := os.ReadFile(filepath.Join(n.CRIODir, "crio.conf.d", filepath.Base(path)))
	return string(b), err
}
