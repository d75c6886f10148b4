package criometrics

import (
	"context"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"k8s.io/client-go/dynamic"

	"github.com/openshift/cluster-node-operator/pkg/operator/nodedisruption"
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
	MachineConfigurationName = nodedisruption.MachineConfigurationName
	crioService              = "crio.service"

	// Notes in the CRIOMetricsNodeConfig condition message, worded like
	// the skipped parts in the metrics stack's message.
	SkippedDisruptionPolicyNotServed = "CRI-O node disruption policy skipped: operator.openshift.io/v1 machineconfigurations is not served"
	SkippedDisruptionPolicyNoCluster = "CRI-O node disruption policy skipped: MachineConfiguration cluster does not exist"
)

var (
	disruptionPolicy        = nodedisruption.Restarts{DropInPath: crioService}
	machineConfigurationGVR = nodedisruption.GVR
)

// DisruptionPolicyApply returns the server-side apply configuration that
// sets our entry in the live MachineConfiguration, or nil when it is in
// place (nodedisruption.Apply).
func DisruptionPolicyApply(live *operatorv1.MachineConfiguration) *applyoperatorv1.MachineConfigurationApplyConfiguration {
	return nodedisruption.Apply(live, disruptionPolicy)
}

// ensureDisruptionPolicy applies our entry when it is missing or differs.
// The entry is never removed, not even when the stack is (see package
// nodedisruption); a leftover entry only says "restart CRI-O if this file
// changes", which is harmless.
func ensureDisruptionPolicy(ctx context.Context, client dynamic.Interface) (wrote bool, skipped string, err error) {
	wrote, skipped, err = nodedisruption.Ensure(ctx, client, DisruptionPolicyFieldManager, disruptionPolicy)
	if skipped != "" {
		skipped = SkippedDisruptionPolicyNoCluster
	}
	return wrote, skipped, err
}
