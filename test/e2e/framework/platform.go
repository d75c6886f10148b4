package framework

// The platform's own CRI-O metrics path (OpenShift >= 4.14) for coexistence tests: docs/platform-fixture.md.

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/crypto"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"
)

// MCO's and CMO's names, paths and ports (docs/platform-fixture.md).
const (
	MCONamespace          = "openshift-machine-config-operator"
	PlatformProxyName     = "kube-rbac-proxy-crio" // static pod, k8s-app label, Service
	PlatformProxyManifest = "/etc/kubernetes/manifests/criometricsproxy.yaml"
	PlatformProxyConfig   = "/etc/kubernetes/crio-metrics-proxy.cfg"
	MCOCRIODropIn         = "/etc/crio/crio.conf.d/00-default"
	// PrometheusK8sUser is CMO's client certificate's, the one user the proxy lets in.
	PrometheusK8sUser = "system:serviceaccount:openshift-monitoring:prometheus-k8s"
	// LocalWorldDropIn moves 00-default's metrics_host (syncCRIODropIns).
	LocalWorldDropIn = "99-local-world.conf"
	PlatformCRIOJob  = "crio" // CMO's job label of the CRI-O scrape

	mcoCommit                = "7ff337a4ffac8e7562692181178ede61e4b2eec5"
	mcoGeneratedByAnnotation = "machineconfiguration.openshift.io/generated-by-controller-version"
	mcoRoleLabel             = "machineconfiguration.openshift.io/role"
	crioDropInDir            = "/etc/crio/crio.conf.d/"
	platformProxyPort        = 9637
	platformCRIOPort         = 9537
	fixtureManager           = "e2e-platform-fixture"
)

var (
	mcGVR = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigs"}
	// PlatformRoles are the pools whose MachineConfigs the fixture renders.
	PlatformRoles = []string{"master", "worker"}
)

// PlatformObjects is what InstallPlatformCRIOMetrics put on the API server.
type PlatformObjects struct {
	// Nodes are the simulated nodes whose mirror pods the fixture creates, as their kubelet would; a real node's kubelet creates its own.
	Nodes []string
	dyn   dynamic.Interface
	kube  kubernetes.Interface
	proxy bool
}

// InstallPlatformCRIOMetrics puts MCO's CRI-O metrics path on the API server (undone at the end), with the mirror pods of the simulated nodes.
func InstallPlatformCRIOMetrics(t testing.TB, admin *rest.Config, nodes []string) *PlatformObjects {
	t.Helper()
	ctx := Context(t, 3*time.Minute)
	p := &PlatformObjects{Nodes: nodes, dyn: dynamic.NewForConfigOrDie(admin), kube: kubernetes.NewForConfigOrDie(admin)}
	if _, err := p.kube.CoreV1().Namespaces().Create(ctx, platformNamespace(), metav1.CreateOptions{FieldManager: fixtureManager}); err == nil {
		t.Cleanup(func() {
			p.delete(t, p.kube.CoreV1().Namespaces().Delete(context.Background(), MCONamespace, metav1.DeleteOptions{}))
		})
	} else if !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating namespace %s: %v", MCONamespace, err)
	}
	t.Cleanup(func() {
		p.RemoveProxy(t)
		for _, role := range PlatformRoles {
			p.delete(t, p.dyn.Resource(mcGVR).Delete(context.Background(), "01-"+role+"-container-runtime", metav1.DeleteOptions{}))
		}
	})
	for _, mc := range platformMachineConfigs(t) {
		if strings.HasSuffix(mc.GetName(), "-container-runtime") {
			p.createMachineConfig(t, ctx, mc)
		}
	}
	p.InstallProxy(t)
	return p
}

func (p *PlatformObjects) delete(t testing.TB, err error) {
	if err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("removing the platform fixture: %v", err)
	}
}

func (p *PlatformObjects) createMachineConfig(t testing.TB, ctx context.Context, mc *unstructured.Unstructured) {
	t.Helper()
	// A leftover of an earlier run would hide the fixture's content.
	if err := p.dyn.Resource(mcGVR).Delete(ctx, mc.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	Eventually(t, time.Minute, 200*time.Millisecond, func() (bool, error) {
		_, err := p.dyn.Resource(mcGVR).Create(ctx, mc, metav1.CreateOptions{FieldManager: fixtureManager})
		if apierrors.IsAlreadyExists(err) {
			return false, err
		}
		require.NoError(t, err, "creating MachineConfig %s", mc.GetName())
		return true, nil
	}, "creating MachineConfig "+mc.GetName())
}

// InstallProxy adds MCO's proxy: 01-<role>-kubelet, the Service and the Running mirror pods.
func (p *PlatformObjects) InstallProxy(t testing.TB) {
	t.Helper()
	ctx := Context(t, 3*time.Minute)
	p.proxy = true
	for _, mc := range platformMachineConfigs(t) {
		if strings.HasSuffix(mc.GetName(), "-kubelet") {
			p.createMachineConfig(t, ctx, mc)
		}
	}
	if _, err := p.kube.CoreV1().Services(MCONamespace).Create(ctx, platformService(), metav1.CreateOptions{FieldManager: fixtureManager}); err != nil {
		t.Fatalf("creating Service %s: %v", PlatformProxyName, err)
	}
	static := platformStaticPod()
	for _, name := range p.Nodes {
		node, err := p.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		if _, err := p.kube.CoreV1().Pods(MCONamespace).Create(ctx, mirrorPod(static, node), metav1.CreateOptions{FieldManager: fixtureManager}); err != nil {
			t.Fatalf("creating mirror pod on %s: %v", name, err)
		}
	}
	Eventually(t, 2*time.Minute, 500*time.Millisecond, func() (bool, error) {
		pods, err := p.kube.CoreV1().Pods(MCONamespace).List(ctx, metav1.ListOptions{LabelSelector: "k8s-app=" + PlatformProxyName})
		if err != nil {
			return false, err
		}
		running := 0
		for _, pod := range pods.Items {
			if pod.Status.Phase == corev1.PodRunning && pod.DeletionTimestamp == nil {
				running++
			}
		}
		return running == len(p.Nodes), nil
	}, fmt.Sprintf("mirror pods %s-<node> Running on %v", PlatformProxyName, p.Nodes))
}

// MachineConfigs are the role's MachineConfigs of the fixture as the API server has them, what a node of the pool boots with.
func (p *PlatformObjects) MachineConfigs(t testing.TB, role string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, name := range []string{"01-" + role + "-kubelet", "01-" + role + "-container-runtime"} {
		mc, err := p.dyn.Resource(mcGVR).Get(Context(t, time.Minute), name, metav1.GetOptions{})
		require.NoError(t, err, "MachineConfig %s", name)
		out = append(out, mc)
	}
	return out
}

// mirrorPod is the kubelet's mirror pod of a static pod: <pod>-<node>, bound to and owned by the Node, tolerating NoExecute.
func mirrorPod(static *corev1.Pod, node *corev1.Node) *corev1.Pod {
	pod := static.DeepCopy()
	pod.Name = static.Name + "-" + node.Name
	pod.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: node.Name, "kubernetes.io/config.source": "file"}
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID, Controller: ptr(true)}}
	pod.Spec.NodeName = node.Name
	pod.Spec.Tolerations = append(pod.Spec.Tolerations, corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute})
	return pod
}

// RemoveProxy makes the platform path disappear: 01-<role>-kubelet, the Service and the mirror pods (grace period 0, as the kubelet deletes them).
func (p *PlatformObjects) RemoveProxy(t testing.TB) {
	t.Helper()
	if !p.proxy {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // also at cleanup
	defer cancel()
	for _, role := range PlatformRoles {
		p.delete(t, p.dyn.Resource(mcGVR).Delete(ctx, "01-"+role+"-kubelet", metav1.DeleteOptions{}))
	}
	p.delete(t, p.kube.CoreV1().Services(MCONamespace).Delete(ctx, PlatformProxyName, metav1.DeleteOptions{}))
	zero := int64(0)
	for _, node := range p.Nodes {
		p.delete(t, p.kube.CoreV1().Pods(MCONamespace).Delete(ctx, PlatformProxyName+"-"+node, metav1.DeleteOptions{GracePeriodSeconds: &zero}))
	}
	Eventually(t, 2*time.Minute, 500*time.Millisecond, func() (bool, error) {
		pods, err := p.kube.CoreV1().Pods(MCONamespace).List(ctx, metav1.ListOptions{LabelSelector: "k8s-app=" + PlatformProxyName})
		return err == nil && len(pods.Items) == 0, err
	}, "mirror pods "+PlatformProxyName+" to be gone")
	p.proxy = false
}

// PlatformPKI: the kubelet's client CA with CMO's client certificate, and the kubelet serving CA.
type PlatformPKI struct {
	Dir, ClientCAFile, ServingCAFile string
	ClientCertFile, ClientKeyFile    string
	ClientCert                       tls.Certificate

	clientCA, servingCA *crypto.CA
}

// NewPlatformPKI generates the CAs and prometheus-k8s's client certificate in a directory under _output, removed when the test ends.
func NewPlatformPKI(t testing.TB) *PlatformPKI {
	t.Helper()
	p := newPlatformPKIDir(t)
	files := map[string][]byte{}
	p.ClientCAFile, p.ServingCAFile = filepath.Join(p.Dir, "kubelet-client-ca.crt"), filepath.Join(p.Dir, "kubelet-serving-ca.crt")
	p.clientCA, files[p.ClientCAFile] = newTestCA(t, "e2e-kubelet-client-ca")
	p.servingCA, files[p.ServingCAFile] = newTestCA(t, "e2e-kubelet-serving-ca")
	p.writeClientCert(t, files)
	return p
}

// newPlatformPKIDir is a PlatformPKI's directory under _output, removed when the test ends.
func newPlatformPKIDir(t testing.TB) *PlatformPKI {
	t.Helper()
	dir, err := os.MkdirTemp(filepath.Join(RepoRoot(t), "_output"), "e2e-platform-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return &PlatformPKI{Dir: dir}
}

// writeClientCert issues prometheus-k8s's client certificate from the client CA and writes it with files.
func (p *PlatformPKI) writeClientCert(t testing.TB, files map[string][]byte) {
	t.Helper()
	client, err := p.clientCA.MakeClientCertificateForDuration(&user.DefaultInfo{Name: PrometheusK8sUser}, 24*time.Hour)
	require.NoError(t, err)
	p.ClientCertFile, p.ClientKeyFile = filepath.Join(p.Dir, "prometheus-k8s.crt"), filepath.Join(p.Dir, "prometheus-k8s.key")
	files[p.ClientCertFile], files[p.ClientKeyFile], err = client.GetPEMBytes()
	require.NoError(t, err)
	p.ClientCert, err = tls.X509KeyPair(files[p.ClientCertFile], files[p.ClientKeyFile])
	require.NoError(t, err)
	for file, data := range files {
		require.NoError(t, os.WriteFile(file, data, 0o600))
	}
}

// newTestCA is a CA valid for a day, and its certificate (PEM).
func newTestCA(t testing.TB, cn string) (*crypto.CA, []byte) {
	t.Helper()
	cfg, err := crypto.MakeSelfSignedCAConfigForDuration(cn, 24*time.Hour)
	require.NoError(t, err)
	pem, err := crypto.EncodeCertificates(cfg.Certs...)
	require.NoError(t, err)
	return &crypto.CA{Config: cfg, SerialGenerator: &crypto.RandomSerialGenerator{}}, pem
}

// kubeletServingPEM is a kubelet serving certificate and its key in one PEM file, as the kubelet keeps kubelet-server-<date>.pem.
func (p *PlatformPKI) kubeletServingPEM(node, ip string) ([]byte, error) {
	cfg, err := p.servingCA.MakeServerCertForDuration(sets.New(node, ip), 24*time.Hour, func(c *x509.Certificate) error {
		c.Subject = pkix.Name{CommonName: "system:node:" + node, Organization: []string{"system:nodes"}}
		return nil
	})
	if err != nil {
		return nil, err
	}
	certPEM, keyPEM, err := cfg.GetPEMBytes()
	return append(certPEM, keyPEM...), err
}

// PlatformNode is a platform node on this machine at 127.0.1.N (docs/platform-fixture.md, "Deviations on a simulated node").
type PlatformNode struct {
	*Node
	Role string
	// MetricsAddr is where CRI-O serves metrics (address:9537).
	MetricsAddr string
	// ProxyAddr is where kube-rbac-proxy listens (address:9637).
	ProxyAddr string
	// Proxy is the kube-rbac-proxy process.
	Proxy *Process
	// CRIODir is hack/crio.sh's CRIO_DIR for this node.
	CRIODir string
	// CRIORestarts counts CRI-O's restarts.
	CRIORestarts int
	// CRIOBin, when set, is what the node's next CRI-O start runs instead of _output/bin/crio (CRIOFailingWith).
	CRIOBin string

	pki           *PlatformPKI
	dyn           dynamic.Interface
	crioTLS       string
	operatorFiles map[string]bool
}

// StartPlatformNode simulates kwok node name: its pool's files, kubelet PKI, CRI-O and MCO's proxy.
func StartPlatformNode(t testing.TB, admin *rest.Config, pki *PlatformPKI, name string) *PlatformNode {
	t.Helper()
	for _, tool := range []string{"crio", "kube-rbac-proxy"} { // crio's build installs conmon and runc
		if err := EnsureTool(t, tool); err != nil {
			t.Fatalf("%s is not available: %v", tool, err)
		}
	}
	ctx := Context(t, time.Minute)
	kube := kubernetes.NewForConfigOrDie(admin)
	node, err := kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	ip := ""
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			ip = a.Address
		}
	}
	if parsed := net.ParseIP(ip); parsed == nil || !parsed.IsLoopback() {
		t.Fatalf("node %s has InternalIP %q; the fixture needs a loopback address (kwok nodes of hack/local-cluster.sh have 127.0.1.N)", name, ip)
	}
	role := "worker"
	if _, ok := node.Labels["node-role.kubernetes.io/master"]; ok {
		role = "master"
	}
	n := NewNode(t, admin, MCONamespace, corev1.PodSpec{})
	n.IP, n.Name = ip, name
	pn := &PlatformNode{
		Node: n, Role: role, pki: pki, operatorFiles: map[string]bool{},
		MetricsAddr: net.JoinHostPort(ip, strconv.Itoa(platformCRIOPort)),
		ProxyAddr:   net.JoinHostPort(ip, strconv.Itoa(platformProxyPort)),
		CRIODir:     filepath.Join(n.Root, "crio"),
	}

	pn.dyn = dynamic.NewForConfigOrDie(admin)
	mc, err := pn.dyn.Resource(mcGVR).Get(ctx, "01-"+role+"-container-runtime", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("MachineConfig 01-%s-container-runtime: %v (InstallPlatformCRIOMetrics first)", role, err)
	}
	n.ApplyMachineConfig(t, mc)
	// kubelet-server-current.pem links to the dated serving pair.
	serving, err := pki.kubeletServingPEM(name, ip)
	require.NoError(t, err)
	dated := "kubelet-server-" + time.Now().UTC().Format("2006-01-02-15-04-05") + ".pem"
	clientCA, err := os.ReadFile(pki.ClientCAFile)
	require.NoError(t, err)
	writeNodeFile(t, n.HostPath(nodeKubeletClientCA), clientCA, 0o644)
	writeNodeFile(t, n.HostPath(filepath.Join(filepath.Dir(nodeKubeletServingPair), dated)), serving, 0o600)
	require.NoError(t, os.Symlink(dated, n.HostPath(nodeKubeletServingPair)))
	kc, err := clientcmd.LoadFromFile(KubeconfigPath(t))
	require.NoError(t, err)
	require.NoError(t, clientcmdapi.FlattenConfig(kc))
	kubeconfig, err := clientcmd.Write(*kc)
	require.NoError(t, err)
	writeNodeFile(t, n.HostPath(nodeKubeletKubeconfig), kubeconfig, 0o600)

	t.Cleanup(func() { pn.stopCRIO(t, true) })
	pn.syncCRIODropIns(t)
	pn.startCRIO(t)
	if _, err := pn.dyn.Resource(mcGVR).Get(ctx, "01-"+role+"-kubelet", metav1.GetOptions{}); err == nil {
		pn.StartProxy(t)
	} else if !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return pn
}

func writeNodeFile(t testing.TB, path string, data []byte, mode os.FileMode) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, mode))
}

// syncCRIODropIns syncs CRI-O's drop-ins (and LocalWorldDropIn), reporting a change.
func (pn *PlatformNode) syncCRIODropIns(t testing.TB) bool {
	t.Helper()
	dir := filepath.Join(pn.CRIODir, "crio.conf.d")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	want := pn.CRIODropIns(t)
	want[LocalWorldDropIn] = []byte(fmt.Sprintf("# The e2e platform fixture's, not MCO's: each node's loopback address.\n[crio.metrics]\nmetrics_host = %q\n", pn.IP))
	changed := false
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		if _, ok := want[e.Name()]; !ok {
			require.NoError(t, os.Remove(filepath.Join(dir, e.Name())))
			changed = true
		}
	}
	for name, data := range want {
		p := filepath.Join(dir, name)
		if cur, err := os.ReadFile(p); err == nil && bytes.Equal(cur, data) {
			continue
		}
		require.NoError(t, os.WriteFile(p, data, 0o644))
		changed = true
	}
	pn.crioTLS = "0"
	if metricsCertSet.Match(bytes.Join(slices.Collect(maps.Values(want)), nil)) {
		pn.crioTLS = "external"
	}
	return changed
}

// metricsCertSet finds a [crio.metrics] metrics_cert: CRI-O then serves TLS.
var metricsCertSet = regexp.MustCompile(`(?m)^\s*metrics_cert\s*=\s*"[^"]+"`)

func (pn *PlatformNode) metricsURL() string {
	if pn.CRIOServesTLS() {
		return "https://" + pn.MetricsAddr + "/metrics"
	}
	return "http://" + pn.MetricsAddr + "/metrics"
}

// CRIOServesTLS tells whether the node's CRI-O serves its metrics over TLS.
func (pn *PlatformNode) CRIOServesTLS() bool { return pn.crioTLS == "external" }

// crioEnv is hack/crio.sh's environment for the node's CRI-O.
func (pn *PlatformNode) crioEnv() []string {
	env := []string{"CRIO_METRICS_TLS=" + pn.crioTLS, "CRIO_METRICS_HOST=" + pn.IP, "CRIO_METRICS_PORT=" + strconv.Itoa(platformCRIOPort)}
	if pn.CRIOBin != "" {
		env = append(env, "CRIO_BIN="+pn.CRIOBin)
	}
	return env
}

func (pn *PlatformNode) startCRIO(t testing.TB) {
	t.Helper()
	if err := crioScript(t, "start", pn.CRIODir, pn.crioEnv()...); err != nil {
		t.Fatalf("node %s: %v", pn.Name, err)
	}
}

// stopCRIO stops the node's CRI-O; final keeps a copy of its log.
func (pn *PlatformNode) stopCRIO(t testing.TB, final bool) {
	t.Helper()
	if err := crioScript(t, "stop", pn.CRIODir, pn.crioEnv()...); err != nil {
		t.Errorf("node %s: %v", pn.Name, err)
	}
	if final {
		keepCRIOLog(t, pn.CRIODir, "crio-"+pn.Name)
	}
}

// CRIOFailingWith writes, for the node's CRIOBin, a CRI-O that cannot start (a fatal message in CRI-O's log format) while a drop-in holds line.
func (pn *PlatformNode) CRIOFailingWith(t testing.TB, line, why string) string {
	return pn.crioWithFault(t, "crio-with-fault", "cannot start", line, fmt.Sprintf(`
  printf 'time="%%s" level=fatal msg=%%s\n' "$(date -u +%%Y-%%m-%%dT%%H:%%M:%%SZ)" %s >&2
  exit 1`, shellQuote(strconv.Quote(why))))
}

// CRIOHangingWith: CRIOFailingWith for a CRI-O frozen a second after its metrics answer, until line is gone.
func (pn *PlatformNode) CRIOHangingWith(t testing.TB, line string) string {
	return pn.crioWithFault(t, "crio-hanging", "hangs after it started", line, fmt.Sprintf(`
  pid=$$
  (
    until curl -sk --max-time 1 -o /dev/null %s; do sleep 0.2; done
    sleep 1
    kill -STOP $pid
    while grep -qsxF %s "$dir"/*.conf; do sleep 0.2; done
    kill -CONT $pid
  ) </dev/null >/dev/null 2>&1 &`, shellQuote(pn.metricsURL()), shellQuote(line)))
}

// crioWithFault writes the executable name that runs fault (shell) when a drop-in of CRI-O's --config-dir holds line, then the real CRI-O.
func (pn *PlatformNode) crioWithFault(t testing.TB, name, what, line, fault string) string {
	t.Helper()
	script := fmt.Sprintf(`#!/bin/sh
# A test's fault: CRI-O that %s with %q in a drop-in.
dir=
prev=
for a in "$@"; do [ "$prev" = --config-dir ] && dir=$a; prev=$a; done
if [ -n "$dir" ] && grep -qsxF %s "$dir"/*.conf; then%s
fi
exec %s "$@"
`, what, line, shellQuote(line), fault, shellQuote(filepath.Join(RepoRoot(t), "_output", "bin", "crio")))
	path := filepath.Join(pn.CRIODir, name)
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
	return path
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// syncCRIOAndRestart restarts CRI-O (the node disruption policy's crio.service restart) when its drop-ins changed, and says whether it did.
func (pn *PlatformNode) syncCRIOAndRestart(t testing.TB) bool {
	t.Helper()
	if !pn.syncCRIODropIns(t) {
		return false
	}
	pn.stopCRIO(t, false)
	pn.startCRIO(t)
	pn.CRIORestarts++
	return true
}

// CRISocket is the node's CRI socket (CRI-O's [crio.api] listen).
func (pn *PlatformNode) CRISocket() string { return filepath.Join(pn.CRIODir, "crio.sock") }

// StartProxy runs the static pod of 01-<role>-kubelet as MCO's daemon and the kubelet would.
func (pn *PlatformNode) StartProxy(t testing.TB) {
	t.Helper()
	mc, err := pn.dyn.Resource(mcGVR).Get(Context(t, time.Minute), "01-"+pn.Role+"-kubelet", metav1.GetOptions{})
	require.NoError(t, err, "MachineConfig 01-%s-kubelet", pn.Role)
	pn.ApplyMachineConfig(t, mc)
	raw, err := os.ReadFile(pn.HostPath(PlatformProxyManifest))
	require.NoError(t, err)
	pod := &corev1.Pod{}
	require.NoError(t, yaml.UnmarshalStrict(raw, pod), PlatformProxyManifest)
	pod.Spec.NodeName = pn.Name
	// MCO's container is privileged; root here reads the root-only serving pair.
	root := int64(0)
	pod.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: &root}
	onNode := strings.NewReplacer("=:", "="+pn.IP+":", "127.0.0.1", pn.IP)
	pn.Proxy = StartPodProcess(t, pn.admin, PodProcessOptions{Pod: pod, Node: pn.Node,
		Binaries: map[string]string{PlatformProxyName: filepath.Join(RepoRoot(t), "_output", "bin", "kube-rbac-proxy")},
		RewriteArgs: func(args []string) []string {
			for i := range args {
				args[i] = onNode.Replace(args[i])
			}
			return args
		}})
	WaitListening(t, pn.Proxy, pn.ProxyAddr, "kube-rbac-proxy-crio of node "+pn.Name)
}

// StopProxy is what MCO's daemon and the kubelet do once 01-<role>-kubelet no longer carries the static pod.
func (pn *PlatformNode) StopProxy(t testing.TB) {
	t.Helper()
	if pn.Proxy != nil {
		pn.Proxy.Stop()
	}
	for _, p := range []string{PlatformProxyManifest, PlatformProxyConfig} {
		if err := os.Remove(pn.HostPath(p)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// OperatorMachineConfigs lists the MachineConfigs that are not MCO's: on the local world, the operator's.
func OperatorMachineConfigs(t testing.TB, admin *rest.Config) []*unstructured.Unstructured {
	t.Helper()
	list, err := dynamic.NewForConfigOrDie(admin).Resource(mcGVR).List(Context(t, time.Minute), metav1.ListOptions{})
	require.NoError(t, err)
	var out []*unstructured.Unstructured
	for i := range list.Items {
		mc := &list.Items[i]
		if _, mco := mc.GetAnnotations()[mcoGeneratedByAnnotation]; mco || strings.HasPrefix(mc.GetName(), "rendered-") {
			continue
		}
		out = append(out, mc)
	}
	return out
}

// ApplyOperatorMachineConfigs plays MCO's daemon for the role's drop-ins, reporting a CRI-O restart.
func (pn *PlatformNode) ApplyOperatorMachineConfigs(t testing.TB, mcs []*unstructured.Unstructured) bool {
	t.Helper()
	want := map[string]bool{}
	for _, mc := range mcs {
		if mc.GetLabels()[mcoRoleLabel] != pn.Role {
			continue
		}
		files, _, _ := unstructured.NestedSlice(mc.Object, "spec", "config", "storage", "files")
		var dropIns []interface{}
		for _, f := range files {
			p, _, _ := unstructured.NestedString(f.(map[string]interface{}), "path")
			if strings.HasPrefix(p, crioDropInDir) {
				dropIns = append(dropIns, f)
				want[p] = true
			}
		}
		if len(dropIns) == 0 {
			continue
		}
		only := &unstructured.Unstructured{Object: map[string]interface{}{
			"metadata": map[string]interface{}{"name": mc.GetName()},
			"spec":     map[string]interface{}{"config": map[string]interface{}{"storage": map[string]interface{}{"files": dropIns}}},
		}}
		pn.ApplyMachineConfig(t, only)
	}
	for p := range pn.operatorFiles {
		if !want[p] {
			if err := os.Remove(pn.HostPath(p)); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
	}
	pn.operatorFiles = want
	return pn.syncCRIOAndRestart(t)
}

// StartPlatformPrometheus runs a real Prometheus with CMO's crio scrape (docs/platform-fixture.md), every interval instead of 30s.
func StartPlatformPrometheus(t testing.TB, pki *PlatformPKI, nodes []*PlatformNode, interval time.Duration) *Prometheus {
	t.Helper()
	addrs := map[string]string{}
	for _, n := range nodes {
		addrs[n.Name] = n.IP
	}
	return startCRIOJobPrometheus(t, pki, addrs, interval)
}

// startCRIOJobPrometheus: StartPlatformPrometheus for the nodes' addresses (by name).
func startCRIOJobPrometheus(t testing.TB, pki *PlatformPKI, addrs map[string]string, interval time.Duration) *Prometheus {
	t.Helper()
	var statics []map[string]interface{}
	for _, name := range slices.Sorted(maps.Keys(addrs)) {
		statics = append(statics, map[string]interface{}{
			"targets": []string{net.JoinHostPort(addrs[name], "10250")},
			"labels": map[string]string{
				"__meta_kubernetes_node_label_kubernetes_io_os": "linux",
				"node":      name,
				"namespace": "kube-system",
				"service":   "kubelet",
				"endpoint":  "https-metrics",
			},
		})
	}
	config := map[string]interface{}{
		"global": map[string]interface{}{
			"scrape_interval": fmt.Sprintf("%dms", interval.Milliseconds()),
			"scrape_timeout":  fmt.Sprintf("%dms", interval.Milliseconds()*4/5),
		},
		"scrape_configs": []interface{}{map[string]interface{}{
			"job_name": "serviceMonitor/openshift-monitoring/kubelet/2",
			"scheme":   "https",
			"tls_config": map[string]interface{}{
				"ca_file": pki.ServingCAFile, "cert_file": pki.ClientCertFile, "key_file": pki.ClientKeyFile, "insecure_skip_verify": false,
			},
			"static_configs": statics,
			"relabel_configs": []interface{}{
				map[string]interface{}{"action": "keep", "regex": "(linux|)", "source_labels": []string{"__meta_kubernetes_node_label_kubernetes_io_os"}},
				map[string]interface{}{"action": "replace", "regex": `(.+)(?::\d+)`, "replacement": "$1:9637", "source_labels": []string{"__address__"}, "target_label": "__address__"},
				map[string]interface{}{"action": "replace", "replacement": "crio", "source_labels": []string{"endpoint"}, "target_label": "endpoint"},
				map[string]interface{}{"action": "replace", "replacement": PlatformCRIOJob, "target_label": "job"},
			},
		}},
	}
	raw, err := json.MarshalIndent(config, "", "  ")
	require.NoError(t, err)
	return StartPrometheus(t, filepath.Join(pki.Dir, "prometheus"), string(raw))
}

func crioMetrics(code int, body []byte, err error) error {
	if err != nil {
		return err
	}
	if code != http.StatusOK || !bytes.Contains(body, []byte("\ncontainer_runtime_crio_")) {
		return fmt.Errorf("HTTP %d without container_runtime_crio_* metrics: %.200s", code, bytes.TrimSpace(body))
	}
	return nil
}
