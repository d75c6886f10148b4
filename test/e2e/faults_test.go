//go:build e2e

package e2e

// Fault injection (GitHub issue 7, item 1): the operator killed in the middle
// of rollouts, the API server restarted under it, two replicas competing for
// the lease, optional APIs disappearing at run time and odd Infrastructure
// contents. docs/reliability.md says what each test proves and how long it
// takes. FAULT_ITERATIONS (default 5) sets how many kills the rollout test
// makes; the dedicated long run uses FAULT_ITERATIONS=20.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

const (
	faultNMStateNamespace  = "openshift-nmstate"
	faultNMStateDeployment = "nmstate-operator"
	faultLeaseName         = "cluster-node-operator-lock"
)

// faultIterations is FAULT_ITERATIONS, default 5.
func faultIterations(t *testing.T) int { return envCount(t, "FAULT_ITERATIONS", 5) }

// done turns a check's answer, what is still missing ("" when nothing is),
// into framework.Eventually's.
func done(why string) (bool, error) {
	if why != "" {
		return false, errors.New(why)
	}
	return true, nil
}

// setTLSProfile sets spec.tlsSecurityProfile of the APIServer "cluster" (nil
// removes it: Intermediate), creating the object if needed.
func setTLSProfile(t *testing.T, c *framework.Cluster, profile *configv1.TLSSecurityProfile) {
	t.Helper()
	ctx := context.Background()
	apiservers := c.Config1.ConfigV1().APIServers()
	if _, err := apiservers.Get(ctx, "cluster", metav1.GetOptions{}); apierrors.IsNotFound(err) {
		if _, err := apiservers.Create(ctx, &configv1.APIServer{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating apiserver cluster: %v", err)
		}
	}
	var value interface{}
	if profile != nil {
		value = profile
	}
	data, _ := json.Marshal(map[string]interface{}{"spec": map[string]interface{}{"tlsSecurityProfile": value}})
	if _, err := apiservers.Patch(ctx, "cluster", types.MergePatchType, data, metav1.PatchOptions{}); err != nil {
		t.Fatalf("patching apiserver cluster %s: %v", data, err)
	}
}

// rolloutState is what the operands must look like once converged.
type rolloutState struct {
	metrics, nmstate bool
	tlsProfile       configv1.TLSProfileType // "" = unset (Intermediate)
}

func (s rolloutState) minTLSVersion() string {
	switch s.tlsProfile {
	case configv1.TLSProfileOldType:
		return "VersionTLS10"
	case configv1.TLSProfileModernType:
		return "VersionTLS13"
	}
	return "VersionTLS12"
}

func (s rolloutState) apply(t *testing.T, c *framework.Cluster) {
	t.Helper()
	// On: the knob removed (BareMetal: both on by default); off: Disabled.
	knob := func(on bool) interface{} {
		if on {
			return nil
		}
		return map[string]interface{}{"state": string(nodev1alpha1.StackDisabled), "managementState": nil}
	}
	c.PatchNodeOperatorSpec(t, map[string]interface{}{"metrics": knob(s.metrics), "nmstate": knob(s.nmstate)})
	switch s.tlsProfile {
	case "":
		setTLSProfile(t, c, nil)
	case configv1.TLSProfileOldType:
		setTLSProfile(t, c, &configv1.TLSSecurityProfile{Type: s.tlsProfile, Old: &configv1.OldTLSProfile{}})
	case configv1.TLSProfileModernType:
		setTLSProfile(t, c, &configv1.TLSSecurityProfile{Type: s.tlsProfile, Modern: &configv1.ModernTLSProfile{}})
	}
}

// operandInventory lists what matters for duplicates and orphans.
type operandInventory struct {
	daemonSets, deployments, secrets, configMaps []string
	proxyArgs                                    []string
}

func inventory(ctx context.Context, kube kubernetes.Interface) (operandInventory, error) {
	var inv operandInventory
	dss, err := kube.AppsV1().DaemonSets(operatorNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return inv, err
	}
	for _, d := range dss.Items {
		inv.daemonSets = append(inv.daemonSets, d.Name)
		if d.Name == "crio-metrics" {
			for _, ctr := range d.Spec.Template.Spec.Containers {
				if ctr.Name == "kube-rbac-proxy" {
					inv.proxyArgs = ctr.Args
				}
			}
		}
	}
	deps, err := kube.AppsV1().Deployments(faultNMStateNamespace).List(ctx, metav1.ListOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return inv, err
	}
	if deps != nil {
		for _, d := range deps.Items {
			if d.DeletionTimestamp == nil {
				inv.deployments = append(inv.deployments, d.Name)
			}
		}
	}
	secrets, err := kube.CoreV1().Secrets(operatorNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return inv, err
	}
	for _, s := range secrets.Items {
		inv.secrets = append(inv.secrets, s.Name)
	}
	cms, err := kube.CoreV1().ConfigMaps(operatorNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return inv, err
	}
	for _, cm := range cms.Items {
		inv.configMaps = append(inv.configMaps, cm.Name)
	}
	for _, l := range [][]string{inv.daemonSets, inv.deployments, inv.secrets, inv.configMaps} {
		sort.Strings(l)
	}
	return inv, nil
}

// check returns what differs from the converged state s, given the Secrets
// and ConfigMaps of the operator namespace with every stack on (baseline).
func (inv operandInventory) check(s rolloutState, baseline operandInventory) string {
	var wrong []string
	wantDS := []string{}
	if s.metrics {
		wantDS = []string{"crio-metrics"}
	}
	if fmt.Sprint(inv.daemonSets) != fmt.Sprint(wantDS) {
		wrong = append(wrong, fmt.Sprintf("DaemonSets %v, want %v", inv.daemonSets, wantDS))
	}
	wantDep := []string{}
	if s.nmstate {
		wantDep = []string{faultNMStateDeployment}
	}
	if fmt.Sprint(inv.deployments) != fmt.Sprint(wantDep) {
		wrong = append(wrong, fmt.Sprintf("Deployments in %s %v, want %v", faultNMStateNamespace, inv.deployments, wantDep))
	}
	if s.metrics {
		if fmt.Sprint(inv.secrets) != fmt.Sprint(baseline.secrets) {
			wrong = append(wrong, fmt.Sprintf("Secrets %v, want %v", inv.secrets, baseline.secrets))
		}
		if fmt.Sprint(inv.configMaps) != fmt.Sprint(baseline.configMaps) {
			wrong = append(wrong, fmt.Sprintf("ConfigMaps %v, want %v", inv.configMaps, baseline.configMaps))
		}
		want := "--tls-min-version=" + s.minTLSVersion()
		found := false
		for _, a := range inv.proxyArgs {
			found = found || a == want
		}
		if !found {
			wrong = append(wrong, fmt.Sprintf("kube-rbac-proxy args %v lack %s", inv.proxyArgs, want))
		}
	} else {
		for _, l := range [][]string{inv.secrets, inv.configMaps} {
			for _, name := range l {
				if strings.HasPrefix(name, "crio-metrics") {
					wrong = append(wrong, fmt.Sprintf("%s left behind with the metrics stack removed", name))
				}
			}
		}
	}
	return strings.Join(wrong, "; ")
}

// TestFaultOperatorKilledDuringRollouts SIGKILLs the operator at a random
// moment of a rollout, FAULT_ITERATIONS times, and restarts it each time:
// every time it converges to the state asked for (no duplicate or orphaned
// operand), and ClusterOperator node is never Available=False (the suite
// monitor).
func TestFaultOperatorKilledDuringRollouts(t *testing.T) {
	n := faultIterations(t)
	c, op := framework.Setup(t, framework.OperatorOptions{})
	setTLSProfile(t, c, nil)
	t.Cleanup(func() { setTLSProfile(t, c, nil) })
	state := rolloutState{metrics: true, nmstate: true}
	var baseline operandInventory
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		var err error
		baseline, err = inventory(context.Background(), framework.KubeClient(t))
		return err == nil && len(baseline.daemonSets) == 1 && len(baseline.deployments) == 1, err
	}, "both stacks deployed before the first kill")

	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	t.Logf("random seed %d", seed)
	for i := 0; i < n; i++ {
		state = state.next(i)
		state.apply(t, c)
		// A random moment of the rollout; every third flip of a stack turns
		// it back on, so kills also hit the creation of operands.
		time.Sleep(time.Duration(rng.Int63n(int64(4 * time.Second))))
		op.Kill()
		op = framework.StartOperator(t, framework.OperatorOptions{})
		waitConverged(t, c, op, state, baseline, fmt.Sprintf("kill %d (%+v)", i+1, state))
	}
	state = rolloutState{metrics: true, nmstate: true}
	state.apply(t, c)
	waitConverged(t, c, op, state, baseline, "back to both stacks on")
}

// next is the state of kill i: a stack flipped, or another TLS profile.
func (s rolloutState) next(i int) rolloutState {
	switch i % 3 {
	case 0:
		s.metrics = !s.metrics
	case 1:
		s.nmstate = !s.nmstate
	default:
		s.tlsProfile = []configv1.TLSProfileType{configv1.TLSProfileOldType, configv1.TLSProfileModernType, ""}[(i/3)%3]
	}
	return s
}

// waitConverged waits until the ClusterOperator is settled, the stack
// decisions are state's and the operands are exactly state's.
func waitConverged(t *testing.T, c *framework.Cluster, op *framework.Process, state rolloutState, baseline operandInventory, what string) {
	t.Helper()
	ctx := context.Background()
	framework.Eventually(t, 3*time.Minute, time.Second, func() (bool, error) {
		if op.Exited() {
			t.Fatalf("%s: the operator exited; log %s", what, op.LogPath)
		}
		co, err := c.ClusterOperator(ctx)
		if err != nil {
			return false, err
		}
		if why := framework.Settled(co); why != "" {
			return done(why)
		}
		no, err := c.NodeOperator(ctx)
		if err != nil {
			return false, err
		}
		for name, on := range map[nodev1alpha1.StackName]bool{nodev1alpha1.MetricsStack: state.metrics, nodev1alpha1.NMStateStack: state.nmstate} {
			if s := framework.StackStatus(no, name); s == nil || s.Enabled != on {
				return done(fmt.Sprintf("stack %s not yet enabled=%t", name, on))
			}
		}
		inv, err := inventory(ctx, framework.KubeClient(t))
		if err != nil {
			return false, err
		}
		return done(inv.check(state, baseline))
	}, what+": convergence; operator log "+op.LogPath)
}

// localCluster runs hack/local-cluster.sh with the test's environment (the
// LCP_* variables of the cluster $KUBECONFIG points at).
func localCluster(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(framework.RepoRoot(t), "hack", "local-cluster.sh"), args...)
	cmd.Env = os.Environ()
	if os.Getenv("LCP_DIR") == "" {
		framework.Unavailable(t, "LCP_DIR is not set: hack/local-cluster.sh %s needs the local control plane's state directory", args[0])
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/local-cluster.sh %v: %v\n%s", args, err, out)
	}
}

// TestFaultAPIServerRestart restarts kube-apiserver (etcd keeps the data)
// under a running operator: the same process recovers, never Available=False
// nor Degraded (the suite monitor), and still acts on changes afterwards.
func TestFaultAPIServerRestart(t *testing.T) {
	restarts := max(2, faultIterations(t)/4)
	// The production leader election timings (library-go's OpenShift
	// defaults: 137 s lease, 107 s renew deadline, 26 s retry), not the
	// framework's 15 s lease: with a 10 s renew deadline an API server down
	// for more than about 8 s makes the leader lose its lease and exit, by
	// design (library-go logs "The kube-apiserver downtime tolerance is 8s").
	c, op := framework.Setup(t, framework.OperatorOptions{Args: []string{
		"--leader-election-lease-duration=137s", "--leader-election-renew-deadline=107s", "--leader-election-retry-period=26s",
	}})
	pid := op.Pid()
	t.Cleanup(func() { setTLSProfile(t, c, nil) })
	for i := 0; i < restarts; i++ {
		localCluster(t, "restart-apiserver")
		// The operator must act on a change made after the restart: its
		// informers re-established their watches. A TLS profile change rolls
		// the DaemonSet without turning a stack on or off.
		state := rolloutState{metrics: true, nmstate: true, tlsProfile: configv1.TLSProfileOldType}
		if i%2 == 1 {
			state.tlsProfile = configv1.TLSProfileModernType
		}
		state.apply(t, c)
		framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
			inv, err := inventory(context.Background(), framework.KubeClient(t))
			if err != nil {
				return false, err
			}
			return done(inv.check(state, inv))
		}, fmt.Sprintf("restart %d: the operator acts on tlsSecurityProfile %s", i+1, state.tlsProfile))
		c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
		if op.Exited() || op.Pid() != pid {
			t.Fatalf("the operator exited (pid %d); log %s", pid, op.LogPath)
		}
	}
	setTLSProfile(t, c, nil)
	c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
}

func readLog(t *testing.T, op *framework.Process) string {
	t.Helper()
	b, err := os.ReadFile(op.LogPath)
	require.NoError(t, err)
	return string(b)
}

const (
	logAcquiring = "Attempting to acquire leader lease"
	logAcquired  = "Successfully acquired lease"
)

// controllerActivity returns the log lines that only a leader writes: the
// controllers starting and syncing.
func controllerActivity(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		// Caches and the serving endpoint start before leader election;
		// the controllers' workers and operand events only after it.
		if strings.Contains(l, logAcquired) || strings.Contains(l, "Starting #") || strings.Contains(l, "clusteroperator/node diff") ||
			(strings.Contains(l, "Event(") && !strings.Contains(l, "LeaderElection")) {
			out = append(out, l)
		}
	}
	return out
}

// TestFaultLeaderElection runs two replicas: exactly one acts, and the other
// takes over within the lease duration (15 s) plus a margin after the
// leader is SIGKILLed, and acts. Repeated max(2, FAULT_ITERATIONS/2) times;
// ClusterOperator node is never Available=False (the suite monitor).
func TestFaultLeaderElection(t *testing.T) {
	c, leader := framework.Setup(t, framework.OperatorOptions{})
	for r := 1; r <= max(2, faultIterations(t)/2); r++ {
		standby, holder := startStandby(t, leader, r)
		// Give the standby a few retry periods, and make the leader act.
		on := r%2 == 1
		state := nodev1alpha1.StackDisabled
		if on {
			state = nodev1alpha1.StackState("")
		}
		c.SetStackState(t, nodev1alpha1.NMStateStack, state)
		c.WaitForStacks(t, time.Minute, map[nodev1alpha1.StackName]bool{nodev1alpha1.NMStateStack: on})
		time.Sleep(5 * time.Second)
		if got := leaseHolder(t); got != holder || got == "" {
			t.Fatalf("round %d: lease holder changed from %q to %q with both replicas running", r, holder, got)
		}
		if act := controllerActivity(readLog(t, standby)); len(act) > 0 {
			t.Fatalf("round %d: the standby (log %s) acts while the leader runs:\n%s", r, standby.LogPath, strings.Join(act, "\n"))
		}
		if len(controllerActivity(readLog(t, leader))) == 0 {
			t.Fatalf("round %d: the leader (log %s) shows no controller activity", r, leader.LogPath)
		}
		leader.Kill()
		assertTakeover(t, c, standby, holder, r)
		leader = standby
	}
}

const leaseDuration, leaseMargin = 15 * time.Second, 10 * time.Second

func leaseHolder(t *testing.T) string {
	l, err := framework.KubeClient(t).CoordinationV1().Leases(operatorNamespace).Get(context.Background(), faultLeaseName, metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// startStandby waits until leader holds the lease (Setup may have returned
// on a ClusterOperator an earlier test settled) and starts a second replica
// that tries to acquire it; it returns that replica and the lease holder.
func startStandby(t *testing.T, leader *framework.Process, round int) (*framework.Process, string) {
	t.Helper()
	framework.Eventually(t, leaseDuration+leaseMargin+15*time.Second, 500*time.Millisecond, func() (bool, error) {
		return strings.Contains(readLog(t, leader), logAcquired), nil
	}, fmt.Sprintf("round %d: the leader (log %s) acquires the lease", round, leader.LogPath))
	standby := framework.StartOperator(t, framework.OperatorOptions{})
	framework.Eventually(t, time.Minute, 500*time.Millisecond, func() (bool, error) {
		return strings.Contains(readLog(t, standby), logAcquiring), nil
	}, "the second replica tries to acquire the lease")
	return standby, leaseHolder(t)
}

// assertTakeover: after the leader's SIGKILL the standby takes the lease
// within its duration plus a margin, and acts (deploys NMState).
func assertTakeover(t *testing.T, c *framework.Cluster, standby *framework.Process, old string, round int) {
	t.Helper()
	killed := time.Now()
	framework.Eventually(t, leaseDuration+leaseMargin+5*time.Second, 200*time.Millisecond, func() (bool, error) {
		h := leaseHolder(t)
		return h != "" && h != old && strings.Contains(readLog(t, standby), logAcquired), nil
	}, fmt.Sprintf("round %d: the standby takes the lease after the leader's SIGKILL", round))
	if took := time.Since(killed); took > leaseDuration+leaseMargin {
		t.Errorf("round %d: takeover took %s, more than lease duration %s + %s", round, took, leaseDuration, leaseMargin)
	}
	c.SetStackState(t, nodev1alpha1.NMStateStack, nodev1alpha1.StackState(""))
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		_, err := framework.KubeClient(t).AppsV1().Deployments(faultNMStateNamespace).Get(context.Background(), faultNMStateDeployment, metav1.GetOptions{})
		return err == nil, nil
	}, "the new leader deploys NMState")
	c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
}

// TestFaultMissingOptionalAPIs deletes the monitoring and MachineConfig CRDs
// at run time: the metrics stack says which parts it skipped and the rest
// stays; restored from the files hack/local-cluster.sh used, the skipped
// parts are applied. ClusterOperator node is never Available=False (the
// suite monitor).
func TestFaultMissingOptionalAPIs(t *testing.T) {
	restore := optionalCRDRestorer(t)
	c, op := framework.Setup(t, framework.OperatorOptions{})
	restored := false
	t.Cleanup(func() {
		if !restored {
			restore()
		}
	})
	kubectl(t, append([]string{"delete", "--wait=true"}, optionalCRDs...)...)
	c.RediscoverNow(t, op)
	waitMetricsMessage(t, c, func(msg string) bool {
		return strings.Contains(msg, "ServiceMonitor and PrometheusRule skipped") && strings.Contains(msg, "MachineConfigs skipped")
	}, "names the ServiceMonitor, PrometheusRule and MachineConfigs skipped")
	c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
	_, err := framework.KubeClient(t).AppsV1().DaemonSets(operatorNamespace).Get(context.Background(), "crio-metrics", metav1.GetOptions{})
	assert.NoError(t, err, "DaemonSet crio-metrics with optional APIs missing")

	restore()
	restored = true
	c.RediscoverNow(t, op)
	framework.Eventually(t, 4*time.Minute, 2*time.Second, func() (bool, error) {
		var missing []string
		for _, o := range metricsObjects {
			if o.gvr.Group == "monitoring.coreos.com" || o.gvr.Group == "machineconfiguration.openshift.io" {
				if getObject(c, o) != nil {
					missing = append(missing, o.String())
				}
			}
		}
		return done(strings.Join(missing, ", "))
	}, "the skipped parts are applied once the CRDs are back")
	waitMetricsMessage(t, c, func(msg string) bool { return !strings.Contains(msg, "skipped") }, "names no skipped part")
	c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
}

var optionalCRDs = []string{"crd/servicemonitors.monitoring.coreos.com", "crd/prometheusrules.monitoring.coreos.com", "crd/machineconfigs.machineconfiguration.openshift.io"}

// optionalCRDRestorer returns what applies the optional CRDs again as
// hack/local-cluster.sh up did (the files it lists in $LCP_DIR/crds.txt).
func optionalCRDRestorer(t *testing.T) func() {
	lcpDir := os.Getenv("LCP_DIR")
	if lcpDir == "" {
		framework.Unavailable(t, "LCP_DIR is not set: restoring the CRDs needs $LCP_DIR/crds.txt")
	}
	raw, err := os.ReadFile(filepath.Join(lcpDir, "crds.txt"))
	require.NoError(t, err)
	var files []string
	for _, f := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if strings.Contains(f, "monitoring.coreos.com_") || strings.Contains(f, "machine-config_01_machineconfigs") {
			files = append(files, f)
		}
	}
	require.Len(t, files, 3, "the ServiceMonitor, PrometheusRule and MachineConfig CRD files in %s/crds.txt", lcpDir)
	return func() {
		localCluster(t, append([]string{"apply", "local-cluster"}, files...)...)
		kubectl(t, append([]string{"wait", "--for=condition=Established", "--timeout=120s"}, optionalCRDs...)...)
	}
}

func kubectl(t *testing.T, args ...string) {
	t.Helper()
	if out, err := framework.Kubectl(t, args...); err != nil {
		t.Fatalf("kubectl %v: %v\n%s", args, err, out)
	}
}

// waitMetricsMessage waits until the metrics stack's status message
// satisfies ok.
func waitMetricsMessage(t *testing.T, c *framework.Cluster, ok func(string) bool, what string) {
	t.Helper()
	c.WaitForNodeOperator(t, 4*time.Minute, 2*time.Second, func(no *nodev1alpha1.NodeOperator) string {
		if s := framework.StackStatus(no, nodev1alpha1.MetricsStack); s == nil || !ok(s.Message) {
			return fmt.Sprintf("the metrics stack's status %+v: want one that %s", s, what)
		}
		return ""
	})
}
