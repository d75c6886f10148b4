// Package criometrics is the CRI-O metrics stack: kube-rbac-proxy in front of
// every node's CRI-O metrics endpoint, certificates the operator rotates and
// cert-syncer copies to each node, RBAC that lets only the platform
// Prometheus scrape, a Service, a ServiceMonitor and alerts.
package criometrics

import (
	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/cluster-node-operator/bindata"
	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/certrotation"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

const (
	namespace   = operatorclient.CRIOMetricsNamespace
	serviceName = "crio-metrics"
	// Prefix names the stack's Available, Progressing and Degraded conditions.
	Prefix = string(nodev1alpha1.MetricsStack)
)

// Static manifests applied with library-go's resourceapply.
var (
	staticFiles = []string{
		"metrics/serviceaccount.yaml",
		"metrics/clusterrole-proxy.yaml",
		"metrics/clusterrolebinding-proxy.yaml",
		"metrics/clusterrole-client.yaml",
		"metrics/clusterrolebinding-client.yaml",
		"metrics/role-prometheus.yaml",
		"metrics/rolebinding-prometheus.yaml",
		"metrics/service.yaml",
	}
	// The ServiceMonitor and PrometheusRule need monitoring.coreos.com/v1.
	// (prometheusRuleFile and dashboardFile are in monitoring.go.)
	serviceMonitorFile = "metrics/servicemonitor.yaml"
	sccFile            = "metrics/scc.yaml"
	dsFile             = "metrics/daemonset.yaml"
)

// RelatedObjects lists everything the stack can own, derived from its
// manifests, so that must-gather collects it. The client CA copy is left
// out: it exists only where CMO has a CA, every listed object must resolve,
// and must-gather takes it with the operator's namespace.
func RelatedObjects() ([]configv1.ObjectReference, error) {
	related, err := stack.RelatedObjects(bindata.Asset, append(append([]string{}, staticFiles...), serviceMonitorFile, prometheusRuleFile, dashboardFile, sccFile, dsFile)...)
	if err != nil {
		return nil, err
	}
	related = append(related,
		configv1.ObjectReference{Resource: "secrets", Namespace: namespace, Name: certrotation.SignerSecretName},
		configv1.ObjectReference{Resource: "secrets", Namespace: namespace, Name: certrotation.ServingSecretName},
		configv1.ObjectReference{Resource: "configmaps", Namespace: namespace, Name: certrotation.CABundleName},
	)
	for _, role := range machineConfigRoles {
		related = append(related, configv1.ObjectReference{Group: "machineconfiguration.openshift.io", Resource: "machineconfigs", Name: machineConfigName(role)})
	}
	return related, nil
}
