// Package v1beta1 is the deprecated version of nmstates.nmstate.io, still
// served for clients written against it. It differs from v1 only in
// metricsConfiguration, a pointer without a default.
//
// +kubebuilder:object:generate=false
// +groupName=nmstate.io
package v1beta1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/openshift/cluster-node-operator/hack/codegen/nmstatecrd/v1"
)

// NMState makes the NMState operator deploy its handler, webhook and metrics;
// it is a cluster-scoped singleton named nmstate.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=nmstates,scope=Cluster
// +kubebuilder:printcolumn:name="Status",type="string",JSONPath=".status.conditions[?(@.status==\"True\")].type",description="Status"
// +kubebuilder:printcolumn:name="Reason",type="string",JSONPath=".status.conditions[?(@.status==\"True\")].reason",description="Reason"
// +kubebuilder:deprecatedversion:warning="nmstate/v1beta1 deprecated, use nmstate/v1 instead"
type NMState struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec configures the handler, webhook and metrics. It defaults to {} so
	// that the defaults below it apply to a CR that omits it.
	// +kubebuilder:default:={}
	Spec   Spec      `json:"spec,omitempty"`
	Status v1.Status `json:"status,omitempty"`
}

// Spec configures where the NMState workloads run and how they behave.
type Spec struct {
	// affinity of the handler DaemonSet.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`
	// infraAffinity of the webhook, metrics and console plugin Deployments.
	// +optional
	InfraAffinity *corev1.Affinity `json:"infraAffinity,omitempty"`
	// nodeSelector of the handler DaemonSet; when omitted the handler runs on
	// every Linux node.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// tolerations of the handler DaemonSet; when omitted it tolerates every
	// taint.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
	// infraNodeSelector of the webhook, metrics and console plugin
	// Deployments.
	// +optional
	InfraNodeSelector map[string]string `json:"infraNodeSelector,omitempty"`
	// infraTolerations of the webhook, metrics and console plugin
	// Deployments; when omitted they tolerate the control-plane taints.
	// +optional
	InfraTolerations []corev1.Toleration `json:"infraTolerations,omitempty"`
	// selfSignConfiguration sets the lifetimes of the webhook's self-signed
	// CA and certificate.
	SelfSignConfiguration *v1.SelfSignConfiguration `json:"selfSignConfiguration,omitempty"`
	// probeConfiguration tunes the connectivity checks the handler runs after
	// applying a policy (a policy that fails them is rolled back).
	// +kubebuilder:default:={}
	// +optional
	ProbeConfiguration v1.ProbeConfiguration `json:"probeConfiguration,omitempty"`
	// metricsConfiguration tunes the handler's metrics server.
	// +optional
	MetricsConfiguration *v1.MetricsConfiguration `json:"metricsConfiguration,omitempty"`
	// logLevel of the handler: info or debug.
	// +kubebuilder:default:="info"
	// +kubebuilder:validation:Enum=info;debug
	// +optional
	LogLevel string `json:"logLevel,omitempty"`
}
