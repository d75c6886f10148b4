//go:build e2e

package e2e

// Real scrapes during certificate rotations (GitHub issue 7, item 3): a real
// Prometheus, configured from the live ServiceMonitor, scrapes three
// simulated nodes (real kube-rbac-proxy with the DaemonSet's arguments in
// front of a real CRI-O each, real cert-syncer fed by a kubelet-like
// projection of the Secret) every second while the serving certificate is
// rotated SCRAPE_ROTATIONS times (default 20). Not one scrape may fail.
// Writes _output/bench/scrape-rotation.json.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

const scrapeNodes = 3

func TestScrapeDuringRotations(t *testing.T) {
	start := time.Now()
	rotations := 20
	if s := os.Getenv("SCRAPE_ROTATIONS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("SCRAPE_ROTATIONS=%q is not a positive number", s)
		}
		rotations = v
	}
	c, _ := framework.Setup(t, framework.OperatorOptions{})
	kube := framework.KubeClient(t)
	ctx := context.Background()
	root := framework.RepoRoot(t)

	// The DaemonSet's pods, one per node (fake under kwok: we run them).
	pods, err := kube.CoreV1().Pods(operatorNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app=crio-metrics"})
	if err != nil {
		t.Fatal(err)
	}
	var chosen []*corev1.Pod
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp == nil && p.Status.HostIP != "" && len(chosen) < scrapeNodes {
			chosen = append(chosen, p)
		}
	}
	if len(chosen) < scrapeNodes {
		t.Fatalf("want %d crio-metrics pods with a hostIP, have %d", scrapeNodes, len(chosen))
	}
	base := filepath.Join(root, "_output", "scrape")
	nodes := map[string]*framework.ScrapeNode{}
	mcs := schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigs"}
	for _, p := range chosen {
		node, err := kube.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		role := "worker"
		if _, ok := node.Labels["node-role.kubernetes.io/master"]; ok {
			role = "master"
		}
		mc, err := c.Dynamic.Resource(mcs).Get(ctx, "50-"+role+"-crio-metrics-tls", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n := framework.StartScrapeNode(t, c.Config, framework.ScrapeNodeOptions{Pod: p, MachineConfig: mc})
		nodes[n.Name] = n
		t.Logf("node %s (%s): proxy %s, CRI-O on 127.0.0.1:%d (%s)", n.Name, role, n.ProxyAddr, n.CRIO.MetricsPort, n.CRIO.Dir)
	}

	// Targets: the Service's EndpointSlices, as Prometheus' endpoints
	// discovery would find them.
	type target struct{ addr, node string }
	var targets []target
	slices, err := kube.DiscoveryV1().EndpointSlices(operatorNamespace).List(ctx, metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=crio-metrics"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range slices.Items {
		port := int32(0)
		for _, p := range s.Ports {
			if p.Name != nil && *p.Name == "https" && p.Port != nil {
				port = *p.Port
			}
		}
		for _, e := range s.Endpoints {
			node := ""
			if e.NodeName != nil {
				node = *e.NodeName
			}
			if _, ok := nodes[node]; ok && port != 0 && len(e.Addresses) > 0 {
				targets = append(targets, target{fmt.Sprintf("%s:%d", e.Addresses[0], port), node})
			}
		}
	}
	if len(targets) == 0 {
		// The API server refuses loopback addresses in EndpointSlices, and
		// kwok's nodes have 127.0.1.x addresses: build the endpoints the
		// EndpointSlice controller would, from the Service and the pods.
		svc, err := kube.CoreV1().Services(operatorNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("EndpointSlices of Service crio-metrics hold no endpoints for the simulated nodes (%d slices; loopback node addresses are refused): using the pods' addresses and the Service's targetPort", len(slices.Items))
		for _, p := range chosen {
			port := int32(0)
			for _, sp := range svc.Spec.Ports {
				for _, ctr := range p.Spec.Containers {
					for _, cp := range ctr.Ports {
						if sp.Name == "https" && cp.Name == sp.TargetPort.String() {
							port = cp.ContainerPort
						}
					}
				}
			}
			targets = append(targets, target{fmt.Sprintf("%s:%d", p.Status.PodIP, port), p.Spec.NodeName})
		}
	}
	for _, tg := range targets {
		if nodes[tg.node].ProxyAddr != tg.addr {
			t.Fatalf("target %s of node %s is not where its kube-rbac-proxy listens (%s)", tg.addr, tg.node, nodes[tg.node].ProxyAddr)
		}
	}

	// Prometheus, configured from the live ServiceMonitor.
	promDir := filepath.Join(base, "prometheus")
	_ = os.RemoveAll(promDir)
	if err := os.MkdirAll(promDir, 0o755); err != nil {
		t.Fatal(err)
	}
	sm, err := c.Dynamic.Resource(schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}).
		Namespace(operatorNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	if len(eps) != 1 {
		t.Fatalf("ServiceMonitor has %d endpoints, want 1", len(eps))
	}
	ep := eps[0].(map[string]interface{})
	str := func(fields ...string) string {
		s, _, _ := unstructured.NestedString(ep, fields...)
		return s
	}
	cmName, cmKey, serverName := str("tlsConfig", "ca", "configMap", "name"), str("tlsConfig", "ca", "configMap", "key"), str("tlsConfig", "serverName")
	if cmName == "" || cmKey == "" || serverName == "" || str("bearerTokenFile") == "" || str("scheme") != "https" {
		t.Fatalf("ServiceMonitor endpoint lacks TLS or bearer token settings: %v", ep)
	}
	cm, err := kube.CoreV1().ConfigMaps(operatorNamespace).Get(ctx, cmName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(promDir, "ca.crt")
	if err := os.WriteFile(caFile, []byte(cm.Data[cmKey]), 0o644); err != nil {
		t.Fatal(err)
	}
	token, err := framework.ServiceAccountToken(ctx, kube, "openshift-monitoring", "prometheus-k8s", framework.TokenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(promDir, "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	var statics []map[string]interface{}
	for _, tg := range targets {
		statics = append(statics, map[string]interface{}{"targets": []string{tg.addr}, "labels": map[string]string{"node": tg.node}})
	}
	config := map[string]interface{}{
		"global": map[string]interface{}{"scrape_interval": "1s", "scrape_timeout": "900ms"},
		"scrape_configs": []interface{}{map[string]interface{}{
			"job_name":       "crio-metrics",
			"scheme":         str("scheme"),
			"metrics_path":   str("path"),
			"tls_config":     map[string]string{"ca_file": caFile, "server_name": serverName},
			"authorization":  map[string]string{"type": "Bearer", "credentials_file": tokenFile},
			"static_configs": statics,
		}},
	}
	// JSON is YAML: Prometheus reads it as its configuration file.
	raw, err := json.MarshalIndent(config, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	prom := framework.StartPrometheus(t, promDir, string(raw))
	prom.WaitTargetsUp(t, len(targets), time.Minute)
	v, _, err := prom.QueryScalar(`count({job="crio-metrics",__name__=~"container_runtime_crio_.*"})`)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Prometheus %s scrapes %d targets; %v CRI-O series", prom.URL, len(targets), v)

	// Health as Prometheus reports it, sampled every 500 ms throughout.
	stopHealth := make(chan struct{})
	healthDone := make(chan []string)
	go func() {
		var bad []string
		for {
			select {
			case <-stopHealth:
				healthDone <- bad
				return
			case <-time.After(500 * time.Millisecond):
			}
			tgs, err := prom.Targets()
			if err != nil {
				continue
			}
			for _, tg := range tgs {
				if tg.Health != "up" {
					bad = append(bad, fmt.Sprintf("%s %s %s: %s", time.Now().Format("15:04:05.000"), tg.ScrapeURL, tg.Health, tg.LastError))
				}
			}
		}
	}()

	servingSecret := func() (string, error) {
		s, err := kube.CoreV1().Secrets(operatorNamespace).Get(ctx, "crio-metrics-serving-cert", metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		cert, err := framework.FirstCertificate(s.Data["tls.crt"])
		if err != nil {
			return "", err
		}
		return cert.SerialNumber.String(), nil
	}
	// Settle at least two scrapes before the first rotation.
	time.Sleep(3 * time.Second)
	rotStart := time.Now()
	var reachCRIO []time.Duration
	for r := 1; r <= rotations; r++ {
		old, err := servingSecret()
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		if err := kube.CoreV1().Secrets(operatorNamespace).Delete(ctx, "crio-metrics-serving-cert", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		var serial string
		framework.Eventually(t, time.Minute, 100*time.Millisecond, func() (bool, error) {
			serial, err = servingSecret()
			return err == nil && serial != old, nil
		}, fmt.Sprintf("rotation %d: the operator issues a new serving certificate", r))
		reissued := time.Since(t0)
		// Each node's CRI-O serves it: projection, cert-syncer, CRI-O reload.
		framework.Eventually(t, time.Minute, 100*time.Millisecond, func() (bool, error) {
			for _, n := range nodes {
				cert, err := framework.ServedCertificate(fmt.Sprintf("127.0.0.1:%d", n.CRIO.MetricsPort))
				if err != nil || cert.SerialNumber.String() != serial {
					return false, nil
				}
			}
			return true, nil
		}, fmt.Sprintf("rotation %d: every CRI-O serves serial %s", r, serial))
		reachCRIO = append(reachCRIO, time.Since(t0))
		t.Logf("rotation %d/%d: serial %s issued after %s, served by all %d CRI-Os after %s", r, rotations, serial,
			reissued.Round(time.Millisecond), len(nodes), time.Since(t0).Round(time.Millisecond))
		// A few scrapes with the new certificate before the next rotation.
		time.Sleep(2 * time.Second)
	}
	// kube-rbac-proxy re-reads its own serving pair every minute: wait until
	// every proxy serves the last certificate too.
	last, err := servingSecret()
	if err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	framework.Eventually(t, 90*time.Second, time.Second, func() (bool, error) {
		for _, n := range nodes {
			cert, err := framework.ServedCertificate(n.ProxyAddr)
			if err != nil || cert.SerialNumber.String() != last {
				return false, nil
			}
		}
		return true, nil
	}, "every kube-rbac-proxy serves the last serving certificate")
	t.Logf("every kube-rbac-proxy serves serial %s, %s after the last rotation", last, time.Since(t1).Round(time.Second))
	time.Sleep(3 * time.Second)
	close(stopHealth)
	unhealthy := <-healthDone

	window := int(time.Since(rotStart).Seconds()) + 2
	scrapes, _, err := prom.QueryScalar(fmt.Sprintf(`sum(count_over_time(up{job="crio-metrics"}[%ds]))`, window))
	if err != nil {
		t.Fatal(err)
	}
	good, _, err := prom.QueryScalar(fmt.Sprintf(`sum(sum_over_time(up{job="crio-metrics"}[%ds]))`, window))
	if err != nil {
		t.Fatal(err)
	}
	failed := int(scrapes - good)
	for _, n := range nodes {
		for _, p := range []*framework.Process{n.Proxy, n.Syncer} {
			if p.Exited() {
				t.Errorf("node %s: process exited during the test; log %s", n.Name, p.LogPath)
			}
		}
	}
	var maxReach time.Duration
	for _, d := range reachCRIO {
		if d > maxReach {
			maxReach = d
		}
	}
	result := map[string]int{"scrapes": int(scrapes), "failed": failed, "rotations": rotations, "targets": len(targets)}
	out, _ := json.Marshal(result)
	benchDir := filepath.Join(root, "_output", "bench")
	if err := os.MkdirAll(benchDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(benchDir, "scrape-rotation.json"), append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s (window %ds; rotation reached every CRI-O within %s at most); test took %s", out, window, maxReach.Round(time.Millisecond), time.Since(start).Round(time.Second))
	if scrapes == 0 {
		t.Errorf("Prometheus recorded no scrapes")
	}
	if failed != 0 {
		t.Errorf("%d of %v scrapes failed", failed, scrapes)
	}
	if len(unhealthy) > 0 {
		t.Errorf("targets not up in Prometheus at some point:\n%s", strings.Join(unhealthy, "\n"))
	}
}
