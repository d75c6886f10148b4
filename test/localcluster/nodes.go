package localcluster

import (
	"context"
	"fmt"
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

// node is simulated node i (docs/local-control-plane.md "Nodes").
func node(i int) *corev1.Node {
	name, role := "worker-"+strconv.Itoa(i), "worker"
	if i == 0 {
		name, role = "master-0", "master"
	}
	resources := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("16"), corev1.ResourceMemory: resource.MustParse("64Gi"),
		corev1.ResourcePods: resource.MustParse("250"), corev1.ResourceEphemeralStorage: resource.MustParse("200Gi"),
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
			Labels: map[string]string{
				"type": "kwok", indexLabel: strconv.Itoa(i), "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
				"kubernetes.io/hostname": name, "topology.kubernetes.io/region": "local", "topology.kubernetes.io/zone": "local-a",
				"node-role.kubernetes.io/" + role: "",
			},
		},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("127.0.%d.%d", i/254+1, i%254+1)},
				{Type: corev1.NodeHostName, Address: name},
			},
			Capacity:    resources,
			Allocatable: resources.DeepCopy(),
			NodeInfo:    corev1.NodeSystemInfo{Architecture: "amd64", OperatingSystem: "linux"},
		},
	}
	if i == 0 {
		n.Labels["node-role.kubernetes.io/control-plane"] = ""
		n.Spec.Taints = []corev1.Taint{{Key: "node-role.kubernetes.io/master", Effect: corev1.TaintEffectNoSchedule}}
	}
	return n
}

// nodeStates returns the indexes of the simulated nodes and how many are
// Ready (and free of the not-ready taint).
func nodeStates(ctx context.Context, cl *clients) (indexes map[int]bool, ready int, err error) {
	list, err := cl.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "type=kwok", ResourceVersion: "0"})
	if err != nil {
		return nil, 0, err
	}
	indexes = map[int]bool{}
	for _, n := range list.Items {
		if i, err := strconv.Atoi(n.Labels[indexLabel]); err == nil {
			indexes[i] = true
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
	return indexes, ready, nil
}

// scaleNodes creates and deletes simulated nodes until nodes 0..want-1
// exist, and waits until all are Ready.
func scaleNodes(ctx context.Context, cl *clients, want int) error {
	start := time.Now()
	have, _, err := nodeStates(ctx, cl)
	if err != nil {
		return err
	}
	var extra []string
	for i := range have {
		if i >= want {
			extra = append(extra, strconv.Itoa(i))
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
	}
	// Created 16 at a time; errs has room for every one.
	var wg sync.WaitGroup
	sem, errs := make(chan struct{}, 16), make(chan error, want)
	for i := 0; i < want; i++ {
		if have[i] {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if _, err := cl.kube.CoreV1().Nodes().Create(ctx, node(i), metav1.CreateOptions{FieldManager: fieldManager}); err != nil {
				errs <- fmt.Errorf("creating node %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	logf("nodes created and deleted in %.1fs", time.Since(start).Seconds())
	// Listing thousands of nodes is not free: poll less often for many.
	err = poll(ctx, time.Duration(300+want/5)*time.Second, fmt.Sprintf("%d nodes Ready", want), func() (bool, error) {
		indexes, ready, err := nodeStates(ctx, cl)
		return err == nil && len(indexes) == want && ready == want, nil
	}, time.Duration(1+want/1000)*time.Second)
	if err == nil {
		logf("%d nodes Ready in %.1fs", want, time.Since(start).Seconds())
	}
	return err
}
