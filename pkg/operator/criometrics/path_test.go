package criometrics

import (
	"testing"

	"github.com/stretchr/testify/assert"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

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
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, IntentFor(tt.state)) })
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.mcs, tt.tls.MayRemoveMachineConfigs(), "MachineConfigs")
			assert.Equal(t, tt.daemonSet, tt.tls.MayRemoveDaemonSet(), "DaemonSet")
			assert.Equal(t, tt.others, tt.tls.MayRemoveRest(), "RBAC, Service, SCC, certificates")
		})
	}
}

func TestTLSStackServiceMonitorComesLast(t *testing.T) {
	tests := []struct {
		name          string
		tls           TLSStack
		machineConfig bool
		want          bool
	}{
		{"proxy not serving yet", TLSStack{DaemonSet: true, MachineConfigs: true}, true, false},
		{"drop-in not applied yet", TLSStack{DaemonSet: true, DaemonSetServes: true}, true, false},
		{"proxy serves and drop-in applied", TLSStack{DaemonSet: true, DaemonSetServes: true, MachineConfigs: true}, true, true},
		{"no MCO: no drop-in to wait for", TLSStack{DaemonSet: true, DaemonSetServes: true}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.tls.MayCreateServiceMonitor(tt.machineConfig))
		})
	}
}

func TestSwitchStatus(t *testing.T) {
	tests := []struct {
		name        string
		intent      Intent
		mode        nodev1alpha1.StackMode
		tls         TLSStack
		wantReason  string
		wantContain string
	}{
		{"to the platform, ServiceMonitor first", TearDown, nodev1alpha1.PlatformProxy, TLSStack{ServiceMonitor: true, MachineConfigs: true, DaemonSet: true},
			ReasonSwitchingToPlatformProxy, "left: ServiceMonitor crio-metrics, MachineConfigs 50-master-crio-metrics-tls, 50-worker-crio-metrics-tls, DaemonSet crio-metrics"},
		{"to the platform, DaemonSet last", TearDown, nodev1alpha1.PlatformProxy, TLSStack{DaemonSet: true}, ReasonSwitchingToPlatformProxy, "left: DaemonSet crio-metrics"},
		{"on the platform path", TearDown, nodev1alpha1.PlatformProxy, TLSStack{}, "", ""},
		{"opting out is not a switch", TearDown, "", TLSStack{DaemonSet: true}, "", ""},
		{"to the own stack, waiting for the ServiceMonitor", Build, nodev1alpha1.OperatorTLS, TLSStack{DaemonSet: true}, ReasonSwitchingToOperatorTLS, "ServiceMonitor comes last"},
		{"own stack complete", Build, nodev1alpha1.OperatorTLS, TLSStack{ServiceMonitor: true, DaemonSet: true, MachineConfigs: true}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reason, message, ok := SwitchStatus(tt.intent, tt.mode, tt.tls, true)
			assert.Equal(t, tt.wantReason != "", ok)
			assert.Equal(t, tt.wantReason, reason)
			assert.Contains(t, message, tt.wantContain)
		})
	}
	// Without monitoring.coreos.com there is no ServiceMonitor to wait for.
	_, _, ok := SwitchStatus(Build, nodev1alpha1.OperatorTLS, TLSStack{DaemonSet: true}, false)
	assert.False(t, ok)
}

func TestPlatformProxyNodes(t *testing.T) {
	assert.Equal(t, "kube-rbac-proxy-crio serves CRI-O metrics on 3 nodes", PlatformProxyNodes(3))
	assert.Contains(t, PlatformProxyNodes(0), "MCO before 4.16 does not label them")
}
