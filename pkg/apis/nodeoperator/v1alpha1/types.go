package v1alpha1

import (
	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeOperator configures the node operator, which owns the node-level stacks
// of an OpenShift cluster (CRI-O metrics and Kubernetes NMState). It is a
// cluster-scoped singleton named "cluster".
//
// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=nodeoperators,scope=Cluster,singular=nodeoperator
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Management",type=string,JSONPath=`.spec.managementState`
// +kubebuilder:printcolumn:name="Metrics",type=string,JSONPath=`.status.stacks[?(@.name=="Metrics")].enabled`,description="Whether the CRI-O metrics stack is deployed"
// +kubebuilder:printcolumn:name="NMState",type=string,JSONPath=`.status.stacks[?(@.name=="NMState")].enabled`,description="Whether the NMState stack is deployed"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name == 'cluster'",message="NodeOperator is a singleton: metadata.name must be 'cluster'"
type NodeOperator struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec holds the desired configuration of the node operator.
	// +kubebuilder:validation:Required
	// +required
	Spec NodeOperatorSpec `json:"spec"`

	// status holds what the node operator observed and decided.
	// +optional
	Status NodeOperatorStatus `json:"status,omitempty"`
}

// NodeOperatorSpec is the desired configuration of the node operator.
type NodeOperatorSpec struct {
	operatorv1.OperatorSpec `json:",inline"`

	// metrics configures the CRI-O metrics stack: kube-rbac-proxy in front of
	// every node's CRI-O metrics endpoint, with certificates the operator
	// rotates, a ServiceMonitor and alerts.
	// +optional
	Metrics StackConfig `json:"metrics,omitempty"`

	// nmstate configures the Kubernetes NMState stack (host network
	// configuration). It is deployed by default only on bare metal.
	// +optional
	NMState StackConfig `json:"nmstate,omitempty"`
}

// StackManagementState says whether a stack follows the platform default, is
// opted in, or is opted out.
//
// +kubebuilder:validation:Enum="";Managed;Removed
type StackManagementState string

const (
	// StackPlatformDefault ("") lets the operator decide from the platform.
	StackPlatformDefault StackManagementState = ""
	// StackManaged opts a stack in where the platform would not deploy it.
	StackManaged StackManagementState = "Managed"
	// StackRemoved opts a stack out and removes its operands.
	StackRemoved StackManagementState = "Removed"
)

// StackConfig is the per-stack knob.
type StackConfig struct {
	// managementState is "" (the platform default), "Managed" (opt in) or
	// "Removed" (opt out: the operator removes the stack's operands but never
	// user data).
	// +optional
	ManagementState StackManagementState `json:"managementState,omitempty"`
}

// NodeOperatorStatus is what the node operator observed and decided.
type NodeOperatorStatus struct {
	operatorv1.OperatorStatus `json:",inline"`

	// stacks lists, for each stack, whether it is deployed and why.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Stacks []StackStatus `json:"stacks,omitempty"`
}

// StackName names a stack.
//
// +kubebuilder:validation:Enum=Metrics;NMState
type StackName string

const (
	// MetricsStack is the CRI-O metrics stack.
	MetricsStack StackName = "Metrics"
	// NMStateStack is the Kubernetes NMState stack.
	NMStateStack StackName = "NMState"
)

// StackStatus is the operator's decision about one stack.
type StackStatus struct {
	// name of the stack.
	// +required
	Name StackName `json:"name"`

	// enabled is true when the operator deploys the stack.
	// +required
	Enabled bool `json:"enabled"`

	// reason is a machine-readable CamelCase reason for the decision.
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Reason string `json:"reason,omitempty"`

	// message explains the decision to an administrator, and how to change it.
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	Message string `json:"message,omitempty"`

	// mode says how an enabled stack is delivered, for stacks that have more
	// than one way. Metrics: PlatformProxy where the platform already serves
	// CRI-O metrics (the machine-config operator's kube-rbac-proxy-crio static
	// pod, scraped as job="crio"), OperatorTLS where the operator's own TLS
	// stack serves them. Empty for a stack that is off or has one way only.
	// +optional
	Mode StackMode `json:"mode,omitempty"`

	// observedVersion is the operator version at which this stack's operands
	// last completed a rollout: set when the operator reports that version
	// on ClusterOperator node (every stack rolled out) and, later, whenever
	// this stack has rolled out again. For a stack that is off it is the
	// version at which it was found off. Empty until the first rollout
	// completes.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	ObservedVersion string `json:"observedVersion,omitempty"`

	// containers lists the containers that the stack's operands run, read
	// from the pod templates of their DaemonSets and Deployments when the
	// stack last completed a rollout. Empty when the operator runs no
	// container for the stack: a stack that is off, or the metrics stack in
	// mode PlatformProxy, where the platform's kube-rbac-proxy-crio serves.
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	// +optional
	Containers []StackContainer `json:"containers,omitempty"`
}

// StackContainer is one container of a stack's operand and the image it
// runs.
type StackContainer struct {
	// namespace of the operand.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +required
	Namespace string `json:"namespace"`

	// parentKind is the kind of the operand whose pod template holds the
	// container.
	// +kubebuilder:validation:Enum=DaemonSet;Deployment
	// +required
	ParentKind string `json:"parentKind"`

	// parentName is the name of that DaemonSet or Deployment.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	ParentName string `json:"parentName"`

	// name of the container.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +required
	Name string `json:"name"`

	// image is the pull spec the container runs.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +required
	Image string `json:"image"`
}

// StackMode is how an enabled stack is delivered.
//
// +kubebuilder:validation:Enum="";PlatformProxy;OperatorTLS
type StackMode string

const (
	// PlatformProxy: the platform's own CRI-O metrics path serves; the
	// operator adds alerts, a dashboard and status on top of it.
	PlatformProxy StackMode = "PlatformProxy"
	// OperatorTLS: the operator's kube-rbac-proxy DaemonSet, rotated
	// certificates and CRI-O TLS drop-in serve CRI-O metrics.
	OperatorTLS StackMode = "OperatorTLS"
)

// NodeOperatorList is a list of NodeOperator.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type NodeOperatorList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []NodeOperator `json:"items"`
}
