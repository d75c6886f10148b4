// Package nodedisruption keeps entries of MCO's node disruption policy
// (MachineConfiguration cluster, spec.nodeDisruptionPolicy.files): for a
// file our MachineConfigs carry, the service MCO restarts when the file
// appears, changes or goes away. A file without an entry makes MCO drain and
// reboot every node of the pool, so entries go in before the MachineConfigs
// and are never taken out: MCO computes the disruption when it renders a
// pool without the file, which may be later than our removal.
package nodedisruption

import (
	"context"
	"encoding/json"
	"sort"

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

// MachineConfigurationName is MCO's singleton; MCO creates it, we never do.
const MachineConfigurationName = "cluster"

// SkippedNoCluster is the note when MCO has not created its singleton.
const SkippedNoCluster = "node disruption policy skipped: MachineConfiguration cluster does not exist"

// GVR is operator.openshift.io/v1 machineconfigurations.
var GVR = schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "machineconfigurations"}

// Restarts maps a file's path to the systemd unit MCO restarts for it.
type Restarts map[string]string

func actions(service string) []operatorv1.NodeDisruptionPolicySpecAction {
	return []operatorv1.NodeDisruptionPolicySpecAction{{
		Type:    operatorv1.RestartSpecAction,
		Restart: &operatorv1.RestartService{ServiceName: operatorv1.NodeDisruptionPolicyServiceName(service)},
	}}
}

// Apply returns the server-side apply configuration that sets our entries
// in the live MachineConfiguration, or nil when each of our paths already
// has an entry with our actions (whoever owns it): then nothing is
// written. It names only our entries of spec.nodeDisruptionPolicy.files (a
// list map keyed by path), so that applying it with our own field manager
// leaves every other entry and field alone, and it carries the live
// resourceVersion: the apply never creates the object (the API server
// refuses a create with a resourceVersion) and fails with a conflict if the
// object changed since we read it.
func Apply(live *operatorv1.MachineConfiguration, want Restarts) *applyoperatorv1.MachineConfigurationApplyConfiguration {
	have := map[string][]operatorv1.NodeDisruptionPolicySpecAction{}
	for _, f := range live.Spec.NodeDisruptionPolicy.Files {
		have[f.Path] = f.Actions
	}
	paths := make([]string, 0, len(want))
	missing := false
	for path, service := range want {
		paths = append(paths, path)
		if !equality.Semantic.DeepEqual(have[path], actions(service)) {
			missing = true
		}
	}
	if !missing {
		return nil
	}
	sort.Strings(paths)
	policy := applyoperatorv1.NodeDisruptionPolicyConfig()
	for _, path := range paths {
		policy.WithFiles(applyoperatorv1.NodeDisruptionPolicySpecFile().
			WithPath(path).
			WithActions(applyoperatorv1.NodeDisruptionPolicySpecAction().
				WithType(operatorv1.RestartSpecAction).
				WithRestart(applyoperatorv1.RestartService().WithServiceName(operatorv1.NodeDisruptionPolicyServiceName(want[path])))))
	}
	return applyoperatorv1.MachineConfiguration(live.Name).
		WithResourceVersion(live.ResourceVersion).
		WithSpec(applyoperatorv1.MachineConfigurationSpec().WithNodeDisruptionPolicy(policy))
}

// Ensure reads MachineConfiguration cluster (one GET, no watch) and applies
// our entries when one is missing or differs, as fieldManager. It reports
// whether it wrote, and a skip note when there is no MachineConfiguration
// cluster.
func Ensure(ctx context.Context, client dynamic.Interface, fieldManager string, want Restarts) (wrote bool, skipped string, err error) {
	// MCO writes the object's status often: a conflict on our
	// resourceVersion precondition reads again.
	for attempt := 0; ; attempt++ {
		wrote, skipped, err = ensureOnce(ctx, client, fieldManager, want)
		if !apierrors.IsConflict(err) || attempt == 2 {
			return wrote, skipped, err
		}
	}
}

func ensureOnce(ctx context.Context, client dynamic.Interface, fieldManager string, want Restarts) (bool, string, error) {
	ri := client.Resource(GVR)
	u, err := ri.Get(ctx, MachineConfigurationName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return false, SkippedNoCluster, nil
	case err != nil:
		return false, "", err
	}
	live := &operatorv1.MachineConfiguration{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, live); err != nil {
		return false, "", err
	}
	desired := Apply(live, want)
	if desired == nil {
		return false, "", nil
	}
	data, err := json.Marshal(desired)
	if err != nil {
		return false, "", err
	}
	// Force: the entries for our paths are ours; the rest of the object is
	// not in the request, so it cannot be taken over.
	force := true
	if _, err := ri.Patch(ctx, MachineConfigurationName, types.ApplyPatchType, data,
		metav1.PatchOptions{FieldManager: fieldManager, Force: &force}); err != nil {
		return false, "", err
	}
	return true, "", nil
}
