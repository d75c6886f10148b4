//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

const hostedDeploymentFile = "0000_50_cluster-node-operator_10_deployment-hosted.yaml"

// testHostedExcluded: the CVO applied the self-managed Deployment, not the hosted variant the payload also holds, and its log says why.
func (in *installation) testHostedExcluded(t *testing.T, cvo *framework.RealCVO) {
	if _, err := os.Stat(filepath.Join(cvo.Payload.Dir, "release-manifests", hostedDeploymentFile)); err != nil {
		t.Fatalf("the payload lacks %s: the CVO would not be seen excluding it", hostedDeploymentFile)
	}
	d, err := in.kube.AppsV1().Deployments(operatorNamespace).Get(framework.Context(t, time.Minute), nodeOperatorName, metav1.GetOptions{})
	require.NoError(t, err)
	if _, ok := d.Spec.Template.Spec.NodeSelector["node-role.kubernetes.io/master"]; !ok {
		t.Errorf("the live Deployment is not the self-managed variant (no control-plane nodeSelector): the CVO applied %s", hostedDeploymentFile)
	}
	if !slices.ContainsFunc(d.OwnerReferences, func(r metav1.OwnerReference) bool { return r.Kind == "ClusterVersion" && r.Name == "version" }) {
		t.Errorf("the Deployment has no ownerReference to ClusterVersion version (%+v): it was not applied by the CVO", d.OwnerReferences)
	}
	raw, _ := os.ReadFile(cvo.LogPath)
	excluded := regexp.MustCompile(`excluding Filename: "` + regexp.QuoteMeta(hostedDeploymentFile) + `".*include\.release\.openshift\.io/` + in.rel.Options.Profile + ` unset`)
	if !excluded.Match(raw) {
		t.Errorf("the CVO's log (%s) does not say it excluded %s for profile %s", cvo.LogPath, hostedDeploymentFile, in.rel.Options.Profile)
	}
}

// operatorBinary is the operator of this working tree.
func operatorBinary(t *testing.T) string {
	binary := os.Getenv("OPERATOR_BINARY")
	if binary == "" {
		binary = filepath.Join(framework.RepoRoot(t), "_output", "bin", nodeOperatorBinary)
	}
	if _, err := os.Stat(binary); err != nil {
		t.Fatalf("operator binary: %v (run make build)", err)
	}
	return binary
}

// podRunner plays the kubelet: each running pod runs its release's operator binary; gone pods stop.
type podRunner struct {
	in       *installation
	binaries map[string]string
	running  map[types.UID]*podProcess
}

type podProcess struct {
	pod, version, listen string
	proc                 *framework.Process
}

const podRunnerFinalizer = "e2e.cluster-node-operator/pod-process"

func newPodRunner(in *installation, binaries map[string]string) *podRunner {
	r := &podRunner{in: in, binaries: binaries, running: map[types.UID]*podProcess{}}
	// Before the processes stop (cleanups run last first): a pod left with the finalizer would keep its namespace from going.
	in.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, pp := range r.running {
			pp.proc.Stop()
		}
		pods, err := in.kube.CoreV1().Pods(operatorNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app=" + nodeOperatorName})
		if err != nil {
			return
		}
		for _, p := range pods.Items {
			r.release(ctx, p.Name)
		}
	})
	return r
}

// release removes the test's finalizer from a pod whose process stopped.
func (r *podRunner) release(ctx context.Context, pod string) {
	if err := r.patchFinalizers(ctx, pod, nil); err != nil && !apierrors.IsNotFound(err) {
		r.in.t.Logf("pod %s: removing finalizer: %v", pod, err)
	}
}

func (r *podRunner) patchFinalizers(ctx context.Context, pod string, finalizers []string) error {
	patch, err := json.Marshal(map[string]interface{}{"metadata": map[string]interface{}{"finalizers": finalizers}})
	if err != nil {
		return err
	}
	_, err = r.in.kube.CoreV1().Pods(operatorNamespace).Patch(ctx, pod, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// sync starts and stops processes for the pods as they are now.
func (r *podRunner) sync(ctx context.Context) {
	t := r.in.t
	t.Helper()
	pods, err := r.in.kube.CoreV1().Pods(operatorNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app=" + nodeOperatorName})
	if err != nil {
		return // the API may be briefly unavailable; next time
	}
	live := map[types.UID]*corev1.Pod{}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
			live[p.UID] = p
		}
	}
	for uid, pp := range r.running {
		if live[uid] == nil {
			t.Logf("pod %s (%s) is gone or stopping: stopping its operator process", pp.pod, pp.version)
			pp.proc.Stop()
			delete(r.running, uid)
			r.release(ctx, pp.pod)
		}
	}
	for i := range pods.Items {
		if p := &pods.Items[i]; p.DeletionTimestamp != nil && r.running[p.UID] == nil {
			r.release(ctx, p.Name)
		}
	}
	for uid, pod := range live {
		if r.running[uid] != nil {
			continue
		}
		version := containerEnv(pod, nodeOperatorName, "OPERATOR_IMAGE_VERSION")
		binary := r.binaries[version]
		if binary == "" {
			t.Fatalf("pod %s is of release %q, for which the test has no operator binary", pod.Name, version)
		}
		// A kubelet stops a deleted pod's containers before the pod object
		// goes, and with it the validity of the pod's bound tokens: the
		// process must still reach the API server while it shuts down
		// (to release its lease). kwok removes a deleted pod at once; a
		// finalizer of the test's keeps it until its process stopped.
		if err := r.patchFinalizers(ctx, pod.Name, []string{podRunnerFinalizer}); err != nil {
			t.Fatalf("pod %s: adding finalizer: %v", pod.Name, err)
		}
		proc, listen := startOperatorContainer(t, r.in.cfg, pod, "", binary)
		t.Logf("pod %s (%s) runs: operator process %d, log %s", pod.Name, version, proc.Pid(), proc.LogPath)
		r.running[uid] = &podProcess{pod: pod.Name, version: version, listen: listen, proc: proc}
	}
}

// waitForClusterVersion keeps the pods running while waiting for the ClusterVersion to satisfy ok.
func (r *podRunner) waitForClusterVersion(cvo *framework.RealCVO, timeout time.Duration, ok func(*configv1.ClusterVersion) string) *configv1.ClusterVersion {
	t := r.in.t
	t.Helper()
	start := time.Now()
	why := "not read yet"
	var last, done *configv1.ClusterVersion
	err := wait.PollUntilContextTimeout(context.Background(), time.Second, timeout, true, func(context.Context) (bool, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		r.sync(ctx)
		cv, err := cvo.ClusterVersion(ctx)
		if err != nil {
			why = err.Error()
		} else if last, why = cv, ok(cv); why == "" {
			done = cv
			return true, nil
		}
		for _, pp := range r.running {
			if pp.proc.Exited() {
				t.Fatalf("the operator of pod %s exited; log %s", pp.pod, pp.proc.LogPath)
			}
		}
		if cvo.Exited() {
			return false, errors.New("the CVO exited")
		}
		return false, nil
	})
	if err != nil {
		co, _ := r.in.config.ConfigV1().ClusterOperators().Get(context.Background(), nodeClusterOperator, metav1.GetOptions{})
		t.Fatalf("ClusterVersion (CVO exited: %v) after %s: %s\n%s\n%s\nclusteroperator/%s:\n%s", cvo.Exited(), time.Since(start).Round(time.Second), why,
			framework.DescribeClusterVersion(last), "CVO "+cvo.LogTail(40), nodeClusterOperator, framework.DescribeClusterOperator(co))
	}
	return done
}

// containerEnv is the value of an environment variable of a pod's container.
func containerEnv(pod *corev1.Pod, container, name string) string {
	for _, c := range pod.Spec.Containers {
		for _, e := range c.Env {
			if c.Name == container && e.Name == name {
				return e.Value
			}
		}
	}
	return ""
}

// upgradeFromCommit is release N: the first commit whose operator reports the version only after a
// DaemonSet's last batch rolled out (an earlier one fails the downgrade leg). Like every release
// before openshift-crio-metrics, it runs the CRI-O metrics operands in the operator's namespace, so
// the update moves them; its spelling of the stack knobs is the one N+1 converts.
const upgradeFromCommit = "480bc96"

// TestUpgradeWithRealCVO: docs/test-behaviours.md and docs/release-payload.md (Tests).
func TestUpgradeWithRealCVO(t *testing.T) {
	testStart := time.Now()
	in := newInstallation(t, "")
	stamp := time.Now().Unix()
	versionN := fmt.Sprintf("4.99.0-0.e2e-n-%d", stamp)
	versionN1 := fmt.Sprintf("4.99.1-0.e2e-%d", stamp)
	localCluster(t, "nodes", "250")
	t.Cleanup(func() { localCluster(t, "nodes", "3") })
	infra, err := in.config.ConfigV1().Infrastructures().Get(framework.Context(t, time.Minute), "cluster", metav1.GetOptions{})
	require.NoError(t, err)
	if infra.Status.PlatformStatus == nil || infra.Status.PlatformStatus.Type != configv1.BareMetalPlatformType {
		t.Fatalf("the cluster is not BareMetal: %+v", infra.Status.PlatformStatus)
	}

	repoN, binaryN := framework.ReleaseFromCommit(t, upgradeFromCommit)
	u := &upgrade{t: t, in: in, mon: framework.StartClusterOperatorMonitor(t, in.cfg, nodeClusterOperator)}
	// The operator's own Deployment is the CVO's to roll; the rest of these namespaces' workloads are the stacks' operands.
	u.recorder = framework.StartRolloutRecorder(t, in.cfg, nodeClusterOperator, []string{operatorNamespace, crioMetricsNamespace, faultNMStateNamespace},
		"cluster-node-operator")
	endInstallWindow := framework.ExpectCondition(t, configv1.OperatorAvailable, configv1.ConditionFalse, "install of N")
	start := time.Now()
	u.cvo = in.startCVO(repoN, versionN, versionN1)
	payloadN := u.cvo.Payload
	in.rel = payloadN.Release
	u.runner = newPodRunner(in, map[string]string{versionN: binaryN, versionN1: operatorBinary(t)})
	u.runner.waitForClusterVersion(u.cvo, 10*time.Minute, framework.ClusterVersionCompleted(versionN))
	endInstallWindow()
	installed := time.Now()
	t.Logf("N (%s, commit %s) installed in %s", versionN, upgradeFromCommit, installed.Sub(start).Round(time.Second))
	if _, err := in.dyn.Resource(nodeOperatorsResource).Patch(framework.Context(t, time.Minute), "cluster", types.MergePatchType, []byte(oldSpellingSpec), metav1.PatchOptions{}); err != nil {
		t.Fatalf("release N refuses its own spelling %s: %v", oldSpellingSpec, err)
	}
	// Both stacks stay on (BareMetal), whatever the release reads.
	u.stacksOn("N with the old spelling", map[string]interface{}{"managementState": "Managed"})

	payloadN1 := u.cvo.StageUpdate(t, framework.PayloadOptions{Version: versionN1})
	// Uninstalling removes what either release applied.
	in.rel = &framework.Release{Manifests: append(append([]framework.ReleaseManifest{}, payloadN1.Release.Manifests...), payloadN.Release.Manifests...)}

	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) { return u.crioMetricsIn(operatorNamespace), nil },
		"release N's CRI-O metrics DaemonSet in "+operatorNamespace+" to roll out")
	dropIns := u.dropInVersions()
	upFrom, upDone := u.update("update", payloadN1, nil)
	// Converted once, the deprecated field kept in step for N.
	u.stacksOn("N+1", map[string]interface{}{"state": "Enabled", "managementState": "Managed"})
	u.moved()
	if after := u.dropInVersions(); !reflect.DeepEqual(after, dropIns) {
		t.Errorf("the move rewrote the CRI-O drop-in MachineConfigs (resourceVersions %v, then %v): every pool would roll", dropIns, after)
	}
	replayOldNodeSettingsStatus(t, in.dyn.Resource(nodeOperatorsResource))
	// docs/release-payload.md, "Downgrade across the move of the CRI-O metrics operands".
	downFrom, downDone := u.update("downgrade", payloadN, u.deleteMovedNamespace)
	if !u.crioMetricsIn(operatorNamespace) {
		t.Errorf("after the downgrade, N's CRI-O metrics DaemonSet in %s has not rolled out", operatorNamespace)
	}
	// N's CRD prunes state; N reads managementState and enabled.
	u.stacksOn("N after the downgrade", map[string]interface{}{"managementState": "Managed"})

	cv, err := u.cvo.ClusterVersion(framework.Context(t, time.Minute))
	require.NoError(t, err)
	var history []string
	for _, h := range cv.Status.History {
		history = append(history, h.Version+" "+string(h.State))
	}
	want := []string{versionN + " Completed", versionN1 + " Completed", versionN + " Completed"}
	if strings.Join(history, ",") != strings.Join(want, ",") {
		t.Errorf("history is %q, want %q (newest first)", history, want)
	}
	mon := u.mon
	t.Logf("ClusterVersion:\n%s", framework.DescribeClusterVersion(cv))
	t.Logf("timeline (seconds from the monitor's start): install of N %s..%s, update %s..%s, downgrade %s..%s; clusteroperator/%s:\n%s",
		mon.Rel(start), mon.Rel(installed), mon.Rel(upFrom), mon.Rel(upDone), mon.Rel(downFrom), mon.Rel(downDone), nodeClusterOperator, mon.Timeline())
	t.Logf("operands and version, in etcd order per update:\n%s", strings.Join(u.rollouts, "\n"))
	t.Logf("install %s, update %s, downgrade %s; whole test so far %s",
		installed.Sub(start).Round(time.Second), upDone.Sub(upFrom).Round(time.Second), downDone.Sub(downFrom).Round(time.Second), time.Since(testStart).Round(time.Second))
	if d := time.Since(testStart); d > 20*time.Minute {
		t.Errorf("the update test took %s, more than 20 minutes", d.Round(time.Second))
	}
}

// upgrade is TestUpgradeWithRealCVO's cluster: the real CVO, the operator's pods run as processes, the ClusterOperator's and the operands' records.
type upgrade struct {
	t        *testing.T
	in       *installation
	cvo      *framework.RealCVO
	runner   *podRunner
	mon      *framework.ClusterOperatorMonitor
	recorder *framework.RolloutRecorder
	// rollouts are the operands' and the version's changes, for the log.
	rollouts []string
}

// stacksOn waits until both stacks are deployed and spec.metrics reads wantMetrics.
func (u *upgrade) stacksOn(leg string, wantMetrics map[string]interface{}) {
	t := u.t
	t.Helper()
	var last string
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		no, err := u.in.dyn.Resource(nodeOperatorsResource).Get(framework.Context(t, time.Minute), "cluster", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		metrics, _, _ := unstructured.NestedMap(no.Object, "spec", "metrics")
		stacks, _, _ := unstructured.NestedSlice(no.Object, "status", "stacks")
		last = fmt.Sprintf("spec.metrics %v, status.stacks %v", metrics, stacks)
		on := 0
		for _, s := range stacks {
			if enabled, _, _ := unstructured.NestedBool(s.(map[string]interface{}), "enabled"); enabled {
				on++
			}
		}
		if !reflect.DeepEqual(metrics, wantMetrics) || on != 2 {
			return false, errors.New(last)
		}
		return true, nil
	}, fmt.Sprintf("%s: both stacks deployed and spec.metrics %v", leg, wantMetrics))
	t.Logf("%s: %s", leg, last)
}

// update moves the cluster to a release and checks the ClusterOperator followed its operands' rollouts (docs/release-payload.md, Tests);
// admin, if set, is an administrator's step, taken once it says it is due.
func (u *upgrade) update(name string, to *framework.Payload, admin func(context.Context) bool) (time.Time, time.Time) {
	t, mon := u.t, u.mon
	t.Helper()
	from := time.Now()
	u.cvo.RequestUpdate(t, to)
	completed := framework.ClusterVersionCompleted(to.Version)
	cv := u.runner.waitForClusterVersion(u.cvo, 8*time.Minute, func(cv *configv1.ClusterVersion) string {
		if admin != nil && admin(framework.Context(t, time.Minute)) {
			admin = nil
		}
		return completed(cv)
	})
	done := time.Now()
	t.Logf("%s to %s: ClusterVersion Completed after %s", name, to.Version, done.Sub(from).Round(time.Second))
	co := framework.LiveClusterOperator(t, u.in.cfg, nodeClusterOperator)
	framework.CheckOperatorVersion(t, co, cv)
	framework.CheckRelatedObjects(t, u.in.cfg, co)
	if !mon.ProgressedBetween(from, done) {
		t.Errorf("clusteroperator/%s never reported Progressing=True during the %s from %s", nodeClusterOperator, name, from.Format(time.RFC3339))
	}
	images := map[string]bool{}
	for _, img := range to.Release.Images {
		images[img] = true
	}
	order := framework.JudgeRolloutOrder(u.recorder.Events(), from, to.Version, images)
	for _, p := range order.Problems {
		t.Errorf("%s to %s: %s", name, to.Version, p)
	}
	for _, o := range order.Operands {
		u.rollouts = append(u.rollouts, fmt.Sprintf("  %s: %s changed at %s (revision %d), rolled out at %s (revision %d)",
			name, o.Object, mon.Rel(o.ChangedAt), o.ChangedRevision, mon.Rel(o.RolledAt), o.RolledRevision))
	}
	u.rollouts = append(u.rollouts, fmt.Sprintf("  %s: versions[operator]=%s at %s (revision %d)", name, to.Version, mon.Rel(order.VersionAt), order.VersionRevision))
	return from, done
}

// crioMetricsIn: the CRI-O metrics DaemonSet of ns has rolled out.
func (u *upgrade) crioMetricsIn(ns string) bool {
	ds, err := u.in.kube.AppsV1().DaemonSets(ns).Get(framework.Context(u.t, time.Minute), "crio-metrics", metav1.GetOptions{})
	return err == nil && ds.DeletionTimestamp == nil && ds.Status.ObservedGeneration >= ds.Generation && ds.Status.DesiredNumberScheduled > 0 &&
		ds.Status.UpdatedNumberScheduled == ds.Status.DesiredNumberScheduled && ds.Status.NumberAvailable == ds.Status.DesiredNumberScheduled
}

// legacyCRIOMetrics are the CRI-O metrics operands release N keeps in the operator's namespace.
var legacyCRIOMetrics = map[schema.GroupVersionResource][]string{
	{Group: "apps", Version: "v1", Resource: "daemonsets"}:                        {"crio-metrics"},
	{Version: "v1", Resource: "services"}:                                         {"crio-metrics"},
	{Version: "v1", Resource: "serviceaccounts"}:                                  {"crio-metrics"},
	{Version: "v1", Resource: "secrets"}:                                          {"crio-metrics-signer", "crio-metrics-serving-cert"},
	{Version: "v1", Resource: "configmaps"}:                                       {"crio-metrics-ca-bundle", "crio-metrics-client-ca"},
	{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}:  {"crio-metrics"},
	{Group: "monitoring.coreos.com", Version: "v1", Resource: "prometheusrules"}:  {"crio-metrics"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}:        {"prometheus-k8s"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}: {"prometheus-k8s"},
}

// dropInVersions are the resourceVersions of the CRI-O drop-in MachineConfigs.
func (u *upgrade) dropInVersions() map[string]string {
	out := map[string]string{}
	for _, role := range []string{"master", "worker"} {
		name := "50-" + role + "-crio-metrics-tls"
		mc, err := u.in.dyn.Resource(schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigs"}).
			Get(framework.Context(u.t, time.Minute), name, metav1.GetOptions{})
		require.NoError(u.t, err, "MachineConfig %s", name)
		out[name] = mc.GetResourceVersion()
	}
	return out
}

// moved: after the update, the DaemonSet runs in openshift-crio-metrics and nothing of the stack is left in the operator's namespace.
func (u *upgrade) moved() {
	t := u.t
	t.Helper()
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		var left []string
		for gvr, names := range legacyCRIOMetrics {
			for _, name := range names {
				if _, err := u.in.dyn.Resource(gvr).Namespace(operatorNamespace).Get(framework.Context(t, time.Minute), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					left = append(left, fmt.Sprintf("%s %s (%v)", gvr.Resource, name, err))
				}
			}
		}
		if len(left) > 0 {
			return false, fmt.Errorf("left in %s: %v", operatorNamespace, left)
		}
		if !u.crioMetricsIn(crioMetricsNamespace) {
			return false, fmt.Errorf("DaemonSet %s/crio-metrics not rolled out", crioMetricsNamespace)
		}
		return true, nil
	}, "the CRI-O metrics operands moved to "+crioMetricsNamespace)
}

// deleteMovedNamespace is the administrator's step of a downgrade across the move: once the scheduler
// says N's DaemonSet's pods find no free host port (N+1's hold 9638), delete N+1's namespace.
func (u *upgrade) deleteMovedNamespace(ctx context.Context) bool {
	pods, err := u.in.kube.CoreV1().Pods(operatorNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app=crio-metrics"})
	if err != nil {
		return false
	}
	for _, p := range pods.Items {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && strings.Contains(c.Message, "free ports") {
				u.t.Logf("N's pod %s/%s: %s; deleting namespace %s as the administrator", operatorNamespace, p.Name, c.Message, crioMetricsNamespace)
				err = u.in.kube.CoreV1().Namespaces().Delete(ctx, crioMetricsNamespace, metav1.DeleteOptions{})
				return err == nil || apierrors.IsNotFound(err)
			}
		}
	}
	return false
}

// replayOldNodeSettingsStatus dry-runs release N's node settings status write: docs/api.md, "Upgrade window".
func replayOldNodeSettingsStatus(t *testing.T, nodeOperators dynamic.NamespaceableResourceInterface) {
	t.Helper()
	old := &unstructured.Unstructured{}
	require.NoError(t, old.UnmarshalJSON([]byte(`{"apiVersion":"nodeoperator.openshift.io/v1alpha1","kind":"NodeOperator","metadata":{"name":"cluster"},
		"status":{"nodeSettings":{"target":"","phase":"RollingOut","message":"","collector":"openshift-cluster-node-operator/node-tracing","pools":[
		{"name":"e2e-replay","target":"","revision":"","lastGood":"","rollbackTo":"","state":"Pending","since":"2026-01-01T00:00:00Z","reason":"","message":""}]}}}`)))
	_, err := nodeOperators.ApplyStatus(framework.Context(t, time.Minute), "cluster", old, metav1.ApplyOptions{FieldManager: "NodeSettings", DryRun: []string{metav1.DryRunAll}})
	assert.NoError(t, err, "N+1's schema refuses release N's node settings status write")
}

// oldSpellingSpec: an edit in release N's spelling (Managed, "" for the platform default).
const oldSpellingSpec = `{"spec":{"metrics":{"managementState":"Managed"},"nmstate":{"managementState":""}}}`
