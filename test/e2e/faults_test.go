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
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
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
func faultIterations(t *testing.T) int {
	n := 5
	if s := os.Getenv("FAULT_ITERATIONS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("FAULT_ITERATIONS=%q is not a positive number", s)
		}
		n = v
	}
	return n
}

// conditionWatch polls ClusterOperator node every 500 ms until stopped and
// records every observation of a condition with an unwanted status.
type conditionWatch struct {
	stop     chan struct{}
	done     chan struct{}
	mu       sync.Mutex
	polls    int
	errors   int
	bad      []string
	finished bool
	unwanted map[configv1.ClusterStatusConditionType]configv1.ConditionStatus
}

func watchConditions(c *framework.Cluster, unwanted map[configv1.ClusterStatusConditionType]configv1.ConditionStatus) *conditionWatch {
	w := &conditionWatch{stop: make(chan struct{}), done: make(chan struct{}), unwanted: unwanted}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			co, err := c.ClusterOperator(ctx)
			cancel()
			w.mu.Lock()
			w.polls++
			if err != nil {
				// The API server may be down (restart test): unknown, not bad.
				w.errors++
			} else {
				for typ, status := range unwanted {
					cond := framework.COCondition(co, typ)
					if cond == nil && typ == configv1.OperatorAvailable {
						w.bad = append(w.bad, fmt.Sprintf("%s %s missing", time.Now().Format("15:04:05.000"), typ))
					}
					if cond != nil && cond.Status == status {
						w.bad = append(w.bad, fmt.Sprintf("%s %s=%s (%s): %s", time.Now().Format("15:04:05.000"), typ, cond.Status, cond.Reason, cond.Message))
					}
				}
			}
			w.mu.Unlock()
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// finish stops the watch and fails the test on any unwanted observation.
func (w *conditionWatch) finish(t *testing.T) {
	t.Helper()
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return
	}
	w.finished = true
	byReason := map[string]int{}
	for _, b := range w.bad {
		if i, j := strings.Index(b, " ("), strings.Index(b, "): "); i >= 0 && j > i {
			byReason[b[i+2:j]]++
		}
	}
	t.Logf("ClusterOperator polled %d times every 500 ms (%d polls failed to reach the API server), %d unwanted observations %v", w.polls, w.errors, len(w.bad), byReason)
	for i, b := range w.bad {
		if i == 20 {
			t.Errorf("... and %d more", len(w.bad)-20)
			break
		}
		t.Errorf("unwanted condition: %s", b)
	}
}

// eventually polls check, which returns what is still missing ("" when
// done), every interval, and fails the test with msg and the last answer
// after timeout.
func eventually(t *testing.T, timeout, interval time.Duration, msg string, check func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		why := check()
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s: %s: %s", timeout, msg, why)
		}
		time.Sleep(interval)
	}
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
// moment of a rollout, FAULT_ITERATIONS times, and restarts it each time.
func TestFaultOperatorKilledDuringRollouts(t *testing.T) {
	start := time.Now()
	n := faultIterations(t)
	c, op := framework.Setup(t, framework.OperatorOptions{})
	kube := framework.KubeClient(t)
	ctx := context.Background()
	setTLSProfile(t, c, nil)
	t.Cleanup(func() { setTLSProfile(t, c, nil) })
	c.WaitForClusterOperator(t, 3*time.Minute, framework.Settled)

	state := rolloutState{metrics: true, nmstate: true}
	var baseline operandInventory
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		var err error
		baseline, err = inventory(ctx, kube)
		return err == nil && len(baseline.daemonSets) == 1 && len(baseline.deployments) == 1, err
	}, "both stacks deployed before the first kill")
	t.Logf("baseline: Secrets %v, ConfigMaps %v", baseline.secrets, baseline.configMaps)

	watch := watchConditions(c, map[configv1.ClusterStatusConditionType]configv1.ConditionStatus{
		configv1.OperatorAvailable: configv1.ConditionFalse,
	})
	defer watch.finish(t)

	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	t.Logf("%d kills, random seed %d", n, seed)
	profiles := []configv1.TLSProfileType{configv1.TLSProfileOldType, configv1.TLSProfileModernType, ""}
	var converge []time.Duration
	for i := 0; i < n; i++ {
		var what string
		switch i % 3 {
		case 0:
			state.metrics = !state.metrics
			what = fmt.Sprintf("metrics enabled=%t", state.metrics)
		case 1:
			state.nmstate = !state.nmstate
			what = fmt.Sprintf("nmstate enabled=%t", state.nmstate)
		case 2:
			state.tlsProfile = profiles[(i/3)%len(profiles)]
			what = fmt.Sprintf("tlsSecurityProfile=%q", state.tlsProfile)
		}
		// Every third flip of a stack turns it back on, so that kills also
		// hit the creation of operands (certificates, DaemonSet, CRD, NMState).
		delay := time.Duration(rng.Int63n(int64(4 * time.Second)))
		state.apply(t, c)
		time.Sleep(delay)
		op.Kill()
		killedAt := time.Now()
		t.Logf("kill %d/%d: %s changed at %s, SIGKILL %s later", i+1, n, what, killedAt.Add(-delay).Format("15:04:05.000"), delay.Round(time.Millisecond))
		op = framework.StartOperator(t, framework.OperatorOptions{})

		eventually(t, 3*time.Minute, time.Second, fmt.Sprintf("kill %d (%s): convergence; operator log %s", i+1, what, op.LogPath), func() string {
			if op.Exited() {
				t.Fatalf("kill %d: the restarted operator exited; log %s", i+1, op.LogPath)
			}
			co, err := c.ClusterOperator(ctx)
			if err != nil {
				return err.Error()
			}
			if why := framework.Settled(co); why != "" {
				return why
			}
			// status.observedGeneration is not maintained by the operator
			// (always empty); the stack decisions tell what it has seen.
			no, err := c.NodeOperator(ctx)
			if err != nil {
				return err.Error()
			}
			for name, on := range map[nodev1alpha1.StackName]bool{nodev1alpha1.MetricsStack: state.metrics, nodev1alpha1.NMStateStack: state.nmstate} {
				if s := framework.StackStatus(no, name); s == nil || s.Enabled != on {
					return fmt.Sprintf("stack %s not yet enabled=%t", name, on)
				}
			}
			inv, err := inventory(ctx, kube)
			if err != nil {
				return err.Error()
			}
			return inv.check(state, baseline)
		})
		converge = append(converge, time.Since(killedAt))
		if op.Exited() {
			t.Fatalf("the restarted operator exited; log %s", op.LogPath)
		}
	}
	// Back to everything on, and check the final state once more.
	state = rolloutState{metrics: true, nmstate: true}
	state.apply(t, c)
	framework.Eventually(t, 3*time.Minute, time.Second, func() (bool, error) {
		co, err := c.ClusterOperator(ctx)
		if err != nil || framework.Settled(co) != "" {
			return false, err
		}
		inv, err := inventory(ctx, kube)
		return err == nil && inv.check(state, baseline) == "", err
	}, "final state with both stacks on")
	var total time.Duration
	max := time.Duration(0)
	for _, d := range converge {
		total += d
		if d > max {
			max = d
		}
	}
	t.Logf("%d kills: converged every time, mean %s, max %s from kill to settled; test took %s",
		n, (total / time.Duration(len(converge))).Round(time.Millisecond), max.Round(time.Millisecond), time.Since(start).Round(time.Second))
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
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hack/local-cluster.sh %v: %v\n%s", args, err, out)
	}
	t.Logf("hack/local-cluster.sh %v:\n%s", args, strings.TrimSpace(string(out)))
}

// TestFaultAPIServerRestart restarts kube-apiserver (etcd keeps the data)
// under a running operator: the same process recovers, never Degraded, and
// still acts on changes afterwards.
func TestFaultAPIServerRestart(t *testing.T) {
	start := time.Now()
	restarts := faultIterations(t) / 4
	if restarts < 2 {
		restarts = 2
	}
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
	watch := watchConditions(c, map[configv1.ClusterStatusConditionType]configv1.ConditionStatus{
		configv1.OperatorAvailable: configv1.ConditionFalse,
		configv1.OperatorDegraded:  configv1.ConditionTrue,
	})
	defer watch.finish(t)
	for i := 0; i < restarts; i++ {
		t0 := time.Now()
		localCluster(t, "restart-apiserver")
		t.Logf("restart %d/%d: API server back after %s", i+1, restarts, time.Since(t0).Round(time.Millisecond))
		// The operator must act on a change made after the restart: its
		// informers re-established their watches. A TLS profile change rolls
		// the DaemonSet without turning a stack on or off (enabling a stack
		// reports Available=False until its operand is available, which is
		// not what this test is about).
		state := rolloutState{metrics: true, nmstate: true, tlsProfile: configv1.TLSProfileOldType}
		if i%2 == 1 {
			state.tlsProfile = configv1.TLSProfileModernType
		}
		state.apply(t, c)
		kube := framework.KubeClient(t)
		t1 := time.Now()
		eventually(t, 2*time.Minute, time.Second, fmt.Sprintf("restart %d: the operator acts on tlsSecurityProfile %s after the API server restart", i+1, state.tlsProfile), func() string {
			if op.Exited() {
				t.Fatalf("restart %d: the operator (pid %d) exited; log %s", i+1, pid, op.LogPath)
			}
			inv, err := inventory(context.Background(), kube)
			if err != nil {
				return err.Error()
			}
			return inv.check(state, inv)
		})
		c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
		t.Logf("restart %d: tlsSecurityProfile %s rolled out and settled %s after the change", i+1, state.tlsProfile, time.Since(t1).Round(time.Millisecond))
		if op.Exited() || op.Pid() != pid {
			t.Fatalf("the operator exited (pid %d); log %s", pid, op.LogPath)
		}
	}
	setTLSProfile(t, c, nil)
	c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
	if op.Exited() {
		t.Fatalf("the operator exited; log %s", op.LogPath)
	}
	t.Logf("%d API server restarts: operator pid %d kept running, never Degraded; test took %s", restarts, pid, time.Since(start).Round(time.Second))
}

func readLog(t *testing.T, op *framework.Process) string {
	t.Helper()
	b, err := os.ReadFile(op.LogPath)
	if err != nil {
		t.Fatal(err)
	}
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
// leader is SIGKILLed. Repeated max(2, FAULT_ITERATIONS/2) times.
func TestFaultLeaderElection(t *testing.T) {
	start := time.Now()
	rounds := faultIterations(t) / 2
	if rounds < 2 {
		rounds = 2
	}
	const leaseDuration, margin = 15 * time.Second, 10 * time.Second
	c, leader := framework.Setup(t, framework.OperatorOptions{})
	kube := framework.KubeClient(t)
	ctx := context.Background()
	holder := func() string {
		l, err := kube.CoordinationV1().Leases(operatorNamespace).Get(ctx, faultLeaseName, metav1.GetOptions{})
		if err != nil || l.Spec.HolderIdentity == nil {
			return ""
		}
		return *l.Spec.HolderIdentity
	}
	watch := watchConditions(c, map[configv1.ClusterStatusConditionType]configv1.ConditionStatus{
		configv1.OperatorAvailable: configv1.ConditionFalse,
	})
	defer watch.finish(t)

	var takeovers []time.Duration
	for r := 0; r < rounds; r++ {
		// Setup returns as soon as the ClusterOperator is settled, which it
		// may already be from an earlier test: wait for the lease.
		framework.Eventually(t, leaseDuration+margin+15*time.Second, 500*time.Millisecond, func() (bool, error) {
			return strings.Contains(readLog(t, leader), logAcquired), nil
		}, fmt.Sprintf("round %d: the leader (log %s) acquires the lease", r+1, leader.LogPath))
		standby := framework.StartOperator(t, framework.OperatorOptions{})
		framework.Eventually(t, time.Minute, 500*time.Millisecond, func() (bool, error) {
			return strings.Contains(readLog(t, standby), logAcquiring), nil
		}, "the second replica tries to acquire the lease")
		leaseHolder := holder()
		// Give the standby a few retry periods, and make the leader act.
		on := r%2 == 0
		state := nodev1alpha1.StackDisabled
		if on {
			state = nodev1alpha1.StackState("")
		}
		c.SetStackState(t, nodev1alpha1.NMStateStack, state)
		c.WaitForStacks(t, time.Minute, map[nodev1alpha1.StackName]bool{nodev1alpha1.NMStateStack: on})
		time.Sleep(5 * time.Second)
		if got := holder(); got != leaseHolder || got == "" {
			t.Fatalf("round %d: lease holder changed from %q to %q with both replicas running", r+1, leaseHolder, got)
		}
		if act := controllerActivity(readLog(t, standby)); len(act) > 0 {
			t.Fatalf("round %d: the standby (log %s) acts while the leader runs:\n%s", r+1, standby.LogPath, strings.Join(act, "\n"))
		}
		if len(controllerActivity(readLog(t, leader))) == 0 {
			t.Fatalf("round %d: the leader (log %s) shows no controller activity", r+1, leader.LogPath)
		}

		leader.Kill()
		killed := time.Now()
		framework.Eventually(t, leaseDuration+margin+5*time.Second, 200*time.Millisecond, func() (bool, error) {
			h := holder()
			return h != "" && h != leaseHolder && strings.Contains(readLog(t, standby), logAcquired), nil
		}, fmt.Sprintf("round %d: the standby takes the lease after the leader's SIGKILL", r+1))
		took := time.Since(killed)
		takeovers = append(takeovers, took)
		t.Logf("round %d: lease %q -> %q, taken over %s after SIGKILL", r+1, leaseHolder, holder(), took.Round(time.Millisecond))
		if took > leaseDuration+margin {
			t.Errorf("round %d: takeover took %s, more than lease duration %s + %s", r+1, took, leaseDuration, margin)
		}
		// The new leader acts.
		c.SetStackState(t, nodev1alpha1.NMStateStack, nodev1alpha1.StackState(""))
		framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
			_, err := kube.AppsV1().Deployments(faultNMStateNamespace).Get(ctx, faultNMStateDeployment, metav1.GetOptions{})
			return err == nil, nil
		}, "the new leader deploys NMState")
		c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
		leader = standby
	}
	t.Logf("%d takeovers: %v; test took %s", rounds, takeovers, time.Since(start).Round(time.Second))
}

// TestFaultMissingOptionalAPIs deletes the monitoring and MachineConfig CRDs
// at run time and restores them from the files hack/local-cluster.sh used.
func TestFaultMissingOptionalAPIs(t *testing.T) {
	start := time.Now()
	lcpDir := os.Getenv("LCP_DIR")
	if lcpDir == "" {
		framework.Unavailable(t, "LCP_DIR is not set: restoring the CRDs needs $LCP_DIR/crds.txt")
	}
	raw, err := os.ReadFile(filepath.Join(lcpDir, "crds.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var crdFiles []string
	for _, f := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if strings.Contains(f, "monitoring.coreos.com_") || strings.Contains(f, "machine-config_01_machineconfigs") {
			crdFiles = append(crdFiles, f)
		}
	}
	if len(crdFiles) != 3 {
		t.Fatalf("want the ServiceMonitor, PrometheusRule and MachineConfig CRD files in %s/crds.txt, found %v", lcpDir, crdFiles)
	}
	c, op := framework.Setup(t, framework.OperatorOptions{})
	kube := framework.KubeClient(t)
	ctx := context.Background()
	crds := []string{"servicemonitors.monitoring.coreos.com", "prometheusrules.monitoring.coreos.com", "machineconfigs.machineconfiguration.openshift.io"}
	kubectl := func(args ...string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(framework.RepoRoot(t), "_output", "bin", "kubectl"), args...)
		cmd.Env = append(os.Environ(), "KUBECACHEDIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %v: %v\n%s", args, err, out)
		}
	}
	restore := func() {
		// Applied as hack/local-cluster.sh up applied them.
		localCluster(t, append([]string{"apply", "local-cluster"}, crdFiles...)...)
		kubectl(append([]string{"wait", "--for=condition=Established", "--timeout=120s"}, prefixAll("crd/", crds)...)...)
	}
	restored := false
	t.Cleanup(func() {
		if !restored {
			restore()
		}
	})
	watch := watchConditions(c, map[configv1.ClusterStatusConditionType]configv1.ConditionStatus{
		configv1.OperatorAvailable: configv1.ConditionFalse,
	})
	defer watch.finish(t)

	t0 := time.Now()
	kubectl(append([]string{"delete", "--wait=true"}, prefixAll("crd/", crds)...)...)
	c.RediscoverNow(t, op)
	no := c.WaitForNodeOperator(t, 4*time.Minute, 2*time.Second, func(no *nodev1alpha1.NodeOperator) string {
		s := framework.StackStatus(no, nodev1alpha1.MetricsStack)
		if s == nil {
			return "no metrics stack status"
		}
		for _, want := range []string{"ServiceMonitor and PrometheusRule skipped", "MachineConfigs skipped"} {
			if !strings.Contains(s.Message, want) {
				return fmt.Sprintf("metrics message %q lacks %q", s.Message, want)
			}
		}
		return ""
	})
	t.Logf("CRDs deleted: %s later the metrics stack says: %s", time.Since(t0).Round(time.Second), framework.StackStatus(no, nodev1alpha1.MetricsStack).Message)
	co := c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
	t.Logf("ClusterOperator without the optional APIs:\n%s", framework.DescribeClusterOperator(co))
	// The rest of the stack is still there.
	if _, err := kube.AppsV1().DaemonSets(operatorNamespace).Get(ctx, "crio-metrics", metav1.GetOptions{}); err != nil {
		t.Errorf("DaemonSet crio-metrics with optional APIs missing: %v", err)
	}

	t1 := time.Now()
	restore()
	restored = true
	c.RediscoverNow(t, op)
	var missing []string
	framework.Eventually(t, 4*time.Minute, 2*time.Second, func() (bool, error) {
		missing = nil
		for _, o := range metricsObjects {
			if o.gvr.Group != "monitoring.coreos.com" && o.gvr.Group != "machineconfiguration.openshift.io" {
				continue
			}
			if err := getObject(c, o); err != nil {
				missing = append(missing, o.String())
			}
		}
		return len(missing) == 0, nil
	}, fmt.Sprintf("the skipped parts are applied once the CRDs are back (missing %v)", missing))
	no = c.WaitForNodeOperator(t, 2*time.Minute, 2*time.Second, func(no *nodev1alpha1.NodeOperator) string {
		s := framework.StackStatus(no, nodev1alpha1.MetricsStack)
		if s == nil || strings.Contains(s.Message, "skipped") {
			return fmt.Sprintf("metrics stack status %+v still names skipped parts", s)
		}
		return ""
	})
	c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
	t.Logf("CRDs restored: parts back after %s; metrics stack: %s; test took %s", time.Since(t1).Round(time.Second),
		framework.StackStatus(no, nodev1alpha1.MetricsStack).Message, time.Since(start).Round(time.Second))
}

func prefixAll(prefix string, l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = prefix + s
	}
	return out
}

// TestFaultOddInfrastructure feeds the operator Infrastructure contents that
// a real cluster should not have: an unknown platform string and no
// platformStatus at all.
func TestFaultOddInfrastructure(t *testing.T) {
	start := time.Now()
	c, op := framework.Setup(t, framework.OperatorOptions{})
	ctx := context.Background()
	infras := c.Config1.ConfigV1().Infrastructures()
	watch := watchConditions(c, map[configv1.ClusterStatusConditionType]configv1.ConditionStatus{
		configv1.OperatorAvailable: configv1.ConditionFalse,
	})
	defer watch.finish(t)

	setStatus := func(mutate func(*configv1.InfrastructureStatus)) error {
		infra, err := infras.Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(&infra.Status)
		_, err = infras.UpdateStatus(ctx, infra, metav1.UpdateOptions{})
		return err
	}

	// 1. An unknown platform string: None, as the API documents.
	err := setStatus(func(s *configv1.InfrastructureStatus) {
		s.PlatformStatus = &configv1.PlatformStatus{Type: "FutureCloud"}
		s.Platform = "FutureCloud" //nolint:staticcheck // both fields, like an installer would
	})
	switch {
	case apierrors.IsInvalid(err):
		t.Logf("the API server refuses an unknown platform string, so the operator cannot see one: %v", err)
	case err != nil:
		t.Fatal(err)
	default:
		no := waitNMStateOffFor(t, c, "None")
		t.Logf("unknown platform FutureCloud:\n%s", framework.DescribeNodeOperator(no))
	}

	// 2. platformStatus missing, only the deprecated status.platform: used.
	if err := setStatus(func(s *configv1.InfrastructureStatus) {
		s.PlatformStatus = nil
		s.Platform = configv1.AWSPlatformType //nolint:staticcheck // the deprecated field alone
	}); err != nil {
		t.Fatal(err)
	}
	no := waitNMStateOffFor(t, c, "AWS")
	t.Logf("platformStatus missing, status.platform AWS:\n%s", framework.DescribeNodeOperator(no))

	// 3. Neither: the last decision stands, and the status says why.
	if err := setStatus(func(s *configv1.InfrastructureStatus) {
		s.PlatformStatus = nil
		s.Platform = "" //nolint:staticcheck // emptied
	}); err != nil {
		t.Fatal(err)
	}
	no = c.WaitForNodeOperator(t, 2*time.Minute, time.Second, func(no *nodev1alpha1.NodeOperator) string {
		for _, cond := range no.Status.Conditions {
			if strings.Contains(cond.Message, "no status.platformStatus") {
				return ""
			}
		}
		return "no condition names the missing platformStatus"
	})
	time.Sleep(10 * time.Second)
	co, err := c.ClusterOperator(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cond := framework.COCondition(co, configv1.OperatorAvailable); cond == nil || cond.Status != configv1.ConditionTrue {
		t.Errorf("Available with no platform in the Infrastructure: %+v", cond)
	}
	t.Logf("no platform at all:\n%s\nClusterOperator:\n%s", framework.DescribeNodeOperator(no), framework.DescribeClusterOperator(co))
	if op.Exited() {
		t.Fatalf("the operator exited; log %s", op.LogPath)
	}
	// Back to BareMetal: not part of the test (turning NMState on again
	// reports Available=False until its operator is available).
	watch.finish(t)
	c.SetInfrastructure(t, configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode)
	c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
	t.Logf("test took %s", time.Since(start).Round(time.Second))
}

// waitNMStateOffFor waits until the NMState stack is off with a message that
// names platform (the one the decision took), and the ClusterOperator
// settled.
func waitNMStateOffFor(t *testing.T, c *framework.Cluster, platform string) *nodev1alpha1.NodeOperator {
	t.Helper()
	no := c.WaitForNodeOperator(t, 2*time.Minute, time.Second, func(no *nodev1alpha1.NodeOperator) string {
		s := framework.StackStatus(no, nodev1alpha1.NMStateStack)
		if s == nil || s.Enabled || !strings.Contains(s.Message, platform) {
			return fmt.Sprintf("nmstate stack %+v: want off, decided for platform %s", s, platform)
		}
		return ""
	})
	c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
	return no
}
