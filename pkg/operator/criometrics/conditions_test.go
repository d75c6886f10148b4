package criometrics

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
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
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, conditionsFor(tc.obs))
		})
	}
}

// A persistent problem gives the same conditions whenever it is looked at:
// nothing in them changes with time alone.
func TestConditionsForPersistentProblemDoNotChangeWithTime(t *testing.T) {
	own := nodev1alpha1.StackStatus{Name: nodev1alpha1.MetricsStack, Enabled: true, Mode: nodev1alpha1.OperatorTLS, Message: "own"}
	for _, o := range []observation{
		{Decision: own, Intent: Build, Problem: &condition{true, ReasonApplyFailed, "denied"}, DaemonSet: ds(2, 2, 3, 3, 3, 3)},
		{Decision: own, Intent: Build, Problem: &condition{true, ReasonInvalidTLSSecurityProfile, "bad profile"}},
		{Decision: nodev1alpha1.StackStatus{Enabled: true, Message: "lookup failed"}, Intent: Hold},
	} {
		first, last := o, o
		first.Now = created.Add(11 * time.Minute)
		last.Now = created.Add(47 * time.Hour)
		assert.Equal(t, conditionsFor(first), conditionsFor(last))
	}
}
