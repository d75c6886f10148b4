package criometrics

import (
	"context"

	"k8s.io/client-go/dynamic"

	"github.com/openshift/cluster-node-operator/pkg/operator/nodedisruption"
)

// The node disruption policy entry for the CRI-O drop-in. A file under
// /etc/crio/crio.conf.d is not in the Machine Config Operator's default
// node disruption policy, so without this entry in the policy MCO's daemon
// reads (the status of MachineConfiguration cluster, package
// nodedisruption) the drop-in appearing or disappearing drains and reboots
// every node of every pool. A restart of crio.service is enough for CRI-O
// to pick up metrics_cert and metrics_key; on an OpenShift node it also
// restarts the kubelet (kubelet.service Requires=crio.service).
const (
	// DropInPath is where the MachineConfigs write the CRI-O drop-in
	// (bindata/metrics/machineconfig.yaml).
	DropInPath = "/etc/crio/crio.conf.d/50-crio-metrics-tls.conf"
	// DisruptionPolicyFieldManager owns only our entry of
	// spec.nodeDisruptionPolicy.files, a list map keyed by path.
	DisruptionPolicyFieldManager = "cluster-node-operator-crio-metrics-disruption-policy"
	// MachineConfigurationName is MCO's singleton; MCO creates it, we
	// never do.
	MachineConfigurationName = nodedisruption.MachineConfigurationName
	crioService              = "crio.service"
)

var (
	disruptionPolicy = nodedisruption.Restarts{DropInPath: crioService}
)

// ensureDisruptionPolicy applies our entry when it is missing or differs,
// and says why the MachineConfigs must wait, if they must
// (nodedisruption.Ensure). The entry is never removed, not even when the
// stack is: a node may run a config with the drop-in, and then leave it,
// long after our MachineConfigs are gone (docs/crio-metrics.md says when
// an administrator may take it out).
func ensureDisruptionPolicy(ctx context.Context, client dynamic.Interface) (wrote bool, wait string, err error) {
	return nodedisruption.Ensure(ctx, client, DisruptionPolicyFieldManager, disruptionPolicy)
}
