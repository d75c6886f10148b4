package platform

import "k8s.io/apimachinery/pkg/runtime/schema"

// The resources of other operators' APIs that the operator reads or writes,
// in one table; ServedAPIs says which of the optional ones are served.
var (
	MachineConfigGVR              = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigs"}
	MachineConfigPoolGVR          = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfigpools"}
	MachineConfigNodeGVR          = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "machineconfignodes"}
	KubeletConfigGVR              = schema.GroupVersionResource{Group: "machineconfiguration.openshift.io", Version: "v1", Resource: "kubeletconfigs"}
	MachineConfigurationGVR       = schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "machineconfigurations"}
	ServiceMonitorGVR             = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
	PrometheusRuleGVR             = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "prometheusrules"}
	SecurityContextConstraintsGVR = schema.GroupVersionResource{Group: "security.openshift.io", Version: "v1", Resource: "securitycontextconstraints"}
	OpenTelemetryCollectorGVR     = schema.GroupVersionResource{Group: "opentelemetry.io", Version: "v1beta1", Resource: "opentelemetrycollectors"}
)
