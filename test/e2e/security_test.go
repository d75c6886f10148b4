//go:build e2e

package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"

	"github.com/openshift/cluster-node-operator/pkg/operator/criometrics"
	"github.com/openshift/cluster-node-operator/pkg/operator/metricsclientca"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

const (
	secServingSecret = "crio-metrics-serving-cert"
	secServiceName   = "crio-metrics." + crioMetricsNamespace + ".svc"
	secMetricsPrefix = "\ncontainer_runtime_crio_"
	// CMO's scrape class for clients authenticated by TLS certificate (cluster-monitoring-operator 0147bb52), pinned here, not to our constant.
	scrapeClass = "tls-client-certificate-auth"
)

// TestSecurityCRIOMetricsEndToEnd: the crio-metrics pod on the real node (framework.StartRealNode), run by the kubelet on CRI-O, scraped by a real Prometheus configured from the live ServiceMonitor, through the steps of docs/test-behaviours.md.
func TestSecurityCRIOMetricsEndToEnd(t *testing.T) {
	// Each rotation waits for the kubelet's next sync of the pod (about a minute) to refresh its Secret volume.
	rotations := envCount(t, "SCRAPE_ROTATIONS", 3)
	node := framework.StartRealNode(t)
	pki := framework.NewPlatformPKI(t)
	scrapeAsCMO(t, framework.NewCluster(t), framework.KubeClient(t), pki)
	c, _ := framework.Setup(t, framework.OperatorOptions{})
	ds := crioMetricsDaemonSet(t)
	pod := rolledOutPodWith(t, ds, node.Name, "--client-ca-file="+criometrics.ClientCAFile)
	target := scrapeTarget(t, pod)
	require.Equal(t, net.JoinHostPort(node.IP, "9638"), target, "the Service's target is where the node's kube-rbac-proxy listens")
	prom, caFile, trusted := prometheusFromServiceMonitor(t, c, pki, target, node.Name)
	t.Run("ContainersOfCRIO", func(t *testing.T) { containersOfCRIO(t, node, pod) })
	t.Run("WhoMayScrape", func(t *testing.T) { whoMayScrape(t, pki, target, caFile, trusted) })
	t.Run("WhoMayConnect", func(t *testing.T) { whoMayConnect(t, node, target, trusted) })
	t.Run("RotationsWithoutAFailedScrape", func(t *testing.T) { rotationsWithoutAFailedScrape(t, prom, ds, node, target, rotations) })
	t.Run("ModernProfileRefusesTLS12", func(t *testing.T) { modernProfileRefusesTLS12(t, c, ds, node, target, pki, trusted) })
}

// envCount is the positive number in environment variable name, def when unset.
func envCount(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		t.Fatalf("%s=%q is not a positive number", name, s)
	}
	return v
}

// whoMayScrape: scrapeCheckAuthentication's cases, a forged token 401, the proxy's own ServiceAccount 403 naming it, only /metrics.
func whoMayScrape(t *testing.T, pki *framework.PlatformPKI, addr, caFile string, trusted *tls.Config) {
	ctx, kube := context.Background(), framework.KubeClient(t)
	scrapeCheckAuthentication(t, ctx, kube, pki, addr, caFile, trusted.ServerName)
	own, err := framework.ServiceAccountToken(ctx, kube, crioMetricsNamespace, "crio-metrics", framework.TokenOptions{})
	require.NoError(t, err)
	cfg := trusted.Clone()
	cfg.Certificates = []tls.Certificate{pki.ClientCert}
	withCert := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
	tokenOnly := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: trusted}}
	for _, c := range []struct {
		who    string
		client *http.Client
		token  string
		path   string
		code   int
		body   string
	}{
		{"prometheus-k8s", withCert, "", "/metrics", http.StatusOK, secMetricsPrefix},
		{"a forged token", tokenOnly, "eyJhbGciOiJSUzI1NiJ9.e30.c2lnbmF0dXJl", "/metrics", http.StatusUnauthorized, ""},
		{"the proxy's own ServiceAccount", tokenOnly, own, "/metrics", http.StatusForbidden, "system:serviceaccount:" + crioMetricsNamespace + ":crio-metrics"},
		{"another path (--allow-paths)", withCert, "", "/debug/pprof/", http.StatusNotFound, ""},
	} {
		code, body, err := framework.HTTPGet(c.client, "https://"+addr+c.path, c.token)
		require.NoError(t, err, c.who)
		assert.Equal(t, c.code, code, "%s: %.300s", c.who, body)
		assert.Contains(t, string(body), c.body, c.who)
	}
}

// scrapeCheckAuthentication: a kube-rbac-proxy trusting CMO's client CA takes prometheus-k8s's certificate or token, nothing else.
func scrapeCheckAuthentication(t *testing.T, ctx context.Context, kube kubernetes.Interface, pki *framework.PlatformPKI, addr, caFile, serverName string) {
	ca, err := os.ReadFile(caFile)
	require.NoError(t, err)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca)
	token, err := framework.ServiceAccountToken(ctx, kube, "openshift-monitoring", "prometheus-k8s", framework.TokenOptions{})
	require.NoError(t, err)
	get := func(cert *tls.Certificate, token string) int {
		cfg := &tls.Config{RootCAs: roots, ServerName: serverName, MinVersion: tls.VersionTLS12}
		if cert != nil {
			cfg.Certificates = []tls.Certificate{*cert}
		}
		code, _, err := framework.HTTPGet(&http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}, "https://"+addr+"/metrics", token)
		require.NoError(t, err)
		return code
	}
	other := framework.NewPlatformPKI(t).ClientCert
	// A user without get on /metrics: the namespace's default ServiceAccount.
	_, _ = kube.CoreV1().ServiceAccounts("openshift-monitoring").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
	nobody, err := framework.ServiceAccountToken(ctx, kube, "openshift-monitoring", "default", framework.TokenOptions{})
	require.NoError(t, err)
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
		{"a token of a user without get /metrics", nil, nobody, http.StatusForbidden},
	} {
		assert.Equal(t, c.want, get(c.cert, c.token), c.who)
	}
}

// whoMayConnect: a client without the operator's CA connects neither to the
// proxy nor to CRI-O on the node's loopback, whose certificate chains to the
// bundle ConfigMap for the Service's names, localhost and 127.0.0.1.
func whoMayConnect(t *testing.T, node *framework.RealNode, proxy string, trusted *tls.Config) {
	var unknown x509.UnknownAuthorityError
	_, err := framework.Handshake(proxy, &tls.Config{ServerName: secServiceName}) // the system roots
	assert.True(t, errors.As(err, &unknown), "%s: want unknown authority, got %v", proxy, err)
	_, err = node.Handshake(crioMetricsAddr, &tls.Config{ServerName: secServiceName})
	assert.True(t, errors.As(err, &unknown), "CRI-O: want unknown authority, got %v", err)
	served, err := node.ServedCertificate(crioMetricsAddr)
	require.NoError(t, err)
	for _, name := range []string{secServiceName, secServiceName + ".cluster.local", "localhost", "127.0.0.1"} {
		_, err := served.Verify(x509.VerifyOptions{Roots: trusted.RootCAs, DNSName: name})
		assert.NoError(t, err, "CRI-O's certificate chains to the bundle ConfigMap and is valid for %s", name)
	}
}

// crioMetricsAddr is where CRI-O serves its metrics on a node, as the operator's drop-in sets it.
const crioMetricsAddr = "127.0.0.1:9537"

// rotationsWithoutAFailedScrape: rotations new serving certificates, each
// served by the same CRI-O through the same pod, no failed scrape, no
// rollout, no container restarted.
func rotationsWithoutAFailedScrape(t *testing.T, prom *framework.Prometheus, ds *appsv1.DaemonSet, node *framework.RealNode, proxy string, rotations int) {
	ctx, kube := context.Background(), framework.KubeClient(t)
	crio := &framework.CRIO{Dir: filepath.Join(node.Dir, "crio")}
	before := crioMetricsRollout(t)
	pid, err := crio.Pid()
	require.NoError(t, err)
	rotStart := time.Now()
	waitScrapes(t, prom, rotStart, 2) // before the first rotation
	for r := 1; r <= rotations; r++ {
		rotateServingCert(t, node, r)
		waitScrapes(t, prom, time.Now(), 2) // with the new certificate
	}
	// kube-rbac-proxy re-reads its own serving pair every minute.
	last, err := servingCert(ctx, kube)
	require.NoError(t, err)
	framework.Eventually(t, 90*time.Second, time.Second, func() (bool, error) {
		cert, err := framework.ServedCertificate(proxy)
		return err == nil && cert.SerialNumber.String() == last.SerialNumber.String(), nil
	}, "kube-rbac-proxy serves the last serving certificate")
	waitScrapes(t, prom, time.Now(), 2)
	assertNoFailedScrapes(t, prom, rotStart, rotations, 1)
	after, err := crio.Pid()
	assert.NoError(t, err)
	assert.Equal(t, pid, after, "CRI-O was not restarted")
	readyPodOn(t, ds, node.Name) // no container restarted
	assert.Equal(t, before, crioMetricsRollout(t), "rotations change neither the CA bundle nor the DaemonSet nor its pods")
}

// waitScrapes waits until Prometheus recorded n scrapes of job crio-metrics since since.
func waitScrapes(t *testing.T, prom *framework.Prometheus, since time.Time, n int) {
	t.Helper()
	framework.Eventually(t, 30*time.Second, 500*time.Millisecond, func() (bool, error) {
		scrapes, _ := prom.ScrapesSince(t, "crio-metrics", since)
		return scrapes >= n, nil
	}, fmt.Sprintf("%d scrapes", n))
}

// crioMetricsRollout is the CA bundle, the DaemonSet's generation and its pods' UIDs.
func crioMetricsRollout(t *testing.T) []string {
	t.Helper()
	ctx, kube := context.Background(), framework.KubeClient(t)
	cm, err := kube.CoreV1().ConfigMaps(crioMetricsNamespace).Get(ctx, "crio-metrics-ca-bundle", metav1.GetOptions{})
	require.NoError(t, err)
	ds, err := kube.AppsV1().DaemonSets(crioMetricsNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
	require.NoError(t, err)
	pods, err := kube.CoreV1().Pods(crioMetricsNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app=crio-metrics"})
	require.NoError(t, err)
	out := []string{cm.Data["ca-bundle.crt"], fmt.Sprint("generation ", ds.Generation)}
	for _, p := range pods.Items {
		out = append(out, p.Spec.NodeName+" "+string(p.UID))
	}
	slices.Sort(out)
	return out
}

// modernProfileRefusesTLS12: the proxy takes TLS 1.2 with the Intermediate
// profile (the default); with the Modern profile the DaemonSet gets
// --tls-min-version=VersionTLS13, the kubelet replaces the node's pod, and
// its proxy refuses TLS 1.2 and serves TLS 1.3. The profile is restored
// afterwards.
func modernProfileRefusesTLS12(t *testing.T, c *framework.Cluster, ds *appsv1.DaemonSet, node *framework.RealNode, proxy string, pki *framework.PlatformPKI, trusted *tls.Config) {
	tls12 := trusted.Clone()
	tls12.MaxVersion = tls.VersionTLS12
	st, err := framework.Handshake(proxy, tls12)
	require.NoError(t, err, "TLS 1.2 with the Intermediate profile")
	assert.Equal(t, uint16(tls.VersionTLS12), st.Version)
	t.Cleanup(func() { setTLSProfile(t, c, nil) })
	setTLSProfile(t, c, &configv1.TLSSecurityProfile{Type: configv1.TLSProfileModernType, Modern: &configv1.ModernTLSProfile{}})
	rolledOutPodWith(t, ds, node.Name, "--tls-min-version=VersionTLS13")
	_, err = framework.Handshake(proxy, tls12)
	require.Error(t, err, "a TLS 1.2 client must be refused with the Modern profile")
	assert.Contains(t, err.Error(), "protocol version", "refused for its protocol version")
	tls13 := trusted.Clone()
	tls13.MinVersion, tls13.Certificates = tls.VersionTLS13, []tls.Certificate{pki.ClientCert}
	code, body, err := framework.HTTPGet(&http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: tls13}}, "https://"+proxy+"/metrics", "")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code, "TLS 1.3: %.300s", body)
	assert.Contains(t, string(body), secMetricsPrefix)
}

// servingCert returns the leaf of the live CRI-O metrics serving Secret.
func servingCert(ctx context.Context, kube kubernetes.Interface) (*x509.Certificate, error) {
	s, err := kube.CoreV1().Secrets(crioMetricsNamespace).Get(ctx, secServingSecret, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return framework.FirstCertificate(s.Data["tls.crt"])
}

// rolledOutPodWith waits until the DaemonSet's kube-rbac-proxy has arg and
// every node runs its pod of that template, available; it returns node's.
func rolledOutPodWith(t *testing.T, ds *appsv1.DaemonSet, node, arg string) *corev1.Pod {
	t.Helper()
	framework.Eventually(t, 3*time.Minute, time.Second, func() (bool, error) {
		d, err := framework.KubeClient(t).AppsV1().DaemonSets(ds.Namespace).Get(context.Background(), ds.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		st := d.Status
		return slices.Contains(d.Spec.Template.Spec.Containers[0].Args, arg) && st.ObservedGeneration == d.Generation &&
			st.UpdatedNumberScheduled == st.DesiredNumberScheduled && st.NumberAvailable == st.DesiredNumberScheduled, nil
	}, "the DaemonSet's kube-rbac-proxy rolled out with "+arg)
	pod := readyPodOn(t, ds, node)
	require.Contains(t, pod.Spec.Containers[0].Args, arg, "the pod on %s", node)
	return pod
}

// scrapeTarget: the address the Service's endpoint for pod names (its IP, the https port's container port).
func scrapeTarget(t *testing.T, pod *corev1.Pod) string {
	t.Helper()
	svc, err := framework.KubeClient(t).CoreV1().Services(crioMetricsNamespace).Get(context.Background(), "crio-metrics", metav1.GetOptions{})
	require.NoError(t, err)
	for _, sp := range svc.Spec.Ports {
		for _, ctr := range pod.Spec.Containers {
			for _, cp := range ctr.Ports {
				if sp.Name == "https" && cp.Name == sp.TargetPort.String() {
					return net.JoinHostPort(pod.Status.PodIP, strconv.Itoa(int(cp.ContainerPort)))
				}
			}
		}
	}
	t.Fatalf("no container port of pod %s is the Service's https target port", pod.Name)
	return ""
}

// prometheusFromServiceMonitor starts Prometheus as the live ServiceMonitor and its scrape class say; it returns once every target is up, with the CA file and a client TLS config.
func prometheusFromServiceMonitor(t *testing.T, c *framework.Cluster, pki *framework.PlatformPKI, target, node string) (*framework.Prometheus, string, *tls.Config) {
	t.Helper()
	ctx := context.Background()
	promDir := filepath.Join(framework.RepoRoot(t), "_output", "scrape", "prometheus")
	_ = os.RemoveAll(promDir)
	require.NoError(t, os.MkdirAll(promDir, 0o755))
	var sm *unstructured.Unstructured
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		var err error
		sm, err = c.Dynamic.Resource(serviceMonitorGVR).Namespace(crioMetricsNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		class, _, _ := unstructured.NestedString(sm.Object, "spec", "scrapeClass")
		return class == scrapeClass, nil
	}, "the ServiceMonitor to name the scrape class "+scrapeClass)
	eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	require.Len(t, eps, 1, "ServiceMonitor endpoints")
	ep := eps[0].(map[string]interface{})
	str := func(fields ...string) string {
		s, _, _ := unstructured.NestedString(ep, fields...)
		return s
	}
	cmName, cmKey, serverName := str("tlsConfig", "ca", "configMap", "name"), str("tlsConfig", "ca", "configMap", "key"), str("tlsConfig", "serverName")
	if cmName == "" || cmKey == "" || serverName == "" || str("bearerTokenFile") != "" || str("scheme") != "https" {
		t.Fatalf("ServiceMonitor endpoint lacks TLS settings or still sends a token: %v", ep)
	}
	cm, err := framework.KubeClient(t).CoreV1().ConfigMaps(crioMetricsNamespace).Get(ctx, cmName, metav1.GetOptions{})
	require.NoError(t, err)
	caFile := filepath.Join(promDir, "ca.crt")
	require.NoError(t, os.WriteFile(caFile, []byte(cm.Data[cmKey]), 0o644))
	statics := []map[string]interface{}{{"targets": []string{target}, "labels": map[string]string{"node": node}}}
	// JSON is YAML: Prometheus reads it as its configuration file.
	raw, err := json.Marshal(map[string]interface{}{
		"global": map[string]interface{}{"scrape_interval": "1s", "scrape_timeout": "900ms"},
		"scrape_configs": []interface{}{map[string]interface{}{
			"job_name": "crio-metrics", "scheme": str("scheme"), "metrics_path": str("path"), "static_configs": statics,
			// prometheus-operator fills the endpoint's empty certFile and keyFile
			// from the scrape class (CMO's metrics-client-certs) and keeps its CA.
			"tls_config": map[string]string{"ca_file": caFile, "server_name": serverName, "cert_file": pki.ClientCertFile, "key_file": pki.ClientKeyFile},
		}},
	})
	require.NoError(t, err)
	prom := framework.StartPrometheus(t, promDir, string(raw))
	prom.WaitTargetsUp(t, 1, time.Minute)
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM([]byte(cm.Data[cmKey])), "the ServiceMonitor's CA ConfigMap holds certificates")
	return prom, caFile, &tls.Config{RootCAs: roots, ServerName: serverName, MinVersion: tls.VersionTLS12}
}

// rotateServingCert deletes the serving Secret and waits until the node's CRI-O serves the operator's new certificate.
func rotateServingCert(t *testing.T, node *framework.RealNode, r int) {
	t.Helper()
	ctx := context.Background()
	kube := framework.KubeClient(t)
	old, err := servingCert(ctx, kube)
	require.NoError(t, err)
	if err := kube.CoreV1().Secrets(crioMetricsNamespace).Delete(ctx, secServingSecret, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	var serial string
	framework.Eventually(t, time.Minute, 100*time.Millisecond, func() (bool, error) {
		cert, err := servingCert(ctx, kube)
		if err == nil {
			serial = cert.SerialNumber.String()
		}
		return err == nil && !cert.Equal(old), nil
	}, fmt.Sprintf("rotation %d: the operator issues a new serving certificate", r))
	// The kubelet refreshes the Secret volume on the pod's next sync, cert-syncer copies it, CRI-O reloads it.
	framework.Eventually(t, 3*time.Minute, time.Second, func() (bool, error) {
		cert, err := node.ServedCertificate(crioMetricsAddr)
		return err == nil && cert.SerialNumber.String() == serial, nil
	}, fmt.Sprintf("rotation %d: CRI-O on node %s serves serial %s", r, node.Name, serial))
}

// assertNoFailedScrapes: scrapes since since, none failed; the counts go to _output/bench/scrape-rotation.json.
func assertNoFailedScrapes(t *testing.T, prom *framework.Prometheus, since time.Time, rotations, targets int) {
	t.Helper()
	scrapes, failed := prom.ScrapesSince(t, "crio-metrics", since)
	out, _ := json.Marshal(map[string]int{"scrapes": scrapes, "failed": failed, "rotations": rotations, "targets": targets})
	benchDir := filepath.Join(framework.RepoRoot(t), "_output", "bench")
	require.NoError(t, os.MkdirAll(benchDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(benchDir, "scrape-rotation.json"), append(out, '\n'), 0o644))
	t.Logf("%s", out)
	assert.NotZero(t, scrapes, "Prometheus recorded scrapes")
	assert.Zero(t, failed, "failed scrapes of %d", scrapes)
}

// scrapeAsCMO makes the cluster look like CMO 4.19 (ClusterOperator monitoring, metrics-client-ca with pki's CA) until the test ends.
func scrapeAsCMO(t *testing.T, c *framework.Cluster, kube kubernetes.Interface, pki *framework.PlatformPKI) {
	ctx := context.Background()
	ca, err := os.ReadFile(pki.ClientCAFile)
	require.NoError(t, err)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "openshift-monitoring", Name: "metrics-client-ca"},
		Data: map[string]string{criometrics.ClientCAKey: string(ca)}}
	_ = kube.CoreV1().ConfigMaps(cm.Namespace).Delete(ctx, cm.Name, metav1.DeleteOptions{})
	_, err = kube.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{})
	require.NoError(t, err)
	cos := c.Config1.ConfigV1().ClusterOperators()
	_ = cos.Delete(ctx, "monitoring", metav1.DeleteOptions{})
	co, err := cos.Create(ctx, &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "monitoring"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	co.Status.Versions = []configv1.OperandVersion{{Name: "operator", Version: "4.19.0"}}
	_, err = cos.UpdateStatus(ctx, co, metav1.UpdateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cos.Delete(ctx, "monitoring", metav1.DeleteOptions{})
		_ = kube.CoreV1().ConfigMaps(cm.Namespace).Delete(ctx, cm.Name, metav1.DeleteOptions{})
		_ = kube.CoreV1().ConfigMaps(crioMetricsNamespace).Delete(ctx, criometrics.ClientCAConfigMap, metav1.DeleteOptions{})
	})
}

// trustAsAPIServerClientCA adds pki's client CA to the API server's client-ca-file until the test ends.
func trustAsAPIServerClientCA(t *testing.T, kube kubernetes.Interface, pki *framework.PlatformPKI) {
	ca, err := os.ReadFile(pki.ClientCAFile)
	require.NoError(t, err)
	cms := kube.CoreV1().ConfigMaps(metricsclientca.SourceNamespace)
	edit := func(old, new string) error {
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cm, err := cms.Get(context.Background(), metricsclientca.SourceName, metav1.GetOptions{})
			if err == nil {
				cm.Data[metricsclientca.SourceKey] = strings.Replace(cm.Data[metricsclientca.SourceKey], old, new, 1)
				_, err = cms.Update(context.Background(), cm, metav1.UpdateOptions{})
			}
			return err
		})
	}
	require.NoError(t, edit("-----END CERTIFICATE-----\n", "-----END CERTIFICATE-----\n"+string(ca)))
	t.Cleanup(func() { assert.NoError(t, edit(string(ca), "")) })
}

// setTLSProfile sets the APIServer cluster's TLS profile (nil: Intermediate), creating the object if missing.
func setTLSProfile(t *testing.T, c *framework.Cluster, profile *configv1.TLSSecurityProfile) {
	t.Helper()
	ctx := context.Background()
	apiservers := c.Config1.ConfigV1().APIServers()
	if _, err := apiservers.Get(ctx, "cluster", metav1.GetOptions{}); apierrors.IsNotFound(err) {
		_, err := apiservers.Create(ctx, &configv1.APIServer{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}, metav1.CreateOptions{})
		require.NoError(t, err, "creating apiserver cluster")
	}
	data, _ := json.Marshal(map[string]any{"spec": map[string]any{"tlsSecurityProfile": profile}})
	_, err := apiservers.Patch(ctx, "cluster", types.MergePatchType, data, metav1.PatchOptions{})
	require.NoError(t, err, "patching apiserver cluster %s", data)
}
