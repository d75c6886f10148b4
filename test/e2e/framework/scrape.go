package framework

// Simulated nodes for real scrapes: for a node of the local cluster, the
// crio-metrics DaemonSet's two containers run as local processes next to a
// real CRI-O of their own, and a stand-in for the kubelet keeps the pod's
// Secret and ConfigMap volumes up to date the way the kubelet does (atomic
// "..data" symlink swaps). And a real Prometheus to scrape them.

import (
	"bytes"
	"context"
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
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// StartProcess runs binary with args as a local process whose output goes to
// _output/e2e-logs/<test>-<name>-*.log, stopped when the test ends.
func StartProcess(t testing.TB, name, binary string, args, env []string) *Operator {
	t.Helper()
	logDir := filepath.Join(RepoRoot(t), "_output", "e2e-logs")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(logDir, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())+"-"+name+fmt.Sprintf("-%d.log", time.Now().UnixNano()))
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	o := &Operator{cmd: cmd, LogPath: logPath, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(o.done)
	}()
	t.Logf("%s started (pid %d): %s %q; log %s", name, cmd.Process.Pid, binary, args, logPath)
	t.Cleanup(o.Stop)
	return o
}

// ProjectFiles writes files into dir the way the kubelet's atomic writer
// updates a Secret or ConfigMap volume: a new timestamped directory, the
// "..data" symlink swapped to it with a rename, one symlink per key through
// "..data", then the old directory removed. Readers never see a mix.
func ProjectFiles(dir string, files map[string][]byte, mode os.FileMode) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ts := ".." + time.Now().UTC().Format("2006_01_02_15_04_05.000000000")
	tsDir := filepath.Join(dir, ts)
	if err := os.Mkdir(tsDir, 0o755); err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(tsDir, name), data, mode); err != nil {
			return err
		}
		if err := os.Chmod(filepath.Join(tsDir, name), mode); err != nil {
			return err
		}
	}
	old, _ := os.Readlink(filepath.Join(dir, "..data"))
	tmp := filepath.Join(dir, "..data_tmp")
	_ = os.Remove(tmp)
	if err := os.Symlink(ts, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "..data")); err != nil {
		return err
	}
	for name := range files {
		link := filepath.Join(dir, name)
		if _, err := os.Lstat(link); err == nil {
			continue
		}
		if err := os.Symlink(filepath.Join("..data", name), link); err != nil {
			return err
		}
	}
	if old != "" && old != ts {
		return os.RemoveAll(filepath.Join(dir, old))
	}
	return nil
}

// VolumeProjector keeps local copies of Secret and ConfigMap volumes in sync
// with the API, polling every interval (the kubelet's own period is about a
// minute; a shorter one only makes rotations reach the files sooner). A
// source that disappears keeps its last files, as with the kubelet.
type VolumeProjector struct {
	mu      sync.Mutex
	updates int
	stop    chan struct{}
	done    chan struct{}
}

// ProjectedVolume is one volume to keep in sync.
type ProjectedVolume struct {
	Dir       string
	Secret    string // or
	ConfigMap string
	Mode      os.FileMode
}

// StartVolumeProjector projects vols from namespace and keeps them in sync
// until the test ends. It returns after the first projection of each.
func StartVolumeProjector(t testing.TB, client kubernetes.Interface, namespace string, interval time.Duration, vols ...ProjectedVolume) *VolumeProjector {
	t.Helper()
	p := &VolumeProjector{stop: make(chan struct{}), done: make(chan struct{})}
	last := make([]string, len(vols))
	syncOnce := func(ctx context.Context) error {
		for i, v := range vols {
			var files map[string][]byte
			if v.Secret != "" {
				s, err := client.CoreV1().Secrets(namespace).Get(ctx, v.Secret, metav1.GetOptions{})
				if err != nil {
					return err
				}
				files = s.Data
			} else {
				cm, err := client.CoreV1().ConfigMaps(namespace).Get(ctx, v.ConfigMap, metav1.GetOptions{})
				if err != nil {
					return err
				}
				files = map[string][]byte{}
				for k, s := range cm.Data {
					files[k] = []byte(s)
				}
			}
			key := fingerprint(files)
			if key == last[i] {
				continue
			}
			if err := ProjectFiles(v.Dir, files, v.Mode); err != nil {
				return err
			}
			last[i] = key
			p.mu.Lock()
			p.updates++
			p.mu.Unlock()
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := Poll(ctx, time.Second, func() (bool, error) {
		err := syncOnce(ctx)
		return err == nil, nil
	}); err != nil {
		t.Fatalf("projecting volumes %+v: %v", vols, err)
	}
	go func() {
		defer close(p.done)
		for {
			select {
			case <-p.stop:
				return
			case <-time.After(interval):
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			if err := syncOnce(ctx); err != nil && !apierrors.IsNotFound(err) {
				t.Logf("volume projector: %v", err)
			}
			cancel()
		}
	}()
	t.Cleanup(func() { close(p.stop); <-p.done })
	return p
}

// Updates is how many times a volume's files were (re)written.
func (p *VolumeProjector) Updates() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.updates
}

func fingerprint(files map[string][]byte) string {
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%d:%s;", k, len(files[k]), files[k])
	}
	return b.String()
}

// SimulatedNode is one node of the cluster with a real CRI-O, and the
// crio-metrics pod's kube-rbac-proxy and cert-syncer as local processes.
type SimulatedNode struct {
	Name, IP  string
	Dir       string
	CrioDir   string
	CrioPort  int
	ProxyAddr string // the node's address and the proxy's port
	Proxy     *Operator
	Syncer    *Operator
	Projector *VolumeProjector
}

// SimulatedNodeOptions configure StartSimulatedNode.
type SimulatedNodeOptions struct {
	// Pod is the crio-metrics DaemonSet's pod on the node.
	Pod *corev1.Pod
	// Dir holds the node's files; keep it short: CRI-O's socket
	// $Dir/crio/crio.sock must stay under 108 bytes.
	Dir string
	// ProjectInterval is the volume projector's period (default 500 ms).
	ProjectInterval time.Duration
}

// StartSimulatedNode runs, for the node of opts.Pod: the pod's volumes
// projected and kept in sync, the real cert-syncer with the pod's arguments
// writing the pair into the node's "host" directory, a real CRI-O reading
// its metrics certificate from there (hack/crio.sh, its own CRIO_DIR and
// metrics port), and a real kube-rbac-proxy with the pod's arguments bound
// to the node's address, authenticating to the API server as the pod's
// ServiceAccount. The paths of the pod's mounts are mapped to local
// directories, $(NODE_IP) is the node's InternalIP and the upstream port is
// the CRI-O instance's; nothing else in the arguments changes.
func StartSimulatedNode(t testing.TB, admin *rest.Config, opts SimulatedNodeOptions) *SimulatedNode {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("CRI-O runs as root")
	}
	root := RepoRoot(t)
	for _, b := range []string{"crio", "kube-rbac-proxy", "cert-syncer"} {
		if _, err := os.Stat(filepath.Join(root, "_output", "bin", b)); err != nil {
			t.Skipf("_output/bin/%s is missing: run hack/build-tools.sh kube-rbac-proxy crio and make build", b)
		}
	}
	client := kubernetes.NewForConfigOrDie(admin)
	pod := opts.Pod
	if opts.ProjectInterval == 0 {
		opts.ProjectInterval = 500 * time.Millisecond
	}
	n := &SimulatedNode{Name: pod.Spec.NodeName, IP: pod.Status.HostIP, Dir: opts.Dir, CrioDir: filepath.Join(opts.Dir, "crio")}
	if n.IP == "" {
		t.Fatalf("pod %s has no hostIP", pod.Name)
	}
	if len(filepath.Join(n.CrioDir, "crio.sock")) >= 108 {
		t.Fatalf("CRI-O socket path %s is too long for a unix socket", filepath.Join(n.CrioDir, "crio.sock"))
	}
	_ = os.RemoveAll(opts.Dir)
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		t.Fatal(err)
	}

	// Volumes: local directory for each.
	volDir := map[string]string{}
	var projected []ProjectedVolume
	for _, v := range pod.Spec.Volumes {
		dir := filepath.Join(opts.Dir, "volumes", v.Name)
		volDir[v.Name] = dir
		switch {
		case v.Secret != nil:
			mode := os.FileMode(0o644)
			if v.Secret.DefaultMode != nil {
				mode = os.FileMode(*v.Secret.DefaultMode)
			}
			projected = append(projected, ProjectedVolume{Dir: dir, Secret: v.Secret.SecretName, Mode: mode})
		case v.ConfigMap != nil:
			mode := os.FileMode(0o644)
			if v.ConfigMap.DefaultMode != nil {
				mode = os.FileMode(*v.ConfigMap.DefaultMode)
			}
			projected = append(projected, ProjectedVolume{Dir: dir, ConfigMap: v.ConfigMap.Name, Mode: mode})
		case v.HostPath != nil:
			// The node's own file system, under the node's directory.
			dir = filepath.Join(opts.Dir, "host", v.HostPath.Path)
			volDir[v.Name] = dir
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		case v.Projected != nil:
			// The ServiceAccount token volume admission adds: the proxy gets
			// a kubeconfig with a token of the same ServiceAccount instead.
		default:
			t.Fatalf("volume %s: unsupported", v.Name)
		}
	}
	n.Projector = StartVolumeProjector(t, client, pod.Namespace, opts.ProjectInterval, projected...)

	n.CrioPort = FreePort(t)
	args := func(c corev1.Container) []string {
		repl := []string{"$(NODE_IP)", n.IP, "https://127.0.0.1:9537/", fmt.Sprintf("https://127.0.0.1:%d/", n.CrioPort)}
		for _, m := range c.VolumeMounts {
			repl = append(repl, m.MountPath, volDir[m.Name])
		}
		r := strings.NewReplacer(repl...)
		var out []string
		for _, a := range c.Args {
			out = append(out, r.Replace(a))
		}
		return out
	}
	container := func(name string) corev1.Container {
		for _, c := range pod.Spec.Containers {
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("pod %s has no container %s", pod.Name, name)
		return corev1.Container{}
	}

	// cert-syncer first: CRI-O must find a matching pair at start.
	syncer := container("cert-syncer")
	n.Syncer = StartProcess(t, "cert-syncer-"+n.Name, filepath.Join(root, "_output", "bin", "cert-syncer"), args(syncer), nil)
	var hostDir string
	for _, m := range syncer.VolumeMounts {
		if strings.HasPrefix(m.MountPath, "/host/") {
			hostDir = volDir[m.Name]
		}
	}
	certFile, keyFile := filepath.Join(hostDir, "tls.crt"), filepath.Join(hostDir, "tls.key")
	Eventually(t, time.Minute, 200*time.Millisecond, func() (bool, error) {
		_, err := tls.LoadX509KeyPair(certFile, keyFile)
		return err == nil, nil
	}, fmt.Sprintf("cert-syncer of %s writes a matching pair to %s (log %s)", n.Name, hostDir, n.Syncer.LogPath))

	// CRI-O.
	caFile := ""
	for _, v := range projected {
		if v.ConfigMap != "" {
			caFile = filepath.Join(v.Dir, "ca-bundle.crt")
		}
	}
	crio := func(cmd string) bool {
		c := exec.Command(filepath.Join(root, "hack", "crio.sh"), cmd)
		c.Env = append(os.Environ(), "CRIO_DIR="+n.CrioDir, fmt.Sprintf("CRIO_METRICS_PORT=%d", n.CrioPort),
			"CRIO_METRICS_CERT="+certFile, "CRIO_METRICS_KEY="+keyFile, "CRIO_METRICS_CA="+caFile)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Errorf("hack/crio.sh %s (%s): %v\n%s", cmd, n.Name, err, out)
			return false
		}
		return true
	}
	t.Cleanup(func() { crio("stop") })
	if !crio("start") {
		t.FailNow()
	}

	// kube-rbac-proxy, as the pod's ServiceAccount.
	proxy := container("kube-rbac-proxy")
	kubeconfig := ServiceAccountKubeconfig(t, admin, pod.Namespace, pod.Spec.ServiceAccountName)
	pargs := append(args(proxy), "--kubeconfig="+kubeconfig)
	for _, a := range pargs {
		if strings.HasPrefix(a, "--secure-listen-address=") {
			n.ProxyAddr = strings.TrimPrefix(a, "--secure-listen-address=")
		}
	}
	n.Proxy = StartProcess(t, "kube-rbac-proxy-"+n.Name, filepath.Join(root, "_output", "bin", "kube-rbac-proxy"), pargs, nil)
	Eventually(t, time.Minute, 200*time.Millisecond, func() (bool, error) {
		if n.Proxy.Exited() {
			return false, fmt.Errorf("kube-rbac-proxy exited; log %s", n.Proxy.LogPath)
		}
		c, err := net.DialTimeout("tcp", n.ProxyAddr, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil, nil
	}, fmt.Sprintf("kube-rbac-proxy of %s listens on %s", n.Name, n.ProxyAddr))
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
	Process *Operator
}

// StartPrometheus runs Debian's prometheus (hack/prometheus.sh) with config
// (prometheus.yml contents) in dir, listening on 127.0.0.1 only, and waits
// until it is ready.
func StartPrometheus(t testing.TB, dir, config string) *Prometheus {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus is not installed: run hack/prometheus.sh")
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
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
		resp, err := http.Get(p.URL + "/-/ready")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
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
	resp, err := http.Get(p.URL + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", path, resp.Status, body)
	}
	return json.Unmarshal(body, into)
}
