//go:build e2e

package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodesettings"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// guardArgs: a short soak, so that the rollout's two batches of node writes are what takes time.
var guardArgs = []string{"--node-settings-soak=5s", "--node-settings-gate=30s"}

// guardWrites rolls node settings out over a worker pool of BENCH_GUARD_NODES
// kwok nodes (the MCO stand-in updates the pool through one of them) and
// counts the operator's node writes in the audit log: one
// guard per node when the step starts, one release when it ends.
func guardWrites(t *testing.T, c *framework.Cluster, res *results) {
	what := "node writes per rollout (scale-down guards)"
	n := env(t, "BENCH_GUARD_NODES", 5000, strconv.Atoi)
	kube := kubernetes.NewForConfigOrDie(c.Config)
	ctx := context.Background()
	// Without the stacks' operands: a DaemonSet would put a pod on each node.
	c.SetStackState(t, nodev1alpha1.MetricsStack, nodev1alpha1.StackDisabled)
	c.SetStackState(t, nodev1alpha1.NMStateStack, nodev1alpha1.StackDisabled)
	// kwok's nodes, Ready with their leases as a kubelet's: the Node objects change only when something writes them.
	out, err := exec.Command(filepath.Join(framework.RepoRoot(t), "hack", "local-cluster.sh"), "nodes", strconv.Itoa(n+1)).CombinedOutput()
	t.Logf("local-cluster.sh nodes %d:\n%s", n+1, out)
	if err != nil {
		t.Fatalf("scaling to %d nodes: %v", n+1, err)
	}
	framework.CreatePool(t, c.Config, "worker")
	framework.StartMCOStandInOverFiles(t, c.Config, []string{"worker-1"})
	framework.WaitStandInPool(t, c, "worker", "pool worker rendered and updated", framework.PoolSettled)
	from := time.Now()
	c.PatchNodeOperatorSpec(t, map[string]interface{}{"nodeSettings": map[string]interface{}{"tracing": map[string]interface{}{"endpoint": "127.0.0.1:4317", "crio": map[string]interface{}{"samplingRatePerMillion": 1000}}}})
	c.WaitForNodeOperator(t, 20*time.Minute, time.Second, func(no *nodev1alpha1.NodeOperator) string {
		if s := no.Status.NodeSettings; s == nil || s.Phase != nodev1alpha1.NodeSettingsPhase(nodesettings.PhaseComplete) {
			return "rollout not complete"
		}
		return ""
	})
	framework.Eventually(t, 10*time.Minute, time.Second, func() (bool, error) {
		l, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: nodesettings.GuardLabel, ResourceVersion: "0"})
		return err == nil && len(l.Items) == 0, nil
	}, "every guard released")
	time.Sleep(2 * time.Second) // the audit backend writes asynchronously
	events, err := operatorRequests(os.Getenv("BENCH_AUDIT_LOG"), operatorUserAgentPrefix)
	if err != nil {
		t.Fatal(err)
	}
	var at []time.Time
	for _, e := range events {
		if e.Verb == "patch" && e.ObjectRef != nil && e.ObjectRef.Resource == "nodes" && !e.RequestReceivedTimestamp.Before(from) {
			at = append(at, e.RequestReceivedTimestamp)
		}
	}
	if len(at) < 2 {
		res.set(what, fmt.Sprintf("%d node patches", len(at)), "2 per node", false)
		return
	}
	// The two batches are apart by the soak at least: split at the largest gap.
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	split := 1
	for i := 1; i < len(at); i++ {
		if at[i].Sub(at[i-1]) > at[split].Sub(at[split-1]) {
			split = i
		}
	}
	workers, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "node-role.kubernetes.io/worker", ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	nodes := len(workers.Items) // the pool's: all but master-0
	guard, release := at[split-1].Sub(at[0]), at[len(at)-1].Sub(at[split])
	limit := time.Duration(float64(nodes)/50*1.2) * time.Second // the operator's client: 50 QPS
	res.set(what, fmt.Sprintf("%d patches for %d nodes: %d guards in %s, %d releases in %s", len(at), nodes, split, guard.Round(time.Second), len(at)-split, release.Round(time.Second)),
		fmt.Sprintf("2 per node; each batch <= %s (50 QPS +20%%)", limit), len(at) == 2*nodes && guard <= limit && release <= limit)
}
