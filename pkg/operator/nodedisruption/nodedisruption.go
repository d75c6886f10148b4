// Package nodedisruption keeps entries of MCO's node disruption policy
// (MachineConfiguration cluster, spec.nodeDisruptionPolicy.files): for a
// file our MachineConfigs carry, the service MCO restarts when the file
// appears, changes or goes away.
//
// MCO's daemon decides a node's disruption when it updates the node, from
// the policy in the object's STATUS (status.nodeDisruptionPolicyStatus
// .clusterPolicies), which MCO's operator computes from the spec (its
// defaults merged with the spec's entries) and marks with
// status.observedGeneration. A changed file the status has no entry for
// drains and reboots the node. So our entries go into the spec, and no
// MachineConfig of ours is written, created or deleted until the status
// lists them at an observedGeneration equal to the object's generation
// (Decide). They are never taken out: a node may reach a config without
// our file long after we deleted our MachineConfig (a paused pool, a node
// not yet updated), and the entry must still be in the status then.
package nodedisruption

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
)

// MachineConfigurationName is MCO's singleton; MCO creates it, we never do.
const MachineConfigurationName = "cluster"

// Why our MachineConfigs wait. The messages hold no generation, time or
// count, so that a wait is reported once.
const (
	WaitNotServed = "operator.openshift.io/v1 machineconfigurations is not served, so the machine-config operator has no node disruption policy and would drain and reboot every node"
	WaitUnknown   = "discovery of operator.openshift.io/v1 has not answered yet, so whether the machine-config operator has a node disruption policy is not known"
	WaitNoCluster = "MachineConfiguration cluster does not exist (the machine-config operator creates it)"
	WaitStatus    = "the machine-config operator has not yet listed our node disruption policy entries in MachineConfiguration cluster's status.nodeDisruptionPolicyStatus for its current generation"
)

// WaitServed says why our MachineConfigs wait for MCO's API: not served, or
// not known yet; "" when it is served.
func WaitServed(served platform.ServedAPIs) string {
	switch {
	case !served.Known(GVR):
		return WaitUnknown
	case !served.MachineConfiguration:
		return WaitNotServed
	}
	return ""
}

// WaitGrace is how long a wait is normal: MCO's operator updates the
// status within seconds of a spec change, and MCO's daemon itself waits
// this long for it before it fails a node's update. A wait longer than
// that is reported as Degraded (the ClusterOperator follows after the
// starter's inertia).
const WaitGrace = 2 * time.Minute

// GVR is operator.openshift.io/v1 machineconfigurations.
var GVR = platform.MachineConfigurationGVR

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

// Decision is what to do about MCO's node disruption policy before one of
// our MachineConfigs is written.
type Decision struct {
	// Apply, when not nil, sets our entries in the spec.
	Apply *applyoperatorv1.MachineConfigurationApplyConfiguration
	// Wait, when not empty, is why no MachineConfig of ours may be
	// written yet (one of the Wait* messages).
	Wait string
}

// Decide is the pure decision: live is MachineConfiguration cluster (nil
// when it does not exist). Our MachineConfigs may be written only when
// the object exists, MCO's operator has observed its current generation,
// and the status policy gives each of our paths our restart, as MCO's
// daemon will look it up. Entries missing from the spec are applied
// first; the status cannot list them before MCO's operator has seen that
// write, so a write always means a wait.
func Decide(live *operatorv1.MachineConfiguration, want Restarts) Decision {
	if live == nil {
		return Decision{Wait: WaitNoCluster}
	}
	if apply := Apply(live, want); apply != nil {
		return Decision{Apply: apply, Wait: WaitStatus}
	}
	if !InStatus(live, want) {
		return Decision{Wait: WaitStatus}
	}
	return Decision{}
}

// InStatus tells whether MCO's operator has computed the status policy for
// the object's current generation and, for each of our paths, the status
// entry MCO's daemon picks (the same path, or the longest directory above
// it: FindClosestFilePolicyPathMatch in MCO) restarts exactly our service.
func InStatus(live *operatorv1.MachineConfiguration, want Restarts) bool {
	if live.Status.ObservedGeneration != live.Generation {
		return false
	}
	files := live.Status.NodeDisruptionPolicyStatus.ClusterPolicies.Files
	for path, service := range want {
		best := -1
		for i, f := range files {
			if (f.Path == path || strings.HasPrefix(path, filepath.Clean(f.Path)+"/")) && (best < 0 || len(f.Path) > len(files[best].Path)) {
				best = i
			}
		}
		if best < 0 {
			return false
		}
		want := []operatorv1.NodeDisruptionPolicyStatusAction{{
			Type:    operatorv1.RestartStatusAction,
			Restart: &operatorv1.RestartService{ServiceName: operatorv1.NodeDisruptionPolicyServiceName(service)},
		}}
		if !equality.Semantic.DeepEqual(files[best].Actions, want) {
			return false
		}
	}
	return true
}

// Ensure reads MachineConfiguration cluster (one GET, no watch), applies
// our entries when one is missing or differs, as fieldManager, and says
// whether it wrote and, when our MachineConfigs must wait, why (Decide).
// Nothing is written while the entries are in the spec, whatever the
// status says.
func Ensure(ctx context.Context, client dynamic.Interface, fieldManager string, want Restarts) (wrote bool, wait string, err error) {
	// MCO writes the object's status often: a conflict on our
	// resourceVersion precondition reads again.
	for attempt := 0; ; attempt++ {
		wrote, wait, err = ensureOnce(ctx, client, fieldManager, want)
		if !apierrors.IsConflict(err) || attempt == 2 {
			return wrote, wait, err
		}
	}
}

func ensureOnce(ctx context.Context, client dynamic.Interface, fieldManager string, want Restarts) (bool, string, error) {
	ri := client.Resource(GVR)
	u, err := ri.Get(ctx, MachineConfigurationName, metav1.GetOptions{})
	var live *operatorv1.MachineConfiguration
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return false, "", err
	default:
		live = &operatorv1.MachineConfiguration{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, live); err != nil {
			return false, "", err
		}
	}
	d := Decide(live, want)
	if d.Apply == nil {
		return false, d.Wait, nil
	}
	data, err := json.Marshal(d.Apply)
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
	return true, d.Wait, nil
}

// Persists tells whether a wait that began at since has lasted past
// WaitGrace; a zero since is a wait that begins now.
func Persists(since, now time.Time) bool {
	return !since.IsZero() && now.Sub(since) >= WaitGrace
}
