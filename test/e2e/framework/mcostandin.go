package framework

// A TEST DOUBLE of the machine-config operator's (MCO) pool machinery
// (render, node controller, daemon, and the operator's node disruption policy
// status in mcopolicy.go) on the platform fixture's simulated nodes. It copies
// no MCO code; what it does, what it leaves out and the MCO commit its facts
// were read from (mcoCommit): docs/mco-standin.md. Everything it does is
// recorded (Events) for assertions.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// MCO's names, as MCO spells them (pkg/daemon/constants/constants.go,
// openshift/api machineconfiguration/v1).
const (
	MCOCurrentConfigAnnotation = "machineconfiguration.openshift.io/currentConfig"
	MCODesiredConfigAnnotation = "machineconfiguration.openshift.io/desiredConfig"
	MCOStateAnnotation         = "machineconfiguration.openshift.io/state"
	MCOReasonAnnotation        = "machineconfiguration.openshift.io/reason"
	MCOStateDone               = "Done"
	MCOStateWorking            = "Working"
	MCOStateDegraded           = "Degraded"

	// mcoRenderedPrefix names rendered MachineConfigs
	// (ctrlcommon.RenderedMachineConfigPrefix).
	mcoRenderedPrefix = "rendered-"
	// standInVersion stands where MCO puts its controller version in the
	// generated-by-controller-version annotation of rendered configs.
	standInVersion = "e2e-mco-standin"
	standInManager = "e2e-mco-standin"
	// mcnNotYetSet is MCO's placeholder for a desired config not yet known
	// (pkg/upgrademonitor: NotYetSet).
	mcnNotYetSet = "NotYetSet"
	workerPool   = "worker"
	masterPool   = "master"
)

var (
	// MCPGVR is machineconfiguration.openshift.io/v1 machineconfigpools.
	MCPGVR = mcpGVR
	mcpGVR = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigpools"}
	mcnGVR = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfignodes"}
	// MachineConfigurationGVR is MCO's operator configuration, where the
	// node disruption policy lives (object "cluster").
	MachineConfigurationGVR = schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "machineconfigurations"}

	// mcnConditionTypes are the MachineConfigNode condition types MCO's
	// daemon creates, all False "NotYetOccurred" at first, without the
	// ImageModeStatusReporting feature gate (pkg/upgrademonitor
	// generateAndApplyMachineConfigNodes; openshift/api
	// machineconfiguration/v1 types_machineconfignode.go).
	mcnConditionTypes = []string{
		"UpdatePrepared", "UpdateExecuted", "UpdatePostActionComplete", "UpdateComplete", "Resumed",
		"Drained", "AppliedFilesAndOS", "Cordoned", "RebootedNode", "Updated", "Uncordoned", "NodeDegraded",
		"PinnedImageSetsDegraded", "PinnedImageSetsProgressing",
	}
)

// MCOEventKind says what the stand-in did.
type MCOEventKind string

const (
	// MCORendered: a pool now targets a rendered config (Detail: its name).
	MCORendered MCOEventKind = "Rendered"
	// MCODesired: the node controller gave a node a desired config.
	MCODesired MCOEventKind = "DesiredConfigSet"
	// MCOFileWritten / MCOFileRemoved: a file of the node (Detail: path).
	MCOFileWritten MCOEventKind = "FileWritten"
	MCOFileRemoved MCOEventKind = "FileRemoved"
	// MCOServiceRestarted: systemctl restart (Detail: the unit). For
	// crio.service the node's real CRI-O was restarted and came back.
	MCOServiceRestarted MCOEventKind = "ServiceRestarted"
	// MCOServiceRestartFailed: the unit did not come back (Detail: unit and
	// error).
	MCOServiceRestartFailed MCOEventKind = "ServiceRestartFailed"
	// MCODependentRestarted: systemd restarted the unit (Detail) because a
	// unit it Requires= was restarted: kubelet.service with crio.service.
	// Recorded only (the local world's kubelet is kwok).
	MCODependentRestarted MCOEventKind = "DependentServiceRestarted"
	// MCOPolicyStatusSynced: the operator part wrote MachineConfiguration
	// cluster's node disruption policy status (Detail: the generation).
	MCOPolicyStatusSynced MCOEventKind = "PolicyStatusSynced"
	// MCOServiceReloaded: systemctl reload (Detail: the unit); recorded only.
	MCOServiceReloaded MCOEventKind = "ServiceReloaded"
	// MCOCRIOStartedBySystemd: after a failed restart and the daemon's
	// rollback of the files, CRI-O started again with the old files, as
	// crio.service's Restart=on-failure does.
	MCOCRIOStartedBySystemd MCOEventKind = "CRIOStartedBySystemd"
	// MCODrained / MCORebooted: recorded only; nothing is drained or
	// rebooted (the update is carried out as if the node had rebooted).
	MCODrained  MCOEventKind = "Drained"
	MCORebooted MCOEventKind = "Rebooted"
	// MCONodeUpdated: the node runs its desired config (Detail: its name).
	MCONodeUpdated MCOEventKind = "NodeUpdated"
	// MCONodeDegraded: the update failed (Detail: the reason).
	MCONodeDegraded MCOEventKind = "NodeDegraded"
	// MCOPoolUpdating / MCOPoolUpdated / MCOPoolDegraded: the pool's
	// condition of that name became True (Detail: its message).
	MCOPoolUpdating MCOEventKind = "PoolUpdating"
	MCOPoolUpdated  MCOEventKind = "PoolUpdated"
	MCOPoolDegraded MCOEventKind = "PoolDegraded"
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

// MCOStandIn is the running test double. Start it with StartMCOStandIn.
type MCOStandIn struct {
	t     testing.TB
	dyn   dynamic.Interface
	kube  kubernetes.Interface
	nodes map[string]*PlatformNode

	mu     sync.Mutex
	events []MCOEvent
	// failed remembers, per node, the desired config whose update failed:
	// the stand-in does not retry it (MCO's daemon retries with backoff).
	failed map[string]string
	// rendered lists the rendered configs it created, removed at the end.
	rendered map[string]bool
	lastErr  string
	// policyWait is, per node, since when its daemon waits for the node
	// disruption policy status (MCO's daemon waits up to mcoPolicyWait).
	policyWait map[string]time.Time
	// operatorPart: the stand-in also plays MCO's operator
	// (syncPolicyStatus); tests turn it off to hold the status back.
	operatorPart atomic.Bool

	stop chan struct{}
	done chan struct{}
}

// MCOStandInInterval is how often the stand-in syncs.
const MCOStandInInterval = 300 * time.Millisecond

// mcoPolicyWait is how long MCO's daemon waits for MachineConfiguration
// cluster's node disruption policy status to be computed for the object's
// generation before it fails the node's update
// (calculatePostConfigChangeNodeDisruptionAction).
const mcoPolicyWait = 2 * time.Minute

// MCOStandInOption changes how the stand-in starts.
type MCOStandInOption func(*MCOStandIn)

// WithoutMCOOperator starts the stand-in with its MCO operator part off:
// MachineConfiguration cluster's node disruption policy status is left as
// it is until SetOperatorPart(true).
func WithoutMCOOperator() MCOStandInOption {
	return func(s *MCOStandIn) { s.operatorPart.Store(false) }
}

// SetOperatorPart turns the MCO operator part on or off.
func (s *MCOStandIn) SetOperatorPart(on bool) { s.operatorPart.Store(on) }

// StartMCOStandIn starts the test double over nodes (each a PlatformNode
// with its real CRI-O): every interval it renders the pools, moves their
// nodes to the pools' rendered configs one node at a time, and writes the
// status MCO writes. Nodes not given are ignored, as if no pool selected
// them. It stops when the test ends and then removes what it put on the
// API server (node annotations, MachineConfigNodes, rendered configs);
// pools made by CreatePool go with their own cleanup.
func StartMCOStandIn(t testing.TB, admin *rest.Config, nodes []*PlatformNode, opts ...MCOStandInOption) *MCOStandIn {
	t.Helper()
	s := &MCOStandIn{
		t: t, dyn: dynamic.NewForConfigOrDie(admin), kube: kubernetes.NewForConfigOrDie(admin),
		nodes: map[string]*PlatformNode{}, failed: map[string]string{}, rendered: map[string]bool{},
		policyWait: map[string]time.Time{},
		stop:       make(chan struct{}), done: make(chan struct{}),
	}
	s.operatorPart.Store(true)
	for _, o := range opts {
		o(s)
	}
	for _, n := range nodes {
		s.nodes[n.Name] = n
	}
	// A fresh start: what an earlier run may have left on the nodes goes.
	require.NoError(t, s.forget(Context(t, time.Minute)), "MCO stand-in")
	go s.run()
	t.Cleanup(s.cleanup)
	t.Logf("MCO stand-in (test double) started over nodes %v", s.nodeNames())
	return s
}

func (s *MCOStandIn) nodeNames() []string {
	var names []string
	for n := range s.nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (s *MCOStandIn) run() {
	defer close(s.done)
	tick := time.NewTicker(MCOStandInInterval)
	defer tick.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		err := s.sync(ctx)
		cancel()
		s.mu.Lock()
		if err != nil && err.Error() != s.lastErr {
			s.t.Logf("MCO stand-in: %v (retrying)", err)
		}
		s.lastErr = ""
		if err != nil {
			s.lastErr = err.Error()
		}
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
	var errs []string
	for _, name := range s.nodeNames() {
		patch := []byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:null,%q:null,%q:null,%q:null}}}`,
			MCOCurrentConfigAnnotation, MCODesiredConfigAnnotation, MCOStateAnnotation, MCOReasonAnnotation))
		if _, err := s.kube.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err.Error())
		}
		if err := s.dyn.Resource(mcnGVR).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

func (s *MCOStandIn) cleanup() {
	s.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var errs []string
	if err := s.forget(ctx); err != nil {
		errs = append(errs, err.Error())
	}
	for name := range s.rendered {
		if err := s.dyn.Resource(mcGVR).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		s.t.Errorf("MCO stand-in cleanup: %s", strings.Join(errs, "; "))
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
	return append([]MCOEvent(nil), s.events...)
}

// Count counts the events of a kind; an empty node or detail matches any.
func (s *MCOStandIn) Count(node string, kind MCOEventKind, detail string) int {
	n := 0
	for _, e := range s.Events() {
		if e.Kind == kind && (node == "" || e.Node == node) && (detail == "" || e.Detail == detail) {
			n++
		}
	}
	return n
}

// Reboots counts the reboots the node disruption policy asked for on any
// node (the stand-in records them and reboots nothing).
func (s *MCOStandIn) Reboots() int { return s.Count("", MCORebooted, "") }

// ---------------------------------------------------------------------------
// One sync: render, node controller, daemons, status.

type standInWorld struct {
	pools    []*unstructured.Unstructured
	mcs      map[string]*unstructured.Unstructured
	nodes    map[string]*corev1.Node
	policy   *operatorv1.MachineConfiguration
	poolOf   map[string]string // node -> primary pool
	nodesOf  map[string][]string
	policyOK bool
}

func (s *MCOStandIn) observe(ctx context.Context) (*standInWorld, error) {
	w := &standInWorld{mcs: map[string]*unstructured.Unstructured{}, nodes: map[string]*corev1.Node{}, poolOf: map[string]string{}, nodesOf: map[string][]string{}}
	pools, err := s.dyn.Resource(mcpGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range pools.Items {
		w.pools = append(w.pools, &pools.Items[i])
	}
	sort.Slice(w.pools, func(i, j int) bool { return w.pools[i].GetName() < w.pools[j].GetName() })
	mcs, err := s.dyn.Resource(mcGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range mcs.Items {
		w.mcs[mcs.Items[i].GetName()] = &mcs.Items[i]
	}
	for _, name := range s.nodeNames() {
		n, err := s.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		w.nodes[name] = n
	}
	u, err := s.dyn.Resource(MachineConfigurationGVR).Get(ctx, "cluster", metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return nil, err
	default:
		w.policy = &operatorv1.MachineConfiguration{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, w.policy); err != nil {
			return nil, err
		}
	}
	for _, name := range s.nodeNames() {
		pool, err := primaryPool(w.nodes[name], w.pools)
		if err != nil {
			return nil, err
		}
		if pool != "" {
			w.poolOf[name] = pool
			w.nodesOf[pool] = append(w.nodesOf[pool], name)
		}
	}
	return w, nil
}

// primaryPool is the pool a node belongs to, as MCO's helpers.GetPoolsForNode
// (pkg/helpers/helpers.go) decides it: the master pool when it selects the
// node; else the one custom pool that does (more than one is an error);
// else the worker pool.
func primaryPool(node *corev1.Node, pools []*unstructured.Unstructured) (string, error) {
	var master, worker string
	var custom []string
	for _, p := range pools {
		sel, err := poolSelector(p, "nodeSelector")
		if err != nil || sel == nil || sel.Empty() || !sel.Matches(labels.Set(node.Labels)) {
			continue
		}
		switch p.GetName() {
		case masterPool:
			master = p.GetName()
		case workerPool:
			worker = p.GetName()
		default:
			custom = append(custom, p.GetName())
		}
	}
	switch {
	case len(custom) > 1:
		return "", fmt.Errorf("node %s belongs to %d custom roles, cannot proceed with this Node", node.Name, len(custom))
	case master != "":
		return master, nil
	case len(custom) == 1:
		return custom[0], nil
	default:
		return worker, nil
	}
}

func poolSelector(pool *unstructured.Unstructured, field string) (labels.Selector, error) {
	raw, ok, _ := unstructured.NestedMap(pool.Object, "spec", field)
	if !ok {
		return nil, nil
	}
	ls := &metav1.LabelSelector{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, ls); err != nil {
		return nil, err
	}
	return metav1.LabelSelectorAsSelector(ls)
}

func (s *MCOStandIn) sync(ctx context.Context) error {
	// MCO's operator: the node disruption policy status.
	if s.operatorPart.Load() {
		wrote, err := syncPolicyStatus(ctx, s.dyn)
		if err != nil {
			return fmt.Errorf("MachineConfiguration cluster status: %w", err)
		}
		if wrote {
			s.record("", "", MCOPolicyStatusSynced, "")
		}
	}
	w, err := s.observe(ctx)
	if err != nil {
		return err
	}
	// Render.
	for _, pool := range w.pools {
		if err := s.render(ctx, w, pool); err != nil {
			return fmt.Errorf("rendering pool %s: %w", pool.GetName(), err)
		}
	}
	// Node controller: adopt new nodes, hand out desired configs.
	for _, pool := range w.pools {
		if err := s.nodeController(ctx, w, pool); err != nil {
			return fmt.Errorf("pool %s: %w", pool.GetName(), err)
		}
	}
	if err := s.writePoolStatuses(ctx, w); err != nil {
		return err
	}
	// Daemons, one node after another.
	worked := false
	for _, name := range s.nodeNames() {
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

// ---------------------------------------------------------------------------
// Render

// RenderedConfig is what the render controller makes of a pool's
// MachineConfigs.
type RenderedConfig struct {
	// Name is rendered-<pool>-<hash of Spec>.
	Name string
	// Source names the MachineConfigs merged, sorted by name.
	Source []string
	// Spec is the rendered MachineConfig's spec: Ignition with the merged
	// storage.files.
	Spec map[string]interface{}
}

// RenderPool merges the MachineConfigs a pool selects as MCO's render
// controller does (pkg/controller/render/render_controller.go,
// pkg/controller/common/helpers.go MergeMachineConfigs): the configs
// labelled role worker first, then the others, each group sorted by name;
// storage.files merged by path, the later config's file replacing the
// earlier one's; overwrite defaulted to true. The hash differs from MCO's
// (salted MD5 of the spec; here SHA-256), the shape of the name does not.
// Only storage.files is carried: units, users, kernel arguments, OS image
// and the rest of MachineConfig's spec are left out.
func RenderPool(pool string, mcs []*unstructured.Unstructured) (RenderedConfig, error) {
	sorted := append([]*unstructured.Unstructured(nil), mcs...)
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
			return RenderedConfig{}, fmt.Errorf("MachineConfig %s: %w", mc.GetName(), err)
		}
		for _, f := range files {
			m, ok := f.(map[string]interface{})
			if !ok {
				return RenderedConfig{}, fmt.Errorf("MachineConfig %s: a file is not an object", mc.GetName())
			}
			m = runtime.DeepCopyJSON(m)
			if _, ok := m["overwrite"]; !ok {
				m["overwrite"] = true
			}
			p, _ := m["path"].(string)
			byPath[p] = m
		}
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	files := make([]interface{}, 0, len(paths))
	for _, p := range paths {
		files = append(files, byPath[p])
	}
	spec := map[string]interface{}{"config": map[string]interface{}{
		"ignition": map[string]interface{}{"version": "3.5.0"},
		"storage":  map[string]interface{}{"files": files},
	}}
	raw, err := json.Marshal(spec)
	if err != nil {
		return RenderedConfig{}, err
	}
	sum := sha256.Sum256(raw)
	var source []string
	for _, mc := range mcs {
		source = append(source, mc.GetName())
	}
	sort.Strings(source)
	return RenderedConfig{Name: mcoRenderedPrefix + pool + "-" + hex.EncodeToString(sum[:16]), Source: source, Spec: spec}, nil
}

func (s *MCOStandIn) render(ctx context.Context, w *standInWorld, pool *unstructured.Unstructured) error {
	sel, err := poolSelector(pool, "machineConfigSelector")
	if err != nil {
		return err
	}
	// MCO refuses an empty selector ("SelectingAll") and renders nothing
	// without a MachineConfig (RenderDegraded); the stand-in waits.
	if sel == nil || sel.Empty() {
		return nil
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
	r, err := RenderPool(pool.GetName(), selected)
	if err != nil {
		return err
	}
	if _, ok := w.mcs[r.Name]; !ok {
		controller := true
		mc := &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "machineconfiguration.openshift.io/v1",
			"kind":       "MachineConfig",
			"metadata": map[string]interface{}{
				"name":        r.Name,
				"annotations": map[string]interface{}{mcoGeneratedByAnnotation: standInVersion},
			},
			"spec": r.Spec,
		}}
		mc.SetOwnerReferences([]metav1.OwnerReference{{
			APIVersion: "machineconfiguration.openshift.io/v1", Kind: "MachineConfigPool",
			Name: pool.GetName(), UID: pool.GetUID(), Controller: &controller, BlockOwnerDeletion: &controller,
		}})
		created, err := s.dyn.Resource(mcGVR).Create(ctx, mc, metav1.CreateOptions{FieldManager: standInManager})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
		if err == nil {
			w.mcs[r.Name] = created
		}
		s.mu.Lock()
		s.rendered[r.Name] = true
		s.mu.Unlock()
	}
	var source []interface{}
	for _, name := range r.Source {
		source = append(source, map[string]interface{}{"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfig", "name": name})
	}
	current, _, _ := unstructured.NestedString(pool.Object, "spec", "configuration", "name")
	currentSource, _, _ := unstructured.NestedSlice(pool.Object, "spec", "configuration", "source")
	if current == r.Name && reflect.DeepEqual(currentSource, source) {
		return nil
	}
	patch, err := json.Marshal(map[string]interface{}{"spec": map[string]interface{}{"configuration": map[string]interface{}{"name": r.Name, "source": source}}})
	if err != nil {
		return err
	}
	updated, err := s.dyn.Resource(mcpGVR).Patch(ctx, pool.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: standInManager})
	if err != nil {
		return err
	}
	updated.DeepCopyInto(pool)
	if current != r.Name {
		s.record(pool.GetName(), "", MCORendered, r.Name)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Node controller

func (s *MCOStandIn) patchNodeAnnotations(ctx context.Context, w *standInWorld, node string, annos map[string]interface{}) error {
	patch, err := json.Marshal(map[string]interface{}{"metadata": map[string]interface{}{"annotations": annos}})
	if err != nil {
		return err
	}
	n, err := s.kube.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: standInManager})
	if err != nil {
		return err
	}
	w.nodes[node] = n
	return nil
}

func target(pool *unstructured.Unstructured) string {
	name, _, _ := unstructured.NestedString(pool.Object, "spec", "configuration", "name")
	return name
}

// nodeReady is MCO's LayeredNodeState.CheckNodeReady
// (pkg/controller/common/layered_node_state.go): Ready, no disk pressure,
// network available, schedulable.
func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		switch {
		case c.Type == corev1.NodeReady && c.Status != corev1.ConditionTrue,
			c.Type == corev1.NodeDiskPressure && c.Status != corev1.ConditionFalse,
			c.Type == corev1.NodeNetworkUnavailable && c.Status != corev1.ConditionFalse:
			return false
		}
	}
	return !n.Spec.Unschedulable
}

// nodeDone: current == desired and state Done (IsNodeDone).
func nodeDone(n *corev1.Node) bool {
	a := n.Annotations
	return a[MCOCurrentConfigAnnotation] != "" && a[MCOCurrentConfigAnnotation] == a[MCODesiredConfigAnnotation] && a[MCOStateAnnotation] == MCOStateDone
}

// nodeFailing: the daemon failed to reach a desired config different from
// its current one (IsNodeMCDFailing).
func nodeFailing(n *corev1.Node) bool {
	a := n.Annotations
	return a[MCOCurrentConfigAnnotation] != a[MCODesiredConfigAnnotation] && (a[MCOStateAnnotation] == MCOStateDegraded || a[MCOStateAnnotation] == "Unreconcilable")
}

// nodeUnavailable is IsUnavailableForUpdate: not ready, or not done and
// not failing (working, or about to).
func nodeUnavailable(n *corev1.Node) bool {
	return !nodeReady(n) || (!nodeDone(n) && !nodeFailing(n))
}

// nodeController is the node controller's pass over one pool
// (pkg/controller/node/node_controller.go updatePools,
// getAllCandidateMachines): capacity is maxUnavailable (1; the pool's
// spec.maxUnavailable is not read) minus the unavailable nodes minus the
// nodes failing on the pool's target; the candidates are the ready nodes
// whose desired config is not the target. MCO sorts them by zone and age;
// the stand-in by name. A node it sees for the first time is taken to run
// the pool's target already, as after its first boot (Ignition wrote the
// files; the daemon then sets the annotations and creates its
// MachineConfigNode): the stand-in writes no file for it.
func (s *MCOStandIn) nodeController(ctx context.Context, w *standInWorld, pool *unstructured.Unstructured) error {
	tgt := target(pool)
	if tgt == "" {
		return nil
	}
	if paused, _, _ := unstructured.NestedBool(pool.Object, "spec", "paused"); paused {
		return nil
	}
	for _, name := range w.nodesOf[pool.GetName()] {
		if w.nodes[name].Annotations[MCOCurrentConfigAnnotation] != "" {
			continue
		}
		if err := s.patchNodeAnnotations(ctx, w, name, map[string]interface{}{
			MCOCurrentConfigAnnotation: tgt, MCODesiredConfigAnnotation: tgt, MCOStateAnnotation: MCOStateDone, MCOReasonAnnotation: "",
		}); err != nil {
			return err
		}
		if err := s.writeMCN(ctx, w, name, pool.GetName(), mcnUpdate{"Updated": {"True", "Updated", fmt.Sprintf("Node %s Updated", name)}}); err != nil {
			return err
		}
	}
	capacity := 1
	var candidates []string
	for _, name := range w.nodesOf[pool.GetName()] {
		n := w.nodes[name]
		if nodeUnavailable(n) {
			capacity--
		}
		if n.Annotations[MCODesiredConfigAnnotation] == tgt {
			if nodeFailing(n) {
				capacity--
			}
			continue
		}
		if nodeReady(n) {
			candidates = append(candidates, name)
		}
	}
	sort.Strings(candidates)
	for _, name := range candidates {
		if capacity <= 0 {
			break
		}
		capacity--
		if err := s.patchNodeAnnotations(ctx, w, name, map[string]interface{}{MCODesiredConfigAnnotation: tgt}); err != nil {
			return err
		}
		s.record(pool.GetName(), name, MCODesired, tgt)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Pool status

type mcpCondition struct {
	Type               string      `json:"type"`
	Status             string      `json:"status"`
	LastTransitionTime metav1.Time `json:"lastTransitionTime"`
	Reason             string      `json:"reason"`
	Message            string      `json:"message"`
}

// poolStatus computes a pool's status as MCO's node controller does without
// the ImageModeStatusReporting feature gate (pkg/controller/node/status.go
// calculateStatus, ctrlcommon.GetMachinesByState): updated = done on the
// pool's target; ready = updated and ready; degraded = state Degraded;
// Updated when every machine is updated, ready and available (then
// status.configuration becomes spec.configuration), else Updating;
// NodeDegraded with the degraded nodes' reasons; Degraded = NodeDegraded
// (render and build degradation are not simulated).
func poolStatus(pool *unstructured.Unstructured, nodes []*corev1.Node, now metav1.Time) map[string]interface{} {
	tgt := target(pool)
	var updated, ready, unavailable, degraded int64
	var reasons []string
	for _, n := range nodes {
		if nodeDone(n) && n.Annotations[MCODesiredConfigAnnotation] == tgt {
			updated++
			if nodeReady(n) {
				ready++
			}
		}
		if st := n.Annotations[MCOStateAnnotation]; st == MCOStateDegraded || st == "Unreconcilable" {
			degraded++
			reasons = append(reasons, fmt.Sprintf("Node %s is reporting: %q", n.Name, n.Annotations[MCOReasonAnnotation]))
		}
		if nodeUnavailable(n) {
			unavailable++
		}
	}
	total := int64(len(nodes))
	oldStatus, _, _ := unstructured.NestedMap(pool.Object, "status")
	var old []mcpCondition
	if raw, ok := oldStatus["conditions"]; ok {
		b, _ := json.Marshal(raw)
		_ = json.Unmarshal(b, &old)
	}
	conds := append([]mcpCondition(nil), old...)
	set := func(typ, status, reason, message string) {
		for i := range conds {
			if conds[i].Type == typ {
				if conds[i].Status != status {
					conds[i].LastTransitionTime = now
				}
				conds[i].Status, conds[i].Reason, conds[i].Message = status, reason, message
				return
			}
		}
		conds = append(conds, mcpCondition{Type: typ, Status: status, Reason: reason, Message: message, LastTransitionTime: now})
	}
	configuration := oldStatus["configuration"]
	if updated == total && ready == total && unavailable == 0 {
		set("Updated", "True", "", "All nodes are updated with MachineConfig "+tgt)
		set("Updating", "False", "", "")
		configuration, _, _ = unstructured.NestedFieldCopy(pool.Object, "spec", "configuration")
	} else {
		set("Updated", "False", "", "")
		if paused, _, _ := unstructured.NestedBool(pool.Object, "spec", "paused"); paused {
			set("Updating", "False", "", "Pool is paused; will not update to MachineConfig "+tgt)
		} else {
			set("Updating", "True", "", "All nodes are updating to MachineConfig "+tgt)
		}
	}
	if degraded > 0 {
		msg := strings.Join(reasons, ", ")
		set("NodeDegraded", "True", fmt.Sprintf("%d nodes are reporting degraded status on sync", degraded), msg)
		set("Degraded", "True", "", msg)
	} else {
		set("NodeDegraded", "False", "", "")
		set("Degraded", "False", "", "")
	}
	set("RenderDegraded", "False", "", "")
	var condList []interface{}
	for _, c := range conds {
		m, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(&c)
		condList = append(condList, m)
	}
	status := map[string]interface{}{
		"observedGeneration":      pool.GetGeneration(),
		"machineCount":            total,
		"updatedMachineCount":     updated,
		"readyMachineCount":       ready,
		"unavailableMachineCount": unavailable,
		"degradedMachineCount":    degraded,
		"conditions":              condList,
	}
	if configuration != nil {
		status["configuration"] = configuration
	}
	return status
}

func (s *MCOStandIn) writePoolStatuses(ctx context.Context, w *standInWorld) error {
	for _, pool := range w.pools {
		if target(pool) == "" {
			continue
		}
		var nodes []*corev1.Node
		for _, name := range w.nodesOf[pool.GetName()] {
			nodes = append(nodes, w.nodes[name])
		}
		status := poolStatus(pool, nodes, metav1.Now())
		old, _, _ := unstructured.NestedMap(pool.Object, "status")
		if equalIgnoringTimes(old, status) {
			continue
		}
		patch, err := json.Marshal(map[string]interface{}{"status": status})
		if err != nil {
			return err
		}
		updated, err := s.dyn.Resource(mcpGVR).Patch(ctx, pool.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: standInManager}, "status")
		if err != nil {
			return fmt.Errorf("pool %s status: %w", pool.GetName(), err)
		}
		for _, typ := range []string{"Updating", "Updated", "Degraded"} {
			if was, now := conditionOf(old, typ), conditionOf(status, typ); now.Status == "True" && was.Status != "True" {
				s.record(pool.GetName(), "", MCOEventKind("Pool"+typ), now.Message)
			}
		}
		updated.DeepCopyInto(pool)
	}
	return nil
}

func conditionOf(status map[string]interface{}, typ string) mcpCondition {
	var conds []mcpCondition
	b, _ := json.Marshal(status["conditions"])
	_ = json.Unmarshal(b, &conds)
	for _, c := range conds {
		if c.Type == typ {
			return c
		}
	}
	return mcpCondition{}
}

// equalIgnoringTimes compares two statuses after a JSON round trip (so that
// int64 and float64 numbers compare equal), conditions' times left out.
func equalIgnoringTimes(a, b map[string]interface{}) bool {
	norm := func(m map[string]interface{}) string {
		raw, _ := json.Marshal(m)
		var v map[string]interface{}
		_ = json.Unmarshal(raw, &v)
		if conds, ok := v["conditions"].([]interface{}); ok {
			for _, c := range conds {
				if cm, ok := c.(map[string]interface{}); ok {
					delete(cm, "lastTransitionTime")
				}
			}
		}
		out, _ := json.Marshal(v)
		return string(out)
	}
	return norm(a) == norm(b)
}

// ---------------------------------------------------------------------------
// MachineConfigNode

// mcnUpdate says which conditions of a MachineConfigNode change, by type:
// status, reason, message.
type mcnUpdate map[string][3]string

// writeMCN creates the node's MachineConfigNode when missing (spec.node,
// spec.pool, spec.configVersion.desired from the node's desiredConfig;
// owned by the Node; every condition False "NotYetOccurred", as MCO's
// upgrademonitor creates it) and applies changes to its status:
// conditions, configVersion.current and .desired from the node's
// annotations. An update of condition Updated resets every other True
// condition to False, as MCO's upgrademonitor does.
func (s *MCOStandIn) writeMCN(ctx context.Context, w *standInWorld, node, pool string, changes mcnUpdate) error {
	n := w.nodes[node]
	desired := n.Annotations[MCODesiredConfigAnnotation]
	if desired == "" {
		desired = mcnNotYetSet
	}
	mcn, err := s.dyn.Resource(mcnGVR).Get(ctx, node, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		mcn = &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "machineconfiguration.openshift.io/v1",
			"kind":       "MachineConfigNode",
			"metadata":   map[string]interface{}{"name": node},
			"spec": map[string]interface{}{
				"node":          map[string]interface{}{"name": node},
				"pool":          map[string]interface{}{"name": pool},
				"configVersion": map[string]interface{}{"desired": desired},
			},
		}}
		mcn.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node, UID: n.UID}})
		mcn, err = s.dyn.Resource(mcnGVR).Create(ctx, mcn, metav1.CreateOptions{FieldManager: standInManager})
	}
	if err != nil {
		return err
	}
	specPool, _, _ := unstructured.NestedString(mcn.Object, "spec", "pool", "name")
	specDesired, _, _ := unstructured.NestedString(mcn.Object, "spec", "configVersion", "desired")
	if specPool != pool || specDesired != desired {
		patch, _ := json.Marshal(map[string]interface{}{"spec": map[string]interface{}{
			"pool": map[string]interface{}{"name": pool}, "configVersion": map[string]interface{}{"desired": desired},
		}})
		if mcn, err = s.dyn.Resource(mcnGVR).Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: standInManager}); err != nil {
			return err
		}
	}
	var conds []metav1.Condition
	if raw, ok, _ := unstructured.NestedSlice(mcn.Object, "status", "conditions"); ok {
		b, _ := json.Marshal(raw)
		_ = json.Unmarshal(b, &conds)
	}
	now := metav1.Now()
	if len(conds) == 0 {
		for _, typ := range mcnConditionTypes {
			conds = append(conds, metav1.Condition{Type: typ, Status: metav1.ConditionFalse, Reason: "NotYetOccurred",
				Message: fmt.Sprintf("This node has not yet entered the %s phase", typ), LastTransitionTime: now})
		}
	}
	if _, ok := changes["Updated"]; ok {
		for i := range conds {
			if _, changing := changes[conds[i].Type]; !changing && conds[i].Status != metav1.ConditionFalse {
				conds[i].Status, conds[i].LastTransitionTime = metav1.ConditionFalse, now
			}
		}
	}
	for typ, c := range changes {
		for i := range conds {
			if conds[i].Type == typ {
				if string(conds[i].Status) != c[0] {
					conds[i].LastTransitionTime = now
				}
				conds[i].Status, conds[i].Reason, conds[i].Message = metav1.ConditionStatus(c[0]), c[1], c[2]
			}
		}
	}
	version := map[string]interface{}{"desired": desired}
	if cur := n.Annotations[MCOCurrentConfigAnnotation]; cur != "" {
		version["current"] = cur
	}
	status := map[string]interface{}{"conditions": conds, "configVersion": version, "observedGeneration": mcn.GetGeneration()}
	raw, err := json.Marshal(status)
	if err != nil {
		return err
	}
	var statusMap map[string]interface{}
	_ = json.Unmarshal(raw, &statusMap)
	old, _, _ := unstructured.NestedMap(mcn.Object, "status")
	if equalIgnoringTimes(old, statusMap) {
		return nil
	}
	patch, _ := json.Marshal(map[string]interface{}{"status": statusMap})
	_, err = s.dyn.Resource(mcnGVR).Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: standInManager}, "status")
	return err
}

// ---------------------------------------------------------------------------
// Daemon

// DisruptionAction is one action of MCO's node disruption policy.
type DisruptionAction struct {
	// Type: Reboot, None, Drain, Reload, Restart, DaemonReload, Special.
	Type string
	// Service for Reload and Restart.
	Service string
}

// DisruptionActions is what MCO's daemon decides for a set of changed
// paths (pkg/daemon/update.go
// calculatePostConfigChangeNodeDisruptionActionFromMCDiffs,
// pkg/controller/common/helpers.go FindClosestFilePolicyPathMatch): for
// each path, in the order given, the actions of the entry whose path
// equals it or is the longest directory above it, appended without
// de-duplication (two changed CRI-O drop-ins restart CRI-O twice); a path
// without an entry means Reboot (and a drain), as does any Reboot; None is
// dropped when other actions remain; no changed path means None. The
// entries are the MachineConfiguration's
// status.nodeDisruptionPolicyStatus.clusterPolicies.files, which MCO's
// operator computes from the spec (ClusterPolicies); an entry only in the
// spec counts for nothing.
func DisruptionActions(paths []string, policy []operatorv1.NodeDisruptionPolicyStatusFile) []DisruptionAction {
	if len(paths) == 0 {
		return []DisruptionAction{{Type: "None"}}
	}
	var actions []DisruptionAction
	for _, p := range paths {
		best := -1
		for i, f := range policy {
			dir := filepath.Clean(f.Path) + "/"
			if (p == f.Path || strings.HasPrefix(filepath.Clean(p), dir)) && (best < 0 || len(f.Path) > len(policy[best].Path)) {
				best = i
			}
		}
		if best < 0 {
			return []DisruptionAction{{Type: "Reboot"}}
		}
		for _, a := range policy[best].Actions {
			da := DisruptionAction{Type: string(a.Type)}
			if a.Restart != nil {
				da.Service = string(a.Restart.ServiceName)
			}
			if a.Reload != nil {
				da.Service = string(a.Reload.ServiceName)
			}
			actions = append(actions, da)
		}
	}
	var kept []DisruptionAction
	for _, a := range actions {
		if a.Type == "Reboot" {
			return []DisruptionAction{{Type: "Reboot"}}
		}
		if a.Type != "None" {
			kept = append(kept, a)
		}
	}
	if len(kept) == 0 {
		return []DisruptionAction{{Type: "None"}}
	}
	return kept
}

// fileDiff lists the paths whose file differs between two rendered configs
// as MCO's CalculateConfigFileDiffs does: the removed ones first, then the
// added or changed ones, each group in Go's map order, which varies from
// one call to the next. The actions, and so the restarts, follow it.
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

// requiredBy lists, per unit, the units whose unit file has Requires= on
// it, which systemd restarts with it: MCO's kubelet.service (templates
// 01-<role>-kubelet, units/kubelet.service.yaml) has
// Requires=crio.service.
var requiredBy = map[string][]string{"crio.service": {"kubelet.service"}}

func renderedFiles(mc *unstructured.Unstructured) map[string]map[string]interface{} {
	out := map[string]map[string]interface{}{}
	if mc == nil {
		return out
	}
	files, _, _ := unstructured.NestedSlice(mc.Object, "spec", "config", "storage", "files")
	for _, f := range files {
		if m, ok := f.(map[string]interface{}); ok {
			p, _ := m["path"].(string)
			out[p] = m
		}
	}
	return out
}

// daemon does on one node what MCO's daemon does when the node's desired
// config is not its current one, or the node is not Done (pkg/daemon
// daemon.go syncNode, prepUpdateFromCluster; update.go update): it reports
// whether it worked.
func (s *MCOStandIn) daemon(ctx context.Context, w *standInWorld, node string) (bool, error) {
	n := w.nodes[node]
	pool := w.poolOf[node]
	cur, des, state := n.Annotations[MCOCurrentConfigAnnotation], n.Annotations[MCODesiredConfigAnnotation], n.Annotations[MCOStateAnnotation]
	if pool == "" || cur == "" || des == "" || (cur == des && state == MCOStateDone) {
		return false, nil
	}
	s.mu.Lock()
	failedOn := s.failed[node]
	s.mu.Unlock()
	if state == MCOStateDegraded && failedOn == des {
		return false, nil
	}
	// MCO's daemon reads the policy from the status when it updates the
	// node, and first waits for the status to be computed for the
	// object's generation (or for the object), failing the update after
	// mcoPolicyWait. The stand-in waits before it marks the node Working.
	var updateErr error
	if !PolicyStatusReady(w.policy) {
		s.mu.Lock()
		since, waiting := s.policyWait[node]
		if !waiting {
			since = time.Now()
			s.policyWait[node] = since
		}
		s.mu.Unlock()
		if time.Since(since) < mcoPolicyWait {
			return false, nil
		}
		why := "NodeDisruptionPolicyStatus is not up to date"
		if w.policy == nil {
			why = "MachineConfiguration/cluster has not been created yet"
		}
		updateErr = fmt.Errorf("NodeDisruptionPolicyStatus was not ready: %s", why)
	}
	s.mu.Lock()
	delete(s.policyWait, node)
	s.mu.Unlock()
	oldMC, newMC := w.mcs[cur], w.mcs[des]
	if newMC == nil {
		return false, fmt.Errorf("desired config %s not found", des)
	}
	if oldMC == nil {
		return false, fmt.Errorf("current config %s not found", cur)
	}
	// A Degraded node stays Degraded until the update succeeds (update():
	// SetWorking only from another state).
	if state != MCOStateDegraded {
		if err := s.patchNodeAnnotations(ctx, w, node, map[string]interface{}{MCOStateAnnotation: MCOStateWorking}); err != nil {
			return false, err
		}
	}
	if err := s.writeMCN(ctx, w, node, pool, mcnUpdate{"Updated": {"False", "Updated", fmt.Sprintf("Node %s needs an update", node)}}); err != nil {
		return false, err
	}
	oldFiles, newFiles := renderedFiles(oldMC), renderedFiles(newMC)
	diff := fileDiff(oldFiles, newFiles)
	var actions []DisruptionAction
	if updateErr == nil {
		actions = DisruptionActions(diff, w.policy.Status.NodeDisruptionPolicyStatus.ClusterPolicies.Files)
	}
	if updateErr == nil {
		drain := false
		for _, a := range actions {
			drain = drain || a.Type == "Reboot" || a.Type == "Drain"
		}
		if err := s.writeMCN(ctx, w, node, pool, mcnUpdate{
			"UpdatePrepared":    {"True", "UpdatePrepared", fmt.Sprintf("Update Compatible. Post Cfg Actions: %v Drain Required: %t", actions, drain)},
			"AppliedFilesAndOS": {"Unknown", "UpdateExecutedAppliedFilesAndOS", "Applying files and new OS config to node."},
			"UpdateExecuted":    {"Unknown", "AppliedFilesAndOS", "Updating the Files and OS on disk as a part of the in progress phase"},
		}); err != nil {
			return false, err
		}
		if drain {
			s.record(pool, node, MCODrained, "")
		}
		updateErr = s.applyUpdate(w, pool, node, oldFiles, newFiles, diff, actions)
	}
	if updateErr != nil {
		s.mu.Lock()
		s.failed[node] = des
		s.mu.Unlock()
		reason := fmt.Sprintf("%.2000s", updateErr.Error())
		if err := s.patchNodeAnnotations(ctx, w, node, map[string]interface{}{MCOStateAnnotation: MCOStateDegraded, MCOReasonAnnotation: reason}); err != nil {
			return true, err
		}
		s.record(pool, node, MCONodeDegraded, reason)
		return true, s.writeMCN(ctx, w, node, pool, mcnUpdate{"NodeDegraded": {"True", "NodeDegraded", fmt.Sprintf("Node %s upgrade failure. %v", node, updateErr)}})
	}
	s.mu.Lock()
	delete(s.failed, node)
	s.mu.Unlock()
	if err := s.patchNodeAnnotations(ctx, w, node, map[string]interface{}{
		MCOCurrentConfigAnnotation: des, MCOStateAnnotation: MCOStateDone, MCOReasonAnnotation: "",
	}); err != nil {
		return true, err
	}
	s.record(pool, node, MCONodeUpdated, des)
	return true, s.writeMCN(ctx, w, node, pool, mcnUpdate{
		"Updated":      {"True", "Updated", fmt.Sprintf("Node %s Updated", node)},
		"NodeDegraded": {"False", "NodeDegraded", fmt.Sprintf("Node %s upgrade succeeded", node)},
	})
}

// applyUpdate writes the changed files below the node's root, the CRI-O
// drop-ins also to its CRI-O's directory, and carries out the actions. When
// an action fails, the files go back to the old config (update()'s
// deferred rollback) and, when CRI-O was left down, it is started again
// with them, as systemd does for crio.service (Restart=on-failure in
// CRI-O's unit; without its RestartSec=10 wait).
func (s *MCOStandIn) applyUpdate(w *standInWorld, pool, node string, oldFiles, newFiles map[string]map[string]interface{}, diff []string, actions []DisruptionAction) error {
	pn := s.nodes[node]
	if err := s.writeFiles(pool, pn, oldFiles, newFiles, diff, true); err != nil {
		return err
	}
	var actionErr error
	crioDown := false
	for _, a := range actions {
		switch a.Type {
		case "Reboot":
			// Recorded; the node's files are as after the reboot, and its
			// CRI-O comes up with them.
			s.record(pool, node, MCORebooted, "")
			if err := pn.syncDropIns(s.t); err != nil {
				actionErr = err
			} else if err := pn.restartCRIOErr(s.t); err != nil {
				actionErr, crioDown = fmt.Errorf("CRI-O did not come back after the reboot: %w", err), true
			}
		case "Restart":
			if a.Service != "crio.service" {
				s.record(pool, node, MCOServiceRestarted, a.Service)
				continue
			}
			if err := pn.syncDropIns(s.t); err != nil {
				actionErr = err
				break
			}
			if err := pn.restartCRIOErr(s.t); err != nil {
				s.record(pool, node, MCOServiceRestartFailed, a.Service+": "+err.Error())
				actionErr, crioDown = fmt.Errorf("could not apply update: restarting %s service failed. Error: %w", a.Service, err), true
				break
			}
			s.record(pool, node, MCOServiceRestarted, a.Service)
			for _, dep := range requiredBy[a.Service] {
				s.record(pool, node, MCODependentRestarted, dep)
			}
		case "Reload", "Special":
			service := a.Service
			if a.Type == "Special" {
				service = "crio.service"
			}
			s.record(pool, node, MCOServiceReloaded, service)
		case "DaemonReload":
			s.record(pool, node, MCOServiceReloaded, "daemon-reload")
		}
		if actionErr != nil {
			break
		}
	}
	if actionErr == nil {
		return nil
	}
	// update()'s deferred rollback of the files.
	if err := s.writeFiles(pool, pn, newFiles, oldFiles, fileDiff(newFiles, oldFiles), false); err != nil {
		return fmt.Errorf("%w; error rolling back files writes: %v", actionErr, err)
	}
	if crioDown {
		if err := pn.syncDropIns(s.t); err != nil {
			return fmt.Errorf("%w; %v", actionErr, err)
		}
		if err := pn.restartCRIOErr(s.t); err != nil {
			s.t.Logf("MCO stand-in: node %s: CRI-O did not start again with the old files either: %v", node, err)
		} else {
			s.record(pool, node, MCOCRIOStartedBySystemd, "")
		}
	}
	return actionErr
}

// writeFiles makes the node's files at paths what to says (removing those
// to lacks), below the node's root.
func (s *MCOStandIn) writeFiles(pool string, pn *PlatformNode, from, to map[string]map[string]interface{}, paths []string, record bool) error {
	for _, p := range paths {
		f, ok := to[p]
		if !ok {
			if err := os.Remove(pn.HostPath(p)); err != nil && !os.IsNotExist(err) {
				return err
			}
			if record {
				s.record(pool, pn.Name, MCOFileRemoved, p)
			}
			continue
		}
		source, _, _ := unstructured.NestedString(f, "contents", "source")
		data, err := decodeDataURL(source)
		if err != nil {
			return fmt.Errorf("file %s: %w", p, err)
		}
		mode := os.FileMode(0o644)
		switch v := f["mode"].(type) {
		case int64:
			mode = os.FileMode(v)
		case float64:
			mode = os.FileMode(int64(v))
		}
		file := pn.HostPath(p)
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(file, data, mode); err != nil {
			return err
		}
		if err := os.Chmod(file, mode); err != nil {
			return err
		}
		if record {
			s.record(pool, pn.Name, MCOFileWritten, p)
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// PlatformNode helpers that return errors instead of failing the test: the
// stand-in runs them in its own goroutine, where t.Fatal must not be called.

type errTB struct {
	testing.TB
	errs []string
}

type errTBFatal struct{}

func (e *errTB) Helper()                   {}
func (e *errTB) Error(args ...interface{}) { e.errs = append(e.errs, fmt.Sprint(args...)) }
func (e *errTB) Errorf(format string, args ...interface{}) {
	e.errs = append(e.errs, fmt.Sprintf(format, args...))
}
func (e *errTB) Fail()                     { e.errs = append(e.errs, "failed") }
func (e *errTB) FailNow()                  { e.Fail(); panic(errTBFatal{}) }
func (e *errTB) Fatal(args ...interface{}) { e.Error(args...); panic(errTBFatal{}) }
func (e *errTB) Fatalf(format string, args ...interface{}) {
	e.Errorf(format, args...)
	panic(errTBFatal{})
}

// catchErrors runs f with a testing.TB whose failures become the returned
// error.
func catchErrors(t testing.TB, f func(testing.TB)) (err error) {
	e := &errTB{TB: t}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(errTBFatal); !ok {
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

func (pn *PlatformNode) syncDropIns(t testing.TB) error {
	return catchErrors(t, func(tb testing.TB) { pn.syncCRIODropIns(tb) })
}

// restartCRIOErr is `systemctl restart crio.service` on the node: CRI-O
// stopped and started with its drop-ins; the error says it did not come
// back (hack/crio.sh start: it exited, or its metrics were not served).
func (pn *PlatformNode) restartCRIOErr(t testing.TB) error {
	return summarizeCRIOError(catchErrors(t, func(tb testing.TB) {
		pn.stopCRIO(tb, false)
		pn.startCRIO(tb)
	}))
}

// summarizeCRIOError shortens hack/crio.sh's failure (its output holds the
// tail of CRI-O's log) to CRI-O's fatal message and crio.sh's verdict, for
// the node's reason annotation and the events; the full log stays in the
// node's crio.log.
func summarizeCRIOError(err error) error {
	if err == nil {
		return nil
	}
	var parts []string
	for _, line := range strings.Split(err.Error(), "\n") {
		line = strings.TrimSpace(line)
		if strings.Contains(line, "level=fatal") {
			if _, msg, ok := strings.Cut(line, "msg="); ok {
				if unq, uerr := strconv.Unquote(msg); uerr == nil {
					msg = unq
				}
				line = msg
			}
			parts = append(parts, line)
		} else if strings.HasPrefix(line, "crio.sh [") && !strings.Contains(line, ": starting ") {
			if _, verdict, ok := strings.Cut(line, "]: "); ok {
				parts = append(parts, verdict)
			}
		}
	}
	if len(parts) == 0 {
		return err
	}
	return errors.New(strings.Join(parts, "; "))
}

// ---------------------------------------------------------------------------
// Pools and roles for tests

// CreatePool creates a MachineConfigPool of the shape MCO gives it
// (manifests/{master,worker}.machineconfigpool.yaml; docs/custom-pools.md):
// master and worker select the MachineConfigs of their role and the nodes
// labelled node-role.kubernetes.io/<role>; any other name is a custom pool
// selecting the MachineConfigs of roles worker and <name> (role In (worker,
// <name>)) and the nodes labelled node-role.kubernetes.io/<name>. A pool of
// that name left by an earlier run is replaced. Deleted when the test ends.
func CreatePool(t testing.TB, admin *rest.Config, name string) {
	t.Helper()
	dyn := dynamic.NewForConfigOrDie(admin)
	ctx := Context(t, 2*time.Minute)
	mcSelector := map[string]interface{}{"matchLabels": map[string]interface{}{mcoRoleLabel: name}}
	labelsOf := map[string]interface{}{"machineconfiguration.openshift.io/mco-built-in": "", "pools.operator.machineconfiguration.openshift.io/" + name: ""}
	if name != masterPool && name != workerPool {
		mcSelector = map[string]interface{}{"matchExpressions": []interface{}{map[string]interface{}{
			"key": mcoRoleLabel, "operator": "In", "values": []interface{}{workerPool, name},
		}}}
		labelsOf = map[string]interface{}{"pools.operator.machineconfiguration.openshift.io/" + name: ""}
	}
	if name == masterPool {
		labelsOf["operator.machineconfiguration.openshift.io/required-for-upgrade"] = ""
	}
	pool := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "machineconfiguration.openshift.io/v1",
		"kind":       "MachineConfigPool",
		"metadata":   map[string]interface{}{"name": name, "labels": labelsOf},
		"spec": map[string]interface{}{
			"machineConfigSelector": mcSelector,
			"nodeSelector":          map[string]interface{}{"matchLabels": map[string]interface{}{"node-role.kubernetes.io/" + name: ""}},
		},
	}}
	deletePool := func(ctx context.Context) error {
		err := dyn.Resource(mcpGVR).Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		if err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			_, err := dyn.Resource(mcpGVR).Get(ctx, name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		}); err != nil {
			return fmt.Errorf("MachineConfigPool %s still there: %w", name, err)
		}
		return nil
	}
	require.NoError(t, deletePool(ctx))
	if _, err := dyn.Resource(mcpGVR).Create(ctx, pool, metav1.CreateOptions{FieldManager: fixtureManager}); err != nil {
		t.Fatalf("creating MachineConfigPool %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := deletePool(ctx); err != nil {
			t.Errorf("deleting MachineConfigPool %s: %v", name, err)
		}
	})
}

// AddNodeRole labels a node node-role.kubernetes.io/<role>="" (what puts it
// in a custom pool), and removes the label when the test ends.
func AddNodeRole(t testing.TB, admin *rest.Config, node, role string) {
	t.Helper()
	kube := kubernetes.NewForConfigOrDie(admin)
	key := "node-role.kubernetes.io/" + role
	patch := func(ctx context.Context, value interface{}) error {
		raw, _ := json.Marshal(map[string]interface{}{"metadata": map[string]interface{}{"labels": map[string]interface{}{key: value}}})
		_, err := kube.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, raw, metav1.PatchOptions{})
		return err
	}
	require.NoError(t, patch(Context(t, time.Minute), ""), "labelling node %s %s", node, key)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := patch(ctx, nil); err != nil {
			t.Errorf("removing label %s of node %s: %v", key, node, err)
		}
	})
}

// MCOPool is what a test reads of a MachineConfigPool.
type MCOPool struct {
	Name string
	// Target is spec.configuration.name, Source its source names.
	Target string
	Source []string
	// Current is status.configuration.name.
	Current                                                  string
	Generation, ObservedGeneration                           int64
	MachineCount, Updated, Ready, Unavailable, DegradedCount int64
	// Conditions by type: status and message.
	Conditions map[string][2]string
}

// Condition tells whether the pool's condition typ is True.
func (p MCOPool) Condition(typ string) bool { return p.Conditions[typ][0] == "True" }

func (p MCOPool) String() string {
	var conds []string
	for _, typ := range []string{"Updated", "Updating", "Degraded", "NodeDegraded"} {
		conds = append(conds, typ+"="+p.Conditions[typ][0])
	}
	return fmt.Sprintf("pool %s: target %s, current %s, machines %d updated %d ready %d unavailable %d degraded %d, %s",
		p.Name, p.Target, p.Current, p.MachineCount, p.Updated, p.Ready, p.Unavailable, p.DegradedCount, strings.Join(conds, " "))
}

// GetMCOPool reads a MachineConfigPool.
func GetMCOPool(t testing.TB, admin *rest.Config, name string) MCOPool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u, err := dynamic.NewForConfigOrDie(admin).Resource(mcpGVR).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	p := MCOPool{Name: name, Generation: u.GetGeneration(), Conditions: map[string][2]string{}}
	p.Target, _, _ = unstructured.NestedString(u.Object, "spec", "configuration", "name")
	src, _, _ := unstructured.NestedSlice(u.Object, "spec", "configuration", "source")
	for _, s := range src {
		if m, ok := s.(map[string]interface{}); ok {
			n, _ := m["name"].(string)
			p.Source = append(p.Source, n)
		}
	}
	p.Current, _, _ = unstructured.NestedString(u.Object, "status", "configuration", "name")
	p.ObservedGeneration, _, _ = unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	p.MachineCount, _, _ = unstructured.NestedInt64(u.Object, "status", "machineCount")
	p.Updated, _, _ = unstructured.NestedInt64(u.Object, "status", "updatedMachineCount")
	p.Ready, _, _ = unstructured.NestedInt64(u.Object, "status", "readyMachineCount")
	p.Unavailable, _, _ = unstructured.NestedInt64(u.Object, "status", "unavailableMachineCount")
	p.DegradedCount, _, _ = unstructured.NestedInt64(u.Object, "status", "degradedMachineCount")
	status, _, _ := unstructured.NestedMap(u.Object, "status")
	for _, typ := range []string{"Updated", "Updating", "Degraded", "NodeDegraded", "RenderDegraded"} {
		c := conditionOf(status, typ)
		p.Conditions[typ] = [2]string{c.Status, c.Message}
	}
	return p
}

// MCONodeCondition returns a MachineConfigNode condition's status and
// message, and its status.configVersion.
func MCONodeCondition(t testing.TB, admin *rest.Config, node, typ string) (status, message, current, desired string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u, err := dynamic.NewForConfigOrDie(admin).Resource(mcnGVR).Get(ctx, node, metav1.GetOptions{})
	require.NoError(t, err)
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]interface{}); ok && m["type"] == typ {
			status, _ = m["status"].(string)
			message, _ = m["message"].(string)
		}
	}
	current, _, _ = unstructured.NestedString(u.Object, "status", "configVersion", "current")
	desired, _, _ = unstructured.NestedString(u.Object, "status", "configVersion", "desired")
	return status, message, current, desired
}

// ---------------------------------------------------------------------------
// Helpers of the tests that drive the stand-in.

// ApplyStandInPolicy adds node disruption policy entries (path -> service
// to restart) to MachineConfiguration cluster with a field manager of its
// own, and takes them out when the test ends.
func ApplyStandInPolicy(t testing.TB, c *Cluster, restarts map[string]string) {
	t.Helper()
	apply := func(files []interface{}) error {
		body := map[string]interface{}{
			"apiVersion": "operator.openshift.io/v1",
			"kind":       "MachineConfiguration",
			"metadata":   map[string]interface{}{"name": "cluster"},
		}
		if files != nil {
			body["spec"] = map[string]interface{}{"nodeDisruptionPolicy": map[string]interface{}{"files": files}}
		}
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		_, err = c.Dynamic.Resource(MachineConfigurationGVR).Patch(context.Background(), "cluster", types.ApplyPatchType, data,
			metav1.PatchOptions{FieldManager: "e2e-mco-standin-test", Force: ptr(true)})
		return err
	}
	var files []interface{}
	for p, svc := range restarts {
		files = append(files, map[string]interface{}{"path": p, "actions": []interface{}{
			map[string]interface{}{"type": "Restart", "restart": map[string]interface{}{"serviceName": svc}},
		}})
	}
	require.NoError(t, apply(files))
	t.Cleanup(func() {
		if err := apply(nil); err != nil {
			t.Errorf("taking the stand-in test's node disruption policy entries out: %v", err)
		}
	})
}

func WaitStandInPool(t testing.TB, c *Cluster, name, what string, ok func(MCOPool) bool) MCOPool {
	t.Helper()
	var p MCOPool
	Eventually(t, 3*time.Minute, 200*time.Millisecond, func() (bool, error) {
		p = GetMCOPool(t, c.Config, name)
		return ok(p), nil
	}, fmt.Sprintf("%s (%s)", what, p))
	t.Logf("%s", p)
	return p
}

func PoolSettled(p MCOPool) bool {
	return p.Target != "" && p.Current == p.Target && p.Condition("Updated") && !p.Condition("Updating") && !p.Condition("Degraded") &&
		p.MachineCount == p.Updated && p.ObservedGeneration == p.Generation
}

// CRIOHealthy GETs the node's CRI-O metrics (plain HTTP, 00-default's
// endpoint on the node's address).
func CRIOHealthy(n *PlatformNode) error {
	return crioMetrics(HTTPGet(nil, "http://"+n.MetricsAddr+"/metrics", ""))
}

// CRIODropIn reads a drop-in from the directory the node's real CRI-O reads.
func CRIODropIn(n *PlatformNode, path string) (string, error) {
	b, err := os.ReadFile(filepath.Join(n.CRIODir, "crio.conf.d", filepath.Base(path)))
	return string(b), err
}

func CountEvents(events []MCOEvent, node string, kind MCOEventKind, detail string) int {
	c := 0
	for _, e := range events {
		if (kind == "" || e.Kind == kind) && (node == "" || e.Node == node) && (detail == "" || e.Detail == detail) {
			c++
		}
	}
	return c
}
