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
// +kubebuilder:printcolumn:name="Metrics",type=string,JSONPath=`.status.stacks[?(@.name=="Metrics")].state`,description="Whether the CRI-O metrics stack is deployed"
// +kubebuilder:printcolumn:name="NMState",type=string,JSONPath=`.status.stacks[?(@.name=="NMState")].state`,description="Whether the NMState stack is deployed"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name == 'cluster'",message="NodeOperator is a singleton: metadata.name must be 'cluster'"
type NodeOperator struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata; the name must be "cluster".
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec holds the desired configuration of the node operator.
	// +required
	Spec NodeOperatorSpec `json:"spec,omitempty"`

	// status holds what the node operator observed and decided. The
	// operator writes it; when omitted, the operator has not reported yet.
	// +optional
	Status NodeOperatorStatus `json:"status,omitempty"`
}

// NodeOperatorSpec is the desired configuration of the node operator.
//
// +kubebuilder:validation:MinProperties=1
type NodeOperatorSpec struct {
	operatorv1.OperatorSpec `json:",inline"`

	// metrics configures the CRI-O metrics stack: kube-rbac-proxy in front of
	// every node's CRI-O metrics endpoint, with certificates the operator
	// rotates, a ServiceMonitor and alerts.
	// When omitted, this means the platform default applies, which may change
	// over time. The current default is to deploy the stack on every
	// platform.
	// +optional
	Metrics StackConfig `json:"metrics,omitzero"`

	// nmstate configures the Kubernetes NMState stack (host network
	// configuration).
	// When omitted, this means the platform default applies, which may change
	// over time. The current default is to deploy the stack on bare metal
	// only.
	// +optional
	NMState StackConfig `json:"nmstate,omitzero"`

	// nodeSettings are the Node team's settings of CRI-O and the kubelet on
	// every node, delivered as MachineConfigs of the operator's own (one per
	// MachineConfigPool) and rolled out pool by pool with a health gate
	// after each pool and automatic rollback. Only the settings listed here
	// exist: there is no free-form configuration.
	// When omitted, this means the operator adds nothing to the nodes, and
	// removes what it added, in the same staged way.
	// This field is served and acted on only where the feature gate
	// NodeOperatorNodeSettings is enabled (TechPreviewNoUpgrade,
	// DevPreviewNoUpgrade, or CustomNoUpgrade listing it).
	// +openshift:enable:FeatureGate=NodeOperatorNodeSettings
	// +optional
	NodeSettings NodeSettings `json:"nodeSettings,omitzero"`
}

// NodeSettings are the node-level settings the operator owns.
//
// +kubebuilder:validation:MinProperties=1
type NodeSettings struct {
	// tracing sends OpenTelemetry traces of CRI-O and the kubelet to an
	// OTLP/gRPC endpoint.
	// When omitted, this means no node tracing from the operator.
	// +optional
	Tracing NodeTracing `json:"tracing,omitzero"`

	// rollout says how changed node settings reach the pools.
	// When omitted, this means the operator chooses the order, which may
	// change over time. The current default is no canary pool: the custom
	// pools by name, then worker, arbiter and master last.
	// +optional
	Rollout NodeSettingsRollout `json:"rollout,omitzero"`
}

// NodeTracing is node tracing: where spans go, and which components send
// them.
//
// +kubebuilder:validation:XValidation:rule="has(self.crio) || has(self.kubelet)",message="set crio, kubelet or both: tracing with neither sends nothing"
type NodeTracing struct {
	// endpoint is the OTLP/gRPC destination as host:port, without a scheme,
	// for example otel-collector.example.com:4317 or [fd00::1]:4317. CRI-O
	// and the kubelet send spans to it over plain gRPC from every node.
	// +kubebuilder:validation:MinLength=3
	// +kubebuilder:validation:MaxLength=260
	// +kubebuilder:validation:XValidation:rule=`self.matches('^(\\[[0-9a-fA-F:.]+\\]|[a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?):[1-9][0-9]{0,4}$')`,message="endpoint must be host:port without a scheme: a DNS name, an IPv4 address or a bracketed IPv6 address, then a port"
	// +kubebuilder:validation:XValidation:rule=`!self.matches(':[0-9]{1,5}$') || int(self.substring(self.lastIndexOf(':') + 1)) <= 65535`,message="endpoint port must be at most 65535"
	// +required
	Endpoint string `json:"endpoint,omitempty"`

	// crio traces CRI-O (its [crio.tracing] configuration).
	// When omitted, this means CRI-O is not traced by the operator.
	// +optional
	CRIO *TracingSampling `json:"crio,omitempty"`

	// kubelet traces the kubelet (the tracing block of its
	// KubeletConfiguration), on pools whose kubelet reads configuration
	// drop-ins (OpenShift 4.21 and later) and where no KubeletConfig of the
	// administrator sets tracing; status says where it is skipped.
	// When omitted, this means the kubelet is not traced by the operator.
	// +optional
	Kubelet *TracingSampling `json:"kubelet,omitempty"`
}

// TracingSampling is how much of a component's work is traced.
type TracingSampling struct {
	// samplingRatePerMillion is how many of every million operations that
	// start a trace are sampled: 0 samples only operations whose caller's
	// trace is sampled, 1000000 samples every one.
	// When omitted, this means the operator chooses, which may change over
	// time. The current default is 0.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000
	// +optional
	SamplingRatePerMillion *int32 `json:"samplingRatePerMillion,omitempty"`
}

// NodeSettingsRollout orders the pools.
//
// +kubebuilder:validation:MinProperties=1
type NodeSettingsRollout struct {
	// canaryPool names the MachineConfigPool that gets changed node settings
	// first. The other custom pools follow by name, then worker, arbiter
	// and master last. A name that matches no pool is ignored.
	// When omitted, this means no canary pool: the custom pools go first,
	// by name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$')",message="canaryPool must be a MachineConfigPool name: lower case letters, digits, '-' and '.', starting and ending with a letter or digit"
	// +optional
	CanaryPool string `json:"canaryPool,omitempty"`
}

// StackState says whether a stack is deployed.
//
// +kubebuilder:validation:Enum=Enabled;Disabled
type StackState string

const (
	// StackEnabled: the stack is deployed.
	StackEnabled StackState = "Enabled"
	// StackDisabled: the stack is not deployed, and the operator removes
	// its operands (never user data).
	StackDisabled StackState = "Disabled"
)

// StackManagementState is the deprecated spelling of StackState.
//
// +kubebuilder:validation:Enum=Managed;Removed
type StackManagementState string

const (
	// StackManaged is the deprecated spelling of StackEnabled.
	StackManaged StackManagementState = "Managed"
	// StackRemoved is the deprecated spelling of StackDisabled.
	StackRemoved StackManagementState = "Removed"
)

// StackConfig is the per-stack knob.
//
// +kubebuilder:validation:MinProperties=1
// +kubebuilder:validation:XValidation:rule="!has(self.state) || !has(self.managementState) || (self.state == 'Enabled') == (self.managementState == 'Managed') || (has(oldSelf.managementState) && oldSelf.managementState == self.managementState)",message="managementState is deprecated and the operator keeps it in step with state: set state instead"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.state) || has(self.state) || !has(self.managementState)",message="managementState is deprecated: to return to the platform default, remove it together with state"
type StackConfig struct {
	// state says whether the stack is deployed. Allowed values are Enabled
	// and Disabled. Enabled deploys the stack, also on a platform where it
	// is off by default. Disabled does not deploy it, and the operator
	// removes the stack's operands (never user data).
	// When omitted, this means the platform default applies, which may
	// change over time; the field of each stack tells the current default.
	// +optional
	State StackState `json:"state,omitempty"`

	// managementState is deprecated: use state. Managed is the old spelling
	// of Enabled and Removed of Disabled. When state is omitted, the
	// operator sets state from managementState; from then on it keeps
	// managementState in step with state, so that an operator of the
	// previous release, which reads only managementState, still acts on the
	// administrator's choice after a downgrade. When both are set, state
	// wins.
	// When omitted, this means state alone says what to do.
	// +optional
	ManagementState StackManagementState `json:"managementState,omitempty"`
}

// NodeOperatorStatus is what the node operator observed and decided.
//
// +kubebuilder:validation:MinProperties=1
type NodeOperatorStatus struct {
	operatorv1.OperatorStatus `json:",inline"`

	// stacks lists, for each stack, whether it is deployed and why.
	// When omitted, this means the operator has not decided about any stack
	// yet.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	// +optional
	Stacks []StackStatus `json:"stacks,omitempty"`

	// nodeSettings reports the staged rollout of spec.nodeSettings.
	// When omitted, this means no rollout is recorded: none was asked for, or
	// the operator has not started one yet.
	// Served only where the feature gate NodeOperatorNodeSettings is enabled.
	// +openshift:enable:FeatureGate=NodeOperatorNodeSettings
	// +optional
	NodeSettings *NodeSettingsStatus `json:"nodeSettings,omitempty"`
}

// NodeSettingsPhase sums up a rollout of node settings.
//
// +kubebuilder:validation:Enum=Complete;RollingOut;RollingBack;Stopped
type NodeSettingsPhase string

// NodeSettingsStatus is the recorded state of the latest rollout; a
// restarted operator carries on from it. Its strings, and those of its
// pools, are omitted when they say nothing; "" means the same. The
// operator of the previous release writes "" for them, and during an
// upgrade it writes status after the new schema is in place (the API
// server's ratcheting keeps only unchanged values), so "" stays valid
// until that release is out of the upgrade window.
type NodeSettingsStatus struct {
	// target names the rollout: the set of revisions it brings the pools
	// to. When omitted, this means a rollout that brings no pool a
	// MachineConfig of the operator's.
	// +kubebuilder:validation:MinLength=0
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	Target string `json:"target,omitempty"`

	// phase sums up the rollout: Complete (every pool runs what spec asks),
	// RollingOut, RollingBack (a pool failed its health gate; the pools
	// changed go back to their last good revision) or Stopped (rolled back;
	// a changed spec starts a new rollout). The operator always sets it.
	// Clients should read the NodeSettings conditions of status.conditions
	// instead: phase stays for the operator itself, which carries an
	// interrupted rollout on from it.
	// +optional
	Phase NodeSettingsPhase `json:"phase,omitempty"`

	// message says what happened and what to do. When omitted, there is
	// nothing to say.
	// +kubebuilder:validation:MinLength=0
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	Message string `json:"message,omitempty"`

	// pools lists the pools the rollout covers, in rollout order. When
	// omitted, this means no pool is covered yet.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +optional
	Pools []NodeSettingsPoolStatus `json:"pools,omitempty"`

	// openTelemetryCollector is the operator's OpenTelemetryCollector
	// (opentelemetry.io/v1beta1) while it exists: where the OpenTelemetry
	// operator's API is served, CRI-O and the kubelet send spans to a
	// collector on their node, which exports them to the endpoint.
	// When omitted, this means the operator runs no collector.
	// +optional
	OpenTelemetryCollector OpenTelemetryCollectorReference `json:"openTelemetryCollector,omitzero"`

	// collector is deprecated: read openTelemetryCollector. The operator of
	// the previous release wrote the same collector here as
	// "namespace/name"; this release reads it from status that release
	// wrote and removes it with its first status write. It stays in the
	// schema so that the previous release's status writes, which carry it,
	// are not refused during an upgrade.
	// When omitted, this means openTelemetryCollector alone tells.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	// +optional
	Collector string `json:"collector,omitempty"`
}

// OpenTelemetryCollectorReference names an OpenTelemetryCollector
// (opentelemetry.io): the resource is fixed by the field that holds it.
type OpenTelemetryCollectorReference struct {
	// namespace of the OpenTelemetryCollector, a DNS-1123 label of at
	// most 63 characters.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Label().validate(self).hasValue()",message="namespace must be a DNS-1123 label: lower case letters, digits and '-', starting and ending with a letter or digit"
	// +required
	Namespace string `json:"namespace,omitempty"`

	// name of the OpenTelemetryCollector, a DNS-1123 subdomain of at most
	// 253 characters.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!format.dns1123Subdomain().validate(self).hasValue()",message="name must be a DNS-1123 subdomain: lower case letters, digits, '-' and '.', starting and ending with a letter or digit"
	// +required
	Name string `json:"name,omitempty"`
}

// NodeSettingsPoolState is where one pool stands.
//
// +kubebuilder:validation:Enum=Pending;Applying;Verifying;Done;Reverting;Reverted;Held
type NodeSettingsPoolState string

// NodeSettingsPoolStatus is one pool's part of the rollout. A revision is a
// short hash of the files the operator's MachineConfig for the pool
// carries; an omitted revision means no MachineConfig of the operator's on
// the pool.
type NodeSettingsPoolStatus struct {
	// name of the MachineConfigPool.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name,omitempty"`

	// target is the revision this rollout brings the pool to. When omitted,
	// this means no MachineConfig of the operator's.
	// +kubebuilder:validation:MinLength=0
	// +kubebuilder:validation:MaxLength=64
	// +optional
	Target string `json:"target,omitempty"`

	// revision is the one the operator's MachineConfig for the pool
	// carries now. When omitted, this means the pool has no MachineConfig
	// of the operator's.
	// +kubebuilder:validation:MinLength=0
	// +kubebuilder:validation:MaxLength=64
	// +optional
	Revision string `json:"revision,omitempty"`

	// lastGood is the revision that last passed the health gate on the
	// pool: what a failed gate reverts it to. When omitted, this means no
	// MachineConfig of the operator's.
	// +kubebuilder:validation:MinLength=0
	// +kubebuilder:validation:MaxLength=64
	// +optional
	LastGood string `json:"lastGood,omitempty"`

	// rollbackTo is lastGood when this rollout started. When omitted, this
	// means a rollback removes the pool's MachineConfig of the operator's.
	// +kubebuilder:validation:MinLength=0
	// +kubebuilder:validation:MaxLength=64
	// +optional
	RollbackTo string `json:"rollbackTo,omitempty"`

	// state is where the pool stands: Pending (not reached yet), Applying
	// (MachineConfig written, the machine-config operator updates the pool),
	// Verifying (updated; the health gate runs), Done, Reverting, Reverted,
	// or Held (the rollout stopped before the pool, which was not changed).
	// +required
	State NodeSettingsPoolState `json:"state,omitempty"`

	// since is when the pool entered its state; it changes only with the
	// state.
	// +required
	Since *metav1.Time `json:"since,omitempty"`

	// reason is a machine-readable CamelCase reason for the state. When
	// omitted, the state needs no reason.
	// +kubebuilder:validation:MinLength=0
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Reason string `json:"reason,omitempty"`

	// message explains the state. When omitted, the state needs no
	// explanation.
	// +kubebuilder:validation:MinLength=0
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	Message string `json:"message,omitempty"`
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
	Name StackName `json:"name,omitempty"`

	// state says whether the operator deploys the stack: Enabled or
	// Disabled. The operator always sets it. When omitted, the decision was
	// recorded by an operator of the previous release, and enabled tells it.
	// +optional
	State StackState `json:"state,omitempty"`

	// enabled is deprecated: read state. It is true when state is Enabled.
	// The operator keeps writing it for an operator of the previous
	// release, which reads it after a downgrade.
	// +required
	Enabled bool `json:"enabled"`

	// reason is a machine-readable CamelCase reason for the decision.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +required
	Reason string `json:"reason,omitempty"`

	// message explains the decision to an administrator, and how to change
	// it.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	// +required
	Message string `json:"message,omitempty"`

	// mode says how an enabled stack is delivered, for stacks that have more
	// than one way. Metrics: PlatformProxy where the platform already serves
	// CRI-O metrics (the machine-config operator's kube-rbac-proxy-crio static
	// pod, scraped as job="crio"), OperatorTLS where the operator's own TLS
	// stack serves them. When omitted, this means the stack is off or has
	// one way only.
	// +optional
	Mode StackMode `json:"mode,omitempty"`

	// observedVersion is the operator version at which this stack's operands
	// last completed a rollout: set when the operator reports that version
	// on ClusterOperator node (every stack rolled out) and, later, whenever
	// this stack has rolled out again. For a stack that is off it is the
	// version at which it was found off. When omitted, this means no rollout
	// has completed yet.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +optional
	ObservedVersion string `json:"observedVersion,omitempty"`

	// containers lists the containers that the stack's operands run, read
	// from the pod templates of their DaemonSets and Deployments when the
	// stack last completed a rollout. When omitted, this means the operator
	// runs no container for the stack (a stack that is off, or the metrics
	// stack in mode PlatformProxy, where the platform's kube-rbac-proxy-crio
	// serves), or the stack has not completed a rollout yet.
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
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
	Namespace string `json:"namespace,omitempty"`

	// parentKind is the kind of the operand whose pod template holds the
	// container.
	// +kubebuilder:validation:Enum=DaemonSet;Deployment
	// +required
	ParentKind string `json:"parentKind,omitempty"`

	// parentName is the name of that DaemonSet or Deployment.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	ParentName string `json:"parentName,omitempty"`

	// name of the container.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +required
	Name string `json:"name,omitempty"`

	// image is the pull spec the container runs.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +required
	Image string `json:"image,omitempty"`
}

// StackMode is how an enabled stack is delivered.
//
// +kubebuilder:validation:Enum=PlatformProxy;OperatorTLS
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
