package criometrics

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/criometricscerts"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
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
	// Rest: the Service, SCC or certificates are still there.
	Rest bool
}

// MayRemoveMachineConfigs: no scraper reads the proxy any more.
func (t TLSStack) MayRemoveMachineConfigs() bool { return !t.ServiceMonitor }

// MayRemoveDaemonSet: CRI-O is on its way back to plain HTTP.
func (t TLSStack) MayRemoveDaemonSet() bool { return !t.ServiceMonitor && !t.MachineConfigs }

// MayRemoveRest (RBAC, Service, SCC, certificates): nothing uses them.
func (t TLSStack) MayRemoveRest() bool { return t.MayRemoveDaemonSet() && !t.DaemonSet }

// MayCreateServiceMonitor: the proxy serves and CRI-O gets the drop-in that
// the proxy needs; without MCO's API there is no drop-in to wait for.
func (t TLSStack) MayCreateServiceMonitor(machineConfigServed bool) bool {
	return t.DaemonSetServes && (t.MachineConfigs || !machineConfigServed)
}

// Remaining lists what is left to tear down, in order.
func (t TLSStack) Remaining() []string {
	var out []string
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

var (
	serviceMonitorGVR = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
	daemonSetGVR      = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}
	serviceGVR        = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	configMapGVR      = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

// sccName is the SecurityContextConstraints of the DaemonSet (scc.yaml).
const sccName = "crio-metrics"

func machineConfigNames() []string {
	var out []string
	for _, role := range machineConfigRoles {
		out = append(out, machineConfigName(role))
	}
	return out
}

// ObserveTLSStack reads which parts exist with GETs: a cache could still
// hold an object another controller has just deleted and hold the next step
// back until a resync; and there is no watch for kinds we only need to see
// go. A failed read counts as existing, so nothing after it in the teardown
// order is removed early.
//
// withRest also looks at the Service, SCC and CA bundle, which only the
// status needs; the ordering decisions do not.
func ObserveTLSStack(ctx context.Context, dyn dynamic.Interface, served platform.ServedAPIs, withRest bool) TLSStack {
	var t TLSStack
	exists := func(gvr schema.GroupVersionResource, namespace, name string) bool {
		var err error
		if namespace == "" {
			_, err = dyn.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
		} else {
			_, err = dyn.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
		}
		return !apierrors.IsNotFound(err)
	}
	if served.Monitoring {
		t.ServiceMonitor = exists(serviceMonitorGVR, namespace, serviceName)
	}
	if served.MachineConfig {
		for _, name := range machineConfigNames() {
			t.MachineConfigs = t.MachineConfigs || exists(machineConfigGVR, "", name)
		}
	}
	ds, err := dyn.Resource(daemonSetGVR).Namespace(namespace).Get(ctx, DaemonSetName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		t.DaemonSet = true
	default:
		t.DaemonSet = true
		available, _, _ := unstructured.NestedInt64(ds.Object, "status", "numberAvailable")
		desired, _, _ := unstructured.NestedInt64(ds.Object, "status", "desiredNumberScheduled")
		t.DaemonSetServes = available > 0 || desired == 0
	}
	if withRest {
		t.Rest = exists(serviceGVR, namespace, serviceName) || exists(sccGVR, "", sccName) ||
			exists(configMapGVR, namespace, criometricscerts.CABundleName)
	}
	return t
}
