package framework

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
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

// TestMCOStandInDecisions: docs/test-behaviours.md (one MCO fact a row).
func TestMCOStandInDecisions(t *testing.T) {
	const dropIn, kubeletDropIn = "/etc/crio/crio.conf.d/60-x.conf", "/etc/openshift/kubelet.conf.d/60-x.conf"
	worker, late := testMC("60-worker-x", "worker", [2]string{dropIn, "worker"}), testMC("99-worker-y", "worker", [2]string{dropIn, "late-worker"})
	name, spec, err := renderPool("worker", []*unstructured.Unstructured{late, worker})
	require.NoError(t, err)
	name2, _, _ := renderPool("worker", []*unstructured.Unstructured{worker, late})

	restart := func(path, svc string) operatorv1.NodeDisruptionPolicySpecFile {
		return operatorv1.NodeDisruptionPolicySpecFile{Path: path, Actions: []operatorv1.NodeDisruptionPolicySpecAction{{
			Type: operatorv1.RestartSpecAction, Restart: &operatorv1.RestartService{ServiceName: operatorv1.NodeDisruptionPolicyServiceName(svc)}}}}
	}
	merged := ClusterPolicies(operatorv1.NodeDisruptionPolicyConfig{Files: []operatorv1.NodeDisruptionPolicySpecFile{
		restart(dropIn, "crio.service"), restart("/etc/crio/crio.conf.d/61-y.conf", "crio.service"), restart("/etc/openshift/kubelet.conf.d", "kubelet.service"),
		restart("/etc/openshift", "other.service"), {Path: "/etc/none", Actions: []operatorv1.NodeDisruptionPolicySpecAction{{Type: operatorv1.NoneSpecAction}}}}})
	crio, kubelet := DisruptionAction{Type: "Restart", Service: "crio.service"}, DisruptionAction{Type: "Restart", Service: "kubelet.service"}
	reboot := []DisruptionAction{{Type: "Reboot"}}
	actions := func(paths ...string) []DisruptionAction { return DisruptionActions(paths, merged.Files) }
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
	for _, name := range []string{"canary", "master", "worker"} {
		p, err := platform.Typed[mcfgv1.MachineConfigPool](mcoPoolObject(name))
		require.NoError(t, err)
		pools = append(pools, p)
	}
	primary := func(roles ...string) string {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{}}}
		for _, r := range roles {
			n.Labels["node-role.kubernetes.io/"+r] = ""
		}
		return primaryPool(n, pools)
	}

	for _, tc := range []struct {
		name      string
		got, want interface{}
	}{
		{"render: the later worker config by name wins", renderedFiles(&unstructured.Unstructured{Object: map[string]interface{}{"spec": spec}})[dropIn]["contents"], map[string]interface{}{"source": "data:,late-worker"}},
		{"render: named after the pool, the order given does not matter", strings.HasPrefix(name, "rendered-worker-") && name2 == name, true},
		{"actions: no changed path", actions(), []DisruptionAction{{Type: "None"}}},
		{"actions: the longest directory above wins", actions(kubeletDropIn), []DisruptionAction{kubelet}},
		{"actions: None dropped beside others", actions("/etc/none", dropIn), []DisruptionAction{crio}},
		{"actions: in path order, not de-duplicated", actions("/etc/crio/crio.conf.d/61-y.conf", kubeletDropIn, dropIn), []DisruptionAction{crio, kubelet, crio}},
		{"actions: a path without an entry reboots", actions(dropIn, "/etc/crio/crio.conf.d/62-z.conf"), reboot},
		{"actions: a prefix is not a directory", actions(dropIn + ".bak"), reboot},
		{"policies: the API server's copy is equal (no write every pass)", back.NodeDisruptionPolicyStatus.ClusterPolicies, merged},
		{"policy status: of an older generation", PolicyStatusReady(status(2, 1)), false},
		{"policy status: of the generation", PolicyStatusReady(status(2, 2)), true},
		{"policy status: no MachineConfiguration", PolicyStatusReady(nil), false},
		{"diff: removed first", sets.New(diff[:2]...), sets.New("/gone1", "/gone2")},
		{"pool: a custom pool over worker", primary("worker", "canary"), "canary"},
		{"pool: master over a custom pool", primary("master", "canary"), "master"},
		{"pool: none", primary(), ""},
	} {
		assert.Equal(t, tc.want, tc.got, tc.name)
	}
}

const standInCRIODropIn = "/etc/crio/crio.conf.d/70-e2e-standin.conf"

// TestMCOStandInSync: docs/test-behaviours.md.
func TestMCOStandInSync(t *testing.T) {
	const node = "worker-1"
	policy := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "operator.openshift.io/v1", "kind": "MachineConfiguration",
		"metadata": map[string]interface{}{"name": "cluster", "generation": int64(1)},
		"spec": map[string]interface{}{"nodeDisruptionPolicy": map[string]interface{}{"files": []interface{}{
			map[string]interface{}{"path": standInCRIODropIn, "actions": []interface{}{map[string]interface{}{"type": "Restart", "restart": map[string]interface{}{"serviceName": "crio.service"}}}},
		}}}}}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		mcGVR: "MachineConfigList", mcpGVR: "MachineConfigPoolList", mcnGVR: "MachineConfigNodeList", MachineConfigurationGVR: "MachineConfigurationList",
	}, mcoPoolObject("worker"), policy, testMC("01-worker-container-runtime", "worker", [2]string{MCOCRIODropIn, "default"}))
	kube := kubefake.NewClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node, Labels: map[string]string{"node-role.kubernetes.io/worker": ""}}})
	files := FileNode{t.TempDir()}
	s := newMCOStandIn(t, dyn, kube, map[string]standInNode{node: files})
	s.SetOperatorPart(false) // the status lists nothing
	ctx := context.Background()
	settle := func() []MCOEvent {
		from := len(s.Events())
		for range 4 {
			require.NoError(t, s.sync(ctx))
		}
		return s.Events()[from:]
	}
	apply := func(name, path, content string) {
		mc := testMC(name, "worker", [2]string{path, content})
		if _, err := dyn.Resource(mcGVR).Update(ctx, mc, metav1.UpdateOptions{}); apierrors.IsNotFound(err) {
			_, err = dyn.Resource(mcGVR).Create(ctx, mc, metav1.CreateOptions{})
			require.NoError(t, err)
		}
	}
	pool := func() *mcfgv1.MachineConfigPool {
		u, err := dyn.Resource(mcpGVR).Get(ctx, "worker", metav1.GetOptions{})
		require.NoError(t, err)
		p, err := platform.Typed[mcfgv1.MachineConfigPool](u)
		require.NoError(t, err)
		return p
	}
	settle()
	before := pool()
	require.True(t, PoolSettled(before), "the node adopted: %s", describePool(before))

	apply("70-worker-e2e", standInCRIODropIn, "x")
	assert.Equal(t, []MCOEventKind{MCODesired}, kinds(settle()), "the daemon waits while the status lacks the entry")
	p := pool()
	assert.True(t, poolCondition(&p.Status, "Updating").Status == corev1.ConditionTrue && p.Status.Configuration.Name == before.Status.Configuration.Name, describePool(p))
	s.waiting[node] = time.Now().Add(-mcoPolicyWait)
	assert.Equal(t, []MCOEventKind{MCONodeDegraded}, kinds(settle()), "the wait ends in a failed update")
	n, err := kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "NodeDisruptionPolicyStatus was not ready: NodeDisruptionPolicyStatus is not up to date", n.Annotations[mcoReason])
	assert.NoFileExists(t, files.HostPath(standInCRIODropIn))

	// Listed: a new config goes through with a CRI-O restart; then a file
	// without an entry drains and reboots.
	s.SetOperatorPart(true)
	apply("70-worker-e2e", standInCRIODropIn, "y")
	ev := settle()
	assert.Equal(t, []int{1, 1, 0}, []int{CountEvents(ev, node, MCOServiceRestarted, "crio.service"), CountEvents(ev, node, MCODependentRestarted, "kubelet.service"), CountEvents(ev, "", MCORebooted, "")}, "%v", ev)
	b, err := os.ReadFile(files.HostPath(standInCRIODropIn))
	assert.Equal(t, "y", string(b), err)
	apply("71-worker-e2e", "/etc/e2e-standin/no-policy-entry.conf", "z")
	ev = settle()
	assert.Equal(t, []int{1, 1, 0}, []int{CountEvents(ev, node, MCODrained, ""), CountEvents(ev, node, MCORebooted, ""), CountEvents(ev, node, MCOServiceRestarted, "")}, "%v", ev)
	assert.True(t, PoolSettled(pool()), describePool(pool()))
}

func kinds(events []MCOEvent) []MCOEventKind {
	var out []MCOEventKind
	for _, e := range events {
		if e.Kind != MCOPoolUpdated {
			out = append(out, e.Kind)
		}
	}
	return out
}
