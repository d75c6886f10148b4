package framework

// The platform's own CRI-O metrics path, as OpenShift >= 4.14 ships it, for
// coexistence tests: MCO's objects on the API server (platformobjects.go),
// simulated nodes with real CRI-O and kube-rbac-proxy-crio, Prometheus with
// CMO's job="crio", and a poller through MCO's proxy. What is carried and the
// MCO commit (mcoCommit) it was read from: docs/platform-fixture.md.

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
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
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"
)

const (
	// MCONamespace is the machine-config operator's namespace.
	MCONamespace = "openshift-machine-config-operator"
	// PlatformProxyName is the static pod, its label value (k8s-app) and the
	// Service of MCO's CRI-O metrics proxy.
	PlatformProxyName = "kube-rbac-proxy-crio"
	// PlatformProxyManifest is where 01-<role>-kubelet puts the static pod.
	PlatformProxyManifest = "/etc/kubernetes/manifests/criometricsproxy.yaml"
	// PlatformProxyConfig is the proxy's static authorization.
	PlatformProxyConfig = "/etc/kubernetes/crio-metrics-proxy.cfg"
	// MCOCRIODropIn is the drop-in 01-<role>-container-runtime writes.
	MCOCRIODropIn = "/etc/crio/crio.conf.d/00-default"
	// PrometheusK8sUser is the identity of the cluster-monitoring operator's
	// client certificate, the only user the proxy's config lets in.
	PrometheusK8sUser = "system:serviceaccount:openshift-monitoring:prometheus-k8s"
	// LocalWorldDropIn overrides, for this machine only, the keys of
	// 00-default that cannot work here (see localWorldDropIn).
	LocalWorldDropIn = "99-local-world.conf"
	// PlatformCRIOJob is the job label CMO gives the CRI-O scrape.
	PlatformCRIOJob = "crio"

	// The MCO commit the facts of platformobjects.go were read from.
	mcoCommit = "7ff337a4ffac8e7562692181178ede61e4b2eec5"
	// MCO's annotation on the MachineConfigs it renders from templates (the
	// fixture's carry it too: OperatorMachineConfigs skips them by it).
	mcoGeneratedByAnnotation = "machineconfiguration.openshift.io/generated-by-controller-version"
	mcoRoleLabel             = "machineconfiguration.openshift.io/role"
	crioDropInDir            = "/etc/crio/crio.conf.d/"
	// kube-rbac-proxy's port in the static pod, CRI-O's in 00-default.
	platformProxyPort = 9637
	platformCRIOPort  = 9537
	fixtureManager    = "e2e-platform-fixture"
)

var (
	mcGVR = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigs"}
	// PlatformRoles are the pools whose MachineConfigs the fixture renders.
	PlatformRoles = []string{"master", "worker"}
)

// PlatformObjects is what InstallPlatformCRIOMetrics put on the API server.
type PlatformObjects struct {
	Nodes            []string
	createdNamespace bool
	dyn              dynamic.Interface
	kube             kubernetes.Interface
	proxy            bool
	removed          bool
}

// InstallPlatformCRIOMetrics puts MCO's CRI-O metrics path on the API
// server: InstallPlatformContainerRuntime, then InstallProxy. Removed
// (Remove) when the test ends, and MCO's namespace too when it created it.
func InstallPlatformCRIOMetrics(t testing.TB, admin *rest.Config, nodes []string) *PlatformObjects {
	t.Helper()
	p := InstallPlatformContainerRuntime(t, admin, nodes)
	p.InstallProxy(t)
	return p
}

// InstallPlatformContainerRuntime puts on the API server what an OpenShift
// cluster has whether or not MCO ships the CRI-O metrics proxy (a cluster
// before 4.14): MCO's namespace (when missing) and the MachineConfigs
// 01-<role>-container-runtime (CRI-O's 00-default). InstallProxy adds the
// proxy, as an upgrade to 4.14 does.
func InstallPlatformContainerRuntime(t testing.TB, admin *rest.Config, nodes []string) *PlatformObjects {
	t.Helper()
	ctx := Context(t, 3*time.Minute)
	p := &PlatformObjects{Nodes: nodes, dyn: dynamic.NewForConfigOrDie(admin), kube: kubernetes.NewForConfigOrDie(admin)}
	if _, err := p.kube.CoreV1().Namespaces().Get(ctx, MCONamespace, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		if _, err := p.kube.CoreV1().Namespaces().Create(ctx, platformNamespace(), metav1.CreateOptions{FieldManager: fixtureManager}); err != nil {
			t.Fatalf("creating namespace %s: %v", MCONamespace, err)
		}
		p.createdNamespace = true
	} else if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Remove(t)
		if p.createdNamespace {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := p.kube.CoreV1().Namespaces().Delete(ctx, MCONamespace, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting namespace %s: %v", MCONamespace, err)
			}
		}
	})
	for _, mc := range platformMachineConfigs(t) {
		if strings.HasSuffix(mc.GetName(), "-container-runtime") {
			p.createMachineConfig(t, ctx, mc)
		}
	}
	t.Logf("MCO %s: MachineConfigs 01-{master,worker}-container-runtime (CRI-O 00-default) installed", mcoCommit[:12])
	return p
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

// InstallProxy adds MCO's CRI-O metrics proxy, the platform path: the
// MachineConfigs 01-<role>-kubelet (static pod kube-rbac-proxy-crio and its
// authorization config), the Service kube-rbac-proxy-crio, and for each node
// the mirror pod kube-rbac-proxy-crio-<node> that the kubelet creates for
// the static pod, which kwok then reports Running. It waits until they are
// Running.
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
	}, fmt.Sprintf("mirror pods %s-<node> Running on %v (kwok plays their lifecycle)", PlatformProxyName, p.Nodes))
	t.Logf("MCO %s: platform CRI-O metrics path installed: MachineConfigs 01-{master,worker}-kubelet, Service and mirror pods %s on %v",
		mcoCommit[:12], PlatformProxyName, p.Nodes)
}

// mirrorPod is the mirror pod a kubelet creates on the API server for a
// static pod: named <pod>-<node>, bound to the node, owned by the Node,
// annotated kubernetes.io/config.{mirror,hash,seen,source}, tolerating every
// NoExecute taint (the kubelet's static pod defaults).
func mirrorPod(static *corev1.Pod, node *corev1.Node) *corev1.Pod {
	pod := static.DeepCopy()
	raw, _ := json.Marshal(static)
	h := fnv.New32a()
	h.Write(raw)
	h.Write([]byte(node.Name))
	hash := strconv.FormatUint(uint64(h.Sum32()), 16)
	pod.Name = static.Name + "-" + node.Name
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[corev1.MirrorPodAnnotationKey] = hash
	pod.Annotations["kubernetes.io/config.hash"] = hash
	pod.Annotations["kubernetes.io/config.seen"] = time.Now().UTC().Format(time.RFC3339Nano)
	pod.Annotations["kubernetes.io/config.source"] = "file"
	controller := true
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID, Controller: &controller}}
	pod.Spec.NodeName = node.Name
	pod.Spec.Tolerations = append(pod.Spec.Tolerations, corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute})
	return pod
}

// RemoveProxy makes the platform path disappear: it deletes the
// MachineConfigs 01-<role>-kubelet, the Service and the mirror pods (with
// grace period 0, as the kubelet deletes them) and waits until they are gone.
func (p *PlatformObjects) RemoveProxy(t testing.TB) {
	t.Helper()
	if !p.proxy {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	zero := int64(0)
	var errs []string
	for _, role := range PlatformRoles {
		if err := p.dyn.Resource(mcGVR).Delete(ctx, "01-"+role+"-kubelet", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err.Error())
		}
	}
	if err := p.kube.CoreV1().Services(MCONamespace).Delete(ctx, PlatformProxyName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, err.Error())
	}
	for _, node := range p.Nodes {
		if err := p.kube.CoreV1().Pods(MCONamespace).Delete(ctx, PlatformProxyName+"-"+node, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		t.Errorf("removing the platform CRI-O metrics path: %s", strings.Join(errs, "; "))
		return
	}
	Eventually(t, 2*time.Minute, 500*time.Millisecond, func() (bool, error) {
		pods, err := p.kube.CoreV1().Pods(MCONamespace).List(ctx, metav1.ListOptions{LabelSelector: "k8s-app=" + PlatformProxyName})
		if err != nil {
			return false, err
		}
		return len(pods.Items) == 0, nil
	}, "mirror pods "+PlatformProxyName+" to be gone")
	p.proxy = false
	t.Logf("platform CRI-O metrics path removed: MachineConfigs 01-{master,worker}-kubelet, Service and mirror pods %s", PlatformProxyName)
}

// Remove deletes everything Install* created but MCO's namespace, which
// outlives its CRI-O metrics path: RemoveProxy, then the MachineConfigs
// 01-<role>-container-runtime.
func (p *PlatformObjects) Remove(t testing.TB) {
	t.Helper()
	if p.removed {
		return
	}
	p.RemoveProxy(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, role := range PlatformRoles {
		if err := p.dyn.Resource(mcGVR).Delete(ctx, "01-"+role+"-container-runtime", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting MachineConfig 01-%s-container-runtime: %v", role, err)
		}
	}
	p.removed = true
}

// ---------------------------------------------------------------------------
// PKI

// PlatformPKI holds the test's kubelet-like certificates: the kubelet's
// client CA (/etc/kubernetes/kubelet-ca.crt, the proxy's --client-ca-file)
// with a client certificate of PrometheusK8sUser signed by it (what CMO gets
// issued and Prometheus presents), and a serving CA for the kubelet serving
// certificates (kubelet-server-current.pem) that Prometheus trusts (CMO's
// kubelet-serving-ca-bundle).
type PlatformPKI struct {
	Dir string
	// ClientCAFile is the kubelet's client CA bundle.
	ClientCAFile string
	// ServingCAFile is the CA of the kubelet serving certificates.
	ServingCAFile string
	// ClientCertFile and ClientKeyFile are prometheus-k8s's pair.
	ClientCertFile, ClientKeyFile string
	// ClientCert is that pair, for Go clients.
	ClientCert tls.Certificate

	clientCA, servingCA *crypto.CA
}

// NewPlatformPKI generates the CAs and prometheus-k8s's client certificate
// in a directory under _output, removed when the test ends.
func NewPlatformPKI(t testing.TB) *PlatformPKI {
	t.Helper()
	dir, err := os.MkdirTemp(filepath.Join(RepoRoot(t), "_output"), "e2e-platform-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	p := &PlatformPKI{Dir: dir}
	files := map[string][]byte{}
	p.ClientCAFile, p.ServingCAFile = filepath.Join(dir, "kubelet-client-ca.crt"), filepath.Join(dir, "kubelet-serving-ca.crt")
	p.clientCA, files[p.ClientCAFile] = newTestCA(t, "e2e-kubelet-client-ca")
	p.servingCA, files[p.ServingCAFile] = newTestCA(t, "e2e-kubelet-serving-ca")
	client, err := p.clientCA.MakeClientCertificateForDuration(&user.DefaultInfo{Name: PrometheusK8sUser}, 24*time.Hour)
	require.NoError(t, err)
	p.ClientCertFile, p.ClientKeyFile = filepath.Join(dir, "prometheus-k8s.crt"), filepath.Join(dir, "prometheus-k8s.key")
	files[p.ClientCertFile], files[p.ClientKeyFile], err = client.GetPEMBytes()
	require.NoError(t, err)
	p.ClientCert, err = tls.X509KeyPair(files[p.ClientCertFile], files[p.ClientKeyFile])
	require.NoError(t, err)
	for file, data := range files {
		require.NoError(t, os.WriteFile(file, data, 0o600))
	}
	return p
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

// kubeletServingPEM is a kubelet serving certificate and its key in one PEM
// file, as the kubelet keeps kubelet-server-<date>.pem.
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

// HTTPClient is a client with prometheus-k8s's certificate that trusts the
// kubelet serving CA, without keep-alive: each request is a new connection
// through the proxy.
func (p *PlatformPKI) HTTPClient(withClientCert bool) *http.Client {
	pool := x509.NewCertPool()
	pool.AddCert(p.servingCA.Config.Certs[0])
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if withClientCert {
		cfg.Certificates = []tls.Certificate{p.ClientCert}
	}
	return &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg, DisableKeepAlives: true}}
}

// ---------------------------------------------------------------------------
// Platform node

// PlatformNode is a node of the platform simulated on this machine (on top
// of Node): the files of its MachineConfigs below its root, kubelet-like PKI
// and kubeconfig, a real CRI-O that reads the fixture's 00-default from its
// drop-in directory, and the real kube-rbac-proxy with the static pod's
// arguments.
//
// Nodes share this machine's network, so each node's loopback address is
// its own: kwok's node InternalIP, 127.0.1.N, a loopback address. Where the
// node's CRI-O and proxy would use 127.0.0.1 or every address, they use that
// address; the ports stay 9537 and 9637 (see LocalWorldDropIn and
// proxyArgs).
type PlatformNode struct {
	*Node
	Role string
	// MetricsAddr is where CRI-O serves metrics (address:9537).
	MetricsAddr string
	// ProxyAddr is where kube-rbac-proxy listens (address:9637).
	ProxyAddr string
	// Proxy is the kube-rbac-proxy process, ProxyArgs its arguments.
	Proxy     *Process
	ProxyArgs []string
	// CRIODir is hack/crio.sh's CRIO_DIR for this node.
	CRIODir string
	// CRIORestarts counts restarts by restartCRIO (ApplyOperatorMachineConfigs,
	// SetCRIODropIn).
	CRIORestarts int
	// CRIOBin, when set, is the executable the node's next CRI-O starts
	// run instead of _output/bin/crio: a test's fault (see
	// CRIOFailingWith).
	CRIOBin string

	pki           *PlatformPKI
	dyn           dynamic.Interface
	crioTLS       string
	operatorFiles map[string]bool
}

// StartPlatformNode simulates the kwok node name with the platform's CRI-O
// metrics path: it writes the files of the node's MachineConfigs
// 01-<role>-kubelet and 01-<role>-container-runtime as they are on the API
// server (InstallPlatformCRIOMetrics first), the kubelet's client CA,
// serving certificate and kubeconfig (admin's: the local world has no node
// identities), starts CRI-O with the node's drop-ins (00-default) and
// LocalWorldDropIn, and kube-rbac-proxy with the static pod's arguments
// parsed from the node's manifest (StartProxy; only when 01-<role>-kubelet
// exists). Everything stops when the test ends.
func StartPlatformNode(t testing.TB, admin *rest.Config, pki *PlatformPKI, name string) *PlatformNode {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("a platform node needs root: CRI-O runs as root (run the e2e tests as root)")
	}
	root := RepoRoot(t)
	for _, b := range []string{"crio", "pinns", "kube-rbac-proxy"} {
		if _, err := os.Stat(filepath.Join(root, "_output", "bin", b)); err != nil {
			t.Fatalf("_output/bin/%s is missing: run make tools (hack/build-tools.sh crio kube-rbac-proxy)", b)
		}
	}
	for _, tool := range []string{"conmon", "runc", "curl", "ss"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: run hack/build-tools.sh crio (it installs conmon and runc from Debian)", tool)
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

	// 00-default for the node's pool, from the API server.
	pn.dyn = dynamic.NewForConfigOrDie(admin)
	mc, err := pn.dyn.Resource(mcGVR).Get(ctx, "01-"+role+"-container-runtime", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("MachineConfig 01-%s-container-runtime: %v (InstallPlatformCRIOMetrics first)", role, err)
	}
	n.ApplyMachineConfig(t, mc)
	// The kubelet's PKI: the client CA, the serving pair in one file
	// (kubelet-server-current.pem links to the dated file), the kubeconfig.
	serving, err := pki.kubeletServingPEM(name, ip)
	require.NoError(t, err)
	dated := "kubelet-server-" + time.Now().UTC().Format("2006-01-02-15-04-05") + ".pem"
	clientCA, err := os.ReadFile(pki.ClientCAFile)
	require.NoError(t, err)
	writeNodeFile(t, n.HostPath(nodeKubeletClientCA), clientCA, 0o644)
	writeNodeFile(t, n.HostPath(filepath.Join(filepath.Dir(nodeKubeletServingPair), dated)), serving, 0o600)
	require.NoError(t, os.Symlink(dated, n.HostPath(nodeKubeletServingPair)))
	writeNodeFile(t, n.HostPath(nodeKubeletKubeconfig), kubeconfigBytes(t, admin), 0o600)

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

// kubeconfigBytes serialises a client configuration with inline
// credentials.
func kubeconfigBytes(t testing.TB, cfg *rest.Config) []byte {
	t.Helper()
	read := func(data []byte, file string) []byte {
		if len(data) > 0 || file == "" {
			return data
		}
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		return b
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["local"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: read(cfg.CAData, cfg.CAFile)}
	kc.AuthInfos["local"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: read(cfg.CertData, cfg.CertFile), ClientKeyData: read(cfg.KeyData, cfg.KeyFile), Token: cfg.BearerToken,
	}
	kc.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "local"}
	kc.CurrentContext = "local"
	raw, err := clientcmd.Write(*kc)
	require.NoError(t, err)
	return raw
}

// localWorldDropIn overrides the one key of the fixture's 00-default that
// cannot work on this machine: metrics_host. CRI-O applies drop-ins in name
// order, so it comes last; enable_metrics and metrics_port (9537, plain
// HTTP) stay as 00-default says. The rest of CRI-O's configuration is
// hack/crio.sh's crio.conf (runc, a localhost pause image, paths below the
// node's CRI-O directory).
func (pn *PlatformNode) localWorldDropIn() []byte {
	return []byte(fmt.Sprintf(`# Written by the e2e platform fixture (test/e2e/framework/platform.go), not
# by MCO. It overrides, for this machine only, the key of 00-default that
# cannot work here.

[crio.metrics]
# Simulated nodes share this machine; each node's loopback address is its own
# (kwok's node InternalIP, 127.0.1.N), so that every node keeps 00-default's
# port 9537, plain HTTP, on loopback (00-default: metrics_host = "127.0.0.1").
metrics_host = %q
`, pn.IP))
}

// desiredCRIODropIns is what CRI-O's drop-in directory must hold: the
// node's /etc/crio/crio.conf.d (paths moved below the node's root) and
// LocalWorldDropIn.
func (pn *PlatformNode) desiredCRIODropIns(t testing.TB) map[string][]byte {
	t.Helper()
	d := pn.CRIODropIns(t)
	d[LocalWorldDropIn] = pn.localWorldDropIn()
	return d
}

// syncCRIODropIns makes CRI-O's drop-in directory hold desiredCRIODropIns
// and reports whether anything changed.
func (pn *PlatformNode) syncCRIODropIns(t testing.TB) bool {
	t.Helper()
	dir := filepath.Join(pn.CRIODir, "crio.conf.d")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	want := pn.desiredCRIODropIns(t)
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
	if metricsCertConfigured(want) {
		pn.crioTLS = "external"
	}
	return changed
}

// metricsCertConfigured tells whether the drop-ins, applied in name order,
// leave [crio.metrics] metrics_cert set: CRI-O then serves metrics over TLS.
func metricsCertConfigured(dropIns map[string][]byte) bool {
	names := make([]string, 0, len(dropIns))
	for name := range dropIns {
		names = append(names, name)
	}
	sort.Strings(names)
	cert := ""
	for _, name := range names {
		table := ""
		for _, line := range strings.Split(string(dropIns[name]), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "[") {
				table = strings.Trim(line, "[] ")
				continue
			}
			key, value, ok := strings.Cut(line, "=")
			if ok && table == "crio.metrics" && strings.TrimSpace(key) == "metrics_cert" {
				cert = strings.Trim(strings.TrimSpace(value), `"`)
			}
		}
	}
	return cert != ""
}

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
	start := time.Now()
	if err := crioScript(t, "start", pn.CRIODir, pn.crioEnv()...); err != nil {
		t.Fatalf("node %s: %v", pn.Name, err)
	}
	t.Logf("node %s: CRI-O started in %s, metrics %s (dir %s)", pn.Name, time.Since(start).Round(time.Millisecond), pn.metricsURL(), pn.CRIODir)
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

// CRIOFailingWith writes an executable that stands for a CRI-O build that
// cannot start with a setting: it exits at once, with a fatal message in
// CRI-O's log format, when a drop-in of the node's CRI-O contains line,
// and runs the real CRI-O otherwise. Set it as the node's CRIOBin.
func (pn *PlatformNode) CRIOFailingWith(t testing.TB, line, why string) string {
	return pn.crioWithFault(t, "crio-with-fault", "cannot start", line, fmt.Sprintf(`
  printf 'time="%%s" level=fatal msg=%%s\n' "$(date -u +%%Y-%%m-%%dT%%H:%%M:%%SZ)" %s >&2
  exit 1`, shellQuote(strconv.Quote(why))))
}

// CRIOHangingWith writes an executable that stands for a CRI-O build that
// hangs after it started with a setting: when a drop-in of the node's CRI-O
// contains line, it runs the real CRI-O and freezes it (SIGSTOP) a second
// after its metrics endpoint first answered, so that systemd (here
// hack/crio.sh, which polls every 0.2 s) saw it start, the node stays
// Ready, and only its metrics stop answering. The freeze ends when the
// drop-in no longer holds line (a rollback writes the drop-in before it
// restarts CRI-O), so that the restart stops it cleanly. Set it as the
// node's CRIOBin.
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

// crioWithFault writes the executable name that runs fault (shell) when a
// drop-in of CRI-O's --config-dir holds line, then the real CRI-O.
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

// restartCRIO restarts the node's CRI-O, as systemctl restart crio.service
// does.
func (pn *PlatformNode) restartCRIO(t testing.TB) {
	t.Helper()
	pn.stopCRIO(t, false)
	pn.startCRIO(t)
	pn.CRIORestarts++
}

// SetCRIODropIn gives the node the CRI-O drop-in /etc/crio/crio.conf.d/name
// with data, or removes it when data is nil, as a MachineConfig file would
// be written or removed by MCO's daemon, and restarts CRI-O when that changed
// its drop-in directory (crio.service restart, the node disruption policy's
// action for CRI-O drop-ins). Quoted absolute paths in data are moved below
// the node's root (CRIODropIns). It reports whether CRI-O was restarted.
func (pn *PlatformNode) SetCRIODropIn(t testing.TB, name string, data []byte) bool {
	t.Helper()
	p, what := pn.HostPath(crioDropInDir+name), "written"
	if data == nil {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		what = "removed"
	} else {
		writeNodeFile(t, p, data, 0o644)
	}
	if !pn.syncCRIODropIns(t) {
		return false
	}
	t.Logf("node %s: drop-in %s %s; restarting CRI-O", pn.Name, name, what)
	pn.restartCRIO(t)
	return true
}

// CRISocket is the node's CRI socket (CRI-O's [crio.api] listen).
func (pn *PlatformNode) CRISocket() string { return filepath.Join(pn.CRIODir, "crio.sock") }

// proxyArgs returns the arguments of the static pod's kube-rbac-proxy-crio
// container in the node's manifest, mapped to this machine: every absolute
// path below a hostPath mount is the node's file below its root, the listen
// address without a host (every address of the node) and the upstream
// 127.0.0.1 become the node's loopback address.
func (pn *PlatformNode) proxyArgs(t testing.TB) []string {
	t.Helper()
	raw, err := os.ReadFile(pn.HostPath(PlatformProxyManifest))
	require.NoError(t, err, "node %s has no static pod manifest %s", pn.Name, PlatformProxyManifest)
	pod := &corev1.Pod{}
	require.NoError(t, yaml.UnmarshalStrict(raw, pod), "node %s: %s", pn.Name, PlatformProxyManifest)
	var c *corev1.Container
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == PlatformProxyName {
			c = &pod.Spec.Containers[i]
		}
	}
	if c == nil || len(c.Command) > 0 {
		t.Fatalf("node %s: %s has no container %s running the image's entrypoint", pn.Name, PlatformProxyManifest, PlatformProxyName)
	}
	hostPaths := map[string]string{}
	for _, v := range pod.Spec.Volumes {
		if v.HostPath != nil {
			hostPaths[v.Name] = v.HostPath.Path
		}
	}
	mapPath := func(p string) string {
		for _, m := range c.VolumeMounts {
			if hp, ok := hostPaths[m.Name]; ok && (p == m.MountPath || strings.HasPrefix(p, strings.TrimSuffix(m.MountPath, "/")+"/")) {
				return pn.HostPath(hp + strings.TrimPrefix(p, m.MountPath))
			}
		}
		t.Fatalf("node %s: argument path %s is below no hostPath mount of %s", pn.Name, p, PlatformProxyName)
		return ""
	}
	var args []string
	for _, a := range c.Args {
		flag, value, _ := strings.Cut(a, "=")
		switch {
		case flag == "--secure-listen-address":
			host, port, err := net.SplitHostPort(value)
			require.NoError(t, err, "node %s: %s", pn.Name, a)
			if host == "" || host == "0.0.0.0" {
				host = pn.IP
			}
			value = net.JoinHostPort(host, port)
		case flag == "--upstream":
			u, err := url.Parse(value)
			require.NoError(t, err, "node %s: %s", pn.Name, a)
			if u.Hostname() == "127.0.0.1" {
				u.Host = net.JoinHostPort(pn.IP, u.Port())
			}
			value = u.String()
		case strings.HasPrefix(value, "/"):
			value = mapPath(value)
		}
		args = append(args, flag+"="+value)
	}
	return args
}

// StartProxy does what the node's MCO daemon and kubelet do once the pool's
// 01-<role>-kubelet carries the static pod: it writes that MachineConfig's
// files as they are on the API server and starts kube-rbac-proxy with the
// static pod's arguments (proxyArgs), and waits until it listens.
func (pn *PlatformNode) StartProxy(t testing.TB) {
	t.Helper()
	mc, err := pn.dyn.Resource(mcGVR).Get(Context(t, time.Minute), "01-"+pn.Role+"-kubelet", metav1.GetOptions{})
	require.NoError(t, err, "MachineConfig 01-%s-kubelet", pn.Role)
	pn.ApplyMachineConfig(t, mc)
	pn.ProxyArgs = pn.proxyArgs(t)
	pn.Proxy = StartProcess(t, "kube-rbac-proxy-crio-"+pn.Name, filepath.Join(RepoRoot(t), "_output", "bin", "kube-rbac-proxy"), pn.ProxyArgs, nil)
	WaitListening(t, pn.Proxy, pn.ProxyAddr, "kube-rbac-proxy-crio of node "+pn.Name)
}

// StopProxy stops the node's kube-rbac-proxy and removes the files of
// 01-<role>-kubelet, as the node's MCO daemon and kubelet do when that
// MachineConfig no longer carries them.
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

// OperatorMachineConfigs lists the MachineConfigs that are not MCO's
// rendered ones (no generated-by-controller-version annotation, no
// rendered- prefix): on the local world, the operator's.
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

// ApplyOperatorMachineConfigs does on the node what MCO's daemon does with
// the operator's MachineConfigs under the node disruption policy (restart
// crio.service for CRI-O drop-ins): it writes the CRI-O drop-ins
// (/etc/crio/crio.conf.d/*) of each of mcs whose role is the node's, removes
// those it wrote before whose MachineConfig is no longer among mcs, and
// restarts CRI-O when that changed its drop-ins. It reports whether CRI-O
// was restarted.
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
	if !pn.syncCRIODropIns(t) {
		return false
	}
	var names []string
	for p := range want {
		names = append(names, filepath.Base(p))
	}
	sort.Strings(names)
	t.Logf("node %s: operator drop-ins now %v; restarting CRI-O", pn.Name, names)
	pn.restartCRIO(t)
	return true
}

// ---------------------------------------------------------------------------
// Monitoring side

// StartPlatformPrometheus runs a real Prometheus with the scrape the
// cluster-monitoring operator generates from the crio endpoint of its
// ServiceMonitor openshift-monitoring/kubelet
// (assets/control-plane/service-monitor-kubelet.yaml): the kubelet's
// endpoints (<node address>:10250, with the labels the EndpointSlice
// discovery gives them) relabelled to port 9637, job and endpoint "crio",
// https, the kubelet serving CA, and the scrape class
// tls-client-certificate-auth (prometheus-k8s's client certificate). Only
// the interval differs: the tests' instead of 30s (the scrape timeout four
// fifths of it).
func StartPlatformPrometheus(t testing.TB, pki *PlatformPKI, nodes []*PlatformNode, interval time.Duration) *Prometheus {
	t.Helper()
	if _, err := exec.LookPath("prometheus"); err != nil {
		t.Fatalf("prometheus is not installed: run hack/prometheus.sh")
	}
	var statics []map[string]interface{}
	for _, n := range nodes {
		statics = append(statics, map[string]interface{}{
			"targets": []string{net.JoinHostPort(n.IP, "10250")},
			"labels": map[string]string{
				"__meta_kubernetes_node_label_kubernetes_io_os": "linux",
				"node":      n.Name,
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
	dir := filepath.Join(pki.Dir, "prometheus")
	prom := StartPrometheus(t, dir, string(raw))
	return prom
}

// PollCounts is what a MetricsPoller saw.
type PollCounts struct {
	Polls, Successes, Failures int
	LastError                  string
	LastErrorAt                time.Time
}

func (c PollCounts) String() string {
	s := fmt.Sprintf("%d polls, %d successes, %d failures", c.Polls, c.Successes, c.Failures)
	if c.LastError != "" {
		s += fmt.Sprintf(" (last error at %s: %s)", c.LastErrorAt.Format("15:04:05.000"), c.LastError)
	}
	return s
}

// Sub returns the counts since an earlier snapshot.
func (c PollCounts) Sub(earlier PollCounts) PollCounts {
	out := PollCounts{Polls: c.Polls - earlier.Polls, Successes: c.Successes - earlier.Successes, Failures: c.Failures - earlier.Failures}
	if c.LastErrorAt.After(earlier.LastErrorAt) {
		out.LastError, out.LastErrorAt = c.LastError, c.LastErrorAt
	}
	return out
}

// MetricsPoller GETs /metrics through MCO's proxy on every node with
// prometheus-k8s's client certificate, once per interval, and counts the
// answers: a success is a 200 whose body holds container_runtime_crio_*.
type MetricsPoller struct {
	mu     sync.Mutex
	counts PollCounts
	stop   chan struct{}
	done   chan struct{}
}

// StartMetricsPoller starts polling; it stops when the test ends or Stop
// is called.
func StartMetricsPoller(t testing.TB, pki *PlatformPKI, nodes []*PlatformNode, interval time.Duration) *MetricsPoller {
	t.Helper()
	p := &MetricsPoller{stop: make(chan struct{}), done: make(chan struct{})}
	client := pki.HTTPClient(true)
	go func() {
		defer close(p.done)
		wait.NonSlidingUntil(func() {
			for _, n := range nodes {
				err := GetCRIOMetrics(client, n.ProxyAddr)
				p.mu.Lock()
				p.counts.Polls++
				if err == nil {
					p.counts.Successes++
				} else {
					p.counts.Failures++
					p.counts.LastError, p.counts.LastErrorAt = fmt.Sprintf("node %s: %v", n.Name, err), time.Now()
				}
				p.mu.Unlock()
			}
		}, interval, p.stop)
	}()
	t.Cleanup(func() { p.Stop() })
	return p
}

// Counts returns what the poller saw so far.
func (p *MetricsPoller) Counts() PollCounts {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts
}

// Stop stops polling and returns the final counts.
func (p *MetricsPoller) Stop() PollCounts {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	<-p.done
	return p.Counts()
}

// GetCRIOMetrics GETs https://addr/metrics with client and checks that it
// returns CRI-O's metrics.
func GetCRIOMetrics(client *http.Client, addr string) error {
	return crioMetrics(HTTPGet(client, "https://"+addr+"/metrics", ""))
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

// GetWithToken GETs https://addr/metrics with a bearer token and no client
// certificate, and returns the status code.
func (p *PlatformPKI) GetWithToken(addr, token string) (int, error) {
	code, _, err := HTTPGet(p.HTTPClient(false), "https://"+addr+"/metrics", token)
	return code, err
}
