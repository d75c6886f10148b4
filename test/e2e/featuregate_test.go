//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/features"
	"github.com/openshift/cluster-node-operator/pkg/operator/nodesettings"
	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// TestFeatureGateNodeSettings: on a Default cluster the CRD the CVO applies
// does not serve spec.nodeSettings and the operator runs nothing for it
// (the conditions an earlier run with the gate on left are removed); when
// the administrator enables the gate (CustomNoUpgrade listing it) the
// operator exits, and once started again on the feature set's CRD it
// serves and acts on node settings. The suite's other node settings tests
// are the gate-on case at TechPreviewNoUpgrade (hack/test-e2e.sh).
func TestFeatureGateNodeSettings(t *testing.T) {
	const version = "0.0.1-e2e" // StartOperator's
	cfg := framework.KubeConfig(t)
	framework.SetFeatureSet(t, cfg, configv1.Default, version)
	c, op := framework.Setup(t, framework.OperatorOptions{})
	ctx := context.Background()
	nodeOperators := c.Dynamic.Resource(nodev1alpha1.GroupVersionResource)
	settings := []byte(`{"spec":{"nodeSettings":{"tracing":{"endpoint":"collector:4317","crio":{}}}}}`)
	strict := metav1.PatchOptions{FieldValidation: "Strict", DryRun: []string{metav1.DryRunAll}}

	// Off.
	_, err := nodeOperators.Patch(ctx, nodev1alpha1.SingletonName, types.MergePatchType, settings, strict)
	require.ErrorContains(t, err, "nodeSettings", "a Default cluster must not serve spec.nodeSettings")
	c.ResyncNow(t, op)
	no, err := c.NodeOperator(ctx)
	require.NoError(t, err)
	for _, cond := range no.Status.Conditions {
		require.False(t, strings.HasPrefix(cond.Type, nodesettings.Prefix), "condition %s on a Default cluster: the node settings controller ran, or its conditions were left", cond.Type)
	}
	log, err := os.ReadFile(op.LogPath)
	require.NoError(t, err)
	require.Contains(t, string(log), "feature gate "+string(features.NodeOperatorNodeSettings)+" enabled: false")

	// On: the operator leaves on the change, as OpenShift operators do.
	framework.SetFeatureSet(t, cfg, configv1.CustomNoUpgrade, version, features.NodeOperatorNodeSettings)
	framework.Eventually(t, time.Minute, time.Second, func() (bool, error) { return op.Exited(), nil }, "the operator to exit on the feature set change")
	require.Equal(t, 0, op.ExitCode())
	framework.InstallOperatorPrerequisites(t, c.Config) // the CVO, restarted on the change too
	_, err = nodeOperators.Patch(ctx, nodev1alpha1.SingletonName, types.MergePatchType, settings, strict)
	require.NoError(t, err, "the CustomNoUpgrade CRD serves spec.nodeSettings")
	op = framework.StartOperator(t, framework.OperatorOptions{})
	op.WaitLeading(t, 2*time.Minute)
	waitProgressing(t, c, "no node settings", true)

	// It acts on settings it is given: NodeSettingsProgressing tells where
	// the nodes' spans go, and stops once they are removed.
	_, err = nodeOperators.Patch(ctx, nodev1alpha1.SingletonName, types.MergePatchType, settings, metav1.PatchOptions{FieldValidation: "Strict"})
	require.NoError(t, err)
	t.Cleanup(func() {
		_, err := nodeOperators.Patch(ctx, nodev1alpha1.SingletonName, types.MergePatchType, []byte(`{"spec":{"nodeSettings":null}}`), metav1.PatchOptions{})
		require.NoError(t, err)
		waitProgressing(t, c, "collector:4317", false)
	})
	waitProgressing(t, c, "spans go to collector:4317", true)
}

// waitProgressing waits until NodeSettingsProgressing's message contains text (contains) or not (!contains).
func waitProgressing(t *testing.T, c *framework.Cluster, text string, contains bool) {
	t.Helper()
	framework.Eventually(t, 2*time.Minute, time.Second, func() (bool, error) {
		no, err := c.NodeOperator(context.Background())
		if err != nil {
			return false, err
		}
		for _, cond := range no.Status.Conditions {
			if cond.Type == nodesettings.Prefix+"Progressing" {
				return strings.Contains(cond.Message, text) == contains, nil
			}
		}
		return false, nil
	}, fmt.Sprintf("NodeSettingsProgressing's message to contain %q: %v", text, contains))
}
