package framework

// Real scrapes: simulated nodes with the crio-metrics pod's containers and a
// real CRI-O each (on top of Node, node.go), and a real Prometheus.

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
)

// StartProcess runs binary with args as a local process (for programs that
// are no container of a pod, e.g. Prometheus) whose output goes to
// _output/e2e-logs, stopped when the test ends.
func StartProcess(t testing.TB, name, binary string, args, env []string) *Process {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	o := startLogged(t, cmd, e2eLogPath(t, name))
	t.Logf("%s started (pid %d): %s %q; log %s", name, cmd.Process.Pid, binary, args, o.LogPath)
	return o
}

// ScrapeNode is one node of the cluster simulated for real scrapes (built
// on Node, node.go): the crio-metrics pod's volumes projected as the kubelet
// does, its cert-syncer and kube-rbac-proxy containers as local processes,
// and a real CRI-O configured by the operator's MachineConfig drop-in.
type ScrapeNode struct {
	*Node
	CRIO      *CRIO
	ProxyAddr string // the node's address and the proxy's port
	Proxy     *Process
	Syncer    *Process
}

// ScrapeNodeOptions configure StartScrapeNode.
type ScrapeNodeOptions struct {
	// Pod is the crio-metrics DaemonSet's pod on the node (status.hostIP is
	// the node's address: kwok nodes have distinct 127.0.1.x addresses).
	Pod *corev1.Pod
	// MachineConfig is the operator's CRI-O drop-in MachineConfig for the
	// node's role.
	MachineConfig *unstructured.Unstructured
	// SyncPeriod is the volume projection's period (default 500 ms).
	SyncPeriod time.Duration
}

// StartScrapeNode runs, for the node of opts.Pod: the pod's volumes
// projected and kept in sync, the MachineConfig's files written, the real
// cert-syncer with the pod's arguments writing the pair into the node's
// /var/lib/crio-metrics, a real CRI-O started with the node's drop-ins (so it
// reads that pair) on a metrics port of its own, and the real
// kube-rbac-proxy with the pod's arguments listening on the node's address,
// authenticating to the API server as the pod's ServiceAccount. Only the
// upstream port changes (one CRI-O per node shares this machine) and
// --kubeconfig is added (a pod uses its in-cluster configuration).
func StartScrapeNode(t testing.TB, admin *rest.Config, opts ScrapeNodeOptions) *ScrapeNode {
	t.Helper()
	root := RepoRoot(t)
	for _, tool := range []string{"crio", "kube-rbac-proxy"} {
		if err := EnsureTool(t, tool); err != nil {
			Unavailable(t, "%s is not available: %v", tool, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "_output", "bin", "cert-syncer")); err != nil {
		Unavailable(t, "_output/bin/cert-syncer is missing: run make build")
	}
	if opts.SyncPeriod == 0 {
		opts.SyncPeriod = 500 * time.Millisecond
	}
	pod := opts.Pod
	if pod.Status.HostIP == "" {
		t.Fatalf("pod %s has no hostIP", pod.Name)
	}
	// Without the ServiceAccount token volume admission added: the proxy
	// gets a kubeconfig with a token of the same ServiceAccount instead.
	spec := *pod.Spec.DeepCopy()
	projected := map[string]bool{}
	var volumes []corev1.Volume
	for _, v := range spec.Volumes {
		if v.Projected != nil {
			projected[v.Name] = true
			continue
		}
		volumes = append(volumes, v)
	}
	spec.Volumes = volumes
	for i := range spec.Containers {
		var mounts []corev1.VolumeMount
		for _, m := range spec.Containers[i].VolumeMounts {
			if !projected[m.Name] {
				mounts = append(mounts, m)
			}
		}
		spec.Containers[i].VolumeMounts = mounts
	}
	n := &ScrapeNode{Node: NewNode(t, admin, pod.Namespace, spec)}
	n.IP, n.Name = pod.Status.HostIP, pod.Spec.NodeName
	n.MountVolumes(t, opts.SyncPeriod)
	n.ApplyMachineConfig(t, opts.MachineConfig)

	// cert-syncer first: CRI-O must find a matching pair at start.
	n.Syncer = StartPodProcess(t, admin, PodProcessOptions{Node: n.Node, Container: "cert-syncer",
		Binaries: map[string]string{"cert-syncer": filepath.Join(root, "_output", "bin", "cert-syncer")}})
	var hostDir string
	for _, v := range pod.Spec.Volumes {
		if v.HostPath != nil {
			hostDir = n.HostPath(v.HostPath.Path)
		}
	}
	Eventually(t, time.Minute, 200*time.Millisecond, func() (bool, error) {
		_, err := tls.LoadX509KeyPair(filepath.Join(hostDir, "tls.crt"), filepath.Join(hostDir, "tls.key"))
		return err == nil, nil
	}, fmt.Sprintf("cert-syncer of %s writes a matching pair to %s (log %s)", n.Name, hostDir, n.Syncer.LogPath))

	var probeCA string
	for _, v := range pod.Spec.Volumes {
		if v.ConfigMap != nil && v.ConfigMap.Name == "crio-metrics-ca-bundle" {
			probeCA = n.Volume(v.Name).Path("ca-bundle.crt")
		}
	}
	n.CRIO = StartCRIO(t, CRIOOptions{Dir: filepath.Join(n.Root, "crio"), MetricsPort: FreePort(t), DropIns: n.CRIODropIns(t), ProbeCA: probeCA})

	kubeconfig := n.WriteServiceAccountKubeconfig(t, admin, pod.Namespace, pod.Spec.ServiceAccountName)
	n.Proxy = StartPodProcess(t, admin, PodProcessOptions{
		Node: n.Node, Container: "kube-rbac-proxy",
		Binaries: map[string]string{"kube-rbac-proxy": filepath.Join(root, "_output", "bin", "kube-rbac-proxy")},
		RewriteArgs: func(args []string) []string {
			for i, a := range args {
				if strings.HasPrefix(a, "--upstream=https://127.0.0.1:9537/") {
					args[i] = fmt.Sprintf("--upstream=https://127.0.0.1:%d/", n.CRIO.MetricsPort)
				}
			}
			return append(args, "--kubeconfig="+kubeconfig)
		},
	})
	for _, a := range n.Proxy.Args {
		if strings.HasPrefix(a, "--secure-listen-address=") {
			n.ProxyAddr = strings.TrimPrefix(a, "--secure-listen-address=")
		}
	}
	WaitListening(t, n.Proxy, n.ProxyAddr, "kube-rbac-proxy of "+n.Name)
	return n
}

// ServedCertificate returns the leaf certificate served at addr (no
// verification: the caller compares serials).
func ServedCertificate(addr string) (*x509.Certificate, error) {
	d := &net.Dialer{Timeout: 2 * time.Second}
	conn, err := tls.DialWithDialer(d, "tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only reads the peer certificate
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	certs := conn.ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return nil, fmt.Errorf("%s served no certificate", addr)
	}
	return certs[0], nil
}

// FirstCertificate parses the first PEM certificate of data.
func FirstCertificate(data []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("no PEM block")
	}
	return x509.ParseCertificate(block.Bytes)
}

// Prometheus is a real Prometheus on 127.0.0.1.
type Prometheus struct {
	URL     string
	Process *Process
}

// StartPrometheus runs Debian's prometheus (hack/prometheus.sh) with config
// (prometheus.yml contents) in dir, listening on 127.0.0.1 only, and waits
// until it is ready.
func StartPrometheus(t testing.TB, dir, config string) *Prometheus {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		Unavailable(t, "prometheus is not installed: run hack/prometheus.sh")
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "data"), 0o755))
	cfg := filepath.Join(dir, "prometheus.yml")
	require.NoError(t, os.WriteFile(cfg, []byte(config), 0o644))
	addr := fmt.Sprintf("127.0.0.1:%d", FreePort(t))
	p := &Prometheus{URL: "http://" + addr}
	p.Process = StartProcess(t, "prometheus", bin, []string{
		"--config.file=" + cfg, "--storage.tsdb.path=" + filepath.Join(dir, "data"),
		"--web.listen-address=" + addr, "--log.level=info",
	}, nil)
	Eventually(t, time.Minute, 500*time.Millisecond, func() (bool, error) {
		if p.Process.Exited() {
			return false, fmt.Errorf("prometheus exited; log %s", p.Process.LogPath)
		}
		code, _, err := HTTPGet(nil, p.URL+"/-/ready", "")
		return err == nil && code == http.StatusOK, nil
	}, "prometheus to be ready")
	return p
}

// PromTarget is one entry of /api/v1/targets.
type PromTarget struct {
	ScrapeURL  string            `json:"scrapeUrl"`
	Health     string            `json:"health"`
	LastError  string            `json:"lastError"`
	LastScrape time.Time         `json:"lastScrape"`
	Labels     map[string]string `json:"labels"`
}

// Targets returns the active targets.
func (p *Prometheus) Targets() ([]PromTarget, error) {
	var out struct {
		Data struct {
			ActiveTargets []PromTarget `json:"activeTargets"`
		} `json:"data"`
	}
	if err := p.get("/api/v1/targets?state=active", &out); err != nil {
		return nil, err
	}
	return out.Data.ActiveTargets, nil
}

// QueryScalar evaluates an instant query whose result is one sample (or
// none: 0, false).
func (p *Prometheus) QueryScalar(query string) (float64, bool, error) {
	var out struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Value [2]interface{} `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := p.get("/api/v1/query?query="+url.QueryEscape(query), &out); err != nil {
		return 0, false, err
	}
	if out.Status != "success" {
		return 0, false, fmt.Errorf("query %s: %s", query, out.Error)
	}
	if len(out.Data.Result) == 0 {
		return 0, false, nil
	}
	var v float64
	s, _ := out.Data.Result[0].Value[1].(string)
	if _, err := fmt.Sscan(s, &v); err != nil {
		return 0, false, fmt.Errorf("query %s: value %v: %w", query, out.Data.Result[0].Value, err)
	}
	return v, true, nil
}

func (p *Prometheus) get(path string, into interface{}) error {
	code, body, err := HTTPGet(nil, p.URL+path, "")
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d: %s", path, code, body)
	}
	return json.Unmarshal(body, into)
}

// HTTPGet GETs url with client (nil: a 5 s timeout, no TLS settings) and,
// when token is set, a bearer token; it returns the status code and body.
func HTTPGet(client *http.Client, url, token string) (int, []byte, error) {
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Second}
	}
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// WaitTargetsUp waits until n targets are up.
func (p *Prometheus) WaitTargetsUp(t testing.TB, n int, timeout time.Duration) {
	t.Helper()
	Eventually(t, timeout, time.Second, func() (bool, error) {
		tgs, err := p.Targets()
		if err != nil {
			return false, err
		}
		up := 0
		for _, tg := range tgs {
			if tg.Health == "up" {
				up++
			}
		}
		return up == n, nil
	}, fmt.Sprintf("%d targets up in Prometheus", n))
}

// WaitListening waits until the process listens on addr, and fails the test
// when it exits first.
func WaitListening(t testing.TB, proc *Process, addr, what string) {
	t.Helper()
	Eventually(t, time.Minute, 200*time.Millisecond, func() (bool, error) {
		if proc.Exited() {
			return false, fmt.Errorf("%s exited; log %s", what, proc.LogPath)
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil, nil
	}, fmt.Sprintf("%s listens on %s", what, addr))
}
