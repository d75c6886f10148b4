//go:build e2e

package e2e

// Fault injection: docs/reliability.md (FAULT_ITERATIONS, default 5, leaders killed).

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

const faultNMStateNamespace = "openshift-nmstate"

// TestFaults: docs/test-behaviours.md (no step declares a disruption).
func TestFaults(t *testing.T) {
	c, op := framework.Setup(t, framework.OperatorOptions{})
	baseline := operandsWithBothStacks(t)
	t.Run("KilledLeaderIsReplaced", func(t *testing.T) { testKilledLeader(t, c, op, baseline) })
	// These two start an operator of their own: Setup's steps down first (KilledLeaderIsReplaced may have ended it).
	t.Run("MissingOptionalAPIs", func(t *testing.T) { op.Stop(); testMissingOptionalAPIs(t, c) })
	t.Run("APIServerRestart", func(t *testing.T) { op.Stop(); testAPIServerRestart(t, c, baseline) })
}

// done turns a check's answer, what is still missing ("" when nothing is), into framework.Eventually's.
func done(why string) (bool, error) {
	if why != "" {
		return false, errors.New(why)
	}
	return true, nil
}

// rolloutState is which stacks are asked for.
type rolloutState struct{ metrics, nmstate bool }

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
}

// operands lists, as kind/name, the DaemonSets, Secrets and ConfigMaps of the operator namespace and the Deployments of openshift-nmstate.
func operands(ctx context.Context, t *testing.T) ([]string, error) {
	dyn := dynamic.NewForConfigOrDie(framework.KubeConfig(t))
	var out []string
	for _, l := range []struct {
		kind, ns string
		gvr      schema.GroupVersionResource
	}{
		{"DaemonSet", crioMetricsNamespace, schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}},
		{"Secret", crioMetricsNamespace, schema.GroupVersionResource{Version: "v1", Resource: "secrets"}},
		{"ConfigMap", crioMetricsNamespace, schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}},
		{"Deployment", faultNMStateNamespace, schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}},
	} {
		list, err := dyn.Resource(l.gvr).Namespace(l.ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, o := range list.Items {
			if l.kind != "Deployment" || o.GetDeletionTimestamp() == nil {
				out = append(out, l.kind+"/"+o.GetName())
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

func operandsWithBothStacks(t *testing.T) []string {
	var baseline []string
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		var err error
		baseline, err = operands(context.Background(), t)
		return slices.Contains(baseline, "DaemonSet/crio-metrics") && slices.Contains(baseline, "Deployment/nmstate-operator"), err
	}, "both stacks deployed")
	return baseline
}

// diff: each stack's baseline operands exist exactly when it is on, nothing new, none lost.
func (s rolloutState) diff(got, baseline []string) string {
	var wrong []string
	for _, o := range baseline {
		on := true
		switch {
		case strings.Contains(o, "/crio-metrics"):
			on = s.metrics
		case o == "Deployment/nmstate-operator":
			on = s.nmstate
		case !s.metrics:
			continue // the metrics stack's client CA copy goes with it
		}
		if slices.Contains(got, o) != on {
			wrong = append(wrong, fmt.Sprintf("%s present=%t", o, !on))
		}
	}
	for _, o := range got {
		if !slices.Contains(baseline, o) {
			wrong = append(wrong, o+" was not there with both stacks on")
		}
	}
	return strings.Join(wrong, "; ")
}

// waitConverged waits until the ClusterOperator is settled, the stack decisions are state's and the operands are exactly state's.
func waitConverged(t *testing.T, c *framework.Cluster, op *framework.Process, state rolloutState, baseline []string, what string) {
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
		got, err := operands(ctx, t)
		if err != nil {
			return false, err
		}
		return done(state.diff(got, baseline))
	}, what+": convergence; operator log "+op.LogPath)
}

const (
	leaseDuration, leaseMargin = 15 * time.Second, 10 * time.Second
	logAcquired                = "Successfully acquired lease"
)

// testKilledLeader: docs/test-behaviours.md (KilledLeaderIsReplaced).
func testKilledLeader(t *testing.T, c *framework.Cluster, leader *framework.Process, baseline []string) {
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	t.Logf("random seed %d", seed)
	state := rolloutState{metrics: true, nmstate: true}
	for i := 1; i <= envCount(t, "FAULT_ITERATIONS", 5); i++ {
		standby := framework.StartOperator(t, framework.OperatorOptions{})
		framework.Eventually(t, time.Minute, 500*time.Millisecond, func() (bool, error) {
			return strings.Contains(standby.Log(), "Attempting to acquire leader lease"), nil
		}, "the standby tries to acquire the lease")
		holder := leaseHolder(t)
		// Every other flip turns a stack back on: kills also hit creations.
		if i%2 == 1 {
			state.metrics = !state.metrics
		} else {
			state.nmstate = !state.nmstate
		}
		state.apply(t, c)
		killAt := time.Now().Add(time.Duration(rng.Int63n(int64(4 * time.Second))))
		framework.Eventually(t, 5*time.Second, 50*time.Millisecond, func() (bool, error) { return time.Now().After(killAt), nil }, "a random moment of the rollout")
		if got := leaseHolder(t); got != holder || got == "" {
			t.Fatalf("kill %d: lease holder changed from %q to %q with both replicas running", i, holder, got)
		}
		if act := controllerActivity(standby.Log()); len(act) > 0 {
			t.Fatalf("kill %d: the standby (log %s) acts while the leader runs:\n%s", i, standby.LogPath, strings.Join(act, "\n"))
		}
		leader.Kill()
		killed := time.Now()
		framework.Eventually(t, leaseDuration+leaseMargin+5*time.Second, 200*time.Millisecond, func() (bool, error) {
			h := leaseHolder(t)
			return h != "" && h != holder && strings.Contains(standby.Log(), logAcquired), nil
		}, fmt.Sprintf("kill %d: the standby takes the lease", i))
		if took := time.Since(killed); took > leaseDuration+leaseMargin {
			t.Errorf("kill %d: takeover took %s, more than lease duration %s + %s", i, took, leaseDuration, leaseMargin)
		}
		waitConverged(t, c, standby, state, baseline, fmt.Sprintf("kill %d (%+v)", i, state))
		leader = standby
	}
	state = rolloutState{metrics: true, nmstate: true}
	state.apply(t, c)
	waitConverged(t, c, leader, state, baseline, "back to both stacks on")
}

// controllerActivity: the log lines only a leader writes (controllers starting and syncing).
func controllerActivity(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, logAcquired) || strings.Contains(l, "Starting #") || strings.Contains(l, "clusteroperator/node diff") ||
			(strings.Contains(l, "Event(") && !strings.Contains(l, "LeaderElection")) {
			out = append(out, l)
		}
	}
	return out
}

func leaseHolder(t *testing.T) string {
	l, err := framework.KubeClient(t).CoordinationV1().Leases(operatorNamespace).Get(context.Background(), "cluster-node-operator-lock", metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// localCluster runs hack/local-cluster.sh with the test's environment (the LCP_* variables of the cluster $KUBECONFIG points at).
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

// testAPIServerRestart: docs/test-behaviours.md (APIServerRestart).
func testAPIServerRestart(t *testing.T, c *framework.Cluster, baseline []string) {
	// The production leader election timings (library-go's OpenShift
	// defaults), not the framework's 15 s lease: with a 10 s renew deadline
	// an API server down for more than about 8 s makes the leader lose its
	// lease and exit, by design.
	op := framework.StartOperator(t, framework.OperatorOptions{Args: []string{
		"--leader-election-lease-duration=137s", "--leader-election-renew-deadline=107s", "--leader-election-retry-period=26s",
	}})
	op.WaitLeading(t, time.Minute)
	for i := 1; i <= max(2, envCount(t, "FAULT_ITERATIONS", 5)/4); i++ {
		localCluster(t, "restart-apiserver")
		state := rolloutState{metrics: true, nmstate: i%2 == 0}
		state.apply(t, c)
		waitConverged(t, c, op, state, baseline, fmt.Sprintf("restart %d (%+v)", i, state))
	}
	rolloutState{metrics: true, nmstate: true}.apply(t, c)
	waitConverged(t, c, op, rolloutState{metrics: true, nmstate: true}, baseline, "back to both stacks on")
}

// testMissingOptionalAPIs: docs/test-behaviours.md (MissingOptionalAPIs).
func testMissingOptionalAPIs(t *testing.T, c *framework.Cluster) {
	restore := optionalCRDRestorer(t)
	op := framework.StartOperator(t, framework.OperatorOptions{})
	op.WaitLeading(t, time.Minute)
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
	_, err := framework.KubeClient(t).AppsV1().DaemonSets(crioMetricsNamespace).Get(context.Background(), "crio-metrics", metav1.GetOptions{})
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

// optionalCRDRestorer returns what applies the optional CRDs again as hack/local-cluster.sh up did (the files it lists in $LCP_DIR/crds.txt).
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

// waitMetricsMessage waits until the metrics stack's status message satisfies ok.
func waitMetricsMessage(t *testing.T, c *framework.Cluster, ok func(string) bool, what string) {
	t.Helper()
	c.WaitForNodeOperator(t, 4*time.Minute, 2*time.Second, func(no *nodev1alpha1.NodeOperator) string {
		if s := framework.StackStatus(no, nodev1alpha1.MetricsStack); s == nil || !ok(s.Message) {
			return fmt.Sprintf("the metrics stack's status %+v: want one that %s", s, what)
		}
		return ""
	})
}
