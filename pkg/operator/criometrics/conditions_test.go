package criometrics

import (
	"cmp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

func TestConditionsFor(t *testing.T) {
	own := nodev1alpha1.StackStatus{Name: nodev1alpha1.MetricsStack, Enabled: true, Reason: "PlatformDefault", Mode: nodev1alpha1.OperatorTLS, Message: "own"}
	onPlatform := nodev1alpha1.StackStatus{Name: nodev1alpha1.MetricsStack, Enabled: true, Reason: "PlatformDefault", Mode: nodev1alpha1.PlatformProxy, Message: "platform"}
	off := nodev1alpha1.StackStatus{Name: nodev1alpha1.MetricsStack, Enabled: false, Reason: "OptedOut", Message: "off"}
	unknown := nodev1alpha1.StackStatus{Name: nodev1alpha1.MetricsStack, Enabled: true, Reason: "PlatformDefault", Message: "not known yet"}
	later := created.Add(time.Hour)
	calm := condition{false, ReasonAsExpected, ""} // nothing to report
	full := TLSStack{ServiceMonitor: true, MachineConfigs: true, DaemonSet: true, DaemonSetServes: true, Rest: true}

	for _, tc := range []struct {
		name string
		obs  observation
		want conditions
	}{{name: "own TLS stack, settled", obs: observation{Decision: own, Intent: Build, TLS: full, MonitoringServed: true, DaemonSet: ds(2, 2, 3, 3, 3, 3), Now: later},
		want: conditions{Available: condition{true, ReasonAsExpected, "CRI-O metrics served over TLS on 3 of 3 nodes; own"}, Progressing: calm, Degraded: calm},
	}, {name: "own TLS stack, ServiceMonitor not in yet", obs: observation{Decision: own, Intent: Build, TLS: TLSStack{DaemonSet: true, DaemonSetServes: true}, MonitoringServed: true, DaemonSet: ds(2, 2, 3, 3, 3, 3), Now: later},
		want: conditions{Available: condition{true, ReasonAsExpected, "CRI-O metrics served over TLS on 3 of 3 nodes; own"}, Progressing: condition{true, ReasonSwitchingToOperatorTLS, "building the node operator's CRI-O metrics TLS stack: the ServiceMonitor comes last, once kube-rbac-proxy serves on a node and the CRI-O drop-in MachineConfigs are in place"}, Degraded: calm},
	}, {name: "own TLS stack being built, waiting for certificates", obs: observation{Decision: own, Intent: Build, MonitoringServed: true, WaitingForCertificates: true, Now: later},
		want: conditions{Available: condition{true, ReasonWaitingForCertificates, "own; deploying: waiting for the CRI-O metrics CA bundle to be created"}, Progressing: condition{true, ReasonSwitchingToOperatorTLS, "building the node operator's CRI-O metrics TLS stack: the ServiceMonitor comes last, once kube-rbac-proxy serves on a node and the CRI-O drop-in MachineConfigs are in place; now: waiting for the CRI-O metrics certificates"}, Degraded: calm},
	}, {name: "own TLS stack being built, DaemonSet rolling out", obs: observation{Decision: own, Intent: Build, TLS: TLSStack{MachineConfigs: true, DaemonSet: true}, MonitoringServed: true, DaemonSet: ds(1, 1, 3, 0, 0, 0), Now: created},
		want: conditions{Available: condition{true, ReasonDeploying, "deploying: 0 of 3 nodes serve metrics so far; own"}, Progressing: condition{true, ReasonSwitchingToOperatorTLS, "building the node operator's CRI-O metrics TLS stack: the ServiceMonitor comes last, once kube-rbac-proxy serves on a node and the CRI-O drop-in MachineConfigs are in place; now: deploying: 0 of 3 nodes serve metrics so far"}, Degraded: calm},
	}, {name: "own TLS stack, settled, DaemonSet rolling out (a new TLS profile)", obs: observation{Decision: own, Intent: Build, TLS: full, MonitoringServed: true, DaemonSet: ds(3, 3, 3, 3, 1, 3), Now: later},
		want: conditions{Available: condition{true, ReasonAsExpected, "rolling out a new configuration: 1 of 3 nodes updated, 3 serving metrics; own"}, Progressing: condition{true, ReasonRollingOut, "rolling out a new configuration: 1 of 3 nodes updated, 3 serving metrics"}, Degraded: calm},
	}, {name: "platform path, switch under way", obs: observation{Decision: onPlatform, Intent: TearDown, TLS: TLSStack{MachineConfigs: true, DaemonSet: true}, MonitoringServed: true, PlatformProxies: 3},
		want: conditions{Available: condition{true, ReasonPlatformProxy, "kube-rbac-proxy-crio serves CRI-O metrics on 3 nodes; platform"}, Progressing: condition{true, ReasonSwitchingToPlatformProxy, "the platform's kube-rbac-proxy-crio serves CRI-O metrics: removing the node operator's own TLS stack in order, left: MachineConfigs 50-master-crio-metrics-tls, 50-worker-crio-metrics-tls, DaemonSet crio-metrics"}, Degraded: calm},
	}, {name: "platform path, settled", obs: observation{Decision: onPlatform, Intent: TearDown, MonitoringServed: true, PlatformProxies: 3},
		want: conditions{Available: condition{true, ReasonPlatformProxy, "kube-rbac-proxy-crio serves CRI-O metrics on 3 nodes; platform"}, Progressing: calm, Degraded: calm},
	}, {
		// The profile only adds to the message: never Degraded.
		name: "platform path, settled, collection profile minimal", obs: observation{Decision: onPlatform, Intent: TearDown, MonitoringServed: true, PlatformProxies: 3, Profile: MonitoringProfile{Profile: ProfileMinimal}},
		want: conditions{Available: condition{true, ReasonPlatformProxy, "kube-rbac-proxy-crio serves CRI-O metrics on 3 nodes; platform; " + ProfileNote(MonitoringProfile{Profile: ProfileMinimal}, nodev1alpha1.PlatformProxy)}, Progressing: calm, Degraded: calm},
	}, {name: "own TLS stack, settled, monitoring configuration unreadable",
		obs: observation{Decision: own, Intent: Build, TLS: full, MonitoringServed: true, DaemonSet: ds(2, 2, 3, 3, 3, 3), Now: later,
			Profile: MonitoringProfile{Problem: "broken"}},
		want: conditions{Available: condition{true, ReasonAsExpected, "CRI-O metrics served over TLS on 3 of 3 nodes; own; " + ProfileNote(MonitoringProfile{Problem: "broken"}, nodev1alpha1.OperatorTLS)}, Progressing: calm, Degraded: calm},
	}, {name: "off, removal under way", obs: observation{Decision: off, Intent: TearDown, TLS: TLSStack{ServiceMonitor: true, Rest: true}, MonitoringServed: true},
		want: conditions{Available: condition{true, ReasonNotDeployed, "off"}, Progressing: condition{true, ReasonRemoving, "removing in order: ServiceMonitor crio-metrics, RBAC, Service, SCC and certificates"}, Degraded: condition{false, ReasonNotDeployed, ""}},
	}, {name: "path unknown: nothing on nodes, degraded", obs: observation{Decision: unknown, Intent: Hold},
		want: conditions{Available: condition{true, ReasonPlatformPathUnknown, "not known yet"}, Progressing: calm, Degraded: condition{true, ReasonPlatformPathUnknown, "nothing is deployed on nodes until the operator can tell whether the machine-config operator's kube-rbac-proxy-crio serves CRI-O metrics: not known yet"}},
	}, {name: "denied write with a DaemonSet serving",
		obs: observation{Decision: own, Intent: Build, TLS: full, MonitoringServed: true, DaemonSet: ds(2, 2, 3, 3, 3, 3), Now: later,
			Problem: &condition{true, ReasonApplyFailed, "unable to apply DaemonSet x/y: denied"}},
		want: conditions{Available: condition{true, ReasonAsExpected, "CRI-O metrics served over TLS on 3 of 3 nodes; own"}, Progressing: calm, Degraded: condition{true, ReasonApplyFailed, "unable to apply DaemonSet x/y: denied"}},
	}, {name: "denied write, no DaemonSet",
		obs: observation{Decision: own, Intent: Build, TLS: TLSStack{Rest: true}, MonitoringServed: true, Now: later,
			Problem: &condition{true, ReasonApplyFailed, "denied"}},
		want: conditions{Available: condition{true, ReasonDeploying, "own; deploying: the DaemonSet could not be applied yet"}, Progressing: condition{true, ReasonSwitchingToOperatorTLS, "building the node operator's CRI-O metrics TLS stack: the ServiceMonitor comes last, once kube-rbac-proxy serves on a node and the CRI-O drop-in MachineConfigs are in place; now: the CRI-O metrics DaemonSet could not be applied yet"}, Degraded: condition{true, ReasonApplyFailed, "denied"}},
	}, {name: "waiting for certificates", obs: observation{Decision: own, Intent: Build, WaitingForCertificates: true, Now: later},
		want: conditions{Available: condition{true, ReasonWaitingForCertificates, "own; deploying: waiting for the CRI-O metrics CA bundle to be created"}, Progressing: condition{true, ReasonWaitingForCertificates, "waiting for the CRI-O metrics certificates"}, Degraded: calm},
	}, {name: "no node serves after the grace", obs: observation{Decision: own, Intent: Build, TLS: full, MonitoringServed: true, DaemonSet: ds(2, 2, 3, 3, 3, 0), Now: later},
		want: conditions{Available: condition{false, ReasonNoNodeServesMetrics, "CRI-O metrics served over TLS on 0 of 3 nodes; own"}, Progressing: calm, Degraded: condition{true, ReasonNodesWithoutMetrics, "CRI-O metrics served over TLS on 0 of 3 nodes"}},
	}, {name: "drop-in MachineConfigs wait for MCO's policy, within the grace", obs: observation{Decision: own, Intent: Build, TLS: full, MonitoringServed: true, DaemonSet: ds(2, 2, 3, 3, 3, 3), Now: later, Waiting: "w"},
		want: conditions{Available: condition{true, ReasonAsExpected, "CRI-O metrics served over TLS on 3 of 3 nodes; own"}, Progressing: condition{true, ReasonWaitingForDisruptionPolicy, MachineConfigsHeldBack + "w"}, Degraded: calm},
	}, {name: "removal held back by MCO's policy past the grace", obs: observation{Decision: off, Intent: TearDown, TLS: TLSStack{MachineConfigs: true}, Waiting: "w", WaitPersists: true},
		want: conditions{Available: condition{true, ReasonNotDeployed, "off"}, Progressing: condition{true, ReasonRemoving, "removing in order: MachineConfigs 50-master-crio-metrics-tls, 50-worker-crio-metrics-tls; " + MachineConfigsHeldBack + "w"}, Degraded: condition{true, ReasonDisruptionPolicyNotReady, MachineConfigsHeldBack + "w"}},
	}} {
		assert.Equal(t, tc.want, conditionsFor(tc.obs), tc.name)
		// A persistent problem gives the same conditions whenever looked at.
		if tc.want.Degraded.Status {
			later := tc.obs
			later.Now = tc.obs.Now.Add(47 * time.Hour)
			assert.Equal(t, tc.want, conditionsFor(later), "%s, two days on", tc.name)
		}
	}
	assert.Contains(t, PlatformProxyNodes(0), "MCO before 4.16 does not label them")
}

func TestIntentFor(t *testing.T) {
	decided := func(enabled bool, mode nodev1alpha1.StackMode) stack.State {
		return stack.State{Act: true, Decided: true, Enabled: enabled,
			Decision: nodev1alpha1.StackStatus{Name: nodev1alpha1.MetricsStack, Enabled: enabled, Mode: mode}}
	}
	tests := []struct {
		name  string
		state stack.State
		want  Intent
	}{
		{"unmanaged", stack.State{Act: false, Decided: true, Enabled: true, Decision: nodev1alpha1.StackStatus{Mode: nodev1alpha1.OperatorTLS}}, Hold},
		{"no decision yet", stack.State{Act: true}, Hold},
		{"own TLS stack", decided(true, nodev1alpha1.OperatorTLS), Build},
		{"platform serves", decided(true, nodev1alpha1.PlatformProxy), TearDown},
		{"opted out", decided(false, ""), TearDown},
		{"path not known yet", decided(true, ""), Hold},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, IntentFor(tt.state), tt.name)
	}
}

// The teardown order: ServiceMonitor, MachineConfigs, DaemonSet, the rest.
func TestTLSStackTeardownOrder(t *testing.T) {
	tests := []struct {
		name                   string
		tls                    TLSStack
		mcs, daemonSet, others bool
	}{
		{"everything left", TLSStack{ServiceMonitor: true, MachineConfigs: true, DaemonSet: true}, false, false, false},
		{"ServiceMonitor gone", TLSStack{MachineConfigs: true, DaemonSet: true}, true, false, false},
		{"MachineConfigs gone", TLSStack{DaemonSet: true}, true, true, false},
		{"DaemonSet gone", TLSStack{}, true, true, true},
		// Whatever is left, nothing after it goes.
		{"only the ServiceMonitor left", TLSStack{ServiceMonitor: true}, false, false, false},
		{"only the MachineConfigs left", TLSStack{MachineConfigs: true}, true, false, false},
		// An earlier release's ServiceMonitor may still read the drop-in.
		{"an earlier release's objects left", TLSStack{Legacy: true, MachineConfigs: true}, false, false, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.mcs, tt.tls.MayRemoveMachineConfigs(), "%s: MachineConfigs", tt.name)
		assert.Equal(t, tt.daemonSet, tt.tls.MayRemoveDaemonSet(), "%s: DaemonSet", tt.name)
		assert.Equal(t, tt.others, tt.tls.MayRemoveRest(), "%s: RBAC, Service, SCC, certificates", tt.name)
	}
}

// The ServiceMonitor waits for the drop-in MachineConfigs; without MCO's API, for the proxy alone.
func TestTLSStackServiceMonitorComesLast(t *testing.T) {
	serving := TLSStack{DaemonSet: true, DaemonSetServes: true}
	assert.False(t, serving.MayCreateServiceMonitor(true), "drop-in not applied yet")
	assert.True(t, serving.MayCreateServiceMonitor(false), "no MCO: no drop-in to wait for")
}

var created = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ds(generation, observed int64, desired, current, updated, available int32) *appsv1.DaemonSet {
	d := &appsv1.DaemonSet{}
	d.Generation = generation
	d.CreationTimestamp = metav1.NewTime(created)
	d.Status = appsv1.DaemonSetStatus{
		ObservedGeneration: observed, DesiredNumberScheduled: desired, CurrentNumberScheduled: current,
		UpdatedNumberScheduled: updated, NumberAvailable: available,
	}
	return d
}

// Rollout, an hour after the DaemonSet's creation unless a case says otherwise.
func TestRollout(t *testing.T) {
	for _, tc := range []struct {
		name                            string
		ds                              *appsv1.DaemonSet
		available, progressing, tooMany bool
		message                         string // a part of it
		at                              time.Duration
	}{
		{name: "steady", ds: ds(2, 2, 10, 10, 10, 10), available: true},
		{name: "spec not yet observed", ds: ds(3, 2, 10, 10, 10, 10), available: true, progressing: true},
		{name: "rolling out", ds: ds(3, 3, 10, 10, 4, 9), available: true, progressing: true},
		{name: "rolling out, a node between old and new pod", ds: ds(3, 3, 10, 9, 4, 9), available: true, progressing: true},
		{name: "node joined, no pod yet: not progressing", ds: ds(2, 2, 11, 10, 10, 10), available: true},
		{name: "node joined, pod not ready: not progressing", ds: ds(2, 2, 11, 11, 11, 10), available: true},
		{name: "no node serves", ds: ds(2, 2, 3, 3, 3, 0), tooMany: true},
		{name: "no nodes at all", ds: ds(1, 1, 0, 0, 0, 0), available: true},
		{name: "more than 10% down", ds: ds(2, 2, 20, 20, 20, 17), available: true, tooMany: true},
		{name: "10% down", ds: ds(2, 2, 20, 20, 20, 18), available: true},
		{name: "small cluster, one node down", ds: ds(2, 2, 3, 3, 3, 2), available: true},
		{name: "template not observed", ds: ds(3, 2, 250, 250, 250, 250), available: true, progressing: true,
			message: "rolling out a new configuration: not started yet, 250 of 250 nodes serving metrics"},
		{name: "template observed", ds: ds(3, 3, 250, 250, 25, 240), available: true, progressing: true,
			message: "rolling out a new configuration: 25 of 250 nodes updated, 240 serving metrics"},
		{name: "new DaemonSet", ds: ds(1, 1, 3, 3, 3, 0), at: time.Minute, available: true, progressing: true, message: "deploying"},
		{name: "new DaemonSet past the grace", ds: ds(1, 1, 3, 3, 3, 0), at: 11 * time.Minute, tooMany: true},
	} {
		got := Rollout(tc.ds, created.Add(cmp.Or(tc.at, time.Hour)))
		assert.Equal(t, tc.available, got.Available, "%s: available", tc.name)
		assert.Equal(t, tc.progressing, got.Progressing, "%s: progressing", tc.name)
		assert.Equal(t, tc.tooMany, got.TooManyUnavailable, "%s: too many unavailable", tc.name)
		assert.Equal(t, tc.message == "deploying", got.Deploying, "%s: deploying", tc.name)
		assert.Contains(t, got.Message, tc.message, tc.name)
		assert.NotEmpty(t, got.Message, tc.name)
	}
}

// What an update removes of an earlier release's operand, and when: docs/test-behaviours.md.
func TestPlanLegacy(t *testing.T) {
	ds, deleting, rest := legacyObjects{DaemonSet: true}, legacyObjects{DaemonSet: true, Deleting: true}, legacyObjects{Rest: true}
	tests := []struct {
		name      string
		intent    Intent
		old       legacyObjects
		rolledOut bool
		want      legacyPlan
	}{
		{"mode unknown: nothing", Hold, legacyObjects{DaemonSet: true, Rest: true}, false, legacyPlan{}},
		{"the old DaemonSet first, the new one held", Build, legacyObjects{DaemonSet: true, Rest: true}, false, legacyPlan{DeleteDaemonSet: true, HoldDaemonSet: true}},
		{"held while its pods go", Build, deleting, false, legacyPlan{HoldDaemonSet: true}},
		{"the rest waits for the new rollout", Build, rest, false, legacyPlan{}},
		{"the rest once it rolled out", Build, rest, true, legacyPlan{DeleteRest: true}},
		{"nothing left: nothing", Build, legacyObjects{}, true, legacyPlan{}},
		{"tearing down: the old DaemonSet", TearDown, ds, false, legacyPlan{DeleteDaemonSet: true, HoldDaemonSet: true}},
		{"tearing down: no rollout to wait for", TearDown, rest, false, legacyPlan{DeleteRest: true}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, planLegacy(tt.intent, tt.old, tt.rolledOut), tt.name)
	}
}
