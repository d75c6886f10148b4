//go:build e2e

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/openshift/library-go/pkg/assets/create"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift/cluster-node-operator/test/e2e/framework"
)

// installNNCP is what an administrator puts in openshift-install's manifests/.
const installNNCP = `apiVersion: nmstate.io/v1
kind: NodeNetworkConfigurationPolicy
metadata:
  name: install-time-bond
spec:
  desiredState:
    interfaces:
    - name: bond0
      type: bond
      state: up
      link-aggregation: {mode: active-backup, port: [eth1, eth2]}
`

// nodeNetworkCRDs are the payload's NodeNetwork* CRDs.
var nodeNetworkCRDs = []string{"nodenetworkconfigurationpolicies.nmstate.io", "nodenetworkstates.nmstate.io", "nodenetworkconfigurationenactments.nmstate.io"}

// TestInstallNNCPFromManifests: docs/test-behaviours.md. cluster-bootstrap's
// phase-2 creation (library-go's assets/create) runs alongside the real CVO.
func TestInstallNNCPFromManifests(t *testing.T) {
	t.Run("BareMetal", func(t *testing.T) {
		in, _ := installWithNNCP(t, "", configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode, time.Hour, false)
		double := framework.StartNMStateOperatorDouble(t, in.cfg)
		framework.Eventually(t, 5*time.Minute, 2*time.Second, func() (bool, error) {
			p, err := in.dyn.Resource(nncpGVR).Get(context.Background(), "install-time-bond", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return nncpCondition(p.Object, "Available") == "True/SuccessfullyConfigured", nil
		}, "the NNCP to be Available (SuccessfullyConfigured) through the handler's double")
		if r := double.Refused(); len(r) > 0 {
			t.Errorf("the API server refused the NMState operator's or handler's requests: %v", r)
		}
		t.Run("NoWritesToTheNodeCRDsAtSteadyState", func(t *testing.T) { noCRDWrites(t, in, 5*time.Minute) })
	})
	t.Run("SingleNodeBootstrapInPlace", func(t *testing.T) {
		installWithNNCP(t, "single-node-developer", configv1.BareMetalPlatformType, configv1.SingleReplicaTopologyMode, 5*time.Minute, true)
	})
	t.Run("AWS", func(t *testing.T) {
		_, c := installWithNNCP(t, "", configv1.AWSPlatformType, configv1.HighlyAvailableTopologyMode, time.Hour, false)
		c.WaitForNodeOperator(t, 2*time.Minute, 2*time.Second, framework.ConditionIs("NMStateAvailable", "True",
			"NodeNetworkConfigurationPolicies exist and nothing applies them while NMState is not deployed; they are kept; to apply them, set spec.nmstate.state=Enabled"))
	})
}

// installWithNNCP installs the payload with the real CVO on platform while
// library-go's assets/create creates the NNCP from a manifests directory
// within window; pivot: the operator's pod runs only once the creation
// returned (bootstrap-in-place runs no workload before its pivot).
func installWithNNCP(t *testing.T, profile string, platform configv1.PlatformType, topology configv1.TopologyMode, window time.Duration, pivot bool) (*installation, *framework.Cluster) {
	c := framework.NewCluster(t)
	c.SetInfrastructure(t, platform, topology)
	t.Cleanup(func() { c.SetInfrastructure(t, configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode) })
	in := newInstallation(t, profile)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "99_nncp.yaml"), []byte(installNNCP), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = in.dyn.Resource(nncpGVR).Delete(context.Background(), "install-time-bond", metav1.DeleteOptions{})
	})
	monitor := framework.StartClusterOperatorMonitor(t, in.cfg, nodeClusterOperator)

	created := make(chan error, 1)
	start, took := time.Now(), time.Duration(0)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), window)
		defer cancel()
		err := create.EnsureManifestsCreated(ctx, dir, in.cfg, create.CreateOptions{})
		took = time.Since(start)
		created <- err
	}()
	waitCreated := func() {
		if err := <-created; err != nil {
			t.Fatalf("bootkube would fail: the NNCP was not created within %s: %v", window, err)
		}
		t.Logf("the NNCP was created %s into the %s window", took.Round(time.Second), window)
	}
	if pivot {
		in.installWithCVO(func() {
			waitCreated()
			// No operator ran yet (the pod runner starts the first), so the
			// CRDs can only have come from the payload.
			if _, err := in.kube.CoreV1().Namespaces().Get(context.Background(), "openshift-nmstate", metav1.GetOptions{}); err == nil {
				t.Errorf("before the pivot, the NMState stack is deployed")
			}
		})
	} else {
		in.installWithCVO(nil)
		waitCreated()
	}
	p, err := in.dyn.Resource(nncpGVR).Get(context.Background(), "install-time-bond", metav1.GetOptions{})
	if err != nil || p.GetGeneration() != 1 {
		t.Errorf("the NNCP: %v, generation %d: want it as created", err, p.GetGeneration())
	}
	for _, iv := range monitor.Intervals() {
		if iv.Type == configv1.OperatorAvailable && iv.Status == configv1.ConditionFalse {
			t.Errorf("ClusterOperator node was Available=False: %s: %s", iv.Reason, iv.Message)
		}
	}
	return in, c
}

// nncpCondition is "<status>/<reason>" of a condition of a policy.
func nncpCondition(obj map[string]interface{}, typ string) string {
	status, _ := obj["status"].(map[string]interface{})
	conds, _ := status["conditions"].([]interface{})
	for _, c := range conds {
		if m, _ := c.(map[string]interface{}); m["type"] == typ {
			return m["status"].(string) + "/" + m["reason"].(string)
		}
	}
	return ""
}

// noCRDWrites: the CVO and the operand's double both apply the node CRDs;
// neither writes over a period that spans their resyncs.
func noCRDWrites(t *testing.T, in *installation, period time.Duration) {
	ext := in.dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	versions := func() string {
		var rv []string
		for _, name := range nodeNetworkCRDs {
			crd, err := ext.Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			rv = append(rv, name+"@"+crd.GetResourceVersion())
		}
		return strings.Join(rv, " ")
	}
	before, start := versions(), time.Now()
	framework.Eventually(t, period+time.Minute, 15*time.Second, func() (bool, error) {
		if now := versions(); now != before {
			t.Fatalf("the node CRDs were written after %s: %s, then %s", time.Since(start).Round(time.Second), before, now)
		}
		return time.Since(start) >= period, nil
	}, "the node CRDs to stay unwritten for "+period.String())
}
