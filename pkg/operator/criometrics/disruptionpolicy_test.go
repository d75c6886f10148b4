package criometrics

import (
	"encoding/json"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDisruptionPolicyApply(t *testing.T) {
	restartCRIO := []operatorv1.NodeDisruptionPolicySpecAction{{Type: operatorv1.RestartSpecAction, Restart: &operatorv1.RestartService{ServiceName: "crio.service"}}}
	other := operatorv1.NodeDisruptionPolicySpecFile{Path: "/etc/other.conf", Actions: []operatorv1.NodeDisruptionPolicySpecAction{{Type: operatorv1.NoneSpecAction}}}
	live := func(files ...operatorv1.NodeDisruptionPolicySpecFile) *operatorv1.MachineConfiguration {
		return &operatorv1.MachineConfiguration{
			ObjectMeta: metav1.ObjectMeta{Name: "cluster", ResourceVersion: "42"},
			Spec: operatorv1.MachineConfigurationSpec{
				StaticPodOperatorSpec: operatorv1.StaticPodOperatorSpec{OperatorSpec: operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}},
				NodeDisruptionPolicy:  operatorv1.NodeDisruptionPolicyConfig{Files: files},
			},
		}
	}
	for _, tc := range []struct {
		name      string
		live      *operatorv1.MachineConfiguration
		wantApply bool
	}{
		{"no policy at all", live(), true},
		{"only other entries", live(other), true},
		{"our entry in place", live(other, operatorv1.NodeDisruptionPolicySpecFile{Path: DropInPath, Actions: restartCRIO}), false},
		{"our path with other actions", live(operatorv1.NodeDisruptionPolicySpecFile{Path: DropInPath, Actions: []operatorv1.NodeDisruptionPolicySpecAction{{Type: operatorv1.RebootSpecAction}}}), true},
		{"our path restarting another service", live(operatorv1.NodeDisruptionPolicySpecFile{Path: DropInPath, Actions: []operatorv1.NodeDisruptionPolicySpecAction{{Type: operatorv1.RestartSpecAction, Restart: &operatorv1.RestartService{ServiceName: "kubelet.service"}}}}), true},
		{"restart then more", live(operatorv1.NodeDisruptionPolicySpecFile{Path: DropInPath, Actions: append(append([]operatorv1.NodeDisruptionPolicySpecAction{}, restartCRIO...), operatorv1.NodeDisruptionPolicySpecAction{Type: operatorv1.DaemonReloadSpecAction})}), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := DisruptionPolicyApply(tc.live)
			if !tc.wantApply {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			raw, err := json.Marshal(got)
			require.NoError(t, err)
			// Exactly one entry and nothing else of the object: the apply
			// owns only that entry. The resourceVersion makes it an update
			// of the object we read, never a create.
			assert.JSONEq(t, `{
				"apiVersion": "operator.openshift.io/v1",
				"kind": "MachineConfiguration",
				"metadata": {"name": "cluster", "resourceVersion": "42"},
				"spec": {"nodeDisruptionPolicy": {"files": [{
					"path": "/etc/crio/crio.conf.d/50-crio-metrics-tls.conf",
					"actions": [{"type": "Restart", "restart": {"serviceName": "crio.service"}}]
				}]}}
			}`, string(raw))
		})
	}
}
