package framework

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/crypto"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"golang.org/x/sys/unix"
)

// RealNode is the kubelet on a real CRI-O that hack/node.sh runs in a network namespace of its own.
type RealNode struct {
	Name, IP string
	// Dir holds the node's state and logs (NODE_DIR).
	Dir string

	clusterPKI string // the local cluster's CA, which hack/node.sh makes the kubelet's client and serving CA
}

// RealNodeOptions configure StartRealNode.
type RealNodeOptions struct {
	// MachineConfigs are written onto the node before its kubelet and CRI-O start, as MCO's first boot writes the rendered config: static pod manifests start with the kubelet, and CRI-O's metrics endpoint is then as its drop-ins say (MCO's 00-default: plain HTTP) instead of the operator's TLS.
	MachineConfigs []*unstructured.Unstructured
}

// StartRealNode brings the real node up beside the simulated ones, with the operator's images loaded, and takes it down when the test ends, keeping its logs.
func StartRealNode(t testing.TB, opts ...RealNodeOptions) *RealNode {
	t.Helper()
	if os.Geteuid() != 0 {
		Unavailable(t, "the real node needs root (network and mount namespaces, CRI-O, runc)")
	}
	for _, tool := range []string{"kubelet", "crio", "kube-rbac-proxy"} {
		if err := EnsureTool(t, tool); err != nil {
			Unavailable(t, "%s is not available: %v", tool, err)
		}
	}
	for _, program := range []string{"socat", "skopeo", "conmon", "runc"} {
		if _, err := exec.LookPath(program); err != nil {
			Unavailable(t, "%s is not installed (apt-get install %s)", program, program)
		}
	}
	lcp := filepath.Dir(resolve(os.Getenv("KUBECONFIG")))
	n := &RealNode{Name: "real-worker-0", Dir: lcp + "-node", clusterPKI: filepath.Join(lcp, "kwok", "clusters", "local-cluster", "pki")}
	env := append(os.Environ(), "LCP_DIR="+lcp, "NODE_DIR="+n.Dir, "NODE_NAME="+n.Name,
		"OPERATOR_IMAGE="+OperatorImage, "KUBE_RBAC_PROXY_IMAGE="+KubeRBACProxyImage)
	// The node boots from its MachineConfigs alone, whatever an earlier test left on it.
	for _, dir := range []string{n.crioConfigDir(), filepath.Join(n.Dir, "kubelet.conf.d")} {
		require.NoError(t, os.RemoveAll(dir))
	}
	written := n.writeMachineConfigs(t, opts)
	if slices.ContainsFunc(written, func(p string) bool { return strings.HasPrefix(p, n.crioConfigDir()) }) {
		env = append(env, "NODE_CRIO_METRICS=drop-ins")
	}
	script := func(action string) error {
		cmd := exec.Command(filepath.Join(RepoRoot(t), "hack", "node.sh"), action)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Logf("hack/node.sh %s:\n%s", action, out)
		}
		return err
	}
	t.Cleanup(func() {
		if err := script("down"); err != nil {
			t.Error(err)
		}
		// The next test's node boots without this test's files.
		for _, p := range written {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				t.Error(err)
			}
		}
		// The Node is gone; its pods are force-deleted as an administrator
		// does for a removed node, so that the next test sees none of them.
		kube := KubeClient(t)
		Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
			if _, err := kube.CoreV1().Nodes().Get(context.Background(), n.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return false, nil
			}
			pods, err := kube.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{FieldSelector: "spec.nodeName=" + n.Name})
			if err != nil {
				return false, err
			}
			for _, p := range pods.Items {
				_ = kube.CoreV1().Pods(p.Namespace).Delete(context.Background(), p.Name, *metav1.NewDeleteOptions(0))
			}
			return len(pods.Items) == 0, nil
		}, "the real node and its pods gone")
		for name, p := range map[string]string{"kubelet": "kubelet.log", "real-node-crio": "crio/crio.log"} {
			if log, err := os.ReadFile(filepath.Join(n.Dir, p)); err == nil {
				if dst := e2eLogPath(t, name); os.WriteFile(dst, log, 0o644) == nil {
					t.Logf("%s log: %s", name, dst)
				}
			}
		}
	})
	start := time.Now()
	require.NoError(t, script("up"), "hack/node.sh up")
	node, err := KubeClient(t).CoreV1().Nodes().Get(context.Background(), n.Name, metav1.GetOptions{})
	require.NoError(t, err)
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			n.IP = a.Address
		}
	}
	require.NotEmpty(t, n.IP, "node %s has no InternalIP", n.Name)
	t.Logf("real node %s Ready at %s in %s (kubelet log %s)", n.Name, n.IP, time.Since(start).Round(time.Second), filepath.Join(n.Dir, "kubelet.log"))
	return n
}

// crioConfigDir is where CRI-O's --config-dir of the node is on this machine.
func (n *RealNode) crioConfigDir() string { return filepath.Join(n.Dir, "crio", "crio.conf.d") + "/" }

// The kubelet's --config-dir on a node (machine-config-operator 7ff337a4,
// templates/*/01-*-kubelet/_base/units/kubelet.service.yaml).
const kubeletDropInDir = "/etc/openshift/kubelet.conf.d/"

// HostPath is where the node's absolute path p is on this machine: $NODE_DIR/host, bound over /etc/kubernetes, /var/lib/kubelet and /var/lib/crio-metrics in the node's mount namespace (hack/node.sh), or, for CRI-O's and the kubelet's drop-ins, their --config-dir.
func (n *RealNode) HostPath(p string) string {
	p = filepath.Clean("/" + p)
	if name, ok := strings.CutPrefix(p, crioDropInDir); ok {
		return n.crioConfigDir() + name
	}
	if name, ok := strings.CutPrefix(p, kubeletDropInDir); ok {
		return filepath.Join(n.Dir, "kubelet.conf.d", name)
	}
	return filepath.Join(n.Dir, "host", p)
}

// writeMachineConfigs writes the files of opts' MachineConfigs onto the node and returns where.
func (n *RealNode) writeMachineConfigs(t testing.TB, opts []RealNodeOptions) []string {
	t.Helper()
	var written []string
	for _, o := range opts {
		for _, mc := range o.MachineConfigs {
			written = append(written, writeMachineConfig(t, mc, n.HostPath)...)
		}
	}
	return written
}

// StartPlatformPrometheus runs a real Prometheus with CMO's crio scrape of the node (StartPlatformPrometheus): the kubelet's serving CA and a client certificate of prometheus-k8s from the kubelet's client CA, both the cluster's CA here.
func (n *RealNode) StartPlatformPrometheus(t testing.TB, interval time.Duration) *Prometheus {
	t.Helper()
	pki := newPlatformPKIDir(t)
	pki.ClientCAFile, pki.ServingCAFile = filepath.Join(n.clusterPKI, "ca.crt"), filepath.Join(n.clusterPKI, "ca.crt")
	ca, err := crypto.GetCA(pki.ClientCAFile, filepath.Join(n.clusterPKI, "ca.key"), "")
	require.NoError(t, err, "the cluster's CA")
	pki.clientCA, pki.servingCA = ca, ca
	pki.writeClientCert(t, map[string][]byte{})
	return startCRIOJobPrometheus(t, pki, map[string]string{n.Name: n.IP}, interval)
}

// CRISocket is the CRI socket of the node's CRI-O.
func (n *RealNode) CRISocket() string { return filepath.Join(n.Dir, "crio", "crio.sock") }

// ServedCertificate is the certificate served at addr inside the node's network namespace (CRI-O's metrics on its loopback).
func (n *RealNode) ServedCertificate(addr string) (*x509.Certificate, error) {
	st, err := n.Handshake(addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only reads the peer certificate
	if err != nil {
		return nil, err
	}
	return st.PeerCertificates[0], nil
}

// Handshake makes one TLS handshake with cfg on a new connection to addr inside the node's network namespace.
func (n *RealNode) Handshake(addr string, cfg *tls.Config) (*tls.ConnectionState, error) {
	conn, err := n.dial(addr)
	if err != nil {
		return nil, err
	}
	c := tls.Client(conn, cfg)
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if err := c.Handshake(); err != nil {
		return nil, err
	}
	st := c.ConnectionState()
	return &st, nil
}

// dial connects to addr from the node's network namespace.
func (n *RealNode) dial(addr string) (conn net.Conn, err error) {
	err = n.inNetwork(func() error {
		conn, err = net.DialTimeout("tcp", addr, 5*time.Second)
		return err
	})
	return conn, err
}

// Listen listens on addr in the node's network namespace, as a program of the node would.
func (n *RealNode) Listen(addr string) (l net.Listener, err error) {
	err = n.inNetwork(func() error {
		l, err = net.Listen("tcp", addr)
		return err
	})
	return l, err
}

// inNetwork runs fn on a thread in the node's network namespace: a goroutine's thread enters it, runs fn and goes back; a thread that cannot go back ends with its goroutine. Sockets keep the namespace they were made in.
func (n *RealNode) inNetwork(fn func() error) error {
	name, err := os.ReadFile(filepath.Join(n.Dir, "netns"))
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		node, err := os.Open(filepath.Join("/run/netns", strings.TrimSpace(string(name))))
		if err != nil {
			done <- err
			return
		}
		defer node.Close()
		own, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			done <- err
			return
		}
		defer own.Close()
		if err := unix.Setns(int(node.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- err
			return
		}
		err = fn()
		if unix.Setns(int(own.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		done <- err
	}()
	return <-done
}
