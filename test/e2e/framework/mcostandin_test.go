package framework

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
)

func testMC(name, role string, files ...[2]string) *unstructured.Unstructured {
	var fs []interface{}
	for _, f := range files {
		fs = append(fs, map[string]interface{}{"path": f[0], "contents": map[string]interface{}{"source": "data:," + f[1]}})
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfig",
		"metadata": map[string]interface{}{"name": name, "labels": map[string]interface{}{mcoRoleLabel: role}},
		"spec":     map[string]interface{}{"config": map[string]interface{}{"storage": map[string]interface{}{"files": fs}}},
	}}
}

func renderedSource(r RenderedConfig, path string) string {
	files, _, _ := unstructured.NestedSlice(r.Spec, "config", "storage", "files")
	for _, f := range files {
		if m := f.(map[string]interface{}); m["path"] == path {
			s, _, _ := unstructured.NestedString(m, "contents", "source")
			return s
		}
	}
	return ""
}

// TestMCOStandInDecisions: the stand-in's pure decisions, one MCO fact a
// row (docs/mco-standin.md); the sync that uses them: TestMCOStandInSync.
func TestMCOStandInDecisions(t *testing.T) {
	const dropIn, kubeletDropIn = "/etc/crio/crio.conf.d/60-x.conf", "/etc/openshift/kubelet.conf.d/60-x.conf"
	worker, late := testMC("60-worker-x", "worker", [2]string{dropIn, "worker"}), testMC("99-worker-y", "worker", [2]string{dropIn, "late-worker"})
	r, err := RenderPool("worker", []*unstructured.Unstructured{late, worker})
	require.NoError(t, err)
	r2, _ := RenderPool("worker", []*unstructured.Unstructured{worker, late})

	none := policyFile("/etc/none", operatorv1.NodeDisruptionPolicyStatusAction{Type: operatorv1.NoneStatusAction})
	policy := []operatorv1.NodeDisruptionPolicyStatusFile{policyFile(dropIn, restartAction("crio.service")),
		policyFile("/etc/crio/crio.conf.d/61-y.conf", restartAction("crio.service")), policyFile("/etc/openshift/kubelet.conf.d", restartAction("kubelet.service")),
		policyFile("/etc/openshift", restartAction("other.service")), none}
	crio, kubelet := DisruptionAction{Type: "Restart", Service: "crio.service"}, DisruptionAction{Type: "Restart", Service: "kubelet.service"}
	reboot := []DisruptionAction{{Type: "Reboot"}}
	actions := func(paths ...string) []DisruptionAction { return DisruptionActions(paths, policy) }

	defaults := mcoDefaultPolicies()
	restart := func(path, svc string) operatorv1.NodeDisruptionPolicySpecFile {
		return operatorv1.NodeDisruptionPolicySpecFile{Path: path, Actions: []operatorv1.NodeDisruptionPolicySpecAction{{
			Type: operatorv1.RestartSpecAction, Restart: &operatorv1.RestartService{ServiceName: operatorv1.NodeDisruptionPolicyServiceName(svc)}}}}
	}
	spec := operatorv1.NodeDisruptionPolicyConfig{Files: []operatorv1.NodeDisruptionPolicySpecFile{restart(dropIn, "crio.service"), restart("/etc/containers/policy.json", "crio.service")},
		Units:  []operatorv1.NodeDisruptionPolicySpecUnit{{Name: "foo.service", Actions: []operatorv1.NodeDisruptionPolicySpecAction{{Type: operatorv1.NoneSpecAction}}}},
		SSHKey: operatorv1.NodeDisruptionPolicySpecSSHKey{Actions: []operatorv1.NodeDisruptionPolicySpecAction{{Type: operatorv1.DrainSpecAction}}}}
	merged, want := ClusterPolicies(spec), mcoDefaultPolicies()
	want.Files[slices.IndexFunc(want.Files, func(f operatorv1.NodeDisruptionPolicyStatusFile) bool { return f.Path == "/etc/containers/policy.json" })] =
		policyFile("/etc/containers/policy.json", restartAction("crio.service"))
	want.Files = append(want.Files, policyFile(dropIn, restartAction("crio.service")))
	want.Units = append(want.Units, operatorv1.NodeDisruptionPolicyStatusUnit{Name: "foo.service", Actions: []operatorv1.NodeDisruptionPolicyStatusAction{{Type: operatorv1.NoneStatusAction}}})
	want.SSHKey.Actions = []operatorv1.NodeDisruptionPolicyStatusAction{{Type: operatorv1.DrainStatusAction}}
	raw, _ := json.Marshal(operatorv1.MachineConfigurationStatus{NodeDisruptionPolicyStatus: operatorv1.NodeDisruptionPolicyStatus{ClusterPolicies: merged}})
	var m map[string]interface{}
	require.NoError(t, json.Unmarshal(raw, &m))
	back := operatorv1.MachineConfigurationStatus{}
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(m, &back))
	status := func(gen, observed int64) *operatorv1.MachineConfiguration {
		return &operatorv1.MachineConfiguration{ObjectMeta: metav1.ObjectMeta{Generation: gen}, Status: operatorv1.MachineConfigurationStatus{ObservedGeneration: observed}}
	}

	f := func(c string) map[string]interface{} {
		return map[string]interface{}{"contents": map[string]interface{}{"source": c}}
	}
	diff := fileDiff(map[string]map[string]interface{}{"/a": f("1"), "/b": f("1"), "/gone1": f("1"), "/gone2": f("1")},
		map[string]map[string]interface{}{"/a": f("1"), "/b": f("2"), "/new": f("1")})
	require.Len(t, diff, 4)

	var pools []*mcfgv1.MachineConfigPool
	for _, name := range []string{"canary", "infra", "master", "worker"} {
		p, err := platform.Typed[mcfgv1.MachineConfigPool](mcoPoolObject(name))
		require.NoError(t, err)
		pools = append(pools, p)
	}
	primary := func(roles ...string) string {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{}}}
		for _, r := range roles {
			n.Labels["node-role.kubernetes.io/"+r] = ""
		}
		p, err := primaryPool(n, pools)
		return fmt.Sprintf("%s %t", p, err != nil)
	}

	for _, tc := range []struct {
		name      string
		got, want interface{}
	}{
		{"render: the later worker config by name wins", renderedSource(r, dropIn), "data:,late-worker"},
		{"render: source by name", r.Source, []string{"60-worker-x", "99-worker-y"}},
		{"render: named after the pool", strings.HasPrefix(r.Name, "rendered-worker-"), true},
		{"render: the order given does not matter", r2.Name, r.Name},
		{"actions: no changed path", actions(), []DisruptionAction{{Type: "None"}}},
		{"actions: the path's entry", actions(dropIn), []DisruptionAction{crio}},
		{"actions: the longest directory above wins", actions(kubeletDropIn), []DisruptionAction{kubelet}},
		{"actions: None dropped beside others", actions("/etc/none", dropIn), []DisruptionAction{crio}},
		{"actions: None alone", actions("/etc/none"), []DisruptionAction{{Type: "None"}}},
		{"actions: in path order, not de-duplicated", actions("/etc/crio/crio.conf.d/61-y.conf", kubeletDropIn, dropIn), []DisruptionAction{crio, kubelet, crio}},
		{"actions: path order", actions(kubeletDropIn, dropIn), []DisruptionAction{kubelet, crio}},
		{"actions: a path without an entry reboots", actions(dropIn, "/etc/crio/crio.conf.d/62-z.conf"), reboot},
		{"actions: a prefix is not a directory", actions(dropIn + ".bak"), reboot},
		{"policies: no spec, the defaults", ClusterPolicies(operatorv1.NodeDisruptionPolicyConfig{}), defaults},
		{"policies: no default covers our drop-ins", DisruptionActions([]string{dropIn, kubeletDropIn}, defaults.Files), reboot},
		{"policies: replaced in place, appended, units, SSH key", merged, want},
		{"policies: the API server's copy is equal (no write every pass)", back.NodeDisruptionPolicyStatus.ClusterPolicies, merged},
		{"policy status: of an older generation", PolicyStatusReady(status(2, 1)), false},
		{"policy status: of the generation", PolicyStatusReady(status(2, 2)), true},
		{"policy status: no MachineConfiguration", PolicyStatusReady(nil), false},
		{"diff: removed first", sets.New(diff[:2]...), sets.New("/gone1", "/gone2")},
		{"diff: then changed or added", sets.New(diff[2:]...), sets.New("/b", "/new")},
		{"pool: worker", primary("worker"), "worker false"},
		{"pool: a custom pool over worker", primary("worker", "canary"), "canary false"},
		{"pool: master over a custom pool", primary("master", "canary"), "master false"},
		{"pool: two custom pools", primary("worker", "canary", "infra"), " true"},
		{"pool: none", primary(), " false"},
	} {
		assert.Equal(t, tc.want, tc.got, tc.name)
	}
}

// The stand-in's sync over fake API clients and two fake nodes, worker-1 in
// pool worker and worker-2 in the custom pool canary (role in (worker,
// canary)), whose CRI-O refuses a drop-in saying "refused". What needs the
// real CRI-O (the drop-in in its directory, a restart that fails and the
// rollback that brings it back) TestNodeSettingsTracing proves through the
// stand-in.
func TestMCOStandInSync(t *testing.T) {
	f := newStandInFixture(t)
	f.adoptsNodes()
	f.waitsForPolicyStatusThenRolls()
	f.canaryMachineConfigWins()
	f.refusedDropInDegrades()
	f.revertAndRemovalRecover()
	f.noPolicyEntryReboots()
	f.policyWaitEnds()
}

const (
	standInCRIODropIn    = "/etc/crio/crio.conf.d/70-e2e-standin.conf"
	standInKubeletDropIn = "/etc/openshift/kubelet.conf.d/70-e2e-standin.conf"
	worker1, worker2     = "worker-1", "worker-2"
)

// fakeCRIONode keeps a node's files below root; its CRI-O refuses a
// drop-in saying "refused".
type fakeCRIONode struct{ root string }

func (n fakeCRIONode) HostPath(p string) string { return filepath.Join(n.root, p) }
func (n fakeCRIONode) RestartCRIO() error {
	if b, _ := os.ReadFile(n.HostPath(standInCRIODropIn)); strings.Contains(string(b), "refused") {
		return errors.New("CRI-O exited during start")
	}
	return nil
}

type standInFixture struct {
	t      *testing.T
	s      *MCOStandIn
	dyn    dynamic.Interface
	kube   *kubefake.Clientset
	nodes  map[string]standInNode
	mark   int               // the events before the step
	target map[string]string // the pools' targets as the steps left them
	ctx    context.Context
}

func newStandInFixture(t *testing.T) *standInFixture {
	node := func(name string, roles ...string) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
		for _, r := range roles {
			n.Labels["node-role.kubernetes.io/"+r] = ""
		}
		return n
	}
	policy := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "operator.openshift.io/v1", "kind": "MachineConfiguration",
		"metadata": map[string]interface{}{"name": "cluster", "generation": int64(1)},
		"spec": map[string]interface{}{"nodeDisruptionPolicy": map[string]interface{}{"files": []interface{}{
			map[string]interface{}{"path": standInCRIODropIn, "actions": []interface{}{map[string]interface{}{"type": "Restart", "restart": map[string]interface{}{"serviceName": "crio.service"}}}},
			map[string]interface{}{"path": standInKubeletDropIn, "actions": []interface{}{map[string]interface{}{"type": "Restart", "restart": map[string]interface{}{"serviceName": "kubelet.service"}}}},
		}}}}}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		mcGVR: "MachineConfigList", mcpGVR: "MachineConfigPoolList", mcnGVR: "MachineConfigNodeList", MachineConfigurationGVR: "MachineConfigurationList",
	}, mcoPoolObject("worker"), mcoPoolObject("canary"), policy, testMC("01-worker-container-runtime", "worker", [2]string{MCOCRIODropIn, "default"}))
	f := &standInFixture{t: t, dyn: dyn, kube: kubefake.NewClientset(node(worker1, "worker"), node(worker2, "worker", "canary")),
		nodes: map[string]standInNode{worker1: fakeCRIONode{t.TempDir()}, worker2: fakeCRIONode{t.TempDir()}}, target: map[string]string{}, ctx: context.Background()}
	f.s = newMCOStandIn(t, f.dyn, f.kube, f.nodes)
	f.s.SetOperatorPart(false)
	return f
}

// settle syncs until the stand-in has nothing left to do and returns what
// it did.
func (f *standInFixture) settle() []MCOEvent {
	f.t.Helper()
	for range 6 {
		require.NoError(f.t, f.s.sync(f.ctx))
	}
	ev := f.s.Events()[f.mark:]
	f.mark += len(ev)
	return ev
}

func (f *standInFixture) applyMC(name, role, path, content string) {
	f.t.Helper()
	mc := testMC(name, role, [2]string{path, content})
	if _, err := f.dyn.Resource(mcGVR).Update(f.ctx, mc, metav1.UpdateOptions{}); apierrors.IsNotFound(err) {
		_, err = f.dyn.Resource(mcGVR).Create(f.ctx, mc, metav1.CreateOptions{})
		require.NoError(f.t, err)
	}
}

func (f *standInFixture) deleteMC(name string) {
	require.NoError(f.t, f.dyn.Resource(mcGVR).Delete(f.ctx, name, metav1.DeleteOptions{}))
}

func getTyped[T any](f *standInFixture, gvr schema.GroupVersionResource, name string) *T {
	u, err := f.dyn.Resource(gvr).Get(f.ctx, name, metav1.GetOptions{})
	require.NoError(f.t, err)
	o, err := platform.Typed[T](u)
	require.NoError(f.t, err)
	return o
}

func (f *standInFixture) pool(name string) *mcfgv1.MachineConfigPool {
	return getTyped[mcfgv1.MachineConfigPool](f, mcpGVR, name)
}

func (f *standInFixture) mcn(node string) *mcfgv1.MachineConfigNode {
	return getTyped[mcfgv1.MachineConfigNode](f, mcnGVR, node)
}

func (f *standInFixture) annotations(node string) map[string]string {
	n, err := f.kube.CoreV1().Nodes().Get(f.ctx, node, metav1.GetOptions{})
	require.NoError(f.t, err)
	return n.Annotations
}

func (f *standInFixture) file(node, path string) string {
	b, err := os.ReadFile(f.nodes[node].HostPath(path))
	if os.IsNotExist(err) {
		return "<none>"
	}
	require.NoError(f.t, err)
	return string(b)
}

// settled asserts that each pool runs a new target (or, with back, the one
// an earlier step left) on all its machines, and keeps it.
func (f *standInFixture) settled(back map[string]string, pools ...string) {
	f.t.Helper()
	for _, name := range pools {
		p := f.pool(name)
		assert.True(f.t, PoolSettled(p), describePool(p))
		if want, ok := back[name]; ok {
			assert.Equal(f.t, want, p.Spec.Configuration.Name, "pool %s back", name)
		} else {
			assert.NotEqual(f.t, f.target[name], p.Spec.Configuration.Name, "pool %s targets a new config", name)
		}
		f.target[name] = p.Spec.Configuration.Name
	}
}

// adoptsNodes: the pools are rendered from 01-worker-container-runtime (the
// same hash on both), each with one machine; the nodes are taken to run it
// already (no file written), Done, their MachineConfigNodes Updated.
func (f *standInFixture) adoptsNodes() {
	t := f.t
	ev := f.settle()
	f.settled(nil, "worker", "canary")
	w, k := f.pool("worker"), f.pool("canary")
	assert.Equal(t, strings.TrimPrefix(w.Spec.Configuration.Name, "rendered-worker-"), strings.TrimPrefix(k.Spec.Configuration.Name, "rendered-canary-"))
	assert.Equal(t, "01-worker-container-runtime", w.Spec.Configuration.Source[0].Name)
	assert.EqualValues(t, 1, w.Status.MachineCount, "worker-2 is in pool canary only")
	assert.Zero(t, CountEvents(ev, "", MCOFileWritten, ""))
	for node, pool := range map[string]string{worker1: "worker", worker2: "canary"} {
		a, mcn := f.annotations(node), f.mcn(node)
		assert.Equal(t, []string{f.target[pool], f.target[pool], mcoDone}, []string{a[mcoCurrentConfig], a[mcoDesiredConfig], a[mcoState]}, node)
		assert.Equal(t, pool, mcn.Spec.Pool.Name)
		assert.Equal(t, f.target[pool], mcn.Status.ConfigVersion.Current)
		assert.True(t, meta.IsStatusConditionTrue(mcn.Status.Conditions, "Updated"), node)
		assert.Len(t, mcn.Status.Conditions, len(mcnConditionTypes))
	}
}

// waitsForPolicyStatusThenRolls: with the entries in the spec only, the
// pools target the new config, Updating, and the daemons wait; once the
// operator part lists them, each node gets the files with a CRI-O restart,
// a kubelet restart for its drop-in and one more with CRI-O's, no reboot.
func (f *standInFixture) waitsForPolicyStatusThenRolls() {
	t := f.t
	_, err := f.dyn.Resource(mcGVR).Create(f.ctx, testMC("70-worker-e2e", "worker", [2]string{standInCRIODropIn, "worker"}, [2]string{standInKubeletDropIn, "kubelet"}), metav1.CreateOptions{})
	require.NoError(t, err)
	ev := f.settle()
	w := f.pool("worker")
	assert.NotEqual(t, f.target["worker"], w.Spec.Configuration.Name)
	assert.Equal(t, f.target["worker"], w.Status.Configuration.Name, "status.configuration waits for every machine")
	assert.True(t, poolCondition(&w.Status, "Updating").Status == corev1.ConditionTrue && w.Status.UnavailableMachineCount == 1, describePool(w))
	assert.Zero(t, CountEvents(ev, "", MCOFileWritten, "")+CountEvents(ev, "", MCORebooted, ""), "a node updated while the status lacks the entries: %v", ev)
	f.s.SetOperatorPart(true)
	ev = f.settle()
	f.settled(nil, "worker", "canary")
	for _, node := range []string{worker1, worker2} {
		assert.Equal(t, "worker", f.file(node, standInCRIODropIn))
		assert.Equal(t, "kubelet", f.file(node, standInKubeletDropIn))
		assert.Equal(t, 1, CountEvents(ev, node, MCOServiceRestarted, "crio.service"), node)
		assert.Equal(t, 1, CountEvents(ev, node, MCOServiceRestarted, "kubelet.service"), node)
		assert.Equal(t, 1, CountEvents(ev, node, MCODependentRestarted, "kubelet.service"), node)
	}
	assert.Equal(t, 1, CountEvents(ev, "", MCOPolicyStatusSynced, ""))
	assert.Equal(t, 2, CountEvents(ev, "", MCOPoolUpdated, ""))
	assert.Zero(t, CountEvents(ev, "", MCORebooted, "")+CountEvents(ev, "", MCODrained, ""))
}

// canaryMachineConfigWins: a canary MachineConfig for the same path wins on
// the canary pool, whatever the names; nothing happens on worker-1.
func (f *standInFixture) canaryMachineConfigWins() {
	f.applyMC("10-canary-e2e", "canary", standInCRIODropIn, "canary")
	ev := f.settle()
	f.settled(map[string]string{"worker": f.target["worker"]}, "worker")
	f.settled(nil, "canary")
	assert.Equal(f.t, "canary", f.file(worker2, standInCRIODropIn))
	assert.Zero(f.t, CountEvents(ev, worker1, "", ""))
	assert.Equal(f.t, []int{1, 0, 1}, []int{CountEvents(ev, worker2, MCOServiceRestarted, "crio.service"),
		CountEvents(ev, worker2, MCOServiceRestarted, "kubelet.service"), CountEvents(ev, worker2, MCODependentRestarted, "kubelet.service")})
}

// refusedDropInDegrades: CRI-O refuses the new drop-in: the files go back,
// CRI-O starts again with them, the node and the canary pool are
// degraded, and the update is not retried.
func (f *standInFixture) refusedDropInDegrades() {
	t := f.t
	f.applyMC("10-canary-e2e", "canary", standInCRIODropIn, "refused")
	ev := f.settle()
	k := f.pool("canary")
	assert.True(t, poolCondition(&k.Status, "Degraded").Status == corev1.ConditionTrue && k.Status.DegradedMachineCount == 1, describePool(k))
	assert.Contains(t, poolCondition(&k.Status, "NodeDegraded").Message, "Node worker-2 is reporting: ")
	assert.Equal(t, f.target["canary"], k.Status.Configuration.Name, "status.configuration stays at the last config every node reached")
	a := f.annotations(worker2)
	assert.Equal(t, []string{mcoDegraded, f.target["canary"], k.Spec.Configuration.Name}, []string{a[mcoState], a[mcoCurrentConfig], a[mcoDesiredConfig]})
	assert.Contains(t, a[mcoReason], "could not apply update: restarting crio.service service failed. Error: CRI-O exited during start")
	assert.True(t, meta.IsStatusConditionTrue(f.mcn(worker2).Status.Conditions, "NodeDegraded"))
	assert.Equal(t, "canary", f.file(worker2, standInCRIODropIn), "rolled back")
	assert.Equal(t, []int{1, 1}, []int{CountEvents(ev, worker2, MCOServiceRestartFailed, ""), CountEvents(ev, worker2, MCOCRIOStartedBySystemd, "")})
	assert.Zero(t, CountEvents(ev, worker1, "", ""))
	assert.Empty(t, f.settle(), "the failed update is retried")
}

// revertAndRemovalRecover: the MachineConfig back at its last good
// content: the node is Done without a restart. Removed, then the worker's
// too: the pools are back where they started and the files gone.
func (f *standInFixture) revertAndRemovalRecover() {
	t := f.t
	f.applyMC("10-canary-e2e", "canary", standInCRIODropIn, "canary")
	ev := f.settle()
	f.settled(map[string]string{"canary": f.target["canary"]}, "canary")
	assert.Zero(t, CountEvents(ev, worker2, MCOServiceRestarted, ""), "no file changed: no restart")
	assert.False(t, meta.IsStatusConditionTrue(f.mcn(worker2).Status.Conditions, "NodeDegraded"))
	f.deleteMC("10-canary-e2e")
	f.deleteMC("70-worker-e2e")
	ev = f.settle()
	for _, node := range []string{worker1, worker2} {
		assert.Equal(t, "<none>", f.file(node, standInCRIODropIn))
		assert.Equal(t, "<none>", f.file(node, standInKubeletDropIn))
		assert.Equal(t, 1, CountEvents(ev, node, MCOFileRemoved, standInCRIODropIn), node)
	}
	assert.Equal(t, f.pool("worker").Spec.Configuration.Source[0].Name, "01-worker-container-runtime")
	assert.Len(t, f.pool("canary").Spec.Configuration.Source, 1)
	assert.Zero(t, CountEvents(ev, "", MCORebooted, ""))
}

// noPolicyEntryReboots: a file the status has no entry for drains and
// reboots each node (recorded), when it comes and when it goes.
func (f *standInFixture) noPolicyEntryReboots() {
	f.applyMC("70-worker-e2e", "worker", "/etc/e2e-standin/no-policy-entry.conf", "x")
	ev := f.settle()
	f.deleteMC("70-worker-e2e")
	ev = append(ev, f.settle()...)
	for _, node := range []string{worker1, worker2} {
		assert.Equal(f.t, []int{2, 2, 0}, []int{CountEvents(ev, node, MCODrained, ""), CountEvents(ev, node, MCORebooted, ""),
			CountEvents(ev, node, MCOServiceRestarted, "")}, node)
	}
}

// policyWaitEnds: a status not computed for the object's generation for
// mcoPolicyWait fails the node's update.
func (f *standInFixture) policyWaitEnds() {
	f.s.SetOperatorPart(false)
	u, err := f.dyn.Resource(MachineConfigurationGVR).Get(f.ctx, "cluster", metav1.GetOptions{})
	require.NoError(f.t, err)
	u.SetGeneration(2)
	_, err = f.dyn.Resource(MachineConfigurationGVR).Update(f.ctx, u, metav1.UpdateOptions{})
	require.NoError(f.t, err)
	f.s.waiting[worker1] = time.Now().Add(-mcoPolicyWait)
	f.applyMC("70-worker-e2e", "worker", standInCRIODropIn, "worker")
	f.settle()
	a := f.annotations(worker1)
	assert.Equal(f.t, mcoDegraded, a[mcoState])
	assert.Equal(f.t, "NodeDisruptionPolicyStatus was not ready: NodeDisruptionPolicyStatus is not up to date", a[mcoReason])
	assert.Equal(f.t, "<none>", f.file(worker1, standInCRIODropIn))
}
