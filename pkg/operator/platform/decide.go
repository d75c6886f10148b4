// Package platform decides, without any I/O, which stacks the node operator
// deploys on a cluster and why.
package platform

import (
	"fmt"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"

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
}

// StackDecision is the decision for one stack.
type StackDecision struct {
	nodev1alpha1.StackStatus
	// Skipped describes parts of an enabled stack left out because an
	// optional API is not served.
	Skipped []string
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

	out.Metrics = decideStack(in, nodev1alpha1.MetricsStack, in.Spec.Metrics.ManagementState, platform, topology, problem, true)
	out.NMState = decideStack(in, nodev1alpha1.NMStateStack, in.Spec.NMState.ManagementState, platform, topology, problem, nmstateDefaultPlatforms[platform])

	if out.Metrics.Enabled {
		// Served APIs are re-evaluated even for a kept decision.
		for _, note := range []string{SkippedMonitoring, SkippedMachineConfig} {
			out.Metrics.Message = strings.ReplaceAll(out.Metrics.Message, "; "+note, "")
		}
		if !in.Served.Monitoring {
			out.Metrics.Skipped = append(out.Metrics.Skipped, SkippedMonitoring)
		}
		if !in.Served.MachineConfig {
			out.Metrics.Skipped = append(out.Metrics.Skipped, SkippedMachineConfig)
		}
		if len(out.Metrics.Skipped) > 0 {
			out.Metrics.Message += "; " + strings.Join(out.Metrics.Skipped, "; ")
		}
	}
	return out
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

func decideStack(in Input, name nodev1alpha1.StackName, knob nodev1alpha1.StackManagementState,
	platform configv1.PlatformType, topology configv1.TopologyMode, problem string, onByDefault bool) StackDecision {
	field := "spec." + strings.ToLower(string(name)) + ".managementState"
	d := func(enabled bool, reason, message string) StackDecision {
		return StackDecision{StackStatus: nodev1alpha1.StackStatus{Name: name, Enabled: enabled, Reason: reason, Message: message}}
	}

	// Opting out and removing the whole operator never need the platform.
	if in.Spec.ManagementState == operatorv1.Removed {
		return d(false, ReasonOperatorRemoved, "not deployed: spec.managementState is Removed")
	}
	if knob == nodev1alpha1.StackRemoved {
		return d(false, ReasonOptedOut, fmt.Sprintf("not deployed: %s is Removed", field))
	}

	if problem != "" {
		for _, prev := range in.Previous {
			if prev.Name == name {
				return d(prev.Enabled, prev.Reason, prev.Message)
			}
		}
		return d(false, ReasonInfrastructureUnavailable, fmt.Sprintf("not deployed yet: %s; the platform decides whether this stack is deployed", problem))
	}

	if topology == configv1.ExternalTopologyMode {
		return d(false, ReasonHostedControlPlane, "not deployed: the control plane is hosted externally (controlPlaneTopology External), nodes are managed by the hosting cluster")
	}
	if knob == nodev1alpha1.StackManaged {
		return d(true, ReasonOptedIn, fmt.Sprintf("deployed: %s is Managed (platform %s)", field, platform))
	}
	if onByDefault {
		return d(true, ReasonPlatformDefault, fmt.Sprintf("deployed by default on platform %s; set %s=Removed to opt out", platform, field))
	}
	return d(false, ReasonNotDefaultOnPlatform, fmt.Sprintf("not deployed (platform %s is not enabled by default; set %s=Managed to opt in)", platform, field))
}
