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

func restartAction(service string) operatorv1.NodeDisruptionPolicyStatusAction {
	return operatorv1.NodeDisruptionPolicyStatusAction{Type: operatorv1.RestartStatusAction,
		Restart: &operatorv1.RestartService{ServiceName: operatorv1.NodeDisruptionPolicyServiceName(service)}}
}

func reloadAction(service string) operatorv1.NodeDisruptionPolicyStatusAction {
	return operatorv1.NodeDisruptionPolicyStatusAction{Type: operatorv1.ReloadStatusAction,
		Reload: &operatorv1.ReloadService{ServiceName: operatorv1.NodeDisruptionPolicyServiceName(service)}}
}

func policyFile(path string, actions ...operatorv1.NodeDisruptionPolicyStatusAction) operatorv1.NodeDisruptionPolicyStatusFile {
	return operatorv1.NodeDisruptionPolicyStatusFile{Path: path, Actions: actions}
}

// mcoDefaultPolicies are MCO's defaults at mcoCommit, in its order.
func mcoDefaultPolicies() operatorv1.NodeDisruptionPolicyClusterStatus {
	none := operatorv1.NodeDisruptionPolicyStatusAction{Type: operatorv1.NoneStatusAction}
	return operatorv1.NodeDisruptionPolicyClusterStatus{
		Files: []operatorv1.NodeDisruptionPolicyStatusFile{
			policyFile("/var/lib/kubelet/config.json", none),
			policyFile("/etc/machine-config-daemon/no-reboot/containers-gpg.pub", reloadAction("crio.service")),
			policyFile("/etc/containers/policy.json", reloadAction("crio.service")),
			policyFile("/etc/containers/registries.conf", operatorv1.NodeDisruptionPolicyStatusAction{Type: operatorv1.SpecialStatusAction}),
			policyFile("/etc/containers/registries.d", reloadAction("crio.service")),
			policyFile("/etc/crio/policies", reloadAction("crio.service")),
			policyFile("/etc/nmstate/openshift", none),
			policyFile("/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt", restartAction("coreos-update-ca-trust.service"), restartAction("crio.service")),
			policyFile("/etc/kubernetes/credential-providers", restartAction("kubelet.service")),
			policyFile("/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf",
				operatorv1.NodeDisruptionPolicyStatusAction{Type: operatorv1.DaemonReloadStatusAction}, restartAction("kubelet.service")),
			policyFile("/etc/iri-registry", restartAction("iri-registry.service")),
			policyFile("/usr/local/bin/load-registry-image.sh", restartAction("iri-registry.service")),
			policyFile("/etc/pki/ca-trust/source/anchors/iri-root-ca.crt", restartAction("coreos-update-ca-trust.service")),
		},
		Units: []operatorv1.NodeDisruptionPolicyStatusUnit{{Name: "iri-registry.service", Actions: []operatorv1.NodeDisruptionPolicyStatusAction{
			{Type: operatorv1.DaemonReloadStatusAction}, restartAction("iri-registry.service"),
		}}},
		SSHKey: operatorv1.NodeDisruptionPolicyStatusSSHKey{Actions: []operatorv1.NodeDisruptionPolicyStatusAction{{Type: operatorv1.NoneStatusAction}}},
	}
}

func statusActions(in []operatorv1.NodeDisruptionPolicySpecAction) []operatorv1.NodeDisruptionPolicyStatusAction {
	out := []operatorv1.NodeDisruptionPolicyStatusAction{}
	for _, a := range in {
		out = append(out, operatorv1.NodeDisruptionPolicyStatusAction{Type: operatorv1.NodeDisruptionPolicyStatusActionType(a.Type), Reload: a.Reload, Restart: a.Restart})
	}
	return out
}

// ClusterPolicies is MergeClusterPolicies: the defaults, each spec entry
// replacing the default of its path (name) in place or appended.
func ClusterPolicies(spec operatorv1.NodeDisruptionPolicyConfig) operatorv1.NodeDisruptionPolicyClusterStatus {
	out := mcoDefaultPolicies()
	defaultFiles, defaultUnits := len(out.Files), len(out.Units)
	for _, f := range spec.Files {
		entry := operatorv1.NodeDisruptionPolicyStatusFile{Path: f.Path, Actions: statusActions(f.Actions)}
		replaced := false
		for i := 0; i < defaultFiles; i++ {
			if out.Files[i].Path == f.Path {
				out.Files[i], replaced = entry, true
				break
			}
		}
		if !replaced {
			out.Files = append(out.Files, entry)
		}
	}
	for _, u := range spec.Units {
		entry := operatorv1.NodeDisruptionPolicyStatusUnit{Name: u.Name, Actions: statusActions(u.Actions)}
		replaced := false
		for i := 0; i < defaultUnits; i++ {
			if out.Units[i].Name == u.Name {
				out.Units[i], replaced = entry, true
				break
			}
		}
		if !replaced {
			out.Units = append(out.Units, entry)
		}
	}
	if len(spec.SSHKey.Actions) > 0 {
		out.SSHKey = operatorv1.NodeDisruptionPolicyStatusSSHKey{Actions: statusActions(spec.SSHKey.Actions)}
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

// StartMCOPolicyStatus runs RunMCOPolicyStatus until the test ends.
// StartOperator starts it unless told not to; StartMCOStandIn does the
// same in its own sync.
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
