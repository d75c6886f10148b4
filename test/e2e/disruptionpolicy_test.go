//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/criometrics"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodedisruption"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

var (
	machineConfigurationGVR = schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "machineconfigurations"}
	machineConfigGVR        = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigs"}
	dropInMachineConfigs    = []string{"50-master-crio-metrics-tls", "50-worker-crio-metrics-tls"}
)

const (
	otherPolicyManager = "e2e-other-policy-manager"
	otherPolicyPath    = "/etc/e2e/other.conf"
)

// applyMachineConfiguration creates MachineConfiguration cluster with another field manager's policy entry.
func applyMachineConfiguration(t *testing.T, c *framework.Cluster) {
	t.Helper()
	body := `{"apiVersion":"operator.openshift.io/v1","kind":"MachineConfiguration","metadata":{"name":"cluster"},
		"spec":{"managementState":"Managed","nodeDisruptionPolicy":{"files":[{"path":"` + otherPolicyPath + `","actions":[{"type":"None"}]}]}}}`
	_, err := c.Dynamic.Resource(machineConfigurationGVR).Patch(context.Background(), "cluster", types.ApplyPatchType, []byte(body),
		metav1.PatchOptions{FieldManager: otherPolicyManager, Force: new(true)})
	require.NoError(t, err)
}

func getMachineConfiguration(t *testing.T, c *framework.Cluster) *operatorv1.MachineConfiguration {
	t.Helper()
	u, err := c.Dynamic.Resource(machineConfigurationGVR).Get(context.Background(), "cluster", metav1.GetOptions{})
	require.NoError(t, err)
	mc := &operatorv1.MachineConfiguration{}
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, mc))
	return mc
}

func policyFile(mc *operatorv1.MachineConfiguration, path string) *operatorv1.NodeDisruptionPolicySpecFile {
	for i := range mc.Spec.NodeDisruptionPolicy.Files {
		if mc.Spec.NodeDisruptionPolicy.Files[i].Path == path {
			return &mc.Spec.NodeDisruptionPolicy.Files[i]
		}
	}
	return nil
}

// managedBy is the managedFields entry of manager and op, or nil.
func managedBy(mc *operatorv1.MachineConfiguration, manager string, op metav1.ManagedFieldsOperationType) *metav1.ManagedFieldsEntry {
	for i := range mc.ManagedFields {
		if mc.ManagedFields[i].Manager == manager && mc.ManagedFields[i].Operation == op && mc.ManagedFields[i].Subresource == "" {
			return &mc.ManagedFields[i]
		}
	}
	return nil
}

// heldBack is MetricsProgressing's message while the MachineConfigs wait.
func heldBack(wait string) string { return criometrics.MachineConfigsHeldBack + wait }

// waitHeldBackEnds: MetricsProgressing no longer holds the MachineConfigs back, MetricsDegraded False.
func waitHeldBackEnds(t *testing.T, c *framework.Cluster) {
	t.Helper()
	c.WaitForNodeOperator(t, 2*time.Minute, 2*time.Second, func(no *nodev1alpha1.NodeOperator) string {
		if cond := framework.NodeOperatorCondition(no, "MetricsProgressing"); cond == nil || strings.Contains(cond.Message, criometrics.MachineConfigsHeldBack) {
			return fmt.Sprintf("MetricsProgressing: %+v", cond)
		}
		if cond := framework.NodeOperatorCondition(no, "MetricsDegraded"); cond == nil || cond.Status != operatorv1.ConditionFalse {
			return fmt.Sprintf("MetricsDegraded: %+v", cond)
		}
		return ""
	})
}

// assertNoDropInMachineConfigs: neither drop-in MachineConfig exists.
func assertNoDropInMachineConfigs(t *testing.T, c *framework.Cluster, why string) {
	t.Helper()
	for _, name := range dropInMachineConfigs {
		_, err := c.Dynamic.Resource(machineConfigGVR).Get(context.Background(), name, metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "MachineConfig %s exists %s (%v)", name, why, err)
	}
}

// startWithoutMachineConfiguration: no MachineConfiguration cluster nor drop-in MachineConfigs; one is left at the end.
func startWithoutMachineConfiguration(t *testing.T) *framework.Cluster {
	t.Helper()
	c := framework.NewCluster(t)
	if !framework.Served(t, framework.KubeClient(t), machineConfigurationGVR) || !framework.Served(t, framework.KubeClient(t), machineConfigGVR) {
		framework.Unavailable(t, "operator.openshift.io/v1 machineconfigurations or machineconfiguration.openshift.io/v1 machineconfigs is not served (hack/local-cluster.sh installs both)")
	}
	ctx := context.Background()
	framework.InstallOperatorPrerequisites(t, c.Config)
	c.SetInfrastructure(t, configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode)
	c.ResetNodeOperator(t)
	t.Cleanup(func() {
		c.SetInfrastructure(t, configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode)
		c.ResetNodeOperator(t)
		// Leave a MachineConfiguration cluster, as hack/local-cluster.sh does.
		if _, err := c.Dynamic.Resource(machineConfigurationGVR).Get(ctx, "cluster", metav1.GetOptions{}); apierrors.IsNotFound(err) {
			applyMachineConfiguration(t, c)
		}
	})

	del := func(gvr schema.GroupVersionResource, name string) {
		if err := c.Dynamic.Resource(gvr).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}
	del(machineConfigurationGVR, "cluster")
	for _, name := range dropInMachineConfigs {
		del(machineConfigGVR, name)
	}
	framework.Eventually(t, time.Minute, time.Second, func() (bool, error) {
		_, err := c.Dynamic.Resource(machineConfigurationGVR).Get(ctx, "cluster", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	}, "MachineConfiguration cluster to be gone")
	return c
}

// TestMetricsNodeDisruptionPolicy: the CRI-O drop-in MachineConfigs wait
// for MCO's node disruption policy (docs/test-behaviours.md). Each subtest
// sets up its start (beforeMCOAnswers, withMCOAnswering), so that it passes
// without the subtests before it.
func TestMetricsNodeDisruptionPolicy(t *testing.T) {
	crdFile := machineConfigurationCRDFile(t)
	c := startWithoutMachineConfiguration(t)
	// No stand-in for MCO's operator: the subtests that need one start it.
	op := framework.StartOperator(t, framework.OperatorOptions{NoMCOPolicyStatus: true})
	op.WaitLeading(t, 2*time.Minute)
	t.Run("WithoutMachineConfiguration", func(t *testing.T) {
		beforeMCOAnswers(t, c, false)
		heldBackWithoutMachineConfiguration(t, c)
	})
	t.Run("BeforeMCOListsTheEntry", func(t *testing.T) {
		beforeMCOAnswers(t, c, false)
		heldBackUntilTheStatusListsTheEntry(t, c, op)
	})
	t.Run("MCOListsTheEntry", func(t *testing.T) {
		beforeMCOAnswers(t, c, true)
		withMCOAnswering(t, c)
		assertPolicyEntryOwnedAndFirst(t, c)
	})
	t.Run("APINotServed", func(t *testing.T) {
		withMCOAnswering(t, c)
		heldBackWhileTheAPIIsNotServed(t, c, op, crdFile)
	})
	t.Run("OptOutKeepsTheEntry", func(t *testing.T) {
		withMCOAnswering(t, c)
		optOutKeepsTheEntry(t, c, op)
	})
}

// beforeMCOAnswers is a start before MCO's operator ever answered: the
// stack on by default, no drop-in MachineConfig, and MachineConfiguration
// cluster absent or (withObject) another manager's, without MCO's status.
// Only MCO's operator could take a cluster back here from a later
// subtest's state, so that is refused; in this test's order none comes first.
func beforeMCOAnswers(t *testing.T, c *framework.Cluster, withObject bool) {
	t.Helper()
	c.ResetNodeOperator(t)
	_, err := c.Dynamic.Resource(machineConfigurationGVR).Get(context.Background(), "cluster", metav1.GetOptions{})
	exists := err == nil
	if !exists {
		require.True(t, apierrors.IsNotFound(err), "MachineConfiguration cluster: %v", err)
	}
	switch {
	case exists && (!withObject || getMachineConfiguration(t, c).Status.ObservedGeneration != 0):
		t.Fatalf("MachineConfiguration cluster exists (want it: %v) or carries MCO's status: a subtest with MCO's stand-in ran before", withObject)
	case !exists && withObject:
		applyMachineConfiguration(t, c)
	}
	assertNoDropInMachineConfigs(t, c, "at the start")
}

// withMCOAnswering is a start with MCO's operator (its stand-in, for this
// subtest): MachineConfiguration cluster with another manager's entry, the
// stack on, its drop-ins written, nothing held back, the ClusterOperator settled.
func withMCOAnswering(t *testing.T, c *framework.Cluster) {
	t.Helper()
	c.ResetNodeOperator(t)
	if _, err := c.Dynamic.Resource(machineConfigurationGVR).Get(context.Background(), "cluster", metav1.GetOptions{}); apierrors.IsNotFound(err) {
		applyMachineConfiguration(t, c)
	}
	framework.StartMCOPolicyStatus(t, c.Config)
	waitForMetricsObjects(t, c, true, 3*time.Minute)
	waitHeldBackEnds(t, c)
	c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
}

// heldBackWithoutMachineConfiguration: all but the MachineConfigs and ServiceMonitor deploy; the operator never creates the object.
func heldBackWithoutMachineConfiguration(t *testing.T, c *framework.Cluster) {
	waitForMetricsObjects(t, c, true, 3*time.Minute, "machineconfigs", "servicemonitors")
	c.WaitForNodeOperator(t, 2*time.Minute, 2*time.Second,
		framework.ConditionIs("MetricsProgressing", operatorv1.ConditionTrue, heldBack(nodedisruption.WaitNoCluster)))
	assertNoDropInMachineConfigs(t, c, "without MachineConfiguration cluster")
	_, err := c.Dynamic.Resource(machineConfigurationGVR).Get(context.Background(), "cluster", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "the operator must never create MachineConfiguration cluster: %v", err)
}

// heldBackUntilTheStatusListsTheEntry: MCO's object appears without status: our entry in the spec, the MachineConfigs wait.
func heldBackUntilTheStatusListsTheEntry(t *testing.T, c *framework.Cluster, op *framework.Process) {
	c.PatchNodeOperatorSpec(t, map[string]interface{}{"metrics": map[string]interface{}{"state": "Disabled", "managementState": nil}})
	waitForMetricsObjects(t, c, false, 2*time.Minute)
	applyMachineConfiguration(t, c)
	c.PatchNodeOperatorSpec(t, map[string]interface{}{"metrics": nil})
	waitForMetricsObjects(t, c, true, 3*time.Minute, "machineconfigs", "servicemonitors")
	c.WaitForNodeOperator(t, 2*time.Minute, 2*time.Second,
		framework.ConditionIs("MetricsProgressing", operatorv1.ConditionTrue, heldBack(nodedisruption.WaitStatus)))
	framework.Eventually(t, time.Minute, time.Second, func() (bool, error) {
		mc := getMachineConfiguration(t, c)
		return policyFile(mc, criometrics.DropInPath) != nil, nil
	}, "our entry in the spec")
	c.ResyncNow(t, op) // one more look of every controller: still nothing
	assertNoDropInMachineConfigs(t, c, "before MCO's status lists the entry")
	waiting := getMachineConfiguration(t, c)
	assert.Zero(t, waiting.Status.ObservedGeneration, "no one wrote the status")
}

// heldBackWhileTheAPIIsNotServed: without the API the MachineConfigs stay, held back; when it is back the entry is applied and the wait ends.
func heldBackWhileTheAPIIsNotServed(t *testing.T, c *framework.Cluster, op *framework.Process, crdFile string) {
	const crd = "crd/machineconfigurations.operator.openshift.io"
	restored := false
	restore := func() {
		// As hack/local-cluster.sh up applied it: openshift/api's file for
		// the Default feature set, whatever the cluster's.
		kubectl(t, "apply", "--server-side", "--force-conflicts", "--field-manager=local-cluster", "-f", crdFile)
		kubectl(t, "wait", "--for=condition=Established", "--timeout=120s", crd)
		framework.Eventually(t, time.Minute, time.Second, func() (bool, error) {
			return framework.Served(t, framework.KubeClient(t), machineConfigurationGVR), nil
		}, "machineconfigurations to be served")
		applyMachineConfiguration(t, c)
		restored = true
	}
	t.Cleanup(func() {
		if !restored {
			restore()
		}
	})
	kubectl(t, "delete", "--wait=true", crd)
	c.RediscoverNow(t, op)
	c.WaitForNodeOperator(t, 3*time.Minute, 2*time.Second,
		framework.ConditionIs("MetricsProgressing", operatorv1.ConditionTrue, heldBack(nodedisruption.WaitNotServed)))
	for _, name := range dropInMachineConfigs {
		_, err := c.Dynamic.Resource(machineConfigGVR).Get(context.Background(), name, metav1.GetOptions{})
		assert.NoError(t, err, "MachineConfig %s deleted without the MachineConfiguration API", name)
	}
	restore()
	c.RediscoverNow(t, op)
	framework.Eventually(t, 3*time.Minute, 2*time.Second, func() (bool, error) {
		mc := getMachineConfiguration(t, c)
		return policyFile(mc, criometrics.DropInPath) != nil, nil
	}, "the policy entry to be applied once MachineConfiguration cluster is back")
	waitHeldBackEnds(t, c)
	c.WaitForClusterOperator(t, 2*time.Minute, framework.Settled)
}

// optOutKeepsTheEntry: the MachineConfigs go, our entry stays, the object is not written again.
func optOutKeepsTheEntry(t *testing.T, c *framework.Cluster, op *framework.Process) {
	mc := getMachineConfiguration(t, c)
	c.PatchNodeOperatorSpec(t, map[string]interface{}{"metrics": map[string]interface{}{"state": "Disabled", "managementState": nil}})
	waitForMetricsObjects(t, c, false, 2*time.Minute)
	c.ResyncNow(t, op) // as on its resync: it must not (wrongly) remove the entry
	after := getMachineConfiguration(t, c)
	assert.NotNil(t, policyFile(after, criometrics.DropInPath), "the entry was removed with the stack: %+v", after.Spec.NodeDisruptionPolicy)
	assert.NotNil(t, policyFile(after, otherPolicyPath))
	assert.NotNil(t, managedBy(after, criometrics.DisruptionPolicyFieldManager, metav1.ManagedFieldsOperationApply))
	assert.Equal(t, mc.ResourceVersion, after.ResourceVersion, "MachineConfiguration cluster written after the entry was in place")
}

// machineConfigurationCRDFile is the CRD file hack/local-cluster.sh applied ($LCP_DIR/crds.txt).
func machineConfigurationCRDFile(t *testing.T) string {
	lcpDir := os.Getenv("LCP_DIR")
	if lcpDir == "" {
		framework.Unavailable(t, "LCP_DIR is not set: restoring the CRD needs $LCP_DIR/crds.txt")
	}
	raw, err := os.ReadFile(filepath.Join(lcpDir, "crds.txt"))
	require.NoError(t, err)
	for _, f := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if strings.Contains(f, "_machineconfigurations") {
			return f
		}
	}
	framework.Unavailable(t, "no MachineConfiguration CRD in %s/crds.txt (hack/local-cluster.sh up writes it)", lcpDir)
	return ""
}

// assertPolicyEntryOwnedAndFirst: our entry beside the other's, owned by our field manager alone, listed before the MachineConfigs were written.
func assertPolicyEntryOwnedAndFirst(t *testing.T, c *framework.Cluster) {
	t.Helper()
	mc := getMachineConfiguration(t, c)
	ours := policyFile(mc, criometrics.DropInPath)
	require.NotNil(t, ours, "no node disruption policy entry for %s: %+v", criometrics.DropInPath, mc.Spec.NodeDisruptionPolicy)
	assert.Equal(t, []operatorv1.NodeDisruptionPolicySpecAction{{Type: operatorv1.RestartSpecAction, Restart: &operatorv1.RestartService{ServiceName: "crio.service"}}}, ours.Actions)
	other := policyFile(mc, otherPolicyPath)
	require.NotNil(t, other, "the other manager's entry is gone: %+v", mc.Spec.NodeDisruptionPolicy)
	assert.Equal(t, []operatorv1.NodeDisruptionPolicySpecAction{{Type: operatorv1.NoneSpecAction}}, other.Actions)
	assert.Equal(t, operatorv1.Managed, mc.Spec.ManagementState)

	// Field ownership: our manager owns our entry and nothing else; the
	// other manager still owns its entry and managementState.
	owned := managedBy(mc, criometrics.DisruptionPolicyFieldManager, metav1.ManagedFieldsOperationApply)
	require.NotNil(t, owned, "no Apply managedFields entry of %s: %+v", criometrics.DisruptionPolicyFieldManager, mc.ManagedFields)
	fields := string(owned.FieldsV1.Raw)
	assert.Contains(t, fields, fmt.Sprintf(`k:{\"path\":\"%s\"}`, criometrics.DropInPath))
	for _, notOurs := range []string{otherPolicyPath, "managementState", "f:status"} {
		assert.NotContains(t, fields, notOurs)
	}
	theirs := managedBy(mc, otherPolicyManager, metav1.ManagedFieldsOperationApply)
	require.NotNil(t, theirs, "the other manager lost all its fields: %+v", mc.ManagedFields)
	assert.Contains(t, string(theirs.FieldsV1.Raw), otherPolicyPath)
	assert.Contains(t, string(theirs.FieldsV1.Raw), "managementState")
	for _, m := range mc.ManagedFields {
		if m.Manager != criometrics.DisruptionPolicyFieldManager && m.Manager != otherPolicyManager && m.Manager != framework.MCOPolicyStatusManager {
			t.Errorf("unexpected writer of MachineConfiguration cluster: %s %s", m.Manager, m.Operation)
		}
	}
	assert.Equal(t, mc.Generation, mc.Status.ObservedGeneration)

	// The status (the object's last write) came before the MachineConfigs:
	// on one etcd resourceVersions order writes, timestamps are too coarse.
	statusRevision, err := strconv.ParseInt(mc.ResourceVersion, 10, 64)
	require.NoError(t, err)
	for _, name := range dropInMachineConfigs {
		obj, err := c.Dynamic.Resource(machineConfigGVR).Get(context.Background(), name, metav1.GetOptions{})
		require.NoError(t, err)
		mcRevision, err := strconv.ParseInt(obj.GetResourceVersion(), 10, 64)
		require.NoError(t, err)
		assert.Less(t, statusRevision, mcRevision, "policy status (revision %d) written after MachineConfig %s (revision %d)", statusRevision, name, mcRevision)
	}
}
