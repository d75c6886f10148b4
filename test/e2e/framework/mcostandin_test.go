package framework

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

func testMC(name, role string, files ...[2]string) *unstructured.Unstructured {
	var fs []interface{}
	for _, f := range files {
		fs = append(fs, map[string]interface{}{"path": f[0], "contents": map[string]interface{}{"source": "data:," + f[1]}})
	}
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"metadata": map[string]interface{}{"name": name, "labels": map[string]interface{}{mcoRoleLabel: role}},
		"spec":     map[string]interface{}{"config": map[string]interface{}{"storage": map[string]interface{}{"files": fs}}},
	}}
}

func renderedSource(t *testing.T, r RenderedConfig, path string) string {
	t.Helper()
	files, _, _ := unstructured.NestedSlice(r.Spec, "config", "storage", "files")
	for _, f := range files {
		m := f.(map[string]interface{})
		if m["path"] == path {
			s, _, _ := unstructured.NestedString(m, "contents", "source")
			return s
		}
	}
	return ""
}

func TestRenderPool(t *testing.T) {
	const p = "/etc/crio/crio.conf.d/60-x.conf"
	worker := testMC("60-worker-x", "worker", [2]string{p, "worker"}, [2]string{"/etc/a", "a"})
	late := testMC("99-worker-y", "worker", [2]string{p, "late-worker"})
	canary := testMC("10-canary-x", "canary", [2]string{p, "canary"})

	// The last by name wins among the worker configs.
	r, err := RenderPool("worker", []*unstructured.Unstructured{late, worker})
	require.NoError(t, err)
	if got := renderedSource(t, r, p); got != "data:,late-worker" {
		t.Errorf("worker pool: %s = %q, want the later config's", p, got)
	}
	if !strings.HasPrefix(r.Name, "rendered-worker-") || !reflect.DeepEqual(r.Source, []string{"60-worker-x", "99-worker-y"}) {
		t.Errorf("name %s, source %v", r.Name, r.Source)
	}
	// A custom pool's config wins over the worker configs whatever its name
	// (MergeMachineConfigs puts role worker first).
	r2, err := RenderPool("canary", []*unstructured.Unstructured{worker, late, canary})
	require.NoError(t, err)
	if got := renderedSource(t, r2, p); got != "data:,canary" {
		t.Errorf("canary pool: %s = %q, want the canary config's", p, got)
	}
	if got := renderedSource(t, r2, "/etc/a"); got != "data:,a" {
		t.Errorf("canary pool inherits /etc/a: %q", got)
	}
	// Same configs, same name; the order given does not matter.
	r3, _ := RenderPool("worker", []*unstructured.Unstructured{worker, late})
	if r3.Name != r.Name {
		t.Errorf("rendering is not deterministic: %s vs %s", r3.Name, r.Name)
	}
	// The same content on two pools gives the same hash, as in MCO.
	r4, _ := RenderPool("canary", []*unstructured.Unstructured{worker, late})
	if strings.TrimPrefix(r4.Name, "rendered-canary-") != strings.TrimPrefix(r.Name, "rendered-worker-") {
		t.Errorf("hash depends on more than the spec: %s vs %s", r4.Name, r.Name)
	}
}

func TestDisruptionActions(t *testing.T) {
	none := policyFile("/etc/none", operatorv1.NodeDisruptionPolicyStatusAction{Type: operatorv1.NoneStatusAction})
	policy := []operatorv1.NodeDisruptionPolicyStatusFile{
		policyFile("/etc/crio/crio.conf.d/60-x.conf", restartAction("crio.service")),
		policyFile("/etc/crio/crio.conf.d/61-y.conf", restartAction("crio.service")),
		policyFile("/etc/openshift/kubelet.conf.d", restartAction("kubelet.service")),
		policyFile("/etc/openshift", restartAction("other.service")),
		none,
	}
	crio, kubelet := DisruptionAction{Type: "Restart", Service: "crio.service"}, DisruptionAction{Type: "Restart", Service: "kubelet.service"}
	for _, tc := range []struct {
		paths []string
		want  []DisruptionAction
	}{
		{nil, []DisruptionAction{{Type: "None"}}},
		{[]string{"/etc/crio/crio.conf.d/60-x.conf"}, []DisruptionAction{crio}},
		// The longest directory above the path wins.
		{[]string{"/etc/openshift/kubelet.conf.d/60-x.conf"}, []DisruptionAction{kubelet}},
		// None is dropped next to other actions.
		{[]string{"/etc/none", "/etc/crio/crio.conf.d/60-x.conf"}, []DisruptionAction{crio}},
		{[]string{"/etc/none"}, []DisruptionAction{{Type: "None"}}},
		// Not de-duplicated, in the order of the paths (the diff's map
		// order in MCO).
		{[]string{"/etc/crio/crio.conf.d/61-y.conf", "/etc/openshift/kubelet.conf.d/60-x.conf", "/etc/crio/crio.conf.d/60-x.conf"}, []DisruptionAction{crio, kubelet, crio}},
		{[]string{"/etc/openshift/kubelet.conf.d/60-x.conf", "/etc/crio/crio.conf.d/60-x.conf"}, []DisruptionAction{kubelet, crio}},
		// No entry: reboot, whatever else changed.
		{[]string{"/etc/crio/crio.conf.d/60-x.conf", "/etc/crio/crio.conf.d/62-z.conf"}, []DisruptionAction{{Type: "Reboot"}}},
		// A prefix that is not a directory above the path does not match.
		{[]string{"/etc/crio/crio.conf.d/60-x.conf.bak"}, []DisruptionAction{{Type: "Reboot"}}},
	} {
		if got := DisruptionActions(tc.paths, policy); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: got %v, want %v", tc.paths, got, tc.want)
		}
	}
}

// The daemon reads the status: an entry only in the spec, before MCO's
// operator has computed the status, counts for nothing.
func TestDisruptionActionsReadTheStatus(t *testing.T) {
	const dropIn = "/etc/crio/crio.conf.d/60-x.conf"
	mc := &operatorv1.MachineConfiguration{ObjectMeta: metav1.ObjectMeta{Generation: 2}}
	mc.Spec.NodeDisruptionPolicy.Files = []operatorv1.NodeDisruptionPolicySpecFile{{Path: dropIn, Actions: []operatorv1.NodeDisruptionPolicySpecAction{
		{Type: operatorv1.RestartSpecAction, Restart: &operatorv1.RestartService{ServiceName: "crio.service"}}}}}
	mc.Status.ObservedGeneration = 1
	mc.Status.NodeDisruptionPolicyStatus.ClusterPolicies = ClusterPolicies(operatorv1.NodeDisruptionPolicyConfig{})
	if PolicyStatusReady(mc) {
		t.Error("status of generation 1 taken as ready for generation 2")
	}
	if got := DisruptionActions([]string{dropIn}, mc.Status.NodeDisruptionPolicyStatus.ClusterPolicies.Files); !reflect.DeepEqual(got, []DisruptionAction{{Type: "Reboot"}}) {
		t.Errorf("before the status lists the entry: %v, want a reboot", got)
	}
	mc.Status.ObservedGeneration = 2
	mc.Status.NodeDisruptionPolicyStatus.ClusterPolicies = ClusterPolicies(mc.Spec.NodeDisruptionPolicy)
	if !PolicyStatusReady(mc) {
		t.Error("status at the generation not ready")
	}
	if got := DisruptionActions([]string{dropIn}, mc.Status.NodeDisruptionPolicyStatus.ClusterPolicies.Files); !reflect.DeepEqual(got, []DisruptionAction{{Type: "Restart", Service: "crio.service"}}) {
		t.Errorf("once listed: %v", got)
	}
	if PolicyStatusReady(nil) {
		t.Error("no MachineConfiguration taken as ready")
	}
}

func TestClusterPolicies(t *testing.T) {
	defaults := mcoDefaultPolicies()
	got := ClusterPolicies(operatorv1.NodeDisruptionPolicyConfig{})
	if !reflect.DeepEqual(got, defaults) {
		t.Errorf("no spec: got %+v, want the defaults", got)
	}
	for _, f := range defaults.Files {
		if strings.HasPrefix(f.Path, "/etc/crio/crio.conf.d") || strings.HasPrefix(f.Path, "/etc/openshift/kubelet.conf.d") {
			t.Errorf("a default covers the operator's drop-ins: %s", f.Path)
		}
	}
	restart := func(path, svc string) operatorv1.NodeDisruptionPolicySpecFile {
		return operatorv1.NodeDisruptionPolicySpecFile{Path: path, Actions: []operatorv1.NodeDisruptionPolicySpecAction{{
			Type: operatorv1.RestartSpecAction, Restart: &operatorv1.RestartService{ServiceName: operatorv1.NodeDisruptionPolicyServiceName(svc)}}}}
	}
	spec := operatorv1.NodeDisruptionPolicyConfig{
		Files: []operatorv1.NodeDisruptionPolicySpecFile{
			restart("/etc/crio/crio.conf.d/60-x.conf", "crio.service"),
			// Replaces the default of that path, in its place.
			restart("/etc/containers/policy.json", "crio.service"),
		},
		Units:  []operatorv1.NodeDisruptionPolicySpecUnit{{Name: "foo.service", Actions: []operatorv1.NodeDisruptionPolicySpecAction{{Type: operatorv1.NoneSpecAction}}}},
		SSHKey: operatorv1.NodeDisruptionPolicySpecSSHKey{Actions: []operatorv1.NodeDisruptionPolicySpecAction{{Type: operatorv1.DrainSpecAction}}},
	}
	got = ClusterPolicies(spec)
	if len(got.Files) != len(defaults.Files)+1 {
		t.Fatalf("files: %d, want the %d defaults and one appended", len(got.Files), len(defaults.Files))
	}
	if last := got.Files[len(got.Files)-1]; !reflect.DeepEqual(last, policyFile("/etc/crio/crio.conf.d/60-x.conf", restartAction("crio.service"))) {
		t.Errorf("appended: %+v", last)
	}
	for i, f := range got.Files[:len(defaults.Files)] {
		want := defaults.Files[i]
		if f.Path == "/etc/containers/policy.json" {
			want = policyFile(f.Path, restartAction("crio.service"))
		}
		if !reflect.DeepEqual(f, want) {
			t.Errorf("file %d: got %+v, want %+v", i, f, want)
		}
	}
	if len(got.Units) != len(defaults.Units)+1 || got.Units[len(got.Units)-1].Name != "foo.service" {
		t.Errorf("units: %+v", got.Units)
	}
	if !reflect.DeepEqual(got.SSHKey.Actions, []operatorv1.NodeDisruptionPolicyStatusAction{{Type: operatorv1.DrainStatusAction}}) {
		t.Errorf("sshkey: %+v", got.SSHKey)
	}

	// What the API server gives back compares equal to what is computed:
	// otherwise the operator part would write the status on every pass.
	raw, err := json.Marshal(operatorv1.MachineConfigurationStatus{NodeDisruptionPolicyStatus: operatorv1.NodeDisruptionPolicyStatus{ClusterPolicies: got}})
	require.NoError(t, err)
	var m map[string]interface{}
	require.NoError(t, json.Unmarshal(raw, &m))
	back := operatorv1.MachineConfigurationStatus{}
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(m, &back))
	if !reflect.DeepEqual(back.NodeDisruptionPolicyStatus.ClusterPolicies, got) {
		t.Errorf("round trip changes the policies:\n%+v\n%+v", back.NodeDisruptionPolicyStatus.ClusterPolicies, got)
	}
}

// The diff lists removed paths first, then added or changed ones.
func TestFileDiff(t *testing.T) {
	f := func(c string) map[string]interface{} {
		return map[string]interface{}{"contents": map[string]interface{}{"source": c}}
	}
	oldFiles := map[string]map[string]interface{}{"/a": f("1"), "/b": f("1"), "/gone1": f("1"), "/gone2": f("1")}
	newFiles := map[string]map[string]interface{}{"/a": f("1"), "/b": f("2"), "/new": f("1")}
	got := fileDiff(oldFiles, newFiles)
	if len(got) != 4 {
		t.Fatalf("got %v", got)
	}
	removed := map[string]bool{got[0]: true, got[1]: true}
	if !removed["/gone1"] || !removed["/gone2"] {
		t.Errorf("removed paths not first: %v", got)
	}
	rest := map[string]bool{got[2]: true, got[3]: true}
	if !rest["/b"] || !rest["/new"] {
		t.Errorf("changed and added: %v", got)
	}
}

// A CRI-O restart restarts the kubelet too (kubelet.service
// Requires=crio.service in MCO's templates); nothing else is modelled.
func TestRequiredBy(t *testing.T) {
	if !reflect.DeepEqual(requiredBy["crio.service"], []string{"kubelet.service"}) {
		t.Errorf("crio.service: %v", requiredBy["crio.service"])
	}
	if len(requiredBy["kubelet.service"]) != 0 {
		t.Errorf("kubelet.service: %v", requiredBy["kubelet.service"])
	}
}

func TestPrimaryPool(t *testing.T) {
	pool := func(name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]interface{}{
			"metadata": map[string]interface{}{"name": name},
			"spec":     map[string]interface{}{"nodeSelector": map[string]interface{}{"matchLabels": map[string]interface{}{"node-role.kubernetes.io/" + name: ""}}},
		}}
	}
	pools := []*unstructured.Unstructured{pool("canary"), pool("infra"), pool("master"), pool("worker")}
	node := func(roles ...string) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{}}}
		for _, r := range roles {
			n.Labels["node-role.kubernetes.io/"+r] = ""
		}
		return n
	}
	for _, tc := range []struct {
		roles []string
		want  string
		err   bool
	}{
		{[]string{"worker"}, "worker", false},
		{[]string{"worker", "canary"}, "canary", false},
		{[]string{"master", "canary"}, "master", false},
		{[]string{"worker", "canary", "infra"}, "", true},
		{nil, "", false},
	} {
		got, err := primaryPool(node(tc.roles...), pools)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("%v: got %q, %v", tc.roles, got, err)
		}
	}
}

func TestPoolStatus(t *testing.T) {
	pool := &unstructured.Unstructured{Object: map[string]interface{}{
		"metadata": map[string]interface{}{"name": "worker", "generation": int64(3)},
		"spec":     map[string]interface{}{"configuration": map[string]interface{}{"name": "rendered-worker-b"}},
		"status":   map[string]interface{}{"configuration": map[string]interface{}{"name": "rendered-worker-a"}},
	}}
	ready := []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	node := func(name, cur, des, state string) *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{
				MCOCurrentConfigAnnotation: cur, MCODesiredConfigAnnotation: des, MCOStateAnnotation: state, MCOReasonAnnotation: "boom",
			}},
			Status: corev1.NodeStatus{Conditions: ready},
		}
	}
	now := metav1.Now()
	st := poolStatus(pool, []*corev1.Node{node("a", "rendered-worker-b", "rendered-worker-b", "Done"), node("b", "rendered-worker-a", "rendered-worker-b", "Working")}, now)
	if st["updatedMachineCount"] != int64(1) || st["unavailableMachineCount"] != int64(1) || st["observedGeneration"] != int64(3) {
		t.Errorf("updating: %v", st)
	}
	if conditionOf(st, "Updating").Status != "True" || conditionOf(st, "Updated").Status != "False" {
		t.Errorf("updating: conditions %v", st["conditions"])
	}
	if name, _, _ := unstructured.NestedString(st, "configuration", "name"); name != "rendered-worker-a" {
		t.Errorf("status.configuration moved before the pool was updated: %s", name)
	}
	st = poolStatus(pool, []*corev1.Node{node("a", "rendered-worker-b", "rendered-worker-b", "Done"), node("b", "rendered-worker-a", "rendered-worker-b", "Degraded")}, now)
	if st["degradedMachineCount"] != int64(1) || st["unavailableMachineCount"] != int64(0) ||
		conditionOf(st, "NodeDegraded").Status != "True" || conditionOf(st, "Degraded").Status != "True" ||
		!strings.Contains(conditionOf(st, "Degraded").Message, `Node b is reporting: "boom"`) {
		t.Errorf("degraded: %v", st)
	}
	st = poolStatus(pool, []*corev1.Node{node("a", "rendered-worker-b", "rendered-worker-b", "Done")}, now)
	if name, _, _ := unstructured.NestedString(st, "configuration", "name"); name != "rendered-worker-b" || conditionOf(st, "Updated").Status != "True" {
		t.Errorf("updated: %v", st)
	}
}

func TestSummarizeCRIOError(t *testing.T) {
	err := errors.New("node worker-2: hack/crio.sh start (CRIO_METRICS_TLS=0): exit status 1\n" +
		"crio.sh [/x/crio]: starting /bin/crio (metrics http://127.0.1.3:9537/metrics, socket /x/crio.sock)\n" +
		`time="2026-11-23T00:48:02Z" level=info msg="Serving metrics"` + "\n" +
		`time="2026-11-23T00:48:04Z" level=fatal msg="unable to decode configuration /x/70.conf: toml: line 3 (last key \"crio.tracing.enable_tracing\"): incompatible types"` + "\n" +
		"crio.sh [/x/crio]: CRI-O exited during start (log: /x/crio/crio.log)\n")
	want := `unable to decode configuration /x/70.conf: toml: line 3 (last key "crio.tracing.enable_tracing"): incompatible types; CRI-O exited during start (log: /x/crio/crio.log)`
	if got := summarizeCRIOError(err); got.Error() != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := summarizeCRIOError(errors.New("other")); got.Error() != "other" {
		t.Errorf("got %q", got)
	}
}
