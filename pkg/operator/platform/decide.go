// Package platform decides, without any I/O, which stacks the node operator
// deploys on a cluster and why.
package platform

import (
	"fmt"
	"slices"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
)

// Reasons are machine-readable and appear in status.stacks[].reason.
const (
	ReasonPlatformDefault           = "PlatformDefault"
	ReasonNotDefaultOnPlatform      = "NotDefaultOnPlatform"
	ReasonOptedIn                   = "OptedIn"
	ReasonOptedOut                  = "OptedOut"
	ReasonHostedControlPlane        = "HostedControlPlane"
	ReasonOperatorRemoved           = "OperatorRemoved"
	ReasonInfrastructureUnavailable = "InfrastructureUnavailable"
)

// Notes appended to the metrics stack's message for parts left out.
const (
	SkippedMonitoring    = "ServiceMonitor and PrometheusRule skipped: monitoring.coreos.com/v1 is not served"
	SkippedMachineConfig = "CRI-O drop-in MachineConfigs skipped: machineconfiguration.openshift.io/v1 is not served"
	HeldMonitoring       = "ServiceMonitor and PrometheusRule held back: discovery of monitoring.coreos.com/v1 has not answered yet"
	HeldMachineConfig    = "CRI-O drop-in MachineConfigs held back: discovery of machineconfiguration.openshift.io/v1 has not answered yet"
)

// ServedAPIs says which optional APIs the cluster serves. Parts of a stack
// that need an API that is not served are skipped.
type ServedAPIs struct {
	// Monitoring is monitoring.coreos.com/v1 (ServiceMonitor, PrometheusRule).
	Monitoring bool
	// MachineConfig is machineconfiguration.openshift.io/v1 (MachineConfig).
	MachineConfig bool
	// MachineConfiguration is operator.openshift.io/v1 machineconfigurations
	// (MCO's node disruption policy). The decision does not depend on it:
	// the CRIOMetricsNodeConfig condition says when it is skipped.
	MachineConfiguration bool
	// Unknown lists the group versions discovery has not answered yet in
	// this process (a 403, 429 or 503 is no answer). Their field is false,
	// and nothing may be concluded from it: what the API would add is held
	// back, and what it may hold is treated as existing.
	Unknown []string
}

// Known says whether discovery has answered for the resource's group
// version.
func (s ServedAPIs) Known(gvr schema.GroupVersionResource) bool {
	return !slices.Contains(s.Unknown, gvr.GroupVersion().String())
}

// MaybeServed is true unless discovery said the resource's API is not
// served: where an API may hold objects of ours, they count as existing.
func (s ServedAPIs) MaybeServed(gvr schema.GroupVersionResource) bool {
	if !s.Known(gvr) {
		return true
	}
	for _, api := range optionalAPIs {
		if api.resources[0].GroupVersion() == gvr.GroupVersion() {
			return *api.field(&s)
		}
	}
	return false
}

// NotAnswered is the problem of an API discovery has not answered yet.
func NotAnswered(gvr schema.GroupVersionResource) string {
	return "discovery of " + gvr.GroupVersion().String() + " has not answered yet"
}

// Input is everything a decision depends on.
type Input struct {
	// Infrastructure is the Infrastructure "cluster", nil when it is missing
	// or cannot be read.
	Infrastructure *configv1.Infrastructure
	// Spec is the NodeOperator spec.
	Spec nodev1alpha1.NodeOperatorSpec
	// Served lists the optional APIs the cluster serves.
	Served ServedAPIs
	// Previous is the last recorded decision (status.stacks), kept while the
	// Infrastructure cannot be read.
	Previous []nodev1alpha1.StackStatus
	// PlatformCRIOMetrics is what the platform already runs to serve CRI-O
	// metrics.
	PlatformCRIOMetrics PlatformCRIOMetrics
}

// PlatformCRIOMetrics describes the platform's own CRI-O metrics path: since
// OpenShift 4.14 the machine-config operator lays down the static pod
// kube-rbac-proxy-crio (:9637, in front of CRI-O's plain-HTTP loopback
// endpoint) on every node, and the monitoring stack scrapes it as
// job="crio".
type PlatformCRIOMetrics struct {
	// MachineConfigs names MCO's MachineConfigs (01-<role>-kubelet) that
	// carry the static pod. They exist as soon as MCO has rendered its base
	// configuration, before any node runs the pod.
	MachineConfigs []string
	// MirrorPods counts the static pod's mirror pods (labelled
	// k8s-app=kube-rbac-proxy-crio by MCO since 4.16): nodes that run it.
	MirrorPods int
	// Problem is set when the lookup failed; the last recorded mode stands.
	Problem string
}

// Exists reports whether the platform serves CRI-O metrics itself.
func (p PlatformCRIOMetrics) Exists() bool {
	return len(p.MachineConfigs) > 0 || p.MirrorPods > 0
}

// StackDecision is the decision for one stack.
type StackDecision struct {
	nodev1alpha1.StackStatus
	// Skipped describes parts of an enabled stack left out because an
	// optional API is not served.
	Skipped []string
	// Kept: the Infrastructure cannot be read, and the last decision
	// stands whole (state, reason, message, mode), as the status records
	// it: nothing in it is decided again, so nothing on the nodes changes
	// until the Infrastructure is back.
	Kept bool
}

// Decision is the outcome for every stack.
type Decision struct {
	Metrics StackDecision
	NMState StackDecision
	// Platform is the platform type the decision was made for ("" when the
	// Infrastructure was unavailable).
	Platform configv1.PlatformType
	// InfrastructureProblem explains why the Infrastructure could not be
	// used; empty when it was fine.
	InfrastructureProblem string
}

// Stacks returns the decisions in status order.
func (d Decision) Stacks() []StackDecision { return []StackDecision{d.Metrics, d.NMState} }

// nmstateDefaultPlatforms are the platforms where host network configuration
// is common enough that NMState is deployed without being asked.
var nmstateDefaultPlatforms = map[configv1.PlatformType]bool{
	configv1.BareMetalPlatformType: true,
}

// Decide returns the per-stack decision for the given input.
func Decide(in Input) Decision {
	out := Decision{}
	platform, topology, problem := readInfrastructure(in.Infrastructure)
	out.InfrastructureProblem = problem
	if problem == "" {
		out.Platform = platform
	}

	out.Metrics = decideStack(in, nodev1alpha1.MetricsStack, in.Spec.Metrics.State, platform, topology, problem, true)
	out.NMState = decideStack(in, nodev1alpha1.NMStateStack, in.Spec.NMState.State, platform, topology, problem, nmstateDefaultPlatforms[platform])

	if out.Metrics.Enabled && !out.Metrics.Kept {
		out.Metrics.Mode, out.Metrics.Message = metricsMode(in, out.Metrics.Message)
		switch {
		case !in.Served.Known(ServiceMonitorGVR):
			out.Metrics.Skipped = append(out.Metrics.Skipped, HeldMonitoring)
		case !in.Served.Monitoring:
			out.Metrics.Skipped = append(out.Metrics.Skipped, SkippedMonitoring)
		}
		switch {
		case out.Metrics.Mode != nodev1alpha1.OperatorTLS:
		case !in.Served.Known(MachineConfigGVR):
			out.Metrics.Skipped = append(out.Metrics.Skipped, HeldMachineConfig)
		case !in.Served.MachineConfig:
			out.Metrics.Skipped = append(out.Metrics.Skipped, SkippedMachineConfig)
		}
		if len(out.Metrics.Skipped) > 0 {
			out.Metrics.Message += "; " + strings.Join(out.Metrics.Skipped, "; ")
		}
	}
	return out
}

// Message prefixes of the metrics stack that say which path serves CRI-O
// metrics.
const (
	servedByPlatform = "CRI-O metrics served by the platform: the machine-config operator's kube-rbac-proxy-crio static pod (job=\"crio\"), with the node operator's alerts and dashboard on top"
	servedByOperator = "CRI-O metrics served by the node operator's TLS stack (kube-rbac-proxy DaemonSet crio-metrics, job=\"crio-metrics\"): the platform runs no kube-rbac-proxy-crio"
	pathUnknown      = "which path serves CRI-O metrics is not known yet"
)

// metricsMode picks the path that serves CRI-O metrics. Where the platform
// serves them, the operator must not touch CRI-O's endpoint: a TLS drop-in
// would break job="crio" on every node. A failed lookup keeps the last
// mode; with none recorded, nothing node-side is deployed until the lookup
// works, because guessing "no platform path" could break the platform's.
//
// The last mode is status.stacks[].mode; message is the decision's own,
// never one read back from the status.
func metricsMode(in Input, message string) (nodev1alpha1.StackMode, string) {
	p := in.PlatformCRIOMetrics
	mode := nodev1alpha1.OperatorTLS
	switch {
	case p.Problem != "":
		mode = ""
		for _, prev := range in.Previous {
			if prev.Name == nodev1alpha1.MetricsStack {
				mode = prev.Mode
			}
		}
	case p.Exists():
		mode = nodev1alpha1.PlatformProxy
	}
	switch mode {
	case nodev1alpha1.PlatformProxy:
		return mode, servedByPlatform + "; " + message
	case nodev1alpha1.OperatorTLS:
		return mode, servedByOperator + "; " + message
	}
	return mode, pathUnknown + " (" + p.Problem + "); " + message
}

// readInfrastructure returns the platform type and control-plane topology,
// or a problem when the Infrastructure is unusable. An Infrastructure whose
// status names no platform at all (neither platformStatus nor the deprecated
// platform) has not been filled in, or was emptied: that is a problem, and
// the last decision stands. An empty or unknown platformStatus.type is None,
// as the Infrastructure API documents.
func readInfrastructure(infra *configv1.Infrastructure) (configv1.PlatformType, configv1.TopologyMode, string) {
	if infra == nil {
		return "", "", "Infrastructure cluster is missing or unreadable"
	}
	if infra.Status.PlatformStatus == nil && infra.Status.Platform == "" { //nolint:staticcheck // see above
		return "", "", "Infrastructure cluster has no status.platformStatus"
	}
	platform := infra.Status.Platform //nolint:staticcheck // fallback for clusters that predate platformStatus
	if infra.Status.PlatformStatus != nil && infra.Status.PlatformStatus.Type != "" {
		platform = infra.Status.PlatformStatus.Type
	}
	if !knownPlatform(platform) {
		platform = configv1.NonePlatformType
	}
	return platform, infra.Status.ControlPlaneTopology, ""
}

func knownPlatform(p configv1.PlatformType) bool {
	switch p {
	case configv1.AWSPlatformType, configv1.AzurePlatformType, configv1.BareMetalPlatformType,
		configv1.GCPPlatformType, configv1.LibvirtPlatformType, configv1.OpenStackPlatformType,
		configv1.NonePlatformType, configv1.VSpherePlatformType, configv1.OvirtPlatformType,
		configv1.IBMCloudPlatformType, configv1.KubevirtPlatformType, configv1.EquinixMetalPlatformType,
		configv1.PowerVSPlatformType, configv1.AlibabaCloudPlatformType, configv1.NutanixPlatformType,
		configv1.ExternalPlatformType:
		return true
	}
	return false
}

func decideStack(in Input, name nodev1alpha1.StackName, knob nodev1alpha1.StackState,
	platform configv1.PlatformType, topology configv1.TopologyMode, problem string, onByDefault bool) StackDecision {
	field := "spec." + strings.ToLower(string(name)) + ".state"
	d := func(enabled bool, reason, message string) StackDecision {
		state := nodev1alpha1.StackDisabled
		if enabled {
			state = nodev1alpha1.StackEnabled
		}
		return StackDecision{StackStatus: nodev1alpha1.StackStatus{Name: name, State: state, Enabled: enabled, Reason: reason, Message: message}}
	}

	// Opting out and removing the whole operator never need the platform.
	if in.Spec.ManagementState == operatorv1.Removed {
		return d(false, ReasonOperatorRemoved, "not deployed: spec.managementState is Removed")
	}
	if knob == nodev1alpha1.StackDisabled {
		return d(false, ReasonOptedOut, fmt.Sprintf("not deployed: %s is Disabled", field))
	}

	if problem != "" {
		for _, prev := range in.Previous {
			if prev.Name == name {
				kept := d(prev.State == nodev1alpha1.StackEnabled, prev.Reason, prev.Message)
				kept.Mode, kept.Kept = prev.Mode, true
				return kept
			}
		}
		return d(false, ReasonInfrastructureUnavailable, fmt.Sprintf("not deployed yet: %s; the platform decides whether this stack is deployed", problem))
	}

	if topology == configv1.ExternalTopologyMode {
		return d(false, ReasonHostedControlPlane, "not deployed: the control plane is hosted externally (controlPlaneTopology External), nodes are managed by the hosting cluster")
	}
	if knob == nodev1alpha1.StackEnabled {
		return d(true, ReasonOptedIn, fmt.Sprintf("deployed: %s is Enabled (platform %s)", field, platform))
	}
	if onByDefault {
		return d(true, ReasonPlatformDefault, fmt.Sprintf("deployed by default on platform %s; set %s=Disabled to opt out", platform, field))
	}
	return d(false, ReasonNotDefaultOnPlatform, fmt.Sprintf("not deployed (platform %s is not enabled by default; set %s=Enabled to opt in)", platform, field))
}
