//go:build e2e

package e2e

// Discovery faults: a failed discovery request never switches the CRI-O
// metrics path (docs/architecture.md, "When a request fails").

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// optionalDiscovery are the discovery requests of the optional APIs, as
// client-go's ServerResourcesForGroupVersion sends them.
var optionalDiscovery = []string{
	"/apis/machineconfiguration.openshift.io/v1",
	"/apis/monitoring.coreos.com/v1",
	"/apis/operator.openshift.io/v1",
}

// TestDiscoveryFaults: docs/test-behaviours.md.
func TestDiscoveryFaults(t *testing.T) {
	c := framework.NewCluster(t)
	framework.InstallOperatorPrerequisites(t, c.Config)
	c.SetInfrastructure(t, configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode)
	c.ResetNodeOperator(t)
	t.Run("PlatformPath", func(t *testing.T) { testDiscoveryFaultsPlatformPath(t, c) })
	t.Run("OwnTLS", func(t *testing.T) { testDiscoveryFaultsOwnTLS(t, c) })
}

// testDiscoveryFaultsPlatformPath: MCO's kube-rbac-proxy-crio serves and
// the operator has recorded it; the operator restarts while discovery
// answers 503, runs through 429, one answer, and 503 again: PlatformProxy
// throughout, never our DaemonSet or drop-in, never Degraded (the suite
// monitor).
func testDiscoveryFaultsPlatformPath(t *testing.T, c *framework.Cluster) {
	framework.InstallPlatformCRIOMetrics(t, c.Config, nodeNames(t, c))
	first := framework.StartOperator(t, framework.OperatorOptions{})
	first.WaitLeading(t, 2*time.Minute)
	c.ResyncNow(t, first) // the status may still be the previous operator's
	waitMetricsMode(t, c, nodev1alpha1.PlatformProxy, framework.PlatformProxyName)
	first.Stop()
	deleteOperatorStack(t, c) // what an earlier test's own stack left
	never := neverCreated(t, c, operatorStackRefs)
	proxy := framework.StartFaultProxy(t, c.Config)
	proxy.Fail(http.StatusServiceUnavailable, optionalDiscovery...)
	op := framework.StartOperator(t, framework.OperatorOptions{Kubeconfig: proxy.Kubeconfig})
	op.WaitLeading(t, 2*time.Minute)
	waitMetricsMode(t, c, nodev1alpha1.PlatformProxy, framework.PlatformProxyName)
	violations := modeStays(t, c, nodev1alpha1.PlatformProxy)

	refusedBefore, _ := proxy.Counts(optionalDiscovery[0])
	require.Positive(t, refusedBefore, "the operator asked discovery and was refused")
	c.RediscoverNow(t, op)
	proxy.Fail(http.StatusTooManyRequests, optionalDiscovery...)
	c.RediscoverNow(t, op)
	refused, _ := proxy.Counts(optionalDiscovery[0])
	assert.Greater(t, refused, refusedBefore, "discovery was asked again under 429")

	proxy.Fail(0)
	framework.Eventually(t, 3*time.Minute, time.Second, func() (bool, error) {
		c.ResyncNow(t, op)
		_, forwarded := proxy.Counts(optionalDiscovery[0])
		return forwarded > 0, nil
	}, "discovery answered once the fault ended")
	proxy.Fail(http.StatusServiceUnavailable, optionalDiscovery...)
	c.RediscoverNow(t, op)

	assert.Empty(t, violations(), "while discovery failed")
	assert.Empty(t, never(), "the operator's own stack beside the platform path")
}

// testDiscoveryFaultsOwnTLS: no platform path; the own TLS stack runs; an
// operator restarted while discovery answers 503 keeps OperatorTLS and
// its DaemonSet, through 429 too, never Degraded (the suite monitor).
func testDiscoveryFaultsOwnTLS(t *testing.T, c *framework.Cluster) {
	first := framework.StartOperator(t, framework.OperatorOptions{})
	first.WaitLeading(t, 2*time.Minute)
	c.ResyncNow(t, first) // the status may still be the previous operator's
	waitMetricsMode(t, c, nodev1alpha1.OperatorTLS, "")
	c.WaitForClusterOperator(t, 4*time.Minute, framework.Settled)
	daemonSets := framework.KubeClient(t).AppsV1().DaemonSets(crioMetricsNamespace)
	var ds *appsv1.DaemonSet
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		var err error
		ds, err = daemonSets.Get(context.Background(), "crio-metrics", metav1.GetOptions{})
		return err == nil, nil
	}, "DaemonSet crio-metrics")
	first.Stop()

	proxy := framework.StartFaultProxy(t, c.Config)
	proxy.Fail(http.StatusServiceUnavailable, optionalDiscovery...)
	violations := modeStays(t, c, nodev1alpha1.OperatorTLS)
	op := framework.StartOperator(t, framework.OperatorOptions{Kubeconfig: proxy.Kubeconfig})
	op.WaitLeading(t, 2*time.Minute)
	c.RediscoverNow(t, op)
	proxy.Fail(http.StatusTooManyRequests, optionalDiscovery...)
	c.RediscoverNow(t, op)
	refused, forwarded := proxy.Counts(optionalDiscovery[0])
	assert.Equal(t, 0, forwarded, "discovery never answered")
	assert.Positive(t, refused)

	now, err := daemonSets.Get(context.Background(), "crio-metrics", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, ds.UID, now.UID, "the DaemonSet was not removed")
	assert.Empty(t, violations(), "while discovery failed")
}

// modeStays checks every half second, until the returned function is
// called, that the metrics mode is mode; it returns what it saw otherwise.
// The ClusterOperator's invariants are the suite monitor's.
func modeStays(t *testing.T, c *framework.Cluster, mode nodev1alpha1.StackMode) func() []string {
	ctx, cancel := context.WithCancel(context.Background())
	var seen []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			no, err := c.NodeOperator(ctx)
			if err != nil {
				return false, nil
			}
			if s := framework.StackStatus(no, nodev1alpha1.MetricsStack); s == nil || s.Mode != mode {
				seen = append(seen, fmt.Sprintf("%s metrics stack %+v", time.Now().Format(time.TimeOnly), s))
			}
			return false, nil
		})
	}()
	stop := func() []string { cancel(); <-done; return seen }
	t.Cleanup(func() { stop() })
	return stop
}

// nodeNames lists the cluster's nodes.
func nodeNames(t *testing.T, c *framework.Cluster) []string {
	nodes, err := kubernetes.NewForConfigOrDie(c.Config).CoreV1().Nodes().List(framework.Context(t, time.Minute), metav1.ListOptions{})
	require.NoError(t, err)
	var out []string
	for _, n := range nodes.Items {
		out = append(out, n.Name)
	}
	return out
}
