package framework

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Node simulates a node on this machine (root directory, pod processes); needs root.
type Node struct {
	Root string // the node's "/"
	IP   string // status.hostIP (and a hostNetwork pod's IP)
	Name string

	admin     *rest.Config
	client    kubernetes.Interface
	namespace string
	podName   string
	podUID    string
	spec      corev1.PodSpec
}

// NewNode prepares a node for a pod of namespace with spec; nothing runs yet.
func NewNode(t testing.TB, admin *rest.Config, namespace string, spec corev1.PodSpec) *Node {
	t.Helper()
	if os.Geteuid() != 0 {
		Unavailable(t, "simulating a node needs root (hostPath directories owned by root, setpriv)")
	}
	client, err := kubernetes.NewForConfig(admin)
	require.NoError(t, err)
	root, err := os.MkdirTemp(filepath.Join(RepoRoot(t), "_output"), "e2e-node-")
	require.NoError(t, err)
	// Like "/": every user may traverse it (containers run as other users).
	require.NoError(t, os.Chmod(root, 0o755))
	t.Cleanup(func() {
		if err := os.RemoveAll(root); err != nil {
			t.Errorf("removing node root %s: %v", root, err)
		}
	})
	uid := string(uuid.NewUUID())
	return &Node{
		Root:      root,
		IP:        "127.0.0.1",
		Name:      "e2e-node-" + filepath.Base(root)[len("e2e-node-"):],
		admin:     admin,
		client:    client,
		namespace: namespace,
		podName:   "e2e-pod-" + uid[:8],
		podUID:    uid,
		spec:      spec,
	}
}

// HostPath is where the node's absolute path p lives on this machine.
func (n *Node) HostPath(p string) string {
	return filepath.Join(n.Root, filepath.Clean("/"+p))
}

// ApplyMachineConfig writes a MachineConfig's Ignition directories and files below the node's root.
func (n *Node) ApplyMachineConfig(t testing.TB, mc *unstructured.Unstructured) {
	t.Helper()
	writeMachineConfig(t, mc, n.HostPath)
}

// writeMachineConfig writes a MachineConfig's Ignition directories and files where hostPath puts a node's paths, and returns the files' places.
func writeMachineConfig(t testing.TB, mc *unstructured.Unstructured, hostPath func(string) string) []string {
	t.Helper()
	var written []string
	dirs, _, _ := unstructured.NestedSlice(mc.Object, "spec", "config", "storage", "directories")
	for _, d := range dirs {
		m, _ := d.(map[string]interface{})
		p, _ := m["path"].(string)
		mode := os.FileMode(0o755)
		if v, ok := m["mode"].(int64); ok {
			mode = os.FileMode(v)
		}
		dir := hostPath(p)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.Chmod(dir, mode))
	}
	files, _, _ := unstructured.NestedSlice(mc.Object, "spec", "config", "storage", "files")
	for _, f := range files {
		m, _ := f.(map[string]interface{})
		p, _ := m["path"].(string)
		source, _, _ := unstructured.NestedString(m, "contents", "source")
		data, err := decodeDataURL(source)
		require.NoError(t, err, "MachineConfig %s file %s", mc.GetName(), p)
		mode := os.FileMode(0o644)
		if v, ok := m["mode"].(int64); ok {
			mode = os.FileMode(v)
		}
		file := hostPath(p)
		require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
		require.NoError(t, os.WriteFile(file, data, mode))
		require.NoError(t, os.Chmod(file, mode))
		written = append(written, file)
	}
	return written
}

// decodeDataURL decodes an RFC 2397 data URL, as Ignition does.
func decodeDataURL(s string) ([]byte, error) {
	rest, ok := strings.CutPrefix(s, "data:")
	if !ok {
		return nil, fmt.Errorf("source %.40q is not a data URL", s)
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return nil, fmt.Errorf("data URL without a comma")
	}
	if strings.HasSuffix(meta, ";base64") {
		return base64.StdEncoding.DecodeString(data)
	}
	out, err := url.PathUnescape(data)
	return []byte(out), err
}

var quotedAbsPath = regexp.MustCompile(`"(/[^"]*)"`)

// CRIODropIns: the node's CRI-O drop-ins, quoted absolute paths moved below its root.
func (n *Node) CRIODropIns(t testing.TB) map[string][]byte {
	t.Helper()
	dir := n.HostPath("/etc/crio/crio.conf.d")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err, "the node has no CRI-O drop-ins")
	out := map[string][]byte{}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		out[e.Name()] = quotedAbsPath.ReplaceAllFunc(raw, func(m []byte) []byte {
			return []byte(strconv.Quote(n.HostPath(string(m[1 : len(m)-1]))))
		})
	}
	return out
}

// pod is the node's pod as the API server has it once scheduled there.
func (n *Node) pod() *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: n.podName, Namespace: n.namespace, UID: types.UID(n.podUID)},
		Spec:       *n.spec.DeepCopy(),
		Status:     corev1.PodStatus{HostIP: n.IP, PodIP: n.IP},
	}
	pod.Spec.NodeName = n.Name
	return pod
}

// e2eLogPath returns a new log file path under _output/e2e-logs.
func e2eLogPath(t testing.TB, what string) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "_output", "e2e-logs")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())+
		fmt.Sprintf("-%s-%d.log", what, time.Now().UnixNano()))
}

// toolModule: the hack/tools module building program, and the binaries it links into _output/bin.
func toolModule(program string) (string, []string) {
	switch program {
	case "crio":
		return "crio", []string{"crio", "pinns"}
	case "cluster-version-operator", "oc-inspect":
		return program, []string{program}
	}
	return "cluster", []string{program}
}

// EnsureTool builds a program's tools module with hack/build-tools.sh when a binary is missing.
func EnsureTool(t testing.TB, program string) error {
	t.Helper()
	root := RepoRoot(t)
	name, binaries := toolModule(program)
	missing := false
	for _, b := range binaries {
		if _, err := os.Stat(filepath.Join(root, "_output", "bin", b)); err != nil {
			missing = true
		}
	}
	if !missing {
		return nil
	}
	logPath := e2eLogPath(t, "build-"+name)
	t.Logf("building %s with hack/build-tools.sh (a few minutes when cold); log: %s", name, logPath)
	start := time.Now()
	cmd := exec.Command(filepath.Join(root, "hack", "build-tools.sh"), name)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	_ = os.WriteFile(logPath, out, 0o644)
	if err != nil {
		return fmt.Errorf("hack/build-tools.sh %s: %v; last lines:\n%s", name, err, tail(out, 15))
	}
	t.Logf("built %s in %s", name, time.Since(start).Round(time.Second))
	return nil
}

func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// CRIOOptions configure StartCRIO.
type CRIOOptions struct {
	Dir         string            // CRIO_DIR (its socket path under 108 bytes)
	MetricsPort int               // CRIO_METRICS_PORT
	DropIns     map[string][]byte // written to Dir/crio.conf.d beside hack/crio.sh's 10-metrics.conf
	ProbeCA     string            // CRIO_METRICS_CA: the CA the start script's readiness probe trusts
}

// CRIO is a real CRI-O started with hack/crio.sh.
type CRIO struct {
	Dir         string
	MetricsPort int
	env         []string
}

// StartCRIO starts CRI-O with hack/crio.sh (ready once its metrics serve) and stops it at the end, keeping its log.
func StartCRIO(t testing.TB, opts CRIOOptions) *CRIO {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(opts.Dir, "crio.conf.d"), 0o755))
	for name, data := range opts.DropIns {
		require.NoError(t, os.WriteFile(filepath.Join(opts.Dir, "crio.conf.d", name), data, 0o644))
	}
	c := &CRIO{Dir: opts.Dir, MetricsPort: opts.MetricsPort, env: []string{"CRIO_METRICS_PORT=" + strconv.Itoa(opts.MetricsPort)}}
	if opts.ProbeCA != "" {
		c.env = append(c.env, "CRIO_METRICS_CA="+opts.ProbeCA)
	}
	t.Cleanup(func() {
		if err := crioScript(t, "stop", c.Dir, c.env...); err != nil {
			t.Error(err)
		}
		keepCRIOLog(t, c.Dir, "crio")
	})
	start := time.Now()
	if err := crioScript(t, "start", c.Dir, c.env...); err != nil {
		t.Fatal(err)
	}
	pid, err := c.Pid()
	require.NoError(t, err)
	t.Logf("CRI-O started in %s (pid %d, metrics https://127.0.0.1:%d, dir %s)", time.Since(start).Round(time.Millisecond), pid, opts.MetricsPort, opts.Dir)
	return c
}

// crioScript runs hack/crio.sh action for the CRI-O of dir, env added.
func crioScript(t testing.TB, action, dir string, env ...string) error {
	t.Helper()
	cmd := exec.Command(filepath.Join(RepoRoot(t), "hack", "crio.sh"), action)
	cmd.Env = append(os.Environ(), append([]string{"CRIO_DIR=" + dir, "CRIO_START_TIMEOUT=120"}, env...)...)
	out, err := cmd.CombinedOutput()
	if bytes.Contains(out, []byte("too many open files")) {
		// CRI-O opens 5 inotify instances, a per-user limit shared with
		// every local control plane (15 each).
		out = append(out, "\nraise fs.inotify.max_user_instances (sysctl -w fs.inotify.max_user_instances=512)"...)
	}
	if err != nil {
		return fmt.Errorf("hack/crio.sh %s (%v): %v\n%s", action, env, err, out)
	}
	return nil
}

// keepCRIOLog copies the log of the CRI-O of dir to _output/e2e-logs.
func keepCRIOLog(t testing.TB, dir, what string) {
	t.Helper()
	if log, err := os.ReadFile(filepath.Join(dir, "crio.log")); err == nil {
		if p := e2eLogPath(t, what); os.WriteFile(p, log, 0o644) == nil {
			t.Logf("%s log: %s", what, p)
		}
	}
}

// Pid is CRI-O's process id from its pid file; an error if it is not running.
func (c *CRIO) Pid() (int, error) {
	raw, err := os.ReadFile(filepath.Join(c.Dir, "crio.pid"))
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		return 0, err
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
		return 0, fmt.Errorf("CRI-O (pid %d) is not running", pid)
	}
	return pid, nil
}
