package framework

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
	if err != nil {
		t.Fatal(err)
	}
	if got := renderedSource(t, r, p); got != "data:,late-worker" {
		t.Errorf("worker pool: %s = %q, want the later config's", p, got)
	}
	if !strings.HasPrefix(r.Name, "rendered-worker-") || !reflect.DeepEqual(r.Source, []string{"60-worker-x", "99-worker-y"}) {
		t.Errorf("name %s, source %v", r.Name, r.Source)
	}
	// A custom pool's config wins over the worker configs whatever its name
	// (MergeMachineConfigs puts role worker first).
	r2, err := RenderPool("canary", []*unstructured.Unstructured{worker, late, canary})
	if err != nil {
		t.Fatal(err)
	}
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
	restart := func(path, svc string) operatorv1.NodeDisruptionPolicySpecFile {
		return operatorv1.NodeDisruptionPolicySpecFile{Path: path, Actions: []operatorv1.NodeDisruptionPolicySpecAction{{
			Type: operatorv1.RestartSpecAction, Restart: &operatorv1.RestartService{ServiceName: operatorv1.NodeDisruptionPolicyServiceName(svc)},
		}}}
	}
	none := operatorv1.NodeDisruptionPolicySpecFile{Path: "/etc/none", Actions: []operatorv1.NodeDisruptionPolicySpecAction{{Type: operatorv1.NoneSpecAction}}}
	policy := []operatorv1.NodeDisruptionPolicySpecFile{
		restart("/etc/crio/crio.conf.d/60-x.conf", "crio.service"),
		restart("/etc/openshift/kubelet.conf.d", "kubelet.service"),
		restart("/etc/openshift", "other.service"),
		none,
	}
	for _, tc := range []struct {
		paths []string
		want  []DisruptionAction
	}{
		{nil, []DisruptionAction{{Type: "None"}}},
		{[]string{"/etc/crio/crio.conf.d/60-x.conf"}, []DisruptionAction{{Type: "Restart", Service: "crio.service"}}},
		// The longest directory above the path wins.
		{[]string{"/etc/openshift/kubelet.conf.d/60-x.conf"}, []DisruptionAction{{Type: "Restart", Service: "kubelet.service"}}},
		// None is dropped next to other actions.
		{[]string{"/etc/none", "/etc/crio/crio.conf.d/60-x.conf"}, []DisruptionAction{{Type: "Restart", Service: "crio.service"}}},
		{[]string{"/etc/none"}, []DisruptionAction{{Type: "None"}}},
		// No entry: reboot, whatever else changed.
		{[]string{"/etc/crio/crio.conf.d/60-x.conf", "/etc/crio/crio.conf.d/61-y.conf"}, []DisruptionAction{{Type: "Reboot"}}},
		// A prefix that is not a directory above the path does not match.
		{[]string{"/etc/crio/crio.conf.d/60-x.conf.bak"}, []DisruptionAction{{Type: "Reboot"}}},
	} {
		if got := DisruptionActions(tc.paths, policy); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: got %v, want %v", tc.paths, got, tc.want)
		}
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
