package criometrics

import (
	"context"
	"encoding/json"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// The node disruption policy entry for the CRI-O drop-in. A file under
// /etc/crio/crio.conf.d is not in the Machine Config Operator's default
// node disruption policy, so without this entry the drop-in MachineConfigs
// appearing or disappearing drain and reboot every node of every pool. A
// restart of crio.service is enough for CRI-O to pick up metrics_cert and
// metrics_key.
const (
	// DropInPath is where the MachineConfigs write the CRI-O drop-in
	// (bindata/metrics/machineconfig.yaml).
	DropInPath = "/etc/crio/crio.conf.d/50-crio-metrics-tls.conf"
	// DisruptionPolicyFieldManager owns only our entry of
	// spec.nodeDisruptionPolicy.files, a list map keyed by path.
	DisruptionPolicyFieldManager = "cluster-node-operator-crio-metrics-disruption-policy"
	// MachineConfigurationName is MCO's singleton; MCO creates it, we
	// never do.
	MachineConfigurationName = "cluster"
	crioService              = "crio.service"

	// Notes in the CRIOMetricsNodeConfig condition message, worded like
	// the skipped parts in the metrics stack's message.
	SkippedDisruptionPolicyNotServed = "CRI-O node disruption policy skipped: operator.openshift.io/v1 machineconfigurations is not served"
	SkippedDisruptionPolicyNoCluster = "CRI-O node disruption policy skipped: MachineConfiguration cluster does not exist"
)

var machineConfigurationGVR = schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "machineconfigurations"}

// disruptionPolicyActions are the actions MCO takes when the drop-in
// changes, appears or disappears.
func disruptionPolicyActions() []operatorv1.NodeDisruptionPolicySpecAction {
	return []operatorv1.NodeDisruptionPolicySpecAction{{
		Type:    operatorv1.RestartSpecAction,
		Restart: &operatorv1.RestartService{ServiceName: crioService},
	}}
}

// DisruptionPolicyApply returns the server-side apply configuration that
// sets our entry in the live MachineConfiguration, or nil when the live
// object already has an entry for the drop-in with our actions (whoever
// owns it): then nothing is written. The configuration names only that one
// entry of spec.nodeDisruptionPolicy.files, so that applying it with our
// own field manager leaves every other entry and field alone, and carries
// the live resourceVersion: the apply then never creates the object (the
// API server refuses a create with a resourceVersion) and fails with a
// conflict if the object changed since we read it.
func DisruptionPolicyApply(live *operatorv1.MachineConfiguration) *applyoperatorv1.MachineConfigurationApplyConfiguration {
	for _, f := range live.Spec.NodeDisruptionPolicy.Files {
		if f.Path == DropInPath && equality.Semantic.DeepEqual(f.Actions, disruptionPolicyActions()) {
			return nil
		}
	}
	var actions []*applyoperatorv1.NodeDisruptionPolicySpecActionApplyConfiguration
	for _, a := range disruptionPolicyActions() {
		actions = append(actions, applyoperatorv1.NodeDisruptionPolicySpecAction().
			WithType(a.Type).
			WithRestart(applyoperatorv1.RestartService().WithServiceName(a.Restart.ServiceName)))
	}
	return applyoperatorv1.MachineConfiguration(live.Name).
		WithResourceVersion(live.ResourceVersion).
		WithSpec(applyoperatorv1.MachineConfigurationSpec().
			WithNodeDisruptionPolicy(applyoperatorv1.NodeDisruptionPolicyConfig().
				WithFiles(applyoperatorv1.NodeDisruptionPolicySpecFile().
					WithPath(DropInPath).
					WithActions(actions...))))
}

// ensureDisruptionPolicy reads MachineConfiguration cluster (one GET per
// sync of a singleton, no watch) and applies our entry when it is missing
// or differs. It reports whether it wrote, and a skip note when there is no
// MachineConfiguration cluster.
//
// The entry is never removed, not even when the stack is: MCO computes the
// disruption when it renders the pool's config without the drop-in, which
// may be later than our removal, and without the entry that rollout would
// reboot every node. A leftover entry only says "restart CRI-O if this file
// changes", which is harmless.
func ensureDisruptionPolicy(ctx context.Context, client dynamic.Interface) (wrote bool, skipped string, err error) {
	// MCO writes the object's status often: a conflict on our
	// resourceVersion precondition reads again.
	for attempt := 0; ; attempt++ {
		wrote, skipped, err = ensureDisruptionPolicyOnce(ctx, client)
		if !apierrors.IsConflict(err) || attempt == 2 {
			return wrote, skipped, err
		}
	}
}

func ensureDisruptionPolicyOnce(ctx context.Context, client dynamic.Interface) (bool, string, error) {
	ri := client.Resource(machineConfigurationGVR)
	u, err := ri.Get(ctx, MachineConfigurationName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return false, SkippedDisruptionPolicyNoCluster, nil
	case err != nil:
		return false, "", err
	}
	live := &operatorv1.MachineConfiguration{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, live); err != nil {
		return false, "", err
	}
	desired := DisruptionPolicyApply(live)
	if desired == nil {
		return false, "", nil
	}
	data, err := json.Marshal(desired)
	if err != nil {
		return false, "", err
	}
	// Force: the entry for our drop-in is ours; the rest of the object is
	// not in the request, so it cannot be taken over.
	if _, err := ri.Patch(ctx, MachineConfigurationName, types.ApplyPatchType, data,
		metav1.PatchOptions{FieldManager: DisruptionPolicyFieldManager, Force: ptrTrue()}); err != nil {
		return false, "", err
	}
	return true, "", nil
}

func ptrTrue() *bool { t := true; return &t }
