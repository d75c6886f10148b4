package framework

// The MCO stand-in's operator part: MachineConfiguration cluster's node
// disruption policy status (docs/mco-standin.md "Policy status").

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

const (
	MCOPolicyStatusManager  = "e2e-mco-standin-operator" // its field manager
	MCOPolicyStatusInterval = time.Second                // about as fast as MCO's operator reacts
)

// ClusterPolicies is MergeClusterPolicies without MCO's defaults, which
// cover no path of ours and none a test changes (docs/mco-standin.md).
func ClusterPolicies(spec operatorv1.NodeDisruptionPolicyConfig) operatorv1.NodeDisruptionPolicyClusterStatus {
	out := operatorv1.NodeDisruptionPolicyClusterStatus{
		SSHKey: operatorv1.NodeDisruptionPolicyStatusSSHKey{Actions: []operatorv1.NodeDisruptionPolicyStatusAction{{Type: operatorv1.NoneStatusAction}}}}
	for _, f := range spec.Files {
		entry := operatorv1.NodeDisruptionPolicyStatusFile{Path: f.Path, Actions: []operatorv1.NodeDisruptionPolicyStatusAction{}}
		for _, a := range f.Actions {
			entry.Actions = append(entry.Actions, operatorv1.NodeDisruptionPolicyStatusAction{Type: operatorv1.NodeDisruptionPolicyStatusActionType(a.Type), Reload: a.Reload, Restart: a.Restart})
		}
		out.Files = append(out.Files, entry)
	}
	return out
}

// PolicyStatusReady: the status was computed for the object's generation.
func PolicyStatusReady(mc *operatorv1.MachineConfiguration) bool {
	return mc != nil && mc.Status.ObservedGeneration == mc.Generation
}

// syncPolicyStatus writes the status when it differs and says whether it
// wrote; a missing object is left to the tests.
func syncPolicyStatus(ctx context.Context, dyn dynamic.Interface) (bool, error) {
	u, err := dyn.Resource(MachineConfigurationGVR).Get(ctx, "cluster", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	mc := &operatorv1.MachineConfiguration{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, mc); err != nil {
		return false, err
	}
	policies := ClusterPolicies(mc.Spec.NodeDisruptionPolicy)
	if mc.Status.ObservedGeneration == mc.Generation && reflect.DeepEqual(mc.Status.NodeDisruptionPolicyStatus.ClusterPolicies, policies) {
		return false, nil
	}
	patch, err := json.Marshal(map[string]interface{}{"status": map[string]interface{}{
		"observedGeneration":         mc.Generation,
		"nodeDisruptionPolicyStatus": operatorv1.NodeDisruptionPolicyStatus{ClusterPolicies: policies},
	}})
	if err != nil {
		return false, err
	}
	// A merge patch replaces the lists whole, as MCO's status update does.
	_, err = dyn.Resource(MachineConfigurationGVR).Patch(ctx, "cluster", types.MergePatchType, patch,
		metav1.PatchOptions{FieldManager: MCOPolicyStatusManager}, "status")
	return err == nil, err
}

// RunMCOPolicyStatus keeps the policy status until ctx ends (outside a
// test: local-cluster mco-policy-status); logf reports a new error.
func RunMCOPolicyStatus(ctx context.Context, admin *rest.Config, logf func(format string, args ...interface{})) {
	dyn := dynamic.NewForConfigOrDie(admin)
	last := ""
	wait.NonSlidingUntilWithContext(ctx, func(ctx context.Context) {
		pass, cancel := context.WithTimeout(ctx, 30*time.Second)
		_, err := syncPolicyStatus(pass, dyn)
		cancel()
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if msg != "" && msg != last && ctx.Err() == nil {
			logf("MCO stand-in (operator part): %v (retrying)", err)
		}
		last = msg
	}, MCOPolicyStatusInterval)
}

// StartMCOPolicyStatus runs RunMCOPolicyStatus until the test ends (StartOperator's default).
func StartMCOPolicyStatus(t testing.TB, admin *rest.Config) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		RunMCOPolicyStatus(ctx, admin, t.Logf)
	}()
	t.Cleanup(func() { cancel(); <-done })
}
