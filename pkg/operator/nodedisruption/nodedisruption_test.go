package nodedisruption

import (
	"encoding/json"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	crioDropIn    = "/etc/crio/crio.conf.d/60-x.conf"
	kubeletDropIn = "/etc/openshift/kubelet.conf.d/60-x.conf"
)

var want = Restarts{crioDropIn: "crio.service", kubeletDropIn: "kubelet.service"}

func specFile(path, service string, more ...operatorv1.NodeDisruptionPolicySpecAction) operatorv1.NodeDisruptionPolicySpecFile {
	return operatorv1.NodeDisruptionPolicySpecFile{Path: path, Actions: append([]operatorv1.NodeDisruptionPolicySpecAction{{
		Type: operatorv1.RestartSpecAction, Restart: &operatorv1.RestartService{ServiceName: operatorv1.NodeDisruptionPolicyServiceName(service)},
	}}, more...)}
}

func statusFile(path string, actions ...operatorv1.NodeDisruptionPolicyStatusAction) operatorv1.NodeDisruptionPolicyStatusFile {
	return operatorv1.NodeDisruptionPolicyStatusFile{Path: path, Actions: actions}
}

func restart(service string) operatorv1.NodeDisruptionPolicyStatusAction {
	return operatorv1.NodeDisruptionPolicyStatusAction{Type: operatorv1.RestartStatusAction,
		Restart: &operatorv1.RestartService{ServiceName: operatorv1.NodeDisruptionPolicyServiceName(service)}}
}

// machineConfiguration: generation 3, our spec entries, a status observed at observed listing files.
func machineConfiguration(spec []operatorv1.NodeDisruptionPolicySpecFile, observed int64, files ...operatorv1.NodeDisruptionPolicyStatusFile) *operatorv1.MachineConfiguration {
	mc := &operatorv1.MachineConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "cluster", Generation: 3, ResourceVersion: "7"}}
	mc.Spec.NodeDisruptionPolicy.Files = spec
	mc.Status.ObservedGeneration = observed
	mc.Status.NodeDisruptionPolicyStatus.ClusterPolicies.Files = files
	return mc
}

func TestDecide(t *testing.T) {
	ours := []operatorv1.NodeDisruptionPolicySpecFile{specFile(crioDropIn, "crio.service"), specFile(kubeletDropIn, "kubelet.service")}
	other := specFile("/etc/other.conf", "other.service")
	listed := []operatorv1.NodeDisruptionPolicyStatusFile{
		statusFile("/var/lib/kubelet/config.json", operatorv1.NodeDisruptionPolicyStatusAction{Type: operatorv1.NoneStatusAction}),
		statusFile(crioDropIn, restart("crio.service")),
		statusFile(kubeletDropIn, restart("kubelet.service")),
	}
	for _, tc := range []struct {
		name      string
		live      *operatorv1.MachineConfiguration
		wantApply bool
		wantWait  string
	}{
		{"no MachineConfiguration cluster: wait, write nothing", nil, false, WaitNoCluster},
		{"entries not in the spec: apply them, then wait", machineConfiguration(nil, 3), true, WaitStatus},
		{"one entry missing from the spec: apply, wait", machineConfiguration(ours[:1], 3, listed...), true, WaitStatus},
		{"our path with other actions in the spec (a reboot)", machineConfiguration([]operatorv1.NodeDisruptionPolicySpecFile{ours[0],
			{Path: kubeletDropIn, Actions: []operatorv1.NodeDisruptionPolicySpecAction{{Type: operatorv1.RebootSpecAction}}}}, 3, listed...), true, WaitStatus},
		{"our path restarting another service in the spec", machineConfiguration([]operatorv1.NodeDisruptionPolicySpecFile{ours[0], specFile(kubeletDropIn, "crio.service")}, 3, listed...), true, WaitStatus},
		{"our restart and more in the spec", machineConfiguration([]operatorv1.NodeDisruptionPolicySpecFile{ours[0],
			specFile(kubeletDropIn, "kubelet.service", operatorv1.NodeDisruptionPolicySpecAction{Type: operatorv1.DaemonReloadSpecAction})}, 3, listed...), true, WaitStatus},
		{"entries in the spec, no status yet", machineConfiguration(ours, 0), false, WaitStatus},
		{"status lists them for an older generation", machineConfiguration(ours, 2, listed...), false, WaitStatus},
		{"status at the generation but without our entries", machineConfiguration(ours, 3, listed[0]), false, WaitStatus},
		{"status lists one entry only", machineConfiguration(ours, 3, listed[:2]...), false, WaitStatus},
		{"status entry with other actions (a reboot)", machineConfiguration(ours, 3, listed[0], listed[1],
			statusFile(kubeletDropIn, operatorv1.NodeDisruptionPolicyStatusAction{Type: operatorv1.RebootStatusAction})), false, WaitStatus},
		{"status entry restarting another service", machineConfiguration(ours, 3, listed[0], listed[1], statusFile(kubeletDropIn, restart("crio.service"))), false, WaitStatus},
		{"status entry with an extra action", machineConfiguration(ours, 3, listed[0], listed[1],
			statusFile(kubeletDropIn, restart("kubelet.service"), operatorv1.NodeDisruptionPolicyStatusAction{Type: operatorv1.DaemonReloadStatusAction})), false, WaitStatus},
		{"status lists them at the generation: go", machineConfiguration(append([]operatorv1.NodeDisruptionPolicySpecFile{other}, ours...), 3, listed...), false, ""},
		// The daemon takes the closest entry: a longer one for our path
		// wins over a directory above it.
		{"a directory entry above ours is not the one that counts", machineConfiguration(ours, 3, listed[0],
			statusFile("/etc/crio/crio.conf.d", operatorv1.NodeDisruptionPolicyStatusAction{Type: operatorv1.NoneStatusAction}), listed[1], listed[2]), false, ""},
		{"only a directory entry with other actions", machineConfiguration(ours, 3, listed[0], listed[2],
			statusFile("/etc/crio/crio.conf.d", operatorv1.NodeDisruptionPolicyStatusAction{Type: operatorv1.NoneStatusAction})), false, WaitStatus},
	} {
		d := Decide(tc.live, want)
		assert.Equal(t, tc.wantApply, d.Apply != nil, "%s: apply", tc.name)
		assert.Equal(t, tc.wantWait, d.Wait, "%s: wait", tc.name)
	}
	// Exactly our entries and nothing else of the object: the apply owns
	// only them. The resourceVersion makes it an update of the object we
	// read, never a create.
	raw, err := json.Marshal(Decide(machineConfiguration([]operatorv1.NodeDisruptionPolicySpecFile{other}, 3), want).Apply)
	require.NoError(t, err)
	assert.JSONEq(t, `{"apiVersion": "operator.openshift.io/v1", "kind": "MachineConfiguration",
		"metadata": {"name": "cluster", "resourceVersion": "7"},
		"spec": {"nodeDisruptionPolicy": {"files": [
			{"path": "`+crioDropIn+`", "actions": [{"type": "Restart", "restart": {"serviceName": "crio.service"}}]},
			{"path": "`+kubeletDropIn+`", "actions": [{"type": "Restart", "restart": {"serviceName": "kubelet.service"}}]}
		]}}}`, string(raw))
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	assert.False(t, Persists(time.Time{}, now), "a wait that begins now")
	assert.False(t, Persists(now.Add(-WaitGrace+time.Second), now))
	assert.True(t, Persists(now.Add(-WaitGrace), now))
}
