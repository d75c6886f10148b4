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
	"k8s.io/apimachinery/pkg/runtime/schema"
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

// TestSecurityCRIOMetricsEndToEnd proves the CRI-O metrics security of issue 4
// on real components, one node simulated on this machine:
//
//   - the operator (run locally) issues the CA bundle and serving certificate
//     and applies the DaemonSet and the CRI-O drop-in MachineConfig;
//   - the kubelet's projection of the DaemonSet's Secret and ConfigMap
//     volumes is simulated (framework.Node) and follows the live objects;
//   - the real cert-syncer runs with the DaemonSet container's arguments and
//     securityContext and writes the pair to the node's /var/lib/crio-metrics;
//   - a real CRI-O 1.34 runs with the shipped drop-in (bindata, as the
//     MachineConfig delivers it) and serves its metrics over TLS from there;
//   - the real kube-rbac-proxy runs with exactly the live DaemonSet's
//     arguments, as the DaemonSet's ServiceAccount, in front of CRI-O.
//
// Then: who may scrape (200, 403, 401), who may connect (the operator's CA
// only), that CRI-O follows forced rotations without a restart while every
// scrape succeeds, and that the Modern TLS profile refuses TLS 1.2.
func TestSecurityCRIOMetricsEndToEnd(t *testing.T) {
	t0 := time.Now()
	repo := framework.RepoRoot(t)
	if os.Geteuid() != 0 {
		framework.Unavailable(t, "CRI-O can only be built (Debian packages) and run as root; run the e2e tests as root")
	}
	if err := framework.EnsureTool(t, "crio"); err != nil {
		framework.Unavailable(t, "CRI-O cannot be built on this machine, so the security e2e cannot run: %v", err)
	}
	require.NoError(t, framework.EnsureTool(t, "kube-rbac-proxy"), "building kube-rbac-proxy")
	certSyncerBin := filepath.Join(repo, "_output", "bin", "cert-syncer")
	proxyBin := filepath.Join(repo, "_output", "bin", "kube-rbac-proxy")
	if _, err := os.Stat(certSyncerBin); err != nil {
		t.Fatalf("%v: run `make build` first", err)
	}

	// The operator, with a serving certificate that rotates every minute.
	// The signer keeps its default (long) timing, so the CA bundle does not
	// change and kube-rbac-proxy's --upstream-ca-file stays valid.
	c, _ := framework.Setup(t, framework.OperatorOptions{Args: []string{
		"--crio-metrics-cert-validity=3m", "--crio-metrics-cert-refresh=1m",
	}})
	kube := framework.KubeClient(t)
	ctx := context.Background()
	// A fresh one: a certificate an earlier run left behind may be about to
	// expire, and kube-rbac-proxy, which re-reads its own pair only every
	// minute, would serve it expired for up to a minute (measured: 44 s of
	// failed scrapes). This operator replaces it at once (past its refresh).
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		cert, _, err := servingCert(ctx, kube)
		return err == nil && cert.NotAfter.Sub(cert.NotBefore) < 5*time.Minute && time.Until(cert.NotAfter) > 2*time.Minute, err
	}, "the operator to issue a fresh short-lived serving certificate (more than 2 minutes left)")
	tOperator := time.Now()

	var ds *appsv1.DaemonSet
	framework.Eventually(t, time.Minute, time.Second, func() (bool, error) {
		var err error
		ds, err = kube.AppsV1().DaemonSets(operatorNamespace).Get(ctx, secDaemonSet, metav1.GetOptions{})
		return err == nil, err
	}, "the DaemonSet crio-metrics")
	spec := ds.Spec.Template.Spec
	servingVol, bundleVol, hostVol := secVolumes(t, spec)

	// --- The node. ---
	node := framework.NewNode(t, c.Config, operatorNamespace, spec)

	// What the machine-config operator puts on the node: the drop-in of the
	// live MachineConfig, which must be the shipped one (bindata).
	shipped := bindata.MustAsset("metrics/crio-dropin.conf")
	mcGVR := schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigs"}
	if framework.Served(t, kube, mcGVR) {
		mc, err := c.Dynamic.Resource(mcGVR).Get(ctx, "50-worker-crio-metrics-tls", metav1.GetOptions{})
		require.NoError(t, err, "the operator's MachineConfig for workers")
		node.ApplyMachineConfig(t, mc)
	} else {
		t.Log("machineconfiguration.openshift.io/v1 is not served; installing the shipped drop-in directly")
		require.NoError(t, os.MkdirAll(node.HostPath("/etc/crio/crio.conf.d"), 0o755))
		require.NoError(t, os.WriteFile(node.HostPath("/etc/crio/crio.conf.d/50-crio-metrics-tls.conf"), shipped, 0o644))
	}
	dropIns := node.CRIODropIns(t)
	require.Len(t, dropIns, 1, "CRI-O drop-ins on the node")
	for name := range dropIns {
		onNode, err := os.ReadFile(node.HostPath("/etc/crio/crio.conf.d/" + name))
		require.NoError(t, err)
		require.Equal(t, string(shipped), string(onNode), "the drop-in the MachineConfig delivers is bindata/metrics/crio-dropin.conf")
	}
	hostDir := node.HostPath(hostVol.HostPath.Path)
	for name, d := range dropIns {
		require.Contains(t, string(d), strconv.Quote(filepath.Join(hostDir, "tls.crt")), "drop-in %s: metrics_cert must be the file cert-syncer writes", name)
		t.Logf("CRI-O drop-in %s, paths moved below the node's root:\n%s", name, d)
	}

	// The kubelet: projected volumes following the live Secret and ConfigMap.
	node.MountVolumes(t, time.Second)
	serving, bundle := node.Volume(servingVol.Name), node.Volume(bundleVol.Name)
	roots := x509.NewCertPool()
	require.True(t, roots.AppendCertsFromPEM(bundle.File("ca-bundle.crt")), "the CA bundle holds certificates")
	bundleAtStart := string(bundle.File("ca-bundle.crt"))

	// cert-syncer, with the DaemonSet's arguments and securityContext.
	syncer := node.StartContainer(t, "cert-syncer", framework.ContainerOptions{Binary: certSyncerBin})
	hostCert, hostKey := filepath.Join(hostDir, "tls.crt"), filepath.Join(hostDir, "tls.key")
	framework.Eventually(t, time.Minute, 200*time.Millisecond, func() (bool, error) {
		if syncer.Exited() {
			t.Fatalf("cert-syncer exited; log %s", syncer.LogPath)
		}
		crt, err1 := os.ReadFile(hostCert)
		key, err2 := os.ReadFile(hostKey)
		return err1 == nil && err2 == nil && bytes.Equal(crt, serving.File("tls.crt")) && bytes.Equal(key, serving.File("tls.key")), nil
	}, "cert-syncer to write the Secret's pair to the node's "+hostVol.HostPath.Path)
	secAssertMode(t, hostCert, 0o644)
	secAssertMode(t, hostKey, 0o600)
	inodes := map[string]uint64{hostCert: secInode(t, hostCert), hostKey: secInode(t, hostKey)}

	// CRI-O, started once cert-syncer wrote the pair, with the node's
	// drop-in. hack/crio.sh's own drop-in (10-metrics.conf) enables metrics
	// on our port and names a pair of its own under CRIO_DIR/tls; the
	// operator's drop-in sorts later and must override it, and the start
	// script's readiness probe verifies the served certificate with the
	// operator's CA bundle, so CRI-O is only "ready" on the operator's pair.
	crioPort := framework.FreePort(t)
	crio := framework.StartCRIO(t, framework.CRIOOptions{
		Dir:         filepath.Join(node.Root, "crio"),
		MetricsPort: crioPort,
		DropIns:     dropIns,
		ProbeCA:     bundle.Path("ca-bundle.crt"),
	})
	crioPid, err := crio.Pid()
	require.NoError(t, err)
	for name := range dropIns {
		require.NotEmpty(t, crio.LogLines("Updating config from drop-in file: "+filepath.Join(crio.Dir, "crio.conf.d", name)),
			"CRI-O read the operator's drop-in %s", name)
	}
	crioAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(crioPort))

	// kube-rbac-proxy, with exactly the live DaemonSet's arguments, as the
	// DaemonSet's ServiceAccount (its TokenReviews and SubjectAccessReviews
	// use the RBAC the operator ships).
	kubeconfig := node.WriteServiceAccountKubeconfig(t, c.Config, operatorNamespace, spec.ServiceAccountName)
	proxy, proxyAddr := secStartProxy(t, node, proxyBin, kubeconfig, crioPort, roots)
	tNode := time.Now()
	t.Logf("timing: operator settled with a short-lived certificate in %s; node (kubelet volumes, cert-syncer, CRI-O, proxy) up in %s",
		tOperator.Sub(t0).Round(time.Second), tNode.Sub(tOperator).Round(time.Second))

	// Tokens.
	promToken, err := framework.ServiceAccountToken(ctx, kube, "openshift-monitoring", "prometheus-k8s", framework.TokenOptions{})
	require.NoError(t, err)
	otherNS := framework.CreateNamespace(t, kube, "e2e-security")
	_, err = kube.CoreV1().ServiceAccounts(otherNS).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "scraper"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	var otherToken string
	framework.Eventually(t, 30*time.Second, time.Second, func() (bool, error) {
		otherToken, err = framework.ServiceAccountToken(ctx, kube, otherNS, "scraper", framework.TokenOptions{})
		return err == nil, err
	}, "a token for another ServiceAccount")
	proxyToken, err := framework.ServiceAccountToken(ctx, kube, operatorNamespace, spec.ServiceAccountName, framework.TokenOptions{})
	require.NoError(t, err)

	// A client configured like the ServiceMonitor: the bundle as roots, the
	// Service's name as serverName.
	trusted := &tls.Config{RootCAs: roots, ServerName: secServiceName, MinVersion: tls.VersionTLS12}
	metricsURL := "https://" + proxyAddr + "/metrics"

	t.Run("WhoMayScrape", func(t *testing.T) {
		code, body, _, err := secScrape(metricsURL, promToken, trusted)
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, code, "openshift-monitoring/prometheus-k8s: %.300s", body)
		assert.Contains(t, body, "\n"+secMetricsPrefix, "CRI-O's metrics come through the proxy")
		t.Logf("prometheus-k8s: %d, %d %s* lines", code, strings.Count(body, "\n"+secMetricsPrefix), secMetricsPrefix)

		for _, c := range []struct {
			who, token string
			code       int
			body       string
		}{
			{otherNS + "/scraper (another ServiceAccount)", otherToken, http.StatusForbidden, "system:serviceaccount:" + otherNS + ":scraper"},
			{operatorNamespace + "/" + spec.ServiceAccountName + " (the proxy's own ServiceAccount)", proxyToken, http.StatusForbidden,
				"system:serviceaccount:" + operatorNamespace + ":" + spec.ServiceAccountName},
			{"no token", "", http.StatusUnauthorized, ""},
			{"a forged token", "eyJhbGciOiJSUzI1NiJ9.e30.c2lnbmF0dXJl", http.StatusUnauthorized, ""},
		} {
			code, body, _, err := secScrape(metricsURL, c.token, trusted)
			require.NoError(t, err, c.who)
			assert.Equal(t, c.code, code, "%s: %.300s", c.who, body)
			assert.NotContains(t, body, secMetricsPrefix, "%s gets no metrics", c.who)
			if c.body != "" {
				// A 403 naming the user: the token was authenticated
				// (TokenReview) and then refused (SubjectAccessReview).
				assert.Contains(t, body, c.body, c.who)
			}
			t.Logf("%s: %d %q", c.who, code, strings.TrimSpace(body))
		}
		code, body, _, err = secScrape("https://"+proxyAddr+"/debug/pprof/", promToken, trusted)
		require.NoError(t, err)
		assert.Equal(t, http.StatusNotFound, code, "only /metrics is proxied (--allow-paths): %.200s", body)
	})

	t.Run("WhoMayConnect", func(t *testing.T) {
		for _, target := range []struct{ what, addr string }{{"kube-rbac-proxy", proxyAddr}, {"CRI-O", crioAddr}} {
			// The machine's system roots: anyone who does not trust the
			// operator's CA.
			_, err := secHandshake(target.addr, &tls.Config{ServerName: secServiceName})
			var unknown x509.UnknownAuthorityError
			require.Error(t, err, "%s: a client without the operator's CA must not connect", target.what)
			assert.True(t, errors.As(err, &unknown), "%s: want unknown authority, got %v", target.what, err)
			t.Logf("%s without the operator's CA: %v", target.what, err)
		}

		// The certificate CRI-O serves is the Secret's, chains to a CA in the
		// bundle ConfigMap and names the Service, localhost and 127.0.0.1.
		cm, err := kube.CoreV1().ConfigMaps(operatorNamespace).Get(ctx, secCABundle, metav1.GetOptions{})
		require.NoError(t, err)
		liveRoots := x509.NewCertPool()
		require.True(t, liveRoots.AppendCertsFromPEM([]byte(cm.Data["ca-bundle.crt"])))
		var crioLeaf *x509.Certificate
		framework.Eventually(t, time.Minute, 500*time.Millisecond, func() (bool, error) {
			st, err := secHandshake(crioAddr, &tls.Config{RootCAs: roots})
			if err != nil {
				return false, err
			}
			crioLeaf = st.PeerCertificates[0]
			want, _, err := servingCert(ctx, kube)
			return err == nil && crioLeaf.Equal(want), err
		}, "CRI-O to serve the certificate of the Secret "+secServingSecret)
		for _, name := range []string{secServiceName, secServiceName + ".cluster.local", "localhost", "127.0.0.1"} {
			_, err := crioLeaf.Verify(x509.VerifyOptions{Roots: liveRoots, DNSName: name})
			assert.NoError(t, err, "CRI-O's certificate chains to the bundle ConfigMap and is valid for %s", name)
		}
		t.Logf("CRI-O serves serial %s (%s .. %s), DNS %v, IP %v", crioLeaf.SerialNumber, crioLeaf.NotBefore.UTC().Format(time.TimeOnly),
			crioLeaf.NotAfter.UTC().Format(time.TimeOnly), crioLeaf.DNSNames, crioLeaf.IPAddresses)

		st, err := secHandshake(proxyAddr, trusted)
		require.NoError(t, err)
		_, err = st.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: liveRoots, DNSName: secServiceName})
		assert.NoError(t, err, "the proxy's certificate chains to the bundle ConfigMap and names the Service")

		// The Intermediate profile (the default) accepts TLS 1.2; the Modern
		// part below shows the refusal comes from the profile.
		st, err = secHandshake(proxyAddr, &tls.Config{RootCAs: roots, ServerName: secServiceName, MaxVersion: tls.VersionTLS12})
		require.NoError(t, err, "TLS 1.2 with the Intermediate profile")
		assert.Equal(t, uint16(tls.VersionTLS12), st.Version)
	})

	t.Run("ForcedRotation", func(t *testing.T) {
		first, err := secHandshake(crioAddr, &tls.Config{RootCAs: roots})
		require.NoError(t, err)
		proxyFirst, err := secHandshake(proxyAddr, trusted)
		require.NoError(t, err)
		poll := secStartScrapePoller(metricsURL, promToken, trusted, crioAddr, roots)
		defer poll.stop()

		prev := first.PeerCertificates[0]
		for i := 1; i <= secRotations; i++ {
			var next *x509.Certificate
			var nextPEM []byte
			framework.Eventually(t, 3*time.Minute, time.Second, func() (bool, error) {
				cert, raw, err := servingCert(ctx, kube)
				next, nextPEM = cert, raw
				return err == nil && !cert.Equal(prev), err
			}, fmt.Sprintf("rotation %d: the operator replaces the serving certificate", i))
			// cert-syncer reacts to the volume's change within its 200 ms
			// debounce, and re-checks every minute anyway.
			framework.Eventually(t, 70*time.Second, 20*time.Millisecond, func() (bool, error) {
				crt, err := os.ReadFile(hostCert)
				return err == nil && bytes.Equal(crt, nextPEM) && bytes.Equal(serving.File("tls.crt"), nextPEM), nil
			}, fmt.Sprintf("rotation %d: cert-syncer writes the new certificate to the node", i))
			// When the simulated kubelet swapped ..data to the new Secret,
			// and when cert-syncer wrote the file (in place: its mtime).
			updates := serving.Updates()
			tProjected := updates[len(updates)-1]
			fi, err := os.Stat(hostCert)
			require.NoError(t, err)
			tWritten := fi.ModTime()
			framework.Eventually(t, 30*time.Second, 50*time.Millisecond, func() (bool, error) {
				st, err := secHandshake(crioAddr, &tls.Config{RootCAs: roots})
				return err == nil && st.PeerCertificates[0].Equal(next), err
			}, fmt.Sprintf("rotation %d: CRI-O serves the new certificate without a restart", i))
			// When CRI-O loaded it, by its own log.
			tLoaded, ok := secCRIOLoadTime(crio, next)
			require.True(t, ok, "CRI-O logged loading the certificate valid from %s", next.NotBefore)
			pid, err := crio.Pid()
			require.NoError(t, err)
			require.Equal(t, crioPid, pid, "CRI-O was not restarted")
			// cert-syncer debounces volume events by 200 ms; a quicker or
			// much later write came from its 1-minute re-check.
			how := "on the volume's change"
			if d := tWritten.Sub(tProjected); d < 150*time.Millisecond || d > 2*time.Second {
				how = "at its 1-minute re-check"
			}
			t.Logf("rotation %d: serial %s -> %s; kubelet volume updated -> node file written by cert-syncer %s (%s) -> loaded by CRI-O (pid %d) %s",
				i, prev.SerialNumber, next.SerialNumber, tWritten.Sub(tProjected).Round(time.Millisecond), how, pid, tLoaded.Sub(tWritten).Round(time.Millisecond))
			prev = next
		}
		// CRI-O's own account: it loaded a certificate at start and once per
		// rotation, within one run (a start logs "Serving metrics on").
		assert.Len(t, crio.LogLines("Serving metrics on"), 1, "CRI-O started once")
		loaded := crio.LogLines("Metrics certificate is valid between")
		assert.GreaterOrEqual(t, len(loaded), secRotations+1, "CRI-O reloaded its certificate on every rotation")
		t.Logf("CRI-O log: %d certificates loaded, %d times kept the previous pair while the key and certificate did not match yet",
			len(loaded), len(crio.LogLines("Keeping previous certificates")))
		for p, ino := range inodes {
			assert.Equal(t, ino, secInode(t, p), "%s was rewritten in place (same inode), the way CRI-O's watch needs", p)
		}
		secAssertMode(t, hostCert, 0o644)
		secAssertMode(t, hostKey, 0o600)

		// kube-rbac-proxy re-reads its own serving pair (the same Secret)
		// every minute, also without a restart.
		framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
			st, err := secHandshake(proxyAddr, trusted)
			return err == nil && !st.PeerCertificates[0].Equal(proxyFirst.PeerCertificates[0]), err
		}, "kube-rbac-proxy to serve a rotated certificate")
		// Let the poller's own handshakes see the last certificate too.
		framework.Eventually(t, 30*time.Second, 100*time.Millisecond, func() (bool, error) {
			return poll.sawCRIOSerial(prev.SerialNumber.String()), nil
		}, "the poller to see the last certificate")
		require.False(t, proxy.Exited(), "kube-rbac-proxy is still the same process")
		require.False(t, syncer.Exited(), "cert-syncer is still the same process")

		res := poll.stop()
		t.Logf("during %s of rotations: %d scrapes through kube-rbac-proxy, %d failed; %d direct CRI-O handshakes, %d failed; CRI-O served %d certificates",
			res.duration.Round(time.Second), res.scrapes, len(res.scrapeFailures), res.handshakes, len(res.handshakeFailures), len(res.crioSerials))
		assert.Empty(t, res.scrapeFailures, "no scrape may fail while the certificate rotates")
		assert.Empty(t, res.handshakeFailures, "CRI-O keeps serving a valid certificate while it rotates")
		assert.GreaterOrEqual(t, len(res.crioSerials), secRotations+1, "every rotation reached CRI-O")
		assert.Equal(t, bundleAtStart, string(bundle.File("ca-bundle.crt")), "the CA bundle did not change (the signer keeps its long timing)")
		t.Logf("kubelet volume updates: serving certificate %d, CA bundle %d", len(serving.Updates()), len(bundle.Updates()))
	})

	t.Run("ModernProfileRefusesTLS12", func(t *testing.T) {
		cfgClient := c.Config1.ConfigV1().APIServers()
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
		tPatch := time.Now()
		_, err = cfgClient.Patch(ctx, "cluster", types.MergePatchType,
			[]byte(`{"spec":{"tlsSecurityProfile":{"type":"`+string(configv1.TLSProfileModernType)+`","modern":{}}}}`), metav1.PatchOptions{})
		require.NoError(t, err)

		var modern *appsv1.DaemonSet
		framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
			var err error
			modern, err = kube.AppsV1().DaemonSets(operatorNamespace).Get(ctx, secDaemonSet, metav1.GetOptions{})
			return err == nil && slices.Contains(secContainer(t, modern.Spec.Template.Spec, "kube-rbac-proxy").Args, "--tls-min-version=VersionTLS13"), err
		}, "the DaemonSet's kube-rbac-proxy to get --tls-min-version=VersionTLS13")
		t.Logf("the operator applied the Modern profile to the DaemonSet in %s: %q", time.Since(tPatch).Round(time.Millisecond),
			secContainer(t, modern.Spec.Template.Spec, "kube-rbac-proxy").Args)

		// The DaemonSet rolls: the node's proxy restarts with the new args.
		proxy.Stop()
		node.UpdatePodSpec(t, modern.Spec.Template.Spec)
		_, modernAddr := secStartProxy(t, node, proxyBin, kubeconfig, crioPort, roots)

		_, err = secHandshake(modernAddr, &tls.Config{RootCAs: roots, ServerName: secServiceName, MaxVersion: tls.VersionTLS12})
		require.Error(t, err, "a TLS 1.2 client must be refused with the Modern profile")
		assert.Contains(t, err.Error(), "protocol version", "refused for its protocol version")
		t.Logf("TLS 1.2 client: %v", err)

		modernCfg := &tls.Config{RootCAs: roots, ServerName: secServiceName, MinVersion: tls.VersionTLS13}
		code, body, st, err := secScrape("https://"+modernAddr+"/metrics", promToken, modernCfg)
		require.NoError(t, err)
		assert.Equal(t, uint16(tls.VersionTLS13), st.Version)
		assert.Equal(t, http.StatusOK, code, "%.300s", body)
		assert.Contains(t, body, "\n"+secMetricsPrefix)
	})
	t.Logf("timing: whole test %s", time.Since(t0).Round(time.Second))
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

// secStartProxy starts the node's kube-rbac-proxy container and waits until
// it serves TLS. Only three things differ from the DaemonSet's arguments:
// the listen port (a free one: 9638 may be taken here), the upstream port
// (our CRI-O's) and the added --kubeconfig (where the pod would use its
// in-cluster configuration); the volume paths are the node's.
func secStartProxy(t *testing.T, node *framework.Node, binary, kubeconfig string, crioPort int, roots *x509.CertPool) (*framework.Process, string) {
	t.Helper()
	port := framework.FreePort(t)
	var listen string
	p := node.StartContainer(t, "kube-rbac-proxy", framework.ContainerOptions{
		Binary:    binary,
		ExtraArgs: []string{"--kubeconfig=" + kubeconfig},
		RewriteArgs: func(args []string) []string {
			out := make([]string, len(args))
			for i, a := range args {
				out[i] = a
				switch {
				case strings.HasPrefix(a, "--secure-listen-address="):
					host, _, err := net.SplitHostPort(strings.TrimPrefix(a, "--secure-listen-address="))
					require.NoError(t, err, a)
					require.Equal(t, node.IP, host, "the proxy listens on the node's IP ($(NODE_IP))")
					listen = net.JoinHostPort(host, strconv.Itoa(port))
					out[i] = "--secure-listen-address=" + listen
				case strings.HasPrefix(a, "--upstream="):
					u, err := url.Parse(strings.TrimPrefix(a, "--upstream="))
					require.NoError(t, err, a)
					require.Equal(t, "https", u.Scheme, "the proxy talks TLS to CRI-O")
					require.Equal(t, "127.0.0.1", u.Hostname(), "the proxy talks to CRI-O on loopback")
					u.Host = net.JoinHostPort(u.Hostname(), strconv.Itoa(crioPort))
					out[i] = "--upstream=" + u.String()
				}
			}
			return out
		},
	})
	require.NotEmpty(t, listen, "the DaemonSet's kube-rbac-proxy has a --secure-listen-address")
	framework.Eventually(t, time.Minute, 200*time.Millisecond, func() (bool, error) {
		if p.Exited() {
			log, _ := os.ReadFile(p.LogPath)
			t.Fatalf("kube-rbac-proxy exited:\n%s", log)
		}
		_, err := secHandshake(listen, &tls.Config{RootCAs: roots, ServerName: secServiceName})
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

// secCRIOLoadTime finds when CRI-O logged loading cert ("Metrics
// certificate is valid between <NotBefore> and <NotAfter>").
func secCRIOLoadTime(crio *framework.CRIO, cert *x509.Certificate) (time.Time, bool) {
	want := fmt.Sprintf("Metrics certificate is valid between %s and %s", cert.NotBefore.UTC(), cert.NotAfter.UTC())
	lines := crio.LogLines(want)
	if len(lines) == 0 {
		return time.Time{}, false
	}
	ts, _, ok := strings.Cut(strings.TrimPrefix(lines[len(lines)-1], `time="`), `"`)
	if !ok {
		return time.Time{}, false
	}
	at, err := time.Parse(time.RFC3339Nano, ts)
	return at, err == nil
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
