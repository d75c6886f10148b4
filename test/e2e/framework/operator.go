package framework

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/openshift/cluster-node-operator/pkg/features"
)

// OperatorNamespace is where the operator runs; CRIOMetricsNamespace where its CRI-O metrics stack does.
const (
	OperatorNamespace    = "openshift-cluster-node-operator"
	CRIOMetricsNamespace = "openshift-crio-metrics"
)

// The images the operator is told of; StartRealNode loads them into its CRI-O under these names.
const (
	OperatorImage      = "quay.io/openshift/origin-cluster-node-operator:e2e"
	KubeRBACProxyImage = "quay.io/openshift/origin-kube-rbac-proxy:e2e"
)

// RepoRoot is the repository's top directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	gomod := resolve("go.mod")
	if !filepath.IsAbs(gomod) {
		t.Fatal("repository root not found")
	}
	return filepath.Dir(gomod)
}

// ReadManifests returns the objects of every YAML document in files, in order.
func ReadManifests(t testing.TB, files ...string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
		for {
			doc, err := reader.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			obj := &unstructured.Unstructured{}
			if err := utilyaml.Unmarshal(doc, &obj.Object); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(obj.Object) == 0 {
				continue
			}
			out = append(out, obj)
		}
	}
	return out
}

// Applier server-side applies unstructured objects, finding their resources through discovery.
type Applier struct {
	Dynamic dynamic.Interface
	Mapper  meta.ResettableRESTMapper
}

// NewApplier returns an Applier for cfg.
func NewApplier(t testing.TB, cfg *rest.Config) *Applier {
	t.Helper()
	a, err := applierFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func applierFor(cfg *rest.Config) (*Applier, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Applier{
		Dynamic: dynamic.NewForConfigOrDie(cfg),
		Mapper:  restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)),
	}, nil
}

// Resource returns the dynamic client for obj's kind and namespace.
func (a *Applier) Resource(obj *unstructured.Unstructured) (dynamic.ResourceInterface, error) {
	gvk := obj.GroupVersionKind()
	mapping, err := a.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		a.Mapper.Reset()
		if mapping, err = a.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			return nil, err
		}
	}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		return a.Dynamic.Resource(mapping.Resource).Namespace(obj.GetNamespace()), nil
	}
	return a.Dynamic.Resource(mapping.Resource), nil
}

// Apply server-side applies obj; create-only ones are only created and an unserved kind is retried, as the CVO does.
func (a *Applier) Apply(ctx context.Context, obj *unstructured.Unstructured, fieldManager string) error {
	var last error
	err := wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
		ri, err := a.Resource(obj)
		if last = err; err != nil {
			return false, nil
		}
		last = a.write(ctx, ri, obj, fieldManager)
		if apierrors.IsNotFound(last) {
			a.Mapper.Reset()
			return false, nil
		}
		return true, last
	})
	if err != nil && last != nil {
		return fmt.Errorf("%s %s: %w", obj.GroupVersionKind(), obj.GetName(), last)
	}
	return err
}

func (a *Applier) write(ctx context.Context, ri dynamic.ResourceInterface, obj *unstructured.Unstructured, fieldManager string) error {
	if obj.GetAnnotations()["release.openshift.io/create-only"] == "true" {
		_, err := ri.Create(ctx, obj, metav1.CreateOptions{FieldManager: fieldManager})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	}
	data, err := obj.MarshalJSON()
	if err != nil {
		return err
	}
	force := true
	_, err = ri.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: fieldManager, Force: &force})
	return err
}

// InstallOperatorPrerequisites applies the release's manifests but the Deployment, ClusterOperator and image references.
func InstallOperatorPrerequisites(t testing.TB, cfg *rest.Config) {
	t.Helper()
	a := NewApplier(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// In the CVO's order, by file name (Glob sorts).
	all, _ := filepath.Glob(filepath.Join(RepoRoot(t), "manifests", "*.yaml"))
	files := slices.DeleteFunc(all, func(f string) bool {
		return strings.Contains(f, "deployment") || strings.Contains(f, "clusteroperator") || strings.Contains(f, "image-references")
	})
	featureSet := ClusterFeatureSet(t, cfg)
	for _, obj := range ReadManifests(t, files...) {
		// The CVO applies the files of the cluster's feature set only.
		if !features.Includes(obj.GetAnnotations(), featureSet) {
			continue
		}
		// Like a cluster without the monitoring stack: manifests of optional APIs that are not served (e.g. a CRD deleted by a test) are skipped.
		if _, err := a.Resource(obj); err != nil && obj.GroupVersionKind().Group == "monitoring.coreos.com" {
			t.Logf("skipping %s %s: %v", obj.GetKind(), obj.GetName(), err)
			continue
		}
		if err := a.Apply(ctx, obj, "e2e-cvo"); err != nil {
			t.Fatalf("applying %s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
	}
}

// OperatorOptions configure a locally run operator.
type OperatorOptions struct {
	// Version is OPERATOR_IMAGE_VERSION; default "0.0.1-e2e".
	Version string
	// Env is added to the operator's environment.
	Env []string
	// Args are added to the operator's arguments.
	Args []string
	// NoMCOPolicyStatus: no StartMCOPolicyStatus, for the tests of the operator's wait for MCO's policy status.
	NoMCOPolicyStatus bool
	// Kubeconfig is the operator's kubeconfig file; default $KUBECONFIG (a FaultProxy's, for fault tests).
	Kubeconfig string
}

// Process is a program running as a local process (the operator, a pod's container, a tool), stopped when the test ends.
type Process struct {
	cmd     *exec.Cmd
	LogPath string
	// Listen is the address of the process's /metrics, /healthz and /readyz; empty for a pod's container (StartPodProcess).
	Listen string
	// Args are the arguments of a pod's container it runs (StartPodProcess).
	Args []string
	done chan struct{}
}

// StartOperator runs `cluster-node-operator operator` against the cluster and stops it when the test ends. Its log goes to _output/e2e-logs/.
func StartOperator(t testing.TB, opts OperatorOptions) *Process {
	t.Helper()
	root := RepoRoot(t)
	binary := os.Getenv("OPERATOR_BINARY")
	if binary == "" {
		binary = filepath.Join(root, "_output", "bin", "cluster-node-operator")
	}
	kubeconfig := resolve(os.Getenv("KUBECONFIG"))
	if opts.Kubeconfig != "" {
		kubeconfig = opts.Kubeconfig
	}
	if opts.Version == "" {
		opts.Version = "0.0.1-e2e"
	}
	// The cluster-config operator writes the gates of a version before the operators of that version start; the operator waits for them.
	if err := WriteFeatureGateStatus(Context(t, time.Minute), KubeConfig(t), opts.Version); err != nil {
		t.Fatal(err)
	}
	// Short leader election so that a restarted or killed operator is
	// replaced within seconds, and a port of its own for the metrics and
	// health endpoint so that several test runs can share a machine.
	listen := fmt.Sprintf("127.0.0.1:%d", FreePort(t))
	args := append([]string{"operator", "--kubeconfig", kubeconfig, "--namespace", OperatorNamespace,
		"--listen", listen,
		"--leader-election-lease-duration=15s", "--leader-election-renew-deadline=10s", "--leader-election-retry-period=2s",
	}, opts.Args...)
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(),
		"OPERATOR_IMAGE_VERSION="+opts.Version,
		"OPERATOR_IMAGE="+OperatorImage,
		"KUBE_RBAC_PROXY_IMAGE="+KubeRBACProxyImage,
		"NMSTATE_OPERATOR_IMAGE=quay.io/openshift/origin-kubernetes-nmstate-operator:e2e",
		"NMSTATE_HANDLER_IMAGE=quay.io/openshift/origin-kubernetes-nmstate-handler:e2e",
		"NMSTATE_CONSOLE_PLUGIN_IMAGE=quay.io/openshift/origin-nmstate-console-plugin:e2e",
	)
	cmd.Env = append(cmd.Env, opts.Env...)
	expectVersion(opts.Version)
	if !opts.NoMCOPolicyStatus {
		StartMCOPolicyStatus(t, KubeConfig(t))
	}
	o := startLogged(t, cmd, e2eLogPath(t, "operator"))
	o.Listen = listen
	t.Logf("operator started (pid %d), log: %s", cmd.Process.Pid, o.LogPath)
	return o
}

// startLogged starts cmd in its own process group, logging to logPath, stopped when the test ends.
func startLogged(t testing.TB, cmd *exec.Cmd, logPath string) *Process {
	t.Helper()
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if cmd.Dir == "" {
		cmd.Dir = "/"
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		t.Fatal(err)
	}
	o := &Process{cmd: cmd, LogPath: logPath, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(o.done)
	}()
	t.Cleanup(o.Stop)
	return o
}

// Stop sends SIGTERM and waits for the operator to exit (SIGKILL after 30 s).
func (o *Process) Stop() {
	select {
	case <-o.done:
		return
	default:
	}
	_ = syscall.Kill(-o.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-o.done:
	case <-time.After(30 * time.Second):
		o.Kill()
	}
}

// WaitLeading waits until the process leads and runs its controllers (its /readyz answers 200).
func (o *Process) WaitLeading(t testing.TB, timeout time.Duration) {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		if o.Exited() {
			return false, fmt.Errorf("the operator exited; log: %s", o.LogPath)
		}
		resp, err := client.Get("http://" + o.Listen + "/readyz")
		if err != nil {
			last = err.Error()
			return false, nil
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		last = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		t.Fatalf("operator (log %s) not leading within %s: %v (last /readyz: %s)", o.LogPath, timeout, err, last)
	}
}

// Kill sends SIGKILL, as a node failure or OOM kill would.
func (o *Process) Kill() {
	_ = syscall.Kill(-o.cmd.Process.Pid, syscall.SIGKILL)
	<-o.done
}

// Exited reports whether the operator process has ended.
func (o *Process) Exited() bool {
	select {
	case <-o.done:
		return true
	default:
		return false
	}
}

// ExitCode is the exit code of an operator process that has ended.
func (o *Process) ExitCode() int {
	<-o.done
	return o.cmd.ProcessState.ExitCode()
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Pid is the operator's process id.
func (o *Process) Pid() int { return o.cmd.Process.Pid }

// Log is the process's output so far.
func (o *Process) Log() string {
	raw, _ := os.ReadFile(o.LogPath)
	return string(raw)
}

// LogTail is the end of the process's log, for a failure message.
func (o *Process) LogTail(lines int) string {
	all := strings.Split(strings.TrimRight(o.Log(), "\n"), "\n")
	all = all[max(0, len(all)-lines):]
	for i, l := range all {
		if len(l) > 500 {
			all[i] = l[:500] + " [...]"
		}
	}
	return "log " + o.LogPath + ", last lines:\n  " + strings.Join(all, "\n  ")
}
