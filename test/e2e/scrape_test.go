//go:build e2e

package e2e

// Real scrapes during certificate rotations (GitHub issue 7, item 3): a real
// Prometheus, configured from the live ServiceMonitor and the scrape class
// of the cluster-monitoring operator it names (a client certificate, the
// cluster looking like CMO 4.19+), scrapes three simulated nodes (real
// kube-rbac-proxy with the DaemonSet's arguments in front of a real CRI-O
// each, real cert-syncer fed by a kubelet-like projection of the Secret)
// every second while the serving certificate is
// rotated SCRAPE_ROTATIONS times (default 20). Not one scrape may fail.
// Writes _output/bench/scrape-rotation.json.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift/cluster-node-operator/pkg/operator/criometrics"
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
	kube := framework.KubeClient(t)
	ctx := context.Background()
	root := framework.RepoRoot(t)
	// The cluster-monitoring operator of 4.19+: Prometheus scrapes with
	// prometheus-k8s's client certificate (the PKI's) through the scrape
	// class, and the operator's kube-rbac-proxy trusts CMO's CA.
	pki := framework.NewPlatformPKI(t)
	scrapeAsCMO(t, framework.NewCluster(t), kube, pki, "4.19.0")
	c, _ := framework.Setup(t, framework.OperatorOptions{})

	// The DaemonSet's pods, one per node (fake under kwok: we run them),
	// once they trust the client CA.
	var chosen []*corev1.Pod
	framework.Eventually(t, 3*time.Minute, time.Second, func() (bool, error) {
		pods, err := kube.CoreV1().Pods(operatorNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app=crio-metrics"})
		if err != nil {
			return false, err
		}
		chosen = nil
		for i := range pods.Items {
			p := &pods.Items[i]
			if p.DeletionTimestamp == nil && p.Status.HostIP != "" && len(chosen) < scrapeNodes &&
				slices.Contains(p.Spec.Containers[0].Args, "--client-ca-file="+criometrics.ClientCAFile) {
				chosen = append(chosen, p)
			}
		}
		return len(chosen) == scrapeNodes, nil
	}, fmt.Sprintf("%d crio-metrics pods with a hostIP whose kube-rbac-proxy trusts the client CA", scrapeNodes))
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
	var sm *unstructured.Unstructured
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		var err error
		sm, err = c.Dynamic.Resource(schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}).
			Namespace(operatorNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
		class, _, _ := unstructured.NestedString(sm.Object, "spec", "scrapeClass")
		return err == nil && class == criometrics.ScrapeClass, err
	}, "the ServiceMonitor to name the scrape class "+criometrics.ScrapeClass)
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
	if cmName == "" || cmKey == "" || serverName == "" || str("bearerTokenFile") != "" || str("scheme") != "https" {
		t.Fatalf("ServiceMonitor endpoint lacks TLS settings or still sends a token: %v", ep)
	}
	cm, err := kube.CoreV1().ConfigMaps(operatorNamespace).Get(ctx, cmName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(promDir, "ca.crt")
	if err := os.WriteFile(caFile, []byte(cm.Data[cmKey]), 0o644); err != nil {
		t.Fatal(err)
	}
	// The scrape class' files, laid out below promDir as CMO mounts them
	// into Prometheus; prometheus-operator fills the endpoint's empty
	// certFile and keyFile from the class and keeps its CA.
	certFile, keyFile := filepath.Join(promDir, cmoClientCertFile), filepath.Join(promDir, cmoClientKeyFile)
	for src, dst := range map[string]string{pki.ClientCertFile: certFile, pki.ClientKeyFile: keyFile} {
		data, err := os.ReadFile(src)
		if err == nil {
			err = os.MkdirAll(filepath.Dir(dst), 0o755)
		}
		if err == nil {
			err = os.WriteFile(dst, data, 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
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
			"tls_config":     map[string]string{"ca_file": caFile, "server_name": serverName, "cert_file": certFile, "key_file": keyFile},
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
	t.Logf("Prometheus %s scrapes %d targets with a client certificate; %v CRI-O series", prom.URL, len(targets), v)
	scrapeCheckAuthentication(t, ctx, kube, pki, nodes[targets[0].node].ProxyAddr, caFile, serverName)

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

// The scrape class tls-client-certificate-auth of CMO's Prometheus k8s
// (openshift/cluster-monitoring-operator f581865b,
// assets/prometheus-k8s/prometheus.yaml): the Secret metrics-client-certs
// as prometheus-operator mounts it.
const (
	cmoClientCertFile = "/etc/prometheus/secrets/metrics-client-certs/tls.crt"
	cmoClientKeyFile  = "/etc/prometheus/secrets/metrics-client-certs/tls.key"
)

// scrapeAsCMO makes the cluster look like the cluster-monitoring operator
// at version: ClusterOperator monitoring and the ConfigMap
// openshift-monitoring/metrics-client-ca with the CA of pki's client
// certificate (CMO copies kube-system/extension-apiserver-authentication's
// client-ca-file). Both, and the operator's copy, are removed afterwards.
func scrapeAsCMO(t *testing.T, c *framework.Cluster, kube kubernetes.Interface, pki *framework.PlatformPKI, version string) {
	ctx := context.Background()
	ca, err := os.ReadFile(pki.ClientCAFile)
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "openshift-monitoring", Name: "metrics-client-ca"},
		Data: map[string]string{criometrics.ClientCAKey: string(ca)}}
	_ = kube.CoreV1().ConfigMaps(cm.Namespace).Delete(ctx, cm.Name, metav1.DeleteOptions{})
	if _, err := kube.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cos := c.Config1.ConfigV1().ClusterOperators()
	_ = cos.Delete(ctx, "monitoring", metav1.DeleteOptions{})
	co, err := cos.Create(ctx, &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "monitoring"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	co.Status.Versions = []configv1.OperandVersion{{Name: "operator", Version: version}}
	if _, err := cos.UpdateStatus(ctx, co, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cos.Delete(ctx, "monitoring", metav1.DeleteOptions{})
		_ = kube.CoreV1().ConfigMaps(cm.Namespace).Delete(ctx, cm.Name, metav1.DeleteOptions{})
		_ = kube.CoreV1().ConfigMaps(operatorNamespace).Delete(ctx, criometrics.ClientCAConfigMap, metav1.DeleteOptions{})
	})
}

// scrapeCheckAuthentication asks one node's kube-rbac-proxy, which trusts
// CMO's client CA, who gets CRI-O's metrics: prometheus-k8s's certificate
// alone; not the same user's certificate from another CA; and a token of
// prometheus-k8s alone, which kube-rbac-proxy still accepts beside client
// certificates (it authenticates with the union of x509 and TokenReview),
// as the proxies of CMO's own components do.
func scrapeCheckAuthentication(t *testing.T, ctx context.Context, kube kubernetes.Interface, pki *framework.PlatformPKI, addr, caFile, serverName string) {
	ca, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca)
	token, err := framework.ServiceAccountToken(ctx, kube, "openshift-monitoring", "prometheus-k8s", framework.TokenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	get := func(cert *tls.Certificate, token string) int {
		cfg := &tls.Config{RootCAs: roots, ServerName: serverName, MinVersion: tls.VersionTLS12}
		if cert != nil {
			cfg.Certificates = []tls.Certificate{*cert}
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+"/metrics", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	other := framework.NewPlatformPKI(t).ClientCert
	for _, c := range []struct {
		who   string
		cert  *tls.Certificate
		token string
		want  int
	}{
		{"prometheus-k8s's certificate alone", &pki.ClientCert, "", http.StatusOK},
		{"prometheus-k8s's certificate from another CA", &other, "", http.StatusUnauthorized},
		{"no certificate, no token", nil, "", http.StatusUnauthorized},
		{"prometheus-k8s's token alone", nil, token, http.StatusOK},
	} {
		code := get(c.cert, c.token)
		if code != c.want {
			t.Errorf("%s: %d, want %d", c.who, code, c.want)
		}
		t.Logf("kube-rbac-proxy with --client-ca-file, %s: %d", c.who, code)
	}
}
