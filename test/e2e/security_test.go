//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift/cluster-node-operator/bindata"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

const (
	secServingSecret = "crio-metrics-serving-cert"
	secCABundle      = "crio-metrics-ca-bundle"
	secDaemonSet     = "crio-metrics"
	secServiceName   = "crio-metrics." + operatorNamespace + ".svc"
	secMetricsPrefix = "container_runtime_crio_"
	// Rotations CRI-O must follow. The second one matters: a writer that
	// replaced the files by rename would get the first one through and
	// then none (CRI-O's watch ends with the replaced inode).
	secRotations = 2
)

// TestSecurityCRIOMetricsEndToEnd proves the CRI-O metrics security on real
// components, one node simulated on this machine (startSecurityNode): who
// may scrape (200, 403, 401), who may connect (the operator's CA only),
// that CRI-O follows forced rotations without a restart while every scrape
// succeeds, and that the Modern TLS profile refuses TLS 1.2. Without CMO's
// objects, it runs the token path (no --client-ca-file).
func TestSecurityCRIOMetricsEndToEnd(t *testing.T) {
	e := startSecurityNode(t)
	t.Run("WhoMayScrape", e.whoMayScrape)
	t.Run("WhoMayConnect", e.whoMayConnect)
	t.Run("ForcedRotation", e.forcedRotation)
	t.Run("ModernProfileRefusesTLS12", e.modernProfileRefusesTLS12)
}

// secEnv is the security test's operator and node.
type secEnv struct {
	c                   *framework.Cluster
	node                *framework.Node
	spec                corev1.PodSpec
	serving, bundle     *framework.KubeletVolume
	roots               *x509.CertPool
	hostCert, hostKey   string
	syncer, proxy       *framework.Process
	crio                *framework.CRIO
	crioPort            int
	crioAddr, proxyAddr string
	proxyBin            string
	kubeconfig          string
	promToken           string
	trusted             *tls.Config // configured like the ServiceMonitor
}

// startSecurityNode runs:
//   - the operator (locally), issuing the CA bundle and a serving
//     certificate that rotates every minute, and applying the DaemonSet and
//     the CRI-O drop-in MachineConfig;
//   - the kubelet's projection of the DaemonSet's Secret and ConfigMap
//     volumes (framework.Node), following the live objects;
//   - the real cert-syncer with the DaemonSet container's arguments and
//     securityContext, writing the pair to the node's /var/lib/crio-metrics;
//   - a real CRI-O with the shipped drop-in (bindata, as the MachineConfig
//     delivers it) serving its metrics over TLS from there;
//   - the real kube-rbac-proxy with exactly the live DaemonSet's arguments,
//     as the DaemonSet's ServiceAccount, in front of CRI-O.
func startSecurityNode(t *testing.T) *secEnv {
	if os.Geteuid() != 0 {
		framework.Unavailable(t, "CRI-O can only be built (Debian packages) and run as root; run the e2e tests as root")
	}
	if err := framework.EnsureTool(t, "crio"); err != nil {
		framework.Unavailable(t, "CRI-O cannot be built on this machine, so the security e2e cannot run: %v", err)
	}
	require.NoError(t, framework.EnsureTool(t, "kube-rbac-proxy"), "building kube-rbac-proxy")
	repo := framework.RepoRoot(t)
	e := &secEnv{proxyBin: filepath.Join(repo, "_output", "bin", "kube-rbac-proxy")}
	// The signer keeps its default (long) timing, so the CA bundle does not
	// change and kube-rbac-proxy's --upstream-ca-file stays valid.
	e.c, _ = framework.Setup(t, framework.OperatorOptions{Args: []string{
		"--crio-metrics-cert-validity=3m", "--crio-metrics-cert-refresh=1m",
	}})
	kube := framework.KubeClient(t)
	ctx := context.Background()
	// A fresh one: kube-rbac-proxy re-reads its own pair only every minute
	// and would serve a certificate an earlier run left expired meanwhile.
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		cert, _, err := servingCert(ctx, kube)
		return err == nil && cert.NotAfter.Sub(cert.NotBefore) < 5*time.Minute && time.Until(cert.NotAfter) > 2*time.Minute, err
	}, "the operator to issue a fresh short-lived serving certificate (more than 2 minutes left)")
	var ds *appsv1.DaemonSet
	framework.Eventually(t, time.Minute, time.Second, func() (bool, error) {
		var err error
		ds, err = kube.AppsV1().DaemonSets(operatorNamespace).Get(ctx, secDaemonSet, metav1.GetOptions{})
		return err == nil, err
	}, "the DaemonSet crio-metrics")
	e.spec = ds.Spec.Template.Spec
	servingVol, bundleVol, hostVol := secVolumes(t, e.spec)
	e.node = framework.NewNode(t, e.c.Config, operatorNamespace, e.spec)
	hostDir := e.node.HostPath(hostVol.HostPath.Path)
	e.hostCert, e.hostKey = filepath.Join(hostDir, "tls.crt"), filepath.Join(hostDir, "tls.key")
	dropIns := e.installDropIn(t)

	e.node.MountVolumes(t, time.Second)
	e.serving, e.bundle = e.node.Volume(servingVol.Name), e.node.Volume(bundleVol.Name)
	e.roots = x509.NewCertPool()
	require.True(t, e.roots.AppendCertsFromPEM(e.bundle.File("ca-bundle.crt")), "the CA bundle holds certificates")
	e.trusted = &tls.Config{RootCAs: e.roots, ServerName: secServiceName, MinVersion: tls.VersionTLS12}
	e.startCertSyncer(t, filepath.Join(repo, "_output", "bin", "cert-syncer"))

	// CRI-O, once cert-syncer wrote the pair. hack/crio.sh's own drop-in
	// enables metrics on our port and names a pair of its own; the
	// operator's sorts later and must override it: the start script's
	// readiness probe verifies the served certificate with the bundle.
	e.crioPort = framework.FreePort(t)
	e.crio = framework.StartCRIO(t, framework.CRIOOptions{
		Dir: filepath.Join(e.node.Root, "crio"), MetricsPort: e.crioPort, DropIns: dropIns, ProbeCA: e.bundle.Path("ca-bundle.crt"),
	})
	for name := range dropIns {
		require.NotEmpty(t, e.crio.LogLines("Updating config from drop-in file: "+filepath.Join(e.crio.Dir, "crio.conf.d", name)),
			"CRI-O read the operator's drop-in %s", name)
	}
	e.crioAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(e.crioPort))
	e.kubeconfig = e.node.WriteServiceAccountKubeconfig(t, e.c.Config, operatorNamespace, e.spec.ServiceAccountName)
	e.proxy, e.proxyAddr = e.startProxy(t)
	var err error
	e.promToken, err = framework.ServiceAccountToken(ctx, kube, "openshift-monitoring", "prometheus-k8s", framework.TokenOptions{})
	require.NoError(t, err)
	return e
}

// installDropIn puts on the node what the machine-config operator would:
// the drop-in of the live MachineConfig, which must be the shipped one
// (bindata) and name the pair cert-syncer writes. It returns CRI-O's
// drop-ins with paths moved below the node's root.
func (e *secEnv) installDropIn(t *testing.T) map[string][]byte {
	t.Helper()
	shipped := bindata.MustAsset("metrics/crio-dropin.conf")
	if framework.Served(t, framework.KubeClient(t), machineConfigGVR) {
		mc, err := e.c.Dynamic.Resource(machineConfigGVR).Get(context.Background(), "50-worker-crio-metrics-tls", metav1.GetOptions{})
		require.NoError(t, err, "the operator's MachineConfig for workers")
		e.node.ApplyMachineConfig(t, mc)
	} else {
		require.NoError(t, os.MkdirAll(e.node.HostPath("/etc/crio/crio.conf.d"), 0o755))
		require.NoError(t, os.WriteFile(e.node.HostPath("/etc/crio/crio.conf.d/50-crio-metrics-tls.conf"), shipped, 0o644))
	}
	dropIns := e.node.CRIODropIns(t)
	require.Len(t, dropIns, 1, "CRI-O drop-ins on the node")
	for name, d := range dropIns {
		onNode, err := os.ReadFile(e.node.HostPath("/etc/crio/crio.conf.d/" + name))
		require.NoError(t, err)
		require.Equal(t, string(shipped), string(onNode), "the drop-in the MachineConfig delivers is bindata/metrics/crio-dropin.conf")
		require.Contains(t, string(d), strconv.Quote(e.hostCert), "drop-in %s: metrics_cert must be the file cert-syncer writes", name)
	}
	return dropIns
}

// startCertSyncer runs cert-syncer with the DaemonSet's arguments and
// securityContext, and waits until it wrote the Secret's pair to the node
// with modes 0644 and 0600.
func (e *secEnv) startCertSyncer(t *testing.T, binary string) {
	t.Helper()
	e.syncer = framework.StartPodProcess(t, e.c.Config, framework.PodProcessOptions{Node: e.node, Container: "cert-syncer", Binaries: map[string]string{"cert-syncer": binary}})
	framework.Eventually(t, time.Minute, 200*time.Millisecond, func() (bool, error) {
		if e.syncer.Exited() {
			t.Fatalf("cert-syncer exited; log %s", e.syncer.LogPath)
		}
		crt, err1 := os.ReadFile(e.hostCert)
		key, err2 := os.ReadFile(e.hostKey)
		return err1 == nil && err2 == nil && bytes.Equal(crt, e.serving.File("tls.crt")) && bytes.Equal(key, e.serving.File("tls.key")), nil
	}, "cert-syncer to write the Secret's pair to the node")
	secAssertMode(t, e.hostCert, 0o644)
	secAssertMode(t, e.hostKey, 0o600)
}

// whoMayScrape: prometheus-k8s gets CRI-O's metrics; another
// ServiceAccount and the proxy's own get 403 naming them (authenticated by
// TokenReview, refused by SubjectAccessReview); no token or a forged one
// 401; only /metrics is proxied.
func (e *secEnv) whoMayScrape(t *testing.T) {
	metricsURL := "https://" + e.proxyAddr + "/metrics"
	code, body, _, err := secScrape(metricsURL, e.promToken, e.trusted)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, code, "openshift-monitoring/prometheus-k8s: %.300s", body)
	assert.Contains(t, body, "\n"+secMetricsPrefix, "CRI-O's metrics come through the proxy")

	otherNS, otherToken := e.otherServiceAccountToken(t)
	proxyToken, err := framework.ServiceAccountToken(context.Background(), framework.KubeClient(t), operatorNamespace, e.spec.ServiceAccountName, framework.TokenOptions{})
	require.NoError(t, err)
	for _, c := range []struct {
		who, token string
		code       int
		body       string
	}{
		{otherNS + "/scraper", otherToken, http.StatusForbidden, "system:serviceaccount:" + otherNS + ":scraper"},
		{"the proxy's own ServiceAccount", proxyToken, http.StatusForbidden, "system:serviceaccount:" + operatorNamespace + ":" + e.spec.ServiceAccountName},
		{"no token", "", http.StatusUnauthorized, ""},
		{"a forged token", "eyJhbGciOiJSUzI1NiJ9.e30.c2lnbmF0dXJl", http.StatusUnauthorized, ""},
	} {
		code, body, _, err := secScrape(metricsURL, c.token, e.trusted)
		require.NoError(t, err, c.who)
		assert.Equal(t, c.code, code, "%s: %.300s", c.who, body)
		assert.NotContains(t, body, secMetricsPrefix, "%s gets no metrics", c.who)
		assert.Contains(t, body, c.body, c.who)
	}
	code, body, _, err = secScrape("https://"+e.proxyAddr+"/debug/pprof/", e.promToken, e.trusted)
	require.NoError(t, err)
	assert.Equal(t, http.StatusNotFound, code, "only /metrics is proxied (--allow-paths): %.200s", body)
}

// otherServiceAccountToken returns a token of a ServiceAccount in a new
// namespace.
func (e *secEnv) otherServiceAccountToken(t *testing.T) (string, string) {
	t.Helper()
	kube := framework.KubeClient(t)
	ns := framework.CreateNamespace(t, kube, "e2e-security")
	_, err := kube.CoreV1().ServiceAccounts(ns).Create(context.Background(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "scraper"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	var token string
	framework.Eventually(t, 30*time.Second, time.Second, func() (bool, error) {
		token, err = framework.ServiceAccountToken(context.Background(), kube, ns, "scraper", framework.TokenOptions{})
		return err == nil, err
	}, "a token for another ServiceAccount")
	return ns, token
}

// whoMayConnect: a client without the operator's CA connects neither to
// the proxy nor to CRI-O; CRI-O serves the Secret's certificate, which
// chains to the bundle ConfigMap and names the Service, localhost and
// 127.0.0.1; the Intermediate profile (the default) accepts TLS 1.2.
func (e *secEnv) whoMayConnect(t *testing.T) {
	for _, target := range []struct{ what, addr string }{{"kube-rbac-proxy", e.proxyAddr}, {"CRI-O", e.crioAddr}} {
		_, err := secHandshake(target.addr, &tls.Config{ServerName: secServiceName}) // the system roots
		var unknown x509.UnknownAuthorityError
		require.Error(t, err, "%s: a client without the operator's CA must not connect", target.what)
		assert.True(t, errors.As(err, &unknown), "%s: want unknown authority, got %v", target.what, err)
	}
	cm, err := framework.KubeClient(t).CoreV1().ConfigMaps(operatorNamespace).Get(context.Background(), secCABundle, metav1.GetOptions{})
	require.NoError(t, err)
	liveRoots := x509.NewCertPool()
	require.True(t, liveRoots.AppendCertsFromPEM([]byte(cm.Data["ca-bundle.crt"])))
	var crioLeaf *x509.Certificate
	framework.Eventually(t, time.Minute, 500*time.Millisecond, func() (bool, error) {
		st, err := secHandshake(e.crioAddr, &tls.Config{RootCAs: e.roots})
		if err != nil {
			return false, err
		}
		crioLeaf = st.PeerCertificates[0]
		want, _, err := servingCert(context.Background(), framework.KubeClient(t))
		return err == nil && crioLeaf.Equal(want), err
	}, "CRI-O to serve the certificate of the Secret "+secServingSecret)
	for _, name := range []string{secServiceName, secServiceName + ".cluster.local", "localhost", "127.0.0.1"} {
		_, err := crioLeaf.Verify(x509.VerifyOptions{Roots: liveRoots, DNSName: name})
		assert.NoError(t, err, "CRI-O's certificate chains to the bundle ConfigMap and is valid for %s", name)
	}
	st, err := secHandshake(e.proxyAddr, e.trusted)
	require.NoError(t, err)
	_, err = st.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: liveRoots, DNSName: secServiceName})
	assert.NoError(t, err, "the proxy's certificate chains to the bundle ConfigMap and names the Service")
	st, err = secHandshake(e.proxyAddr, &tls.Config{RootCAs: e.roots, ServerName: secServiceName, MaxVersion: tls.VersionTLS12})
	require.NoError(t, err, "TLS 1.2 with the Intermediate profile")
	assert.Equal(t, uint16(tls.VersionTLS12), st.Version)
}

// forcedRotation: through secRotations rotations of the serving
// certificate (each signed by the bundle's CA for the Service's names,
// localhost and 127.0.0.1), cert-syncer rewrites the node's files in place
// (same inodes and modes, as CRI-O's watch needs), CRI-O (same process,
// started once) loads and serves each new certificate, kube-rbac-proxy
// (same process) serves a rotated one too, and no scrape through the proxy
// nor handshake with CRI-O fails meanwhile; neither the CA bundle nor the
// DaemonSet changes, and its pods are not restarted.
func (e *secEnv) forcedRotation(t *testing.T) {
	bundleAtStart := string(e.bundle.File("ca-bundle.crt"))
	rolloutBefore := crioMetricsRollout(t)
	inodes := map[string]uint64{e.hostCert: secInode(t, e.hostCert), e.hostKey: secInode(t, e.hostKey)}
	crioPid, err := e.crio.Pid()
	require.NoError(t, err)
	first, err := secHandshake(e.crioAddr, &tls.Config{RootCAs: e.roots})
	require.NoError(t, err)
	proxyFirst, err := secHandshake(e.proxyAddr, e.trusted)
	require.NoError(t, err)
	poll := secStartScrapePoller("https://"+e.proxyAddr+"/metrics", e.promToken, e.trusted, e.crioAddr, e.roots)
	defer poll.stop()
	last := first.PeerCertificates[0]
	for i := 1; i <= secRotations; i++ {
		last = e.waitRotation(t, i, last)
	}
	pid, err := e.crio.Pid()
	require.NoError(t, err)
	assert.Equal(t, crioPid, pid, "CRI-O was not restarted")
	assert.Len(t, e.crio.LogLines("Serving metrics on"), 1, "CRI-O started once")
	assert.GreaterOrEqual(t, len(e.crio.LogLines("Metrics certificate is valid between")), secRotations+1, "CRI-O reloaded its certificate on every rotation")
	for p, ino := range inodes {
		assert.Equal(t, ino, secInode(t, p), "%s was rewritten in place (same inode), the way CRI-O's watch needs", p)
	}
	secAssertMode(t, e.hostCert, 0o644)
	secAssertMode(t, e.hostKey, 0o600)
	// kube-rbac-proxy re-reads its own serving pair (the same Secret) every
	// minute, also without a restart.
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		st, err := secHandshake(e.proxyAddr, e.trusted)
		return err == nil && !st.PeerCertificates[0].Equal(proxyFirst.PeerCertificates[0]), err
	}, "kube-rbac-proxy to serve a rotated certificate")
	framework.Eventually(t, 30*time.Second, 100*time.Millisecond, func() (bool, error) {
		return poll.sawCRIOSerial(last.SerialNumber.String()), nil
	}, "the poller to see the last certificate")
	require.False(t, e.proxy.Exited(), "kube-rbac-proxy is still the same process")
	require.False(t, e.syncer.Exited(), "cert-syncer is still the same process")
	res := poll.stop()
	assert.Empty(t, res.scrapeFailures, "no scrape may fail while the certificate rotates (%d scrapes)", res.scrapes)
	assert.Empty(t, res.handshakeFailures, "CRI-O keeps serving a valid certificate while it rotates")
	assert.GreaterOrEqual(t, len(res.crioSerials), secRotations+1, "every rotation reached CRI-O")
	assert.Equal(t, bundleAtStart, string(e.bundle.File("ca-bundle.crt")), "the CA bundle did not change (the signer keeps its long timing)")
	assert.Equal(t, rolloutBefore, crioMetricsRollout(t), "rotations change neither the DaemonSet nor its pods")
}

// crioMetricsRollout is the DaemonSet's generation and its pods' UIDs.
func crioMetricsRollout(t *testing.T) []string {
	t.Helper()
	ctx := context.Background()
	kube := framework.KubeClient(t)
	ds, err := kube.AppsV1().DaemonSets(operatorNamespace).Get(ctx, secDaemonSet, metav1.GetOptions{})
	require.NoError(t, err)
	pods, err := kube.CoreV1().Pods(operatorNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app=crio-metrics"})
	require.NoError(t, err)
	out := []string{fmt.Sprint("generation ", ds.Generation)}
	for _, p := range pods.Items {
		out = append(out, p.Spec.NodeName+" "+string(p.UID))
	}
	slices.Sort(out)
	return out
}

// waitRotation waits for the operator's next certificate after prev, for
// cert-syncer to write it to the node and for CRI-O to serve it, having
// logged loading it; it returns the certificate.
func (e *secEnv) waitRotation(t *testing.T, i int, prev *x509.Certificate) *x509.Certificate {
	t.Helper()
	var next *x509.Certificate
	var nextPEM []byte
	framework.Eventually(t, 3*time.Minute, time.Second, func() (bool, error) {
		cert, raw, err := servingCert(context.Background(), framework.KubeClient(t))
		if err != nil {
			return false, err
		}
		next, nextPEM = cert, raw
		return !cert.Equal(prev), nil
	}, fmt.Sprintf("rotation %d: the operator issues a new certificate", i))
	// cert-syncer reacts to the volume's change within its 200 ms
	// debounce, and re-checks every minute anyway.
	framework.Eventually(t, 70*time.Second, 20*time.Millisecond, func() (bool, error) {
		crt, err := os.ReadFile(e.hostCert)
		return err == nil && bytes.Equal(crt, nextPEM) && bytes.Equal(e.serving.File("tls.crt"), nextPEM), nil
	}, fmt.Sprintf("rotation %d: cert-syncer writes the new certificate to the node", i))
	framework.Eventually(t, 30*time.Second, 50*time.Millisecond, func() (bool, error) {
		st, err := secHandshake(e.crioAddr, &tls.Config{RootCAs: e.roots})
		return err == nil && st.PeerCertificates[0].Equal(next), err
	}, fmt.Sprintf("rotation %d: CRI-O serves the new certificate", i))
	for _, name := range []string{secServiceName, secServiceName + ".cluster.local", "localhost", "127.0.0.1"} {
		_, err := next.Verify(x509.VerifyOptions{Roots: e.roots, DNSName: name})
		assert.NoError(t, err, "rotation %d: signed by the bundle's CA for %s", i, name)
	}
	loaded := fmt.Sprintf("Metrics certificate is valid between %s and %s", next.NotBefore.UTC(), next.NotAfter.UTC())
	require.NotEmpty(t, e.crio.LogLines(loaded), "CRI-O logged loading the certificate valid from %s", next.NotBefore)
	return next
}

// modernProfileRefusesTLS12: with the APIServer's Modern TLS profile the
// operator puts --tls-min-version=VersionTLS13 into the DaemonSet; the
// proxy restarted with those arguments (the DaemonSet rolls) refuses a TLS
// 1.2 client and serves TLS 1.3. The profile is restored afterwards.
func (e *secEnv) modernProfileRefusesTLS12(t *testing.T) {
	ctx := context.Background()
	cfgClient := e.c.Config1.ConfigV1().APIServers()
	apiServer, err := cfgClient.Get(ctx, "cluster", metav1.GetOptions{})
	require.NoError(t, err)
	original, err := json.Marshal(apiServer.Spec.TLSSecurityProfile) // "null" when unset
	require.NoError(t, err)
	t.Cleanup(func() {
		patch := fmt.Sprintf(`{"spec":{"tlsSecurityProfile":%s}}`, original)
		if _, err := cfgClient.Patch(context.Background(), "cluster", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Errorf("restoring the APIServer's tlsSecurityProfile: %v", err)
		}
	})
	_, err = cfgClient.Patch(ctx, "cluster", types.MergePatchType,
		[]byte(`{"spec":{"tlsSecurityProfile":{"type":"`+string(configv1.TLSProfileModernType)+`","modern":{}}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	var modern *appsv1.DaemonSet
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		var err error
		modern, err = framework.KubeClient(t).AppsV1().DaemonSets(operatorNamespace).Get(ctx, secDaemonSet, metav1.GetOptions{})
		return err == nil && slices.Contains(secContainer(t, modern.Spec.Template.Spec, "kube-rbac-proxy").Args, "--tls-min-version=VersionTLS13"), err
	}, "the DaemonSet's kube-rbac-proxy to get --tls-min-version=VersionTLS13")

	e.proxy.Stop()
	e.node.UpdatePodSpec(t, modern.Spec.Template.Spec)
	_, modernAddr := e.startProxy(t)
	_, err = secHandshake(modernAddr, &tls.Config{RootCAs: e.roots, ServerName: secServiceName, MaxVersion: tls.VersionTLS12})
	require.Error(t, err, "a TLS 1.2 client must be refused with the Modern profile")
	assert.Contains(t, err.Error(), "protocol version", "refused for its protocol version")
	code, body, st, err := secScrape("https://"+modernAddr+"/metrics", e.promToken, &tls.Config{RootCAs: e.roots, ServerName: secServiceName, MinVersion: tls.VersionTLS13})
	require.NoError(t, err)
	assert.Equal(t, uint16(tls.VersionTLS13), st.Version)
	assert.Equal(t, http.StatusOK, code, "%.300s", body)
	assert.Contains(t, body, "\n"+secMetricsPrefix)
}

// secVolumes finds the DaemonSet's serving-certificate Secret volume, CA
// bundle ConfigMap volume and host directory volume.
func secVolumes(t *testing.T, spec corev1.PodSpec) (serving, bundle, host corev1.Volume) {
	t.Helper()
	for _, v := range spec.Volumes {
		switch {
		case v.Secret != nil && v.Secret.SecretName == secServingSecret:
			serving = v
		case v.ConfigMap != nil && v.ConfigMap.Name == secCABundle:
			bundle = v
		case v.HostPath != nil:
			host = v
		}
	}
	require.NotNil(t, serving.Secret, "the DaemonSet mounts the Secret %s", secServingSecret)
	require.NotNil(t, bundle.ConfigMap, "the DaemonSet mounts the ConfigMap %s", secCABundle)
	require.NotNil(t, host.HostPath, "the DaemonSet mounts a host directory")
	return serving, bundle, host
}

func secContainer(t *testing.T, spec corev1.PodSpec, name string) corev1.Container {
	t.Helper()
	for _, c := range spec.Containers {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("the DaemonSet has no container %s", name)
	return corev1.Container{}
}

// startProxy starts the node's kube-rbac-proxy container and waits until
// it serves TLS. Only three things differ from the DaemonSet's arguments:
// the listen port (a free one: 9638 may be taken here), the upstream port
// (our CRI-O's) and the added --kubeconfig (where the pod would use its
// in-cluster configuration); the volume paths are the node's.
func (e *secEnv) startProxy(t *testing.T) (*framework.Process, string) {
	t.Helper()
	port := framework.FreePort(t)
	var listen string
	p := framework.StartPodProcess(t, e.c.Config, framework.PodProcessOptions{
		Node: e.node, Container: "kube-rbac-proxy", Binaries: map[string]string{"kube-rbac-proxy": e.proxyBin},
		RewriteArgs: func(args []string) []string {
			out := make([]string, len(args))
			for i, a := range args {
				out[i] = a
				switch {
				case strings.HasPrefix(a, "--secure-listen-address="):
					host, _, err := net.SplitHostPort(strings.TrimPrefix(a, "--secure-listen-address="))
					require.NoError(t, err, a)
					require.Equal(t, e.node.IP, host, "the proxy listens on the node's IP ($(NODE_IP))")
					listen = net.JoinHostPort(host, strconv.Itoa(port))
					out[i] = "--secure-listen-address=" + listen
				case strings.HasPrefix(a, "--upstream="):
					u, err := url.Parse(strings.TrimPrefix(a, "--upstream="))
					require.NoError(t, err, a)
					require.Equal(t, "https", u.Scheme, "the proxy talks TLS to CRI-O")
					require.Equal(t, "127.0.0.1", u.Hostname(), "the proxy talks to CRI-O on loopback")
					u.Host = net.JoinHostPort(u.Hostname(), strconv.Itoa(e.crioPort))
					out[i] = "--upstream=" + u.String()
				}
			}
			return append(out, "--kubeconfig="+e.kubeconfig)
		},
	})
	require.NotEmpty(t, listen, "the DaemonSet's kube-rbac-proxy has a --secure-listen-address")
	framework.Eventually(t, time.Minute, 200*time.Millisecond, func() (bool, error) {
		if p.Exited() {
			log, _ := os.ReadFile(p.LogPath)
			t.Fatalf("kube-rbac-proxy exited:\n%s", log)
		}
		_, err := secHandshake(listen, &tls.Config{RootCAs: e.roots, ServerName: secServiceName})
		return err == nil, err
	}, "kube-rbac-proxy to serve TLS on "+listen)
	return p, listen
}

// servingCert returns the leaf of the live CRI-O metrics serving Secret and
// its PEM.
func servingCert(ctx context.Context, kube kubernetes.Interface) (*x509.Certificate, []byte, error) {
	s, err := kube.CoreV1().Secrets(operatorNamespace).Get(ctx, secServingSecret, metav1.GetOptions{})
	if err != nil {
		return nil, nil, err
	}
	cert, err := framework.FirstCertificate(s.Data["tls.crt"])
	if err != nil {
		return nil, nil, fmt.Errorf("secret %s: %w", secServingSecret, err)
	}
	return cert, s.Data["tls.crt"], nil
}

// secHandshake makes one TLS handshake on a new connection.
func secHandshake(addr string, cfg *tls.Config) (*tls.ConnectionState, error) {
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	st := conn.ConnectionState()
	return &st, nil
}

// secScrape GETs url on a new connection, with a bearer token unless empty.
func secScrape(u, token string, cfg *tls.Config) (int, string, *tls.ConnectionState, error) {
	client := &http.Client{
		Timeout:   20 * time.Second,
		Transport: &http.Transport{TLSClientConfig: cfg, DisableKeepAlives: true},
	}
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return 0, "", nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), resp.TLS, err
}

func secInode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Stat(p)
	require.NoError(t, err)
	return fi.Sys().(*syscall.Stat_t).Ino
}

func secAssertMode(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	fi, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, mode, fi.Mode().Perm(), "mode of %s", p)
}

// secPoller scrapes through the proxy, as Prometheus would (new connection,
// bearer token, the bundle, the Service's name), and handshakes directly with
// CRI-O, every 500 ms, sequentially.
type secPoller struct {
	done     chan struct{}
	finished chan struct{}
	once     sync.Once
	mu       sync.Mutex
	res      secPollResult
}

type secPollResult struct {
	duration          time.Duration
	scrapes           int
	scrapeFailures    []string
	handshakes        int
	handshakeFailures []string
	crioSerials       []string
}

func secStartScrapePoller(metricsURL, token string, cfg *tls.Config, crioAddr string, roots *x509.CertPool) *secPoller {
	p := &secPoller{done: make(chan struct{}), finished: make(chan struct{})}
	start := time.Now()
	go func() {
		defer close(p.finished)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			code, body, _, scrapeErr := secScrape(metricsURL, token, cfg)
			st, err := secHandshake(crioAddr, &tls.Config{RootCAs: roots})
			p.mu.Lock()
			p.res.scrapes++
			switch {
			case scrapeErr != nil:
				p.res.scrapeFailures = append(p.res.scrapeFailures, fmt.Sprintf("%s: %v", time.Now().Format(time.TimeOnly), scrapeErr))
			case code != http.StatusOK || !strings.Contains(body, "\n"+secMetricsPrefix):
				p.res.scrapeFailures = append(p.res.scrapeFailures, fmt.Sprintf("%s: %d %.200s", time.Now().Format(time.TimeOnly), code, body))
			}
			p.res.handshakes++
			if err != nil {
				p.res.handshakeFailures = append(p.res.handshakeFailures, fmt.Sprintf("%s: %v", time.Now().Format(time.TimeOnly), err))
			} else if s := st.PeerCertificates[0].SerialNumber.String(); !slices.Contains(p.res.crioSerials, s) {
				p.res.crioSerials = append(p.res.crioSerials, s)
			}
			p.mu.Unlock()
			select {
			case <-p.done:
				p.mu.Lock()
				p.res.duration = time.Since(start)
				p.mu.Unlock()
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

// sawCRIOSerial reports whether a handshake with CRI-O got serial.
func (p *secPoller) sawCRIOSerial(serial string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Contains(p.res.crioSerials, serial)
}

// stop ends the polling and returns what it saw; safe to call twice.
func (p *secPoller) stop() secPollResult {
	p.once.Do(func() { close(p.done) })
	<-p.finished
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.res
}
