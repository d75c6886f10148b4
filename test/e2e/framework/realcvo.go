package framework

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

const (
	// cvoUpdatePayloadsDir is where the CVO looks for an update's payload (its updatepayload.go).
	cvoUpdatePayloadsDir = "/etc/cvo/updatepayloads"
	clusterVersionKey    = "version"
)

// Payload is a payload directory as the CVO reads it with PAYLOAD_OVERRIDE; Release is its default profile's.
type Payload struct {
	Dir, Version, Image string
	Release             *Release
}

// PayloadOptions: Repo's manifests/ ("": this checkout) at Version (required).
type PayloadOptions struct{ Repo, Version string }

// ReleaseImage is the test release image's pull spec for a version.
func ReleaseImage(version string) string { return ReleasePullSpec("release", version) }

// WritePayload writes the manifests of opts.Repo into dir as `oc adm release new` would (docs/release-payload.md, Tests).
func WritePayload(t testing.TB, dir string, opts PayloadOptions) *Payload {
	t.Helper()
	if opts.Version == "" {
		t.Fatal("WritePayload: no version")
	}
	rel := ReadRelease(t, ReleaseOptions{Repo: opts.Repo, Version: opts.Version, AllFeatureSets: true})
	payload := &Payload{Dir: dir, Version: opts.Version, Image: ReleaseImage(opts.Version), Release: rel}
	releaseDir := filepath.Join(dir, "release-manifests")
	if err := errors.Join(os.MkdirAll(filepath.Join(dir, "manifests"), 0o755), os.CopyFS(releaseDir, os.DirFS(rel.Dir))); err != nil {
		t.Fatal(err)
	}
	var specTags []interface{}
	for _, tag := range slices.Sorted(maps.Keys(rel.Images)) {
		specTags = append(specTags, map[string]interface{}{"name": tag, "from": map[string]interface{}{"kind": "DockerImage", "name": rel.Images[tag]}})
	}
	refs, err := yaml.Marshal(map[string]interface{}{
		"kind": "ImageStream", "apiVersion": "image.openshift.io/v1",
		"metadata": map[string]interface{}{"name": opts.Version},
		"spec":     map[string]interface{}{"tags": specTags},
	})
	if err != nil {
		t.Fatal(err)
	}
	meta, err := json.Marshal(map[string]interface{}{"kind": "cincinnati-metadata-v0", "version": opts.Version, "metadata": map[string]interface{}{}})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"image-references": refs, "release-metadata": meta} {
		if err := os.WriteFile(filepath.Join(releaseDir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return payload
}

// PrepareCVOCluster readies the local cluster (which serves what the CVO reads: docs/release-payload.md,
// Tests) for the real CVO: a ClusterVersion without history and FeatureGate status for each of versions.
func PrepareCVOCluster(t testing.TB, cfg *rest.Config, versions ...string) {
	t.Helper()
	ctx := Context(t, 3*time.Minute)
	ResetClusterVersion(t, configclient.NewForConfigOrDie(cfg))
	for _, v := range versions {
		if err := WriteFeatureGateStatus(ctx, cfg, v); err != nil {
			t.Fatalf("FeatureGate cluster status: %v", err)
		}
	}
}

// ResetClusterVersion leaves ClusterVersion version as hack/local-cluster.sh creates it: one a CVO
// wrote to is recreated with its clusterID (what the CVO applied, which it owns, goes with it).
func ResetClusterVersion(t testing.TB, config configclient.Interface) {
	t.Helper()
	ctx := Context(t, 3*time.Minute)
	cvs := config.ConfigV1().ClusterVersions()
	cv, err := cvs.Get(ctx, clusterVersionKey, metav1.GetOptions{})
	clusterID := configv1.ClusterID(uuid.NewString())
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		t.Fatalf("ClusterVersion: %v", err)
	default:
		if _, err := uuid.Parse(string(cv.Spec.ClusterID)); err != nil {
			t.Fatalf("ClusterVersion version has clusterID %q, which is no UUID: the CVO would find it Invalid and apply nothing", cv.Spec.ClusterID)
		}
		clusterID = cv.Spec.ClusterID
		if len(cv.Status.History) == 0 && cv.Spec.DesiredUpdate == nil && len(cv.Status.Conditions) == 0 {
			return
		}
		if err := cvs.Delete(ctx, clusterVersionKey, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatalf("deleting ClusterVersion: %v", err)
		}
		if err := wait.PollUntilContextCancel(ctx, time.Second, true, func(context.Context) (bool, error) {
			_, err := cvs.Get(ctx, clusterVersionKey, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		}); err != nil {
			t.Fatalf("ClusterVersion is not deleted: %v", err)
		}
	}
	_, err = cvs.Create(ctx, &configv1.ClusterVersion{
		ObjectMeta: metav1.ObjectMeta{Name: clusterVersionKey},
		Spec:       configv1.ClusterVersionSpec{ClusterID: clusterID},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating ClusterVersion: %v", err)
	}
}

// RealCVO is the real cluster-version operator running as a local process.
type RealCVO struct {
	*Process
	Payload        *Payload
	Config         configclient.Interface
	updatePayloads string // what the process sees as /etc/cvo/updatepayloads
	work           string
}

// StartRealCVO runs `cluster-version-operator start` on the payload for a profile ("": the CVO's
// default) as docs/release-payload.md (Tests) says; it stops when the test ends.
func StartRealCVO(t testing.TB, cfg *rest.Config, p *Payload, profile string) *RealCVO {
	t.Helper()
	binary := EnsureRealTool(t, "cluster-version-operator")
	if os.Geteuid() != 0 {
		t.Fatal("the real CVO runs in a mount namespace of its own, which needs root")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatal("the real CVO runs under unshare (util-linux), which is not installed")
	}
	kubeconfig := resolve(os.Getenv("KUBECONFIG"))
	kube := kubernetes.NewForConfigOrDie(cfg)
	ctx := Context(t, time.Minute)
	masters, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "node-role.kubernetes.io/master"})
	if err != nil || len(masters.Items) == 0 {
		t.Fatalf("no control-plane node for the CVO's NODE_NAME (err %v)", err)
	}

	work, err := os.MkdirTemp(filepath.Join(RepoRoot(t), "_output"), "e2e-cvo-")
	if err != nil {
		t.Fatal(err)
	}
	// Registered before the process starts, so it runs after it stopped.
	t.Cleanup(func() { os.RemoveAll(work) })
	c := &RealCVO{Payload: p, Config: configclient.NewForConfigOrDie(cfg), updatePayloads: filepath.Join(work, "updatepayloads"), work: work}
	layer := filepath.Join(work, "etc-layer")
	for _, d := range []string{c.updatePayloads, layer} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// /etc/cvo: in the process's mount namespace, /etc under an overlay on a tmpfs.
	script := fmt.Sprintf(`set -eu
mount -n -t tmpfs -o mode=0755 tmpfs %[1]q
mkdir %[1]q/upper %[1]q/work
mount -n -t overlay overlay -o lowerdir=/etc,upperdir=%[1]q/upper,workdir=%[1]q/work /etc
mkdir -p %[2]q
mount -n --bind %[3]q %[2]q
exec "$@"
`, layer, cvoUpdatePayloadsDir, c.updatePayloads)
	args := []string{"--mount", "--propagation", "private", "--", "/bin/sh", "-c", script, "sh", binary,
		"start", "--kubeconfig", kubeconfig, "--listen=", "--enable-auto-update=false",
		"--release-image=" + p.Image,
		// Nothing listens there: no update service, no Prometheus.
		fmt.Sprintf("--update-service=http://127.0.0.1:%d/graph", FreePort(t)),
		fmt.Sprintf("--metrics-url=http://127.0.0.1:%d", FreePort(t)),
		"-v=2",
	}
	env := []string{"PAYLOAD_OVERRIDE=" + p.Dir, "NODE_NAME=" + masters.Items[0].Name}
	if profile != "" {
		env = append(env, "CLUSTER_PROFILE="+profile)
	}
	c.Process = StartProcess(t, "cluster-version-operator", unshare, args, env)
	return c
}

// StageUpdate writes a payload where the CVO's version Job would extract it (named by the image's md5).
func (c *RealCVO) StageUpdate(t testing.TB, opts PayloadOptions) *Payload {
	t.Helper()
	sum := md5.Sum([]byte(ReleaseImage(opts.Version)))
	return WritePayload(t, filepath.Join(c.updatePayloads, base64.RawURLEncoding.EncodeToString(sum[:])), opts)
}

// RequestUpdate sets spec.desiredUpdate to the payload, forced: the test release is signed by no one.
func (c *RealCVO) RequestUpdate(t testing.TB, p *Payload) {
	t.Helper()
	patch, err := json.Marshal(map[string]interface{}{"spec": map[string]interface{}{
		"desiredUpdate": map[string]interface{}{"version": p.Version, "image": p.Image, "force": true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Config.ConfigV1().ClusterVersions().Patch(Context(t, time.Minute), clusterVersionKey, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("requesting the update to %s: %v", p.Version, err)
	}
}

func (c *RealCVO) ClusterVersion(ctx context.Context) (*configv1.ClusterVersion, error) {
	return c.Config.ConfigV1().ClusterVersions().Get(ctx, clusterVersionKey, metav1.GetOptions{})
}

// ClusterVersionCompleted: version's history entry is newest and Completed, Available, not Failing nor Progressing.
func ClusterVersionCompleted(version string) func(*configv1.ClusterVersion) string {
	return func(cv *configv1.ClusterVersion) string {
		var missing []string
		if len(cv.Status.History) == 0 {
			missing = append(missing, "no history")
		} else if h := cv.Status.History[0]; h.Version != version || h.State != configv1.CompletedUpdate {
			missing = append(missing, fmt.Sprintf("newest history entry is %s %s, want %s Completed", h.Version, h.State, version))
		}
		status := map[configv1.ClusterStatusConditionType]configv1.ConditionStatus{}
		for _, c := range cv.Status.Conditions {
			status[c.Type] = c.Status
			if c.Type == "Failing" && c.Status == configv1.ConditionTrue {
				missing = append(missing, "Failing=True: "+c.Message)
			}
		}
		if status[configv1.OperatorAvailable] != configv1.ConditionTrue || status[configv1.OperatorProgressing] != configv1.ConditionFalse {
			missing = append(missing, fmt.Sprintf("Available=%q, Progressing=%q, want True, False", status[configv1.OperatorAvailable], status[configv1.OperatorProgressing]))
		}
		return strings.Join(missing, "; ")
	}
}

// DescribeClusterVersion renders a ClusterVersion's conditions and history.
func DescribeClusterVersion(cv *configv1.ClusterVersion) string {
	if cv == nil {
		return "<no ClusterVersion>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  desired: %s %s\n", cv.Status.Desired.Version, cv.Status.Desired.Image)
	for _, c := range cv.Status.Conditions {
		fmt.Fprintf(&b, "  %s=%s (%s): %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	for _, h := range cv.Status.History {
		end := "-"
		if h.CompletionTime != nil {
			end = h.CompletionTime.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(&b, "  history: %s %s started %s completed %s\n", h.Version, h.State, h.StartedTime.UTC().Format(time.RFC3339), end)
	}
	return b.String()
}

// EnsureRealTool builds a program's tools module with hack/build-tools.sh and returns its path in _output/bin.
func EnsureRealTool(t testing.TB, program string) string {
	t.Helper()
	root := RepoRoot(t)
	tool, _ := toolModule(program)
	logPath := e2eLogPath(t, "build-"+tool)
	start := time.Now()
	cmd := exec.Command(filepath.Join(root, "hack", "build-tools.sh"), tool)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	_ = os.WriteFile(logPath, out, 0o644)
	if err != nil {
		t.Fatalf("this test needs %s, and `hack/build-tools.sh %s` failed: %v; last lines:\n%s", program, tool, err, tail(out, 15))
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Logf("built %s in %s; log: %s", tool, d.Round(time.Second), logPath)
	}
	path := filepath.Join(root, "_output", "bin", program)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("this test needs %s, which `hack/build-tools.sh %s` did not provide: %v", program, tool, err)
	}
	return path
}

// KubeconfigPath is the file that $KUBECONFIG names.
func KubeconfigPath(t testing.TB) string {
	t.Helper()
	path := os.Getenv("KUBECONFIG")
	if path == "" {
		Unavailable(t, "KUBECONFIG is not set; start a cluster with `hack/local-cluster.sh up` (or run hack/test-e2e.sh)")
	}
	return resolve(path)
}

// ReleaseFromCommit extracts (git archive) and builds a commit into _output/release-<commit>, kept for later runs.
func ReleaseFromCommit(t testing.TB, commit string) (dir, binary string) {
	t.Helper()
	root := RepoRoot(t)
	dir = filepath.Join(root, "_output", "release-"+commit)
	binary = filepath.Join(dir, "_output", "bin", "cluster-node-operator")
	if _, err := os.Stat(filepath.Join(dir, ".done")); err == nil {
		return dir, binary
	}
	start := time.Now()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := exec.Command("sh", "-c", `git -C "$1" archive --format=tar "$2" | tar -x -C "$3"`, "sh", root, commit, dir)
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("extracting commit %s: %v\n%s", commit, err, out)
	}
	build := exec.Command("go", "build", "-mod=vendor", "-trimpath", "-o", binary, "./cmd/cluster-node-operator")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the operator of commit %s: %v\n%s", commit, err, tail(out, 20))
	}
	if err := os.WriteFile(filepath.Join(dir, ".done"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("release of commit %s extracted and built in %s: %s", commit, time.Since(start).Round(time.Second), dir)
	return dir, binary
}
