//go:build e2e

// Package e2e holds the end-to-end tests, run against a real control plane:
//
//	hack/local-cluster.sh up
//	KUBECONFIG=_output/local-cluster/admin.kubeconfig go test -mod=vendor -tags e2e ./test/e2e/ -v -count=1
package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// TestSmoke proves that the cluster under test is a real control plane:
// controllers, scheduler and simulated kubelets roll a DaemonSet out to every
// node, and the API server enforces the schemas of the installed CRDs.
func TestSmoke(t *testing.T) {
	t.Run("DaemonSetRollsOutToEveryNode", testDaemonSetRollsOut)
	t.Run("CRDSchemaIsEnforced", testCRDSchemaIsEnforced)
}

func testDaemonSetRollsOut(t *testing.T) {
	client := framework.KubeClient(t)
	ctx := framework.Context(t, 5*time.Minute)

	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing nodes: %v", err)
	}
	if len(nodes.Items) == 0 {
		t.Fatal("the cluster has no nodes")
	}
	nodeIPs := map[string]string{}
	for _, n := range nodes.Items {
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP {
				nodeIPs[n.Name] = a.Address
			}
		}
	}

	ns := framework.CreateNamespace(t, client, "e2e-smoke")
	labels := map[string]string{"app": "e2e-smoke"}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "smoke", Namespace: ns},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					HostNetwork: true,
					// Every node, masters included, whatever their taints.
					Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					Containers: []corev1.Container{{
						Name: "pause",
						// Simulated nodes never pull images.
						Image: "registry.k8s.io/pause:3.10",
					}},
				},
			},
		},
	}
	if _, err := client.AppsV1().DaemonSets(ns).Create(ctx, ds, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating DaemonSet: %v", err)
	}

	want := int32(len(nodes.Items))
	framework.Eventually(t, 3*time.Minute, time.Second, func() (bool, error) {
		got, err := client.AppsV1().DaemonSets(ns).Get(ctx, ds.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		s := got.Status
		if s.ObservedGeneration < got.Generation || s.DesiredNumberScheduled != want || s.NumberReady != want || s.UpdatedNumberScheduled != want {
			return false, fmt.Errorf("status %+v", s)
		}
		return true, nil
	}, fmt.Sprintf("DaemonSet to be Ready on all %d nodes", want))

	assertOnePodPerNodeAtItsAddress(t, ctx, ns, nodes.Items, nodeIPs)
}

// assertOnePodPerNodeAtItsAddress: the DaemonSet runs one Running pod per
// node, on the node's own address.
func assertOnePodPerNodeAtItsAddress(t *testing.T, ctx context.Context, ns string, nodes []corev1.Node, nodeIPs map[string]string) {
	t.Helper()
	pods, err := framework.KubeClient(t).CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=e2e-smoke"})
	if err != nil {
		t.Fatalf("listing pods: %v", err)
	}
	perNode := map[string]int{}
	podIPs := map[string]string{}
	for _, p := range pods.Items {
		perNode[p.Spec.NodeName]++
		if p.Status.Phase != corev1.PodRunning {
			t.Errorf("pod %s on %s is %s, want Running", p.Name, p.Spec.NodeName, p.Status.Phase)
		}
		if ip := nodeIPs[p.Spec.NodeName]; ip == "" || p.Status.PodIP != ip || p.Status.HostIP != ip {
			t.Errorf("hostNetwork pod %s on %s has podIP %q hostIP %q, want the node's InternalIP %q",
				p.Name, p.Spec.NodeName, p.Status.PodIP, p.Status.HostIP, ip)
		}
		if other, ok := podIPs[p.Status.PodIP]; ok {
			t.Errorf("pods %s and %s share the address %s", other, p.Name, p.Status.PodIP)
		}
		podIPs[p.Status.PodIP] = p.Name
	}
	for _, n := range nodes {
		if perNode[n.Name] != 1 {
			t.Errorf("node %s runs %d pods of the DaemonSet, want 1", n.Name, perNode[n.Name])
		}
	}
}

func testCRDSchemaIsEnforced(t *testing.T) {
	client := framework.KubeClient(t)
	dyn := framework.DynamicClient(t)
	ctx := framework.Context(t, 2*time.Minute)

	cases := []struct {
		name  string
		gvr   schema.GroupVersionResource
		obj   map[string]any
		field string // the field path the error names
	}{{
		name: "Infrastructure with a number for spec.platformSpec.type",
		gvr:  schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "infrastructures"},
		obj: map[string]any{
			"apiVersion": "config.openshift.io/v1",
			"kind":       "Infrastructure",
			"metadata":   map[string]any{"name": "e2e-smoke-invalid"},
			"spec":       map[string]any{"platformSpec": map[string]any{"type": int64(42)}},
		},
		field: "spec.platformSpec.type",
	}, {
		name: "ServiceMonitor with a string for spec.endpoints",
		gvr:  schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"},
		obj: map[string]any{
			"apiVersion": "monitoring.coreos.com/v1",
			"kind":       "ServiceMonitor",
			"metadata":   map[string]any{"name": "e2e-smoke-invalid", "namespace": "default"},
			"spec": map[string]any{
				"selector":  map[string]any{},
				"endpoints": "not-a-list",
			},
		},
		field: "spec.endpoints",
	}}

	tested := 0
	for _, tc := range cases {
		t.Run(tc.gvr.Resource, func(t *testing.T) {
			if !framework.Served(t, client, tc.gvr) {
				t.Skipf("%s is not served by this cluster", tc.gvr)
			}
			tested++
			u := &unstructured.Unstructured{Object: tc.obj}
			var ri dynamic.ResourceInterface = dyn.Resource(tc.gvr)
			if ns := u.GetNamespace(); ns != "" {
				ri = dyn.Resource(tc.gvr).Namespace(ns)
			}
			_, err := ri.Create(ctx, u, metav1.CreateOptions{})
			if err == nil {
				_ = ri.Delete(ctx, u.GetName(), metav1.DeleteOptions{})
				t.Fatalf("%s: the API server accepted it", tc.name)
			}
			if !apierrors.IsInvalid(err) {
				t.Fatalf("%s: got %v, want an Invalid error", tc.name, err)
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("%s: the error does not name %s: %v", tc.name, tc.field, err)
			}
			t.Logf("rejected as expected: %v", err)
		})
	}
	if tested == 0 {
		t.Fatal("none of the CRDs this test knows is installed")
	}
}
