package nodesettings

import (
	"encoding/base64"
	"testing"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
)

type poolShape struct {
	wanted, current  string
	machines, upd    int32
	generation, seen int64
	conds            map[string]string // type -> message of a True condition
}

func mcp(s poolShape) *mcfgv1.MachineConfigPool {
	p := &mcfgv1.MachineConfigPool{ObjectMeta: metav1.ObjectMeta{Name: "worker", Generation: s.generation},
		Status: mcfgv1.MachineConfigPoolStatus{MachineCount: s.machines, UpdatedMachineCount: s.upd, ObservedGeneration: s.seen}}
	p.Spec.Configuration.Name, p.Status.Configuration.Name = s.wanted, s.current
	for t, msg := range s.conds {
		p.Status.Conditions = append(p.Status.Conditions, mcfgv1.MachineConfigPoolCondition{Type: mcfgv1.MachineConfigPoolConditionType(t), Status: corev1.ConditionTrue, Message: msg})
	}
	return p
}

// rendered is a rendered MachineConfig holding MCO's own file and ours, as
// MCO merges them (base64 here, as other writers encode).
func rendered(name string, ours []File) *mcfgv1.MachineConfig {
	files := []interface{}{map[string]interface{}{"path": "/etc/crio/crio.conf.d/00-default", "contents": map[string]interface{}{"source": "data:,%5Bcrio%5D"}}}
	for _, f := range ours {
		files = append(files, map[string]interface{}{"path": f.Path, "contents": map[string]interface{}{
			"source": "data:text/plain;charset=utf-8;base64," + base64.StdEncoding.EncodeToString([]byte(f.Contents))}})
	}
	return typed[mcfgv1.MachineConfig](&unstructured.Unstructured{Object: map[string]interface{}{
		"metadata": map[string]interface{}{"name": name},
		"spec":     map[string]interface{}{"config": map[string]interface{}{"storage": map[string]interface{}{"files": files}}},
	}})
}

func ours(files []File) *mcfgv1.MachineConfig {
	return typed[mcfgv1.MachineConfig](MachineConfig("worker", files))
}

func oursIn(t *testing.T, u *unstructured.Unstructured) map[string]string {
	files, err := ourFiles(typed[mcfgv1.MachineConfig](u))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func typed[T any](u *unstructured.Unstructured) *T {
	t, err := platform.Typed[T](u)
	if err != nil {
		panic(err)
	}
	return t
}

func mcn(degradedMsg string) *mcfgv1.MachineConfigNode {
	status := "False"
	if degradedMsg != "" {
		status = "True"
	}
	return typed[mcfgv1.MachineConfigNode](&unstructured.Unstructured{Object: map[string]interface{}{"status": map[string]interface{}{"conditions": []interface{}{
		map[string]interface{}{"type": "NodeDegraded", "status": status, "message": degradedMsg}}}}})
}

func TestObservePool(t *testing.T) {
	v1, _ := Render(&Tracing{Endpoint: "127.0.0.1:4317", CRIOSamplingPerMillion: ptr(1)}, PoolFacts{})
	v2, _ := Render(&Tracing{Endpoint: "127.0.0.1:4317", CRIOSamplingPerMillion: ptr(2)}, PoolFacts{})
	done := poolShape{wanted: "rendered-a", current: "rendered-a", machines: 3, upd: 3, generation: 4, seen: 4, conds: map[string]string{"Updated": "All nodes are updated"}}
	pool := func(change func(*poolShape)) *mcfgv1.MachineConfigPool {
		s := done
		change(&s)
		return mcp(s)
	}
	for _, tc := range []struct {
		name         string
		objs         PoolObjects
		health       string
		wantWritten  Revision
		wantUpdated  bool
		wantDegraded string
	}{
		{name: "updated to what we wrote, unhealthy nodes passed through", objs: PoolObjects{Pool: mcp(done), Ours: ours(v1), Current: rendered("rendered-a", v1)},
			health: "CRI-O on worker-1 is not scraped", wantWritten: RevisionOf(v1), wantUpdated: true},
		{name: "finished, but on the configuration from before our write", objs: PoolObjects{Pool: mcp(done), Ours: ours(v2), Current: rendered("rendered-a", v1)},
			wantWritten: RevisionOf(v2)},
		{name: "nothing of ours, and none in the pool: updated (off)", objs: PoolObjects{Pool: mcp(done), Current: rendered("rendered-a", nil)}, wantUpdated: true},
		{name: "our MachineConfig deleted, the pool still runs our file", objs: PoolObjects{Pool: mcp(done), Current: rendered("rendered-a", v1)}},
		{name: "machines still updating", objs: PoolObjects{Pool: pool(func(s *poolShape) { s.upd = 2 }), Ours: ours(v1), Current: rendered("rendered-a", v1)},
			wantWritten: RevisionOf(v1)},
		{name: "MCO has not seen the pool's latest spec", objs: PoolObjects{Pool: pool(func(s *poolShape) { s.generation = 5 }), Ours: ours(v1), Current: rendered("rendered-a", v1)},
			wantWritten: RevisionOf(v1)},
		{name: "wants another configuration than it runs", objs: PoolObjects{Pool: pool(func(s *poolShape) { s.wanted = "rendered-b" }), Ours: ours(v1), Current: rendered("rendered-a", v1)},
			wantWritten: RevisionOf(v1)},
		{name: "pool degraded, and a node's MachineConfigNode says why", objs: PoolObjects{
			Pool: pool(func(s *poolShape) {
				s.upd, s.conds = 0, map[string]string{"Degraded": "1 nodes are reporting degraded status on sync"}
			}),
			Ours: ours(v1), Current: rendered("rendered-a", nil), Nodes: []*mcfgv1.MachineConfigNode{mcn(""), mcn("Node worker-1 upgrade failure. restarting crio.service failed")}},
			wantWritten:  RevisionOf(v1),
			wantDegraded: "MachineConfigPool worker is degraded: 1 nodes are reporting degraded status on sync; Node worker-1 upgrade failure. restarting crio.service failed"},
		{name: "only nodes degraded: their messages in a fixed order, whatever the list order", objs: PoolObjects{Pool: mcp(done), Ours: ours(v1), Current: rendered("rendered-a", v1),
			Nodes: []*mcfgv1.MachineConfigNode{mcn("Node worker-2 upgrade failure. b"), mcn(""), mcn("Node worker-1 upgrade failure. a")}},
			wantWritten: RevisionOf(v1), wantUpdated: true,
			wantDegraded: "MachineConfigPool worker is degraded: Node worker-1 upgrade failure. a; Node worker-2 upgrade failure. b"},
	} {
		// Node health passes through as given.
		want := PoolObservation{Written: tc.wantWritten, Updated: tc.wantUpdated, Degraded: tc.wantDegraded != "", DegradedMessage: tc.wantDegraded,
			Healthy: tc.health == "", UnhealthyMessage: tc.health}
		assert.Equal(t, want, ObservePool(tc.objs, tc.health), tc.name)
	}
}
