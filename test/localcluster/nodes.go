package localcluster

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// indexLabel numbers the simulated nodes; kwok manages the nodes annotated
// kwok.x-k8s.io/node=fake.
const indexLabel = "local-cluster/node-index"

// NodeName is master-0 for node 0, worker-I for the others.
func NodeName(i int) string {
	if i == 0 {
		return "master-0"
	}
	return "worker-" + strconv.Itoa(i)
}

// NodeIP is 127.0.K.N for node index I: N in 1..254, K from 1 up.
func NodeIP(i int) string { return fmt.Sprintf("127.0.%d.%d", i/254+1, i%254+1) }

// Node is simulated node i, with the status kwok keeps (addresses,
// capacity): status is accepted on create only, so nodes are created, never
// applied.
func Node(i int) *corev1.Node {
	name := NodeName(i)
	resources := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("16"),
		corev1.ResourceMemory:           resource.MustParse("64Gi"),
		corev1.ResourcePods:             resource.MustParse("250"),
		corev1.ResourceEphemeralStorage: resource.MustParse("200Gi"),
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Annotations: map[string]string{
				"kwok.x-k8s.io/node":           "fake",
				"node.alpha.kubernetes.io/ttl": "0",
			},
			Labels: map[string]string{
				"type":                          "kwok",
				indexLabel:                      strconv.Itoa(i),
				"kubernetes.io/arch":            "amd64",
				"kubernetes.io/os":              "linux",
				"kubernetes.io/hostname":        name,
				"topology.kubernetes.io/region": "local",
				"topology.kubernetes.io/zone":   "local-a",
			},
		},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: NodeIP(i)},
				{Type: corev1.NodeHostName, Address: name},
			},
			Capacity:    resources,
			Allocatable: resources.DeepCopy(),
			NodeInfo:    corev1.NodeSystemInfo{Architecture: "amd64", OperatingSystem: "linux"},
		},
	}
	if i == 0 {
		n.Labels["node-role.kubernetes.io/master"] = ""
		n.Labels["node-role.kubernetes.io/control-plane"] = ""
		n.Spec.Taints = []corev1.Taint{{Key: "node-role.kubernetes.io/master", Effect: corev1.TaintEffectNoSchedule}}
	} else {
		n.Labels["node-role.kubernetes.io/worker"] = ""
	}
	return n
}

// nodeStates counts the simulated nodes and those Ready (and free of the
// not-ready taint), and returns the indexes of those that exist.
func nodeStates(ctx context.Context, cl *clients) (indexes []int, ready int, err error) {
	list, err := cl.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "type=kwok", ResourceVersion: "0"})
	if err != nil {
		return nil, 0, err
	}
	for _, n := range list.Items {
		if i, err := strconv.Atoi(n.Labels[indexLabel]); err == nil {
			indexes = append(indexes, i)
		}
		ok := false
		for _, c := range n.Status.Conditions {
			ok = ok || c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
		}
		for _, t := range n.Spec.Taints {
			ok = ok && t.Key != "node.kubernetes.io/not-ready"
		}
		if ok {
			ready++
		}
	}
	sort.Ints(indexes)
	return indexes, ready, nil
}

// scaleNodes creates and deletes simulated nodes until nodes 0..want-1
// exist, and waits until all are Ready.
func (c *Config) scaleNodes(ctx context.Context, cl *clients, want int) error {
	start := time.Now()
	have, _, err := nodeStates(ctx, cl)
	if err != nil {
		return err
	}
	exists := map[int]bool{}
	var extra []string
	for _, i := range have {
		exists[i] = true
		if i >= want {
			extra = append(extra, strconv.Itoa(i))
		}
	}
	var missing []int
	for i := 0; i < want; i++ {
		if !exists[i] {
			missing = append(missing, i)
		}
	}
	// Deleted by collection, up to 500 a request.
	for len(extra) > 0 {
		n := min(len(extra), 500)
		sel := fmt.Sprintf("type=kwok,%s in (%s)", indexLabel, strings.Join(extra[:n], ","))
		if err := cl.kube.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: sel}); err != nil {
			return fmt.Errorf("deleting nodes: %w", err)
		}
		extra = extra[n:]
		logf("deleted nodes in %.1fs", time.Since(start).Seconds())
	}
	if len(missing) > 0 {
		work := make(chan int)
		errs := make(chan error, len(missing))
		var wg sync.WaitGroup
		for w := 0; w < min(16, len(missing)); w++ {
			wg.Go(func() {
				for i := range work {
					if _, err := cl.kube.CoreV1().Nodes().Create(ctx, Node(i), metav1.CreateOptions{FieldManager: fieldManager}); err != nil {
						errs <- fmt.Errorf("creating node %s: %w", NodeName(i), err)
					}
				}
			})
		}
		for _, i := range missing {
			work <- i
		}
		close(work)
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			return err
		}
		logf("created %d nodes in %.1fs", len(missing), time.Since(start).Seconds())
	}
	if len(missing) == 0 && len(have) == want {
		return nil
	}
	// Listing thousands of nodes is not free: poll less often for many.
	interval := time.Duration(1+want/1000) * time.Second
	err = pollEvery(ctx, interval, time.Duration(300+want/5)*time.Second, fmt.Sprintf("%d nodes Ready", want), func() (bool, error) {
		if c.pid("kwok-controller") == 0 {
			return false, fmt.Errorf("kwok-controller is not running; see %s/logs/kwok-controller.log", c.Dir)
		}
		indexes, ready, err := nodeStates(ctx, cl)
		return err == nil && len(indexes) == want && ready == want, nil
	})
	if err == nil {
		logf("%d nodes Ready in %.1fs", want, time.Since(start).Seconds())
	}
	return err
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "local-cluster: "+format+"\n", args...)
}
