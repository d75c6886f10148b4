package criometrics

import (
	"fmt"
	"strings"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

// The stack has two modes (status.stacks[Metrics].mode). PlatformProxy: the
// machine-config operator's kube-rbac-proxy-crio serves CRI-O metrics as
// job="crio"; the operator adds alerts and a dashboard and must never touch
// CRI-O's endpoint (a TLS drop-in would break job="crio" on every node).
// OperatorTLS: the operator's own TLS stack serves them.
//
// Switching must never leave a scraper without its target, so the own TLS
// stack is torn down and built in order:
//
//	tear down: ServiceMonitor -> drop-in MachineConfigs -> DaemonSet -> the rest
//	build:     the rest, DaemonSet, MachineConfigs -> ServiceMonitor
//
// The ServiceMonitor goes first because the drop-in's removal turns CRI-O's
// endpoint back to plain HTTP, which the operator's proxy cannot read; it
// comes last because the proxy serves only once CRI-O has the drop-in.

// Intent is what the stack's controllers do with the operator's own TLS
// stack.
type Intent int

const (
	// Hold: leave it as it is (not managed, not decided, or the mode is not
	// known yet).
	Hold Intent = iota
	// Build: the own TLS stack serves.
	Build
	// TearDown: the stack is off, or the platform's path serves.
	TearDown
)

// IntentFor reads the recorded decision.
func IntentFor(s stack.State) Intent {
	switch {
	case !s.Act || !s.Decided:
		return Hold
	case !s.Enabled || s.Decision.Mode == nodev1alpha1.PlatformProxy:
		return TearDown
	case s.Decision.Mode == nodev1alpha1.OperatorTLS:
		return Build
	}
	return Hold
}

// TLSStack says which ordered parts of the operator's own TLS stack exist.
type TLSStack struct {
	ServiceMonitor bool
	MachineConfigs bool
	DaemonSet      bool
	// DaemonSetServes: a node's kube-rbac-proxy is available.
	DaemonSetServes bool
	// Rest: the Service, SCC, certificates or the client CA copy are
	// still there.
	Rest bool
	// Legacy: objects an earlier release left in the operator's namespace
	// (legacy.go), its ServiceMonitor perhaps among them.
	Legacy bool
}

// MayRemoveMachineConfigs: no scraper reads the proxy any more.
func (t TLSStack) MayRemoveMachineConfigs() bool { return !t.ServiceMonitor && !t.Legacy }

// MayRemoveDaemonSet: CRI-O is on its way back to plain HTTP.
func (t TLSStack) MayRemoveDaemonSet() bool { return !t.ServiceMonitor && !t.MachineConfigs }

// MayRemoveRest (RBAC, Service, SCC, certificates, the client CA copy):
// nothing uses them.
func (t TLSStack) MayRemoveRest() bool { return t.MayRemoveDaemonSet() && !t.DaemonSet }

// MayCreateServiceMonitor: the proxy serves and CRI-O gets the drop-in that
// the proxy needs; without MCO's API there is no drop-in to wait for.
func (t TLSStack) MayCreateServiceMonitor(machineConfigServed bool) bool {
	return t.DaemonSetServes && (t.MachineConfigs || !machineConfigServed)
}

// Remaining lists what is left to tear down, in order.
func (t TLSStack) Remaining() []string {
	var out []string
	if t.Legacy {
		out = append(out, "what an earlier release left in "+legacyNamespace)
	}
	if t.ServiceMonitor {
		out = append(out, "ServiceMonitor "+serviceName)
	}
	if t.MachineConfigs {
		out = append(out, "MachineConfigs "+strings.Join(machineConfigNames(), ", "))
	}
	if t.DaemonSet {
		out = append(out, "DaemonSet "+DaemonSetName)
	}
	if t.Rest {
		out = append(out, "RBAC, Service, SCC and certificates")
	}
	return out
}

// SwitchStatus is the Progressing condition of a stack between modes, or
// ok=false when nothing is switching.
func SwitchStatus(intent Intent, mode nodev1alpha1.StackMode, t TLSStack, monitoringServed bool) (reason, message string, ok bool) {
	switch {
	case intent == TearDown && mode == nodev1alpha1.PlatformProxy && len(t.Remaining()) > 0:
		return ReasonSwitchingToPlatformProxy, fmt.Sprintf(
			"the platform's kube-rbac-proxy-crio serves CRI-O metrics: removing the node operator's own TLS stack in order, left: %s",
			strings.Join(t.Remaining(), ", ")), true
	case intent == Build && monitoringServed && !t.ServiceMonitor:
		return ReasonSwitchingToOperatorTLS,
			"building the node operator's CRI-O metrics TLS stack: the ServiceMonitor comes last, once kube-rbac-proxy serves on a node and the CRI-O drop-in MachineConfigs are in place", true
	}
	return "", "", false
}

// Reasons of the Progressing condition while the stack switches modes.
const (
	ReasonSwitchingToPlatformProxy = "SwitchingToPlatformProxy"
	ReasonSwitchingToOperatorTLS   = "SwitchingToOperatorTLS"
)

// sccName is the SecurityContextConstraints of the DaemonSet (scc.yaml).
const sccName = "crio-metrics"
