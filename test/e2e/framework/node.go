package framework

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Node simulates one node of the cluster on this machine, for the parts of a
// node the CRI-O metrics stack touches:
//
//   - a root directory standing for the node's "/": host paths (hostPath
//     volumes, files a MachineConfig writes) live below it;
//   - the kubelet's projection of a pod's Secret and ConfigMap volumes, kept
//     in sync with the live objects the way the kubelet does it (atomic
//     writer: a timestamped directory, the "..data" symlink swapped by
//     rename, top-level symlinks into "..data"), see KubeletVolume;
//   - containers of that pod run as local processes (StartPodProcess) with
//     those volumes mounted where the pod mounts them, see StartContainer.
//
// It shares the machine's network: the node's IP is 127.0.0.1. Everything is
// removed when the test ends. It needs root (hostPath directories owned by
// root, setpriv).
type Node struct {
	// Root is the node's "/".
	Root string
	// IP is the node's address (status.hostIP, and a hostNetwork pod's IP).
	IP string
	// Name is the node's name.
	Name string

	admin     *rest.Config
	client    kubernetes.Interface
	namespace string
	podName   string
	podUID    string
	spec      corev1.PodSpec

	mu      sync.Mutex
	volumes map[string]*KubeletVolume
}

// NewNode prepares a node that will run a pod of namespace with spec (e.g. a
// DaemonSet's pod template). Nothing runs yet.
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
		if m := mountsBelow(root); len(m) > 0 {
			t.Errorf("not removing %s: still mounted below it: %v", root, m)
			return
		}
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
		volumes:   map[string]*KubeletVolume{},
	}
}

// mountsBelow lists mount points at or below dir.
func mountsBelow(dir string) []string {
	raw, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && (f[4] == dir || strings.HasPrefix(f[4], dir+"/")) {
			out = append(out, f[4])
		}
	}
	return out
}

// HostPath is where the node's absolute path p lives on this machine.
func (n *Node) HostPath(p string) string {
	return filepath.Join(n.Root, filepath.Clean("/"+p))
}

// ApplyMachineConfig writes what a MachineConfig's Ignition storage section
// asks for (directories and files with data: URL contents) below the node's
// root, as the machine-config daemon would.
func (n *Node) ApplyMachineConfig(t testing.TB, mc *unstructured.Unstructured) {
	t.Helper()
	dirs, _, _ := unstructured.NestedSlice(mc.Object, "spec", "config", "storage", "directories")
	for _, d := range dirs {
		m, _ := d.(map[string]interface{})
		p, _ := m["path"].(string)
		mode := os.FileMode(0o755)
		if v, ok := m["mode"].(int64); ok {
			mode = os.FileMode(v)
		}
		dir := n.HostPath(p)
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
		file := n.HostPath(p)
		require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
		require.NoError(t, os.WriteFile(file, data, mode))
		require.NoError(t, os.Chmod(file, mode))
	}
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

// CRIODropIns returns the node's CRI-O drop-ins (/etc/crio/crio.conf.d/*)
// with every quoted absolute path moved below the node's root, so that a
// CRI-O started with them on this machine reads and writes the node's files.
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

// volumeDir is where the kubelet keeps a pod volume on the node.
func (n *Node) volumeDir(plugin, name string) string {
	return n.HostPath(path.Join("/var/lib/kubelet/pods", n.podUID, "volumes", plugin, name))
}

// MountVolumes starts the kubelet's projection of the pod's Secret and
// ConfigMap volumes: it waits until each one holds the live object's keys
// (the kubelet does not start a pod before that), then polls the objects
// every syncPeriod and updates the files as the kubelet does, until the test
// ends.
func (n *Node) MountVolumes(t testing.TB, syncPeriod time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for _, v := range n.spec.Volumes {
		var kv *KubeletVolume
		switch {
		case v.Secret != nil:
			src := v.Secret
			kv = &KubeletVolume{Name: v.Name, Dir: n.volumeDir("kubernetes.io~secret", v.Name), mode: src.DefaultMode, items: src.Items,
				get: func(ctx context.Context) (map[string][]byte, string, error) {
					s, err := n.client.CoreV1().Secrets(n.namespace).Get(ctx, src.SecretName, metav1.GetOptions{})
					if err != nil {
						return nil, "", err
					}
					return s.Data, s.ResourceVersion, nil
				}}
		case v.ConfigMap != nil:
			src := v.ConfigMap
			kv = &KubeletVolume{Name: v.Name, Dir: n.volumeDir("kubernetes.io~configmap", v.Name), mode: src.DefaultMode, items: src.Items,
				get: func(ctx context.Context) (map[string][]byte, string, error) {
					cm, err := n.client.CoreV1().ConfigMaps(n.namespace).Get(ctx, src.Name, metav1.GetOptions{})
					if apierrors.IsNotFound(err) && src.Optional != nil && *src.Optional {
						// The kubelet mounts a missing optional ConfigMap empty.
						return map[string][]byte{}, "", nil
					}
					if err != nil {
						return nil, "", err
					}
					data := map[string][]byte{}
					for k, s := range cm.Data {
						data[k] = []byte(s)
					}
					for k, b := range cm.BinaryData {
						data[k] = b
					}
					return data, cm.ResourceVersion, nil
				}}
		default:
			continue
		}
		require.NoError(t, os.MkdirAll(kv.Dir, 0o755))
		if err := wait.PollUntilContextCancel(Context(t, 2*time.Minute), time.Second, true, func(context.Context) (bool, error) {
			return kv.sync(ctx) == nil, nil
		}); err != nil {
			t.Fatalf("volume %s: %v (last error: %v); the kubelet would not start the pod", v.Name, err, kv.LastError())
		}
		n.mu.Lock()
		n.volumes[v.Name] = kv
		n.mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			wait.UntilWithContext(ctx, func(ctx context.Context) { _ = kv.sync(ctx) }, syncPeriod)
		}()
	}
}

// UpdatePodSpec replaces the pod's spec, as when a DaemonSet rolls out a new
// pod template on the node; the volumes must be the same (they stay mounted).
// Running containers keep running; start the new ones with StartContainer.
func (n *Node) UpdatePodSpec(t testing.TB, spec corev1.PodSpec) {
	t.Helper()
	if !equality.Semantic.DeepEqual(n.spec.Volumes, spec.Volumes) {
		t.Fatalf("the new pod spec changes the volumes; that is not simulated")
	}
	n.spec = spec
}

// Volume returns the projected volume name (after MountVolumes), or nil.
func (n *Node) Volume(name string) *KubeletVolume {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.volumes[name]
}

// KubeletVolume is a Secret or ConfigMap volume as the kubelet projects it:
//
//	Dir/..2006_01_02_15_04_05.NNNN/<key>   the payload, files with the volume's mode
//	Dir/..data -> ..2006_01_02_15_04_05.NNNN
//	Dir/<key>  -> ..data/<key>
//
// An update writes a new timestamped directory, points a new symlink at it,
// renames that over "..data" (the one atomic step), adds and removes
// top-level symlinks, and removes the previous directory. Readers that open
// Dir/<key> never see a partial file, but two files read one after the other
// may come from two versions.
type KubeletVolume struct {
	Name string
	Dir  string

	mode  *int32
	items []corev1.KeyToPath
	get   func(context.Context) (map[string][]byte, string, error)

	mu       sync.Mutex
	current  map[string][]byte
	version  string
	updates  []time.Time
	lastErr  error
	lastSync time.Time
}

// File returns the projected content of key, as of the last update.
func (v *KubeletVolume) File(key string) []byte {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.current[key]
}

// Path is the path a container sees key at.
func (v *KubeletVolume) Path(key string) string { return filepath.Join(v.Dir, key) }

// Updates returns the times "..data" was swapped to new content (the first
// projection included).
func (v *KubeletVolume) Updates() []time.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]time.Time(nil), v.updates...)
}

// LastError is the error of the last sync, nil if it succeeded.
func (v *KubeletVolume) LastError() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.lastErr
}

func (v *KubeletVolume) sync(ctx context.Context) error {
	err := v.doSync(ctx)
	v.mu.Lock()
	v.lastErr = err
	v.lastSync = time.Now()
	v.mu.Unlock()
	return err
}

func (v *KubeletVolume) doSync(ctx context.Context) error {
	gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	data, version, err := v.get(gctx)
	if err != nil {
		return err
	}
	v.mu.Lock()
	unchanged := version == v.version
	v.mu.Unlock()
	if unchanged {
		return nil
	}
	payload := map[string][]byte{}
	modes := map[string]os.FileMode{}
	mode := os.FileMode(0o644)
	if v.mode != nil {
		mode = os.FileMode(*v.mode)
	}
	if len(v.items) == 0 {
		for k, d := range data {
			payload[k], modes[k] = d, mode
		}
	} else {
		for _, it := range v.items {
			d, ok := data[it.Key]
			if !ok {
				return fmt.Errorf("key %s not found", it.Key)
			}
			if strings.Contains(it.Path, "/") {
				return fmt.Errorf("item path %s: nested paths are not simulated", it.Path)
			}
			payload[it.Path], modes[it.Path] = d, mode
			if it.Mode != nil {
				modes[it.Path] = os.FileMode(*it.Mode)
			}
		}
	}
	v.mu.Lock()
	same := len(payload) == len(v.current)
	for k, d := range payload {
		same = same && bytes.Equal(d, v.current[k])
	}
	v.mu.Unlock()
	if same {
		v.mu.Lock()
		v.version = version
		v.mu.Unlock()
		return nil
	}
	swapped, err := v.write(payload, modes)
	if err != nil {
		return err
	}
	v.mu.Lock()
	v.current, v.version = payload, version
	v.updates = append(v.updates, swapped)
	v.mu.Unlock()
	return nil
}

// write performs one atomic-writer update of the volume directory and
// returns when "..data" was swapped, i.e. when readers started to see the
// new content.
func (v *KubeletVolume) write(payload map[string][]byte, modes map[string]os.FileMode) (swapped time.Time, err error) {
	dataLink := filepath.Join(v.Dir, "..data")
	old, _ := os.Readlink(dataLink)

	ts, err := os.MkdirTemp(v.Dir, time.Now().UTC().Format("..2006_01_02_15_04_05."))
	if err != nil {
		return swapped, err
	}
	if err := os.Chmod(ts, 0o755); err != nil {
		return swapped, err
	}
	for k, d := range payload {
		p := filepath.Join(ts, k)
		if err := os.WriteFile(p, d, modes[k]); err != nil {
			return swapped, err
		}
		if err := os.Chmod(p, modes[k]); err != nil {
			return swapped, err
		}
	}
	tmpLink := filepath.Join(v.Dir, "..data_tmp")
	_ = os.Remove(tmpLink)
	if err := os.Symlink(filepath.Base(ts), tmpLink); err != nil {
		return swapped, err
	}
	if err := os.Rename(tmpLink, dataLink); err != nil {
		return swapped, err
	}
	swapped = time.Now()
	for k := range payload {
		link := filepath.Join(v.Dir, k)
		if _, err := os.Lstat(link); os.IsNotExist(err) {
			if err := os.Symlink(filepath.Join("..data", k), link); err != nil {
				return swapped, err
			}
		}
	}
	entries, err := os.ReadDir(v.Dir)
	if err != nil {
		return swapped, err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "..") {
			continue
		}
		if _, ok := payload[e.Name()]; !ok {
			_ = os.Remove(filepath.Join(v.Dir, e.Name()))
		}
	}
	if old != "" && old != filepath.Base(ts) {
		return swapped, os.RemoveAll(filepath.Join(v.Dir, old))
	}
	return swapped, nil
}

// WriteServiceAccountKubeconfig writes, below the node's root, a kubeconfig
// that authenticates as the ServiceAccount namespace/name with a token from
// the TokenRequest API (what the kubelet projects into a pod), readable by
// any user, and returns its path.
func (n *Node) WriteServiceAccountKubeconfig(t testing.TB, admin *rest.Config, namespace, name string) string {
	t.Helper()
	kc := serviceAccountKubeconfig(t, admin, namespace, name)
	dir := n.volumeDir("kubernetes.io~projected", "kube-api-access-"+name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	p := filepath.Join(dir, "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, p))
	require.NoError(t, os.Chmod(p, 0o644))
	return p
}

// ContainerOptions configure StartContainer.
type ContainerOptions struct {
	// Binary is the local file the container's image would run.
	Binary string
	// RewriteArgs may change the arguments after $(VAR) expansion, e.g. to
	// move a listening port that is taken on this machine or to point at a
	// port another simulated component listens on.
	RewriteArgs func([]string) []string
	// ExtraArgs are appended, e.g. --kubeconfig where a pod would use its
	// in-cluster configuration.
	ExtraArgs []string
}

// StartContainer runs the container name of the node's pod as a local
// process with StartPodProcess: its Secret and ConfigMap volumes are the
// node's kubelet projections (MountVolumes), which follow the live objects,
// and its hostPath volumes lie below the node's root. Stopped when the test
// ends.
func (n *Node) StartContainer(t testing.TB, name string, opts ContainerOptions) *Process {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: n.podName, Namespace: n.namespace, UID: types.UID(n.podUID)},
		Spec:       *n.spec.DeepCopy(),
		Status:     corev1.PodStatus{HostIP: n.IP, PodIP: n.IP},
	}
	pod.Spec.NodeName = n.Name
	c := containerOf(t, pod, name)
	entry := name
	if len(c.Command) > 0 {
		entry = path.Base(c.Command[0])
	}
	n.mu.Lock()
	volumes := map[string]string{}
	for v, kv := range n.volumes {
		volumes[v] = kv.Dir
	}
	n.mu.Unlock()
	return StartPodProcess(t, n.admin, PodProcessOptions{
		Pod: pod, Container: name, Binaries: map[string]string{entry: opts.Binary},
		Volumes: volumes, HostRoot: n.Root,
		RewriteArgs: func(args []string) []string {
			if opts.RewriteArgs != nil {
				args = opts.RewriteArgs(args)
			}
			return append(args, opts.ExtraArgs...)
		},
	})
}

// e2eLogPath returns a new log file path under _output/e2e-logs.
func e2eLogPath(t testing.TB, what string) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "_output", "e2e-logs")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())+
		fmt.Sprintf("-%s-%d.log", what, time.Now().UnixNano()))
}

// toolBinaries are the files hack/build-tools.sh <tool> links into _output/bin.
var toolBinaries = map[string][]string{
	"crio":            {"crio", "pinns"},
	"kube-rbac-proxy": {"kube-rbac-proxy"},
	"otlp-receiver":   {"otlp-receiver"},
}

// EnsureTool builds a tool with hack/build-tools.sh when one of its binaries
// is missing from _output/bin (an existing build is left alone: another test
// may be running it). It returns the build's error with the tail of its log.
func EnsureTool(t testing.TB, name string) error {
	t.Helper()
	root := RepoRoot(t)
	missing := false
	for _, b := range toolBinaries[name] {
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
	// Dir is CRIO_DIR (its socket path must stay under 108 bytes).
	Dir string
	// MetricsPort is CRIO_METRICS_PORT.
	MetricsPort int
	// DropIns are written to Dir/crio.conf.d before the start, next to the
	// drop-in hack/crio.sh writes (10-metrics.conf); CRI-O applies them in
	// file name order, so a later one overrides its keys.
	DropIns map[string][]byte
	// ProbeCA is CRIO_METRICS_CA: the CA the start script's readiness probe
	// verifies the metrics certificate with.
	ProbeCA string
}

// CRIO is a real CRI-O started with hack/crio.sh.
type CRIO struct {
	Dir         string
	MetricsPort int
	env         []string
}

// StartCRIO starts CRI-O with hack/crio.sh start (which returns once the
// metrics endpoint serves container_runtime_crio_* metrics, verified with
// ProbeCA) and stops it with hack/crio.sh stop when the test ends, keeping a
// copy of its log in _output/e2e-logs.
func StartCRIO(t testing.TB, opts CRIOOptions) *CRIO {
	t.Helper()
	root := RepoRoot(t)
	require.NoError(t, os.MkdirAll(filepath.Join(opts.Dir, "crio.conf.d"), 0o755))
	for name, data := range opts.DropIns {
		require.NoError(t, os.WriteFile(filepath.Join(opts.Dir, "crio.conf.d", name), data, 0o644))
	}
	c := &CRIO{Dir: opts.Dir, MetricsPort: opts.MetricsPort, env: append(os.Environ(),
		"CRIO_DIR="+opts.Dir,
		"CRIO_METRICS_PORT="+strconv.Itoa(opts.MetricsPort),
		"CRIO_START_TIMEOUT=120",
	)}
	if opts.ProbeCA != "" {
		c.env = append(c.env, "CRIO_METRICS_CA="+opts.ProbeCA)
	}
	// CRI-O 1.34 opens 5 inotify instances (certificate, seccomp notifier,
	// hooks, CNI and config watchers) and exits with "too many open files"
	// when it cannot; the limit is per user and shared with every other
	// process of that user on the machine (local control planes take 15
	// each).
	if free, limit, err := InotifyInstancesFree(); err == nil && free < crioInotifyInstances {
		t.Fatalf("only %d of fs.inotify.max_user_instances=%d inotify instances are free for uid %d, CRI-O needs %d: "+
			"stop other local clusters or raise the limit (sysctl -w fs.inotify.max_user_instances=512)",
			free, limit, os.Geteuid(), crioInotifyInstances)
	}
	script := filepath.Join(root, "hack", "crio.sh")
	t.Cleanup(func() {
		cmd := exec.Command(script, "stop")
		cmd.Env = c.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("hack/crio.sh stop: %v\n%s", err, out)
		}
		if log, err := os.ReadFile(filepath.Join(opts.Dir, "crio.log")); err == nil {
			p := e2eLogPath(t, "crio")
			if err := os.WriteFile(p, log, 0o644); err == nil {
				t.Logf("CRI-O log: %s", p)
			}
		}
	})
	start := time.Now()
	cmd := exec.Command(script, "start")
	cmd.Env = c.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		hint := ""
		if bytes.Contains(out, []byte("too many open files")) {
			free, limit, _ := InotifyInstancesFree()
			hint = fmt.Sprintf("\nCRI-O ran out of inotify instances (%d of fs.inotify.max_user_instances=%d free now): "+
				"stop other local clusters or raise the limit (sysctl -w fs.inotify.max_user_instances=512)", free, limit)
		}
		t.Fatalf("hack/crio.sh start: %v\n%s%s", err, out, hint)
	}
	pid, err := c.Pid()
	require.NoError(t, err)
	t.Logf("CRI-O started in %s (pid %d, metrics https://127.0.0.1:%d, dir %s)", time.Since(start).Round(time.Millisecond), pid, opts.MetricsPort, opts.Dir)
	return c
}

// crioInotifyInstances is how many inotify instances CRI-O 1.34 opens.
const crioInotifyInstances = 5

// InotifyInstancesFree returns how many more inotify instances processes of
// this user may open, and the limit (fs.inotify.max_user_instances).
func InotifyInstancesFree() (free, limit int, err error) {
	raw, err := os.ReadFile("/proc/sys/fs/inotify/max_user_instances")
	if err != nil {
		return 0, 0, err
	}
	if limit, err = strconv.Atoi(strings.TrimSpace(string(raw))); err != nil {
		return 0, 0, err
	}
	procs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		return 0, 0, err
	}
	used := 0
	uid := uint32(os.Geteuid())
	for _, p := range procs {
		fi, err := os.Stat(p)
		if err != nil || fi.Sys().(*syscall.Stat_t).Uid != uid {
			continue
		}
		fds, _ := os.ReadDir(p + "/fd")
		for _, fd := range fds {
			if l, err := os.Readlink(p + "/fd/" + fd.Name()); err == nil && l == "anon_inode:inotify" {
				used++
			}
		}
	}
	return limit - used, limit, nil
}

// Pid is CRI-O's process id, from its pid file; an error if it is not
// running.
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

// LogLines returns the lines of CRI-O's log that contain s.
func (c *CRIO) LogLines(s string) []string {
	f, err := os.Open(filepath.Join(c.Dir, "crio.log"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if strings.Contains(sc.Text(), s) {
			out = append(out, sc.Text())
		}
	}
	return out
}
