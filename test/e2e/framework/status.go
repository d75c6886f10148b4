package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
)

// Cluster bundles the clients the e2e tests use.
type Cluster struct {
	Config  *rest.Config
	Dynamic dynamic.Interface
	Config1 configclient.Interface
}

// NewCluster returns clients for $KUBECONFIG.
func NewCluster(t testing.TB) *Cluster {
	cfg := KubeConfig(t)
	return &Cluster{Config: cfg, Dynamic: dynamic.NewForConfigOrDie(cfg), Config1: configclient.NewForConfigOrDie(cfg)}
}

// NodeOperator returns the NodeOperator "cluster".
func (c *Cluster) NodeOperator(ctx context.Context) (*nodev1alpha1.NodeOperator, error) {
	u, err := c.Dynamic.Resource(nodev1alpha1.GroupVersionResource).Get(ctx, nodev1alpha1.SingletonName, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	no := &nodev1alpha1.NodeOperator{}
	return no, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, no)
}

// PatchNodeOperatorSpec merge-patches spec of the NodeOperator "cluster".
func (c *Cluster) PatchNodeOperatorSpec(t testing.TB, spec map[string]interface{}) {
	t.Helper()
	data, _ := json.Marshal(map[string]interface{}{"spec": spec})
	_, err := c.Dynamic.Resource(nodev1alpha1.GroupVersionResource).Patch(context.Background(), nodev1alpha1.SingletonName,
		types.MergePatchType, data, metav1.PatchOptions{})
	require.NoError(t, err, "patching nodeoperator spec %s", data)
}

// ResetNodeOperator puts the knobs back to their defaults.
func (c *Cluster) ResetNodeOperator(t testing.TB) {
	c.PatchNodeOperatorSpec(t, map[string]interface{}{
		"managementState": "Managed",
		"metrics":         nil,
		"nmstate":         nil,
		"nodeSettings":    nil,
	})
}

// SetInfrastructure sets the Infrastructure "cluster" status platform type and control-plane topology, creating the object if needed.
func (c *Cluster) SetInfrastructure(t testing.TB, platform configv1.PlatformType, topology configv1.TopologyMode) {
	t.Helper()
	ctx := context.Background()
	infras := c.Config1.ConfigV1().Infrastructures()
	infra, err := infras.Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		infra, err = infras.Create(ctx, &configv1.Infrastructure{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}, metav1.CreateOptions{})
		require.NoError(t, err, "creating infrastructure")
	}
	infra.Status.PlatformStatus = &configv1.PlatformStatus{Type: platform}
	infra.Status.Platform = platform //nolint:staticcheck // kept in sync like the installer does
	infra.Status.ControlPlaneTopology = topology
	infra.Status.InfrastructureTopology = configv1.HighlyAvailableTopologyMode
	if topology == configv1.SingleReplicaTopologyMode {
		infra.Status.InfrastructureTopology = topology
	}
	if _, err := infras.UpdateStatus(ctx, infra, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("setting infrastructure status: %v", err)
	}
}

// ClusterOperator returns ClusterOperator "node".
func (c *Cluster) ClusterOperator(ctx context.Context) (*configv1.ClusterOperator, error) {
	return c.Config1.ConfigV1().ClusterOperators().Get(ctx, "node", metav1.GetOptions{})
}

// COCondition returns the condition of the given type, or nil.
func COCondition(co *configv1.ClusterOperator, t configv1.ClusterStatusConditionType) *configv1.ClusterOperatorStatusCondition {
	for i := range co.Status.Conditions {
		if co.Status.Conditions[i].Type == t {
			return &co.Status.Conditions[i]
		}
	}
	return nil
}

// WaitForClusterOperator waits until ClusterOperator "node" satisfies ok, which returns a description of what is missing ("" when satisfied).
func (c *Cluster) WaitForClusterOperator(t testing.TB, timeout time.Duration, ok func(*configv1.ClusterOperator) string) *configv1.ClusterOperator {
	t.Helper()
	return waitFor(t, "ClusterOperator node", timeout, time.Second, c.ClusterOperator, ok, DescribeClusterOperator)
}

// waitFor polls get until ok answers "", failing with its last answer and the object.
func waitFor[T any](t testing.TB, what string, timeout, interval time.Duration, get func(context.Context) (T, error), ok func(T) string, describe func(T) string) T {
	t.Helper()
	var last T
	why := "not read yet"
	if err := wait.PollUntilContextTimeout(context.Background(), interval, timeout, true, func(ctx context.Context) (bool, error) {
		got, err := get(ctx)
		if why = fmt.Sprint(err); err == nil {
			last, why = got, ok(got)
		}
		return why == "", nil
	}); err != nil {
		t.Fatalf("waiting %s for %s: %v: %s\n%s", timeout, what, err, why, describe(last))
	}
	return last
}

// Settled is true when Available=True, Progressing=False, Degraded=False.
func Settled(co *configv1.ClusterOperator) string {
	want := map[configv1.ClusterStatusConditionType]configv1.ConditionStatus{
		configv1.OperatorAvailable: configv1.ConditionTrue, configv1.OperatorProgressing: configv1.ConditionFalse, configv1.OperatorDegraded: configv1.ConditionFalse,
	}
	var missing []string
	for typ, status := range want {
		if c := COCondition(co, typ); c == nil || c.Status != status {
			missing = append(missing, fmt.Sprintf("%s!=%s", typ, status))
		}
	}
	return strings.Join(missing, ",")
}

// DescribeClusterOperator renders the conditions for a failure message.
func DescribeClusterOperator(co *configv1.ClusterOperator) string {
	if co == nil {
		return "<no ClusterOperator>"
	}
	var b strings.Builder
	for _, c := range co.Status.Conditions {
		fmt.Fprintf(&b, "  %s=%s (%s): %s\n", c.Type, c.Status, c.Reason, c.Message)
	}
	fmt.Fprintf(&b, "  versions: %v\n", co.Status.Versions)
	return b.String()
}

// WaitForStacks waits until status.stacks records the given enablement.
func (c *Cluster) WaitForStacks(t testing.TB, timeout time.Duration, want map[nodev1alpha1.StackName]bool) *nodev1alpha1.NodeOperator {
	t.Helper()
	return c.WaitForNodeOperator(t, timeout, time.Second, func(no *nodev1alpha1.NodeOperator) string {
		for name, enabled := range want {
			if s := StackStatus(no, name); s == nil || s.Enabled != enabled {
				return fmt.Sprintf("status.stacks to record %s enabled=%t", name, enabled)
			}
		}
		return ""
	})
}

// Setup installs what the CVO would, resets Infrastructure and NodeOperator, and starts a settled operator.
func Setup(t testing.TB, opts OperatorOptions) (*Cluster, *Process) {
	t.Helper()
	c := NewCluster(t)
	InstallOperatorPrerequisites(t, c.Config)
	c.SetInfrastructure(t, configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode)
	c.ResetNodeOperator(t)
	op := StartOperator(t, opts)
	t.Cleanup(func() {
		c.SetInfrastructure(t, configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode)
		c.ResetNodeOperator(t)
	})
	op.WaitLeading(t, 2*time.Minute)
	// The ClusterOperator may still read settled from the previous test's operator: first let every controller of this one sync once.
	c.ResyncNow(t, op)
	c.WaitForClusterOperator(t, 4*time.Minute, Settled)
	return c, op
}
