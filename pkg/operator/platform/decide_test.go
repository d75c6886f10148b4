package platform

import (
	"fmt"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
)

// allPlatforms is every PlatformType of config.openshift.io/v1.
var allPlatforms = []configv1.PlatformType{
	configv1.AWSPlatformType, configv1.AzurePlatformType, configv1.BareMetalPlatformType,
	configv1.GCPPlatformType, configv1.LibvirtPlatformType, configv1.OpenStackPlatformType,
	configv1.NonePlatformType, configv1.VSpherePlatformType, configv1.OvirtPlatformType,
	configv1.IBMCloudPlatformType, configv1.KubevirtPlatformType, configv1.EquinixMetalPlatformType,
	configv1.PowerVSPlatformType, configv1.AlibabaCloudPlatformType, configv1.NutanixPlatformType,
	configv1.ExternalPlatformType,
}

var allTopologies = []configv1.TopologyMode{
	configv1.HighlyAvailableTopologyMode, configv1.HighlyAvailableArbiterMode,
	configv1.SingleReplicaTopologyMode, configv1.DualReplicaTopologyMode, configv1.ExternalTopologyMode, "",
}

var allKnobs = []nodev1alpha1.StackState{"", nodev1alpha1.StackEnabled, nodev1alpha1.StackDisabled}

// allServed ends with discovery unanswered: held back, counted as skipped.
var allServed = []ServedAPIs{{}, {Monitoring: true}, {MachineConfig: true}, {Monitoring: true, MachineConfig: true},
	{Unknown: []string{"monitoring.coreos.com/v1", "machineconfiguration.openshift.io/v1", "operator.openshift.io/v1"}}}

// allPlatformPaths: none, MCO's MachineConfigs only (install), mirror pods only, both.
var allPlatformPaths = []PlatformCRIOMetrics{
	{},
	{MachineConfigs: []string{"01-master-kubelet", "01-worker-kubelet"}},
	{MirrorPods: 3},
	{MachineConfigs: []string{"01-worker-kubelet"}, MirrorPods: 3},
}

func infra(platform configv1.PlatformType, topology configv1.TopologyMode) *configv1.Infrastructure {
	return &configv1.Infrastructure{Status: configv1.InfrastructureStatus{
		PlatformStatus:       &configv1.PlatformStatus{Type: platform},
		ControlPlaneTopology: topology,
	}}
}

// expected is the platform table of docs/architecture.md and README.md, written apart from Decide.
func expected(platform configv1.PlatformType, topology configv1.TopologyMode, knob nodev1alpha1.StackState, nmstateStack bool) (bool, string) {
	switch {
	case knob == nodev1alpha1.StackDisabled:
		return false, ReasonOptedOut
	case topology == configv1.ExternalTopologyMode:
		return false, ReasonHostedControlPlane
	case knob == nodev1alpha1.StackEnabled:
		return true, ReasonOptedIn
	case !nmstateStack:
		return true, ReasonPlatformDefault
	case platform == configv1.BareMetalPlatformType:
		return true, ReasonPlatformDefault
	default:
		return false, ReasonNotDefaultOnPlatform
	}
}

func TestDecideEveryPlatformTopologyKnobAndServedAPIs(t *testing.T) {
	for _, platform := range allPlatforms {
		for _, topology := range allTopologies {
			for _, metricsKnob := range allKnobs {
				for _, nmstateKnob := range allKnobs {
					for _, served := range allServed {
						for _, path := range allPlatformPaths {
							name := fmt.Sprintf("%s/%s/metrics=%q/nmstate=%q/%+v/%+v", platform, topology, metricsKnob, nmstateKnob, served, path)
							spec := nodev1alpha1.NodeOperatorSpec{Metrics: nodev1alpha1.StackConfig{State: metricsKnob}, NMState: nodev1alpha1.StackConfig{State: nmstateKnob}}
							spec.ManagementState = operatorv1.Managed
							in := Input{Infrastructure: infra(platform, topology), Spec: spec, Served: served, PlatformCRIOMetrics: path}
							got := Decide(in)
							mEnabled, mReason := expected(platform, topology, metricsKnob, false)
							nEnabled, nReason := expected(platform, topology, nmstateKnob, true)
							// The platform's path decides an enabled metrics stack's mode; the
							// drop-in MachineConfigs (skipped without MCO's API) exist only in
							// the own TLS mode.
							wantMode, wantSkipped := nodev1alpha1.StackMode(""), 0
							if mEnabled {
								wantMode = map[bool]nodev1alpha1.StackMode{true: nodev1alpha1.PlatformProxy, false: nodev1alpha1.OperatorTLS}[path.Exists()]
								wantSkipped = map[bool]int{true: 0, false: 1}[served.Monitoring] + map[bool]int{true: 1}[!served.MachineConfig && wantMode == nodev1alpha1.OperatorTLS]
							}
							assert.Equal(t, []any{nodev1alpha1.MetricsStack, mEnabled, mReason, wantMode, wantSkipped, nodev1alpha1.NMStateStack, nEnabled, nReason, nodev1alpha1.StackMode(""), 0, "", platform},
								[]any{got.Metrics.Name, got.Metrics.Enabled, got.Metrics.Reason, got.Metrics.Mode, len(got.Metrics.Skipped),
									got.NMState.Name, got.NMState.Enabled, got.NMState.Reason, got.NMState.Mode, len(got.NMState.Skipped), got.InfrastructureProblem, got.Platform}, name)
							// Every decision explains itself; a default names the
							// platform and tells the administrator how to change it.
							for _, s := range got.Stacks() {
								assert.NotEmpty(t, s.Message, name)
								if s.Reason == ReasonPlatformDefault || s.Reason == ReasonNotDefaultOnPlatform {
									knob := "spec." + strings.ToLower(string(s.Name)) + ".state=" + map[bool]string{true: "Disabled to opt out", false: "Enabled to opt in"}[s.Enabled]
									assert.Contains(t, s.Message, "platform "+string(platform), name)
									assert.Contains(t, s.Message, knob, name)
								}
							}
							for _, s := range got.Metrics.Skipped {
								assert.Contains(t, got.Metrics.Message, s, name)
							}
							if wantMode == nodev1alpha1.PlatformProxy {
								assert.Contains(t, got.Metrics.Message, "kube-rbac-proxy-crio", name)
							}
							// Fed back as the previous decision, the same: no message grows.
							in.Previous = []nodev1alpha1.StackStatus{got.Metrics.StackStatus, got.NMState.StackStatus}
							assert.Equal(t, got, Decide(in), name)
						}
					}
				}
			}
		}
	}
}

// An unknown or empty platform is None; the deprecated status.platform alone is read.
func TestDecidePlatformOf(t *testing.T) {
	for in, want := range map[*configv1.Infrastructure]configv1.PlatformType{
		infra("", configv1.HighlyAvailableTopologyMode):                                   configv1.NonePlatformType,
		infra("SomethingNew", configv1.HighlyAvailableTopologyMode):                       configv1.NonePlatformType,
		infra("baremetal", configv1.HighlyAvailableTopologyMode):                          configv1.NonePlatformType,
		{Status: configv1.InfrastructureStatus{Platform: configv1.BareMetalPlatformType}}: configv1.BareMetalPlatformType,
	} {
		got := Decide(Input{Infrastructure: in})
		assert.Equal(t, want, got.Platform, "%+v", in.Status)
		assert.Equal(t, []any{true, want == configv1.BareMetalPlatformType}, []any{got.Metrics.Enabled, got.NMState.Enabled}, want)
		assert.Contains(t, got.NMState.Message, "platform "+string(want))
	}
}

// No Infrastructure, or none with status.platformStatus: the last decision
// stands whole, as recorded, even where the platform path or the served
// APIs changed meanwhile.
func TestDecideMissingInfrastructureKeepsLastDecision(t *testing.T) {
	previous := Decide(Input{Infrastructure: infra(configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode)})
	prevStatus := []nodev1alpha1.StackStatus{previous.Metrics.StackStatus, previous.NMState.StackStatus}
	for problem, in := range map[string]*configv1.Infrastructure{"missing": nil, "no status.platformStatus": {}} {
		got := Decide(Input{Infrastructure: in, Previous: prevStatus,
			PlatformCRIOMetrics: PlatformCRIOMetrics{MirrorPods: 3}, Served: ServedAPIs{Monitoring: true, MachineConfig: true}})
		assert.Contains(t, got.InfrastructureProblem, problem)
		assert.Equal(t, previous.Metrics.StackStatus, got.Metrics.StackStatus)
		assert.Equal(t, previous.NMState.StackStatus, got.NMState.StackStatus)
		assert.Empty(t, got.Platform)

		spec := nodev1alpha1.NodeOperatorSpec{NMState: nodev1alpha1.StackConfig{State: nodev1alpha1.StackDisabled}}
		got = Decide(Input{Infrastructure: in, Previous: prevStatus, Spec: spec})
		assert.False(t, got.NMState.Enabled)
		assert.Equal(t, ReasonOptedOut, got.NMState.Reason)
		assert.True(t, got.Metrics.Enabled, "the other stack keeps its last decision")
	}
}

// Removed, or no Infrastructure and no last decision: every stack is off,
// even one opted in.
func TestDecideEveryStackOff(t *testing.T) {
	spec := nodev1alpha1.NodeOperatorSpec{NMState: nodev1alpha1.StackConfig{State: nodev1alpha1.StackEnabled}}
	removed := spec
	removed.ManagementState = operatorv1.Removed
	for _, tc := range []struct {
		in          Input
		reason, msg string
	}{
		{Input{Spec: spec}, ReasonInfrastructureUnavailable, "Infrastructure cluster is missing"},
		{Input{Infrastructure: infra(configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode), Spec: removed}, ReasonOperatorRemoved, ""},
	} {
		for _, s := range Decide(tc.in).Stacks() {
			assert.False(t, s.Enabled, s.Name)
			assert.Equal(t, tc.reason, s.Reason)
			assert.Contains(t, s.Message, tc.msg)
		}
	}
}

func TestDecideMetricsModeFollowsThePlatformPath(t *testing.T) {
	bareMetal := infra(configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode)
	served := ServedAPIs{Monitoring: true, MachineConfig: true}
	platformPath := PlatformCRIOMetrics{MachineConfigs: []string{"01-master-kubelet", "01-worker-kubelet"}}
	unreadable := PlatformCRIOMetrics{Problem: "machineconfigs 01-worker-kubelet: the server is currently unable to handle the request"}

	for _, tt := range []struct {
		name        string
		path        PlatformCRIOMetrics
		previous    nodev1alpha1.StackMode
		wantMode    nodev1alpha1.StackMode
		wantMessage string
	}{
		{"platform path appears", platformPath, nodev1alpha1.OperatorTLS, nodev1alpha1.PlatformProxy, "served by the platform"},
		{"platform path disappears", PlatformCRIOMetrics{}, nodev1alpha1.PlatformProxy, nodev1alpha1.OperatorTLS, "the platform runs no kube-rbac-proxy-crio"},
		{"lookup fails: the last mode stands", unreadable, nodev1alpha1.PlatformProxy, nodev1alpha1.PlatformProxy, "served by the platform"},
		{"lookup fails with no history: nothing node-side yet", unreadable, "", "", "not known yet (machineconfigs 01-worker-kubelet"},
	} {
		previous := Decide(Input{Infrastructure: bareMetal, Served: served}).Metrics.StackStatus
		previous.Mode = tt.previous
		got := Decide(Input{Infrastructure: bareMetal, Served: served, PlatformCRIOMetrics: tt.path, Previous: []nodev1alpha1.StackStatus{previous}})
		assert.Equal(t, []any{true, tt.wantMode}, []any{got.Metrics.Enabled, got.Metrics.Mode}, tt.name)
		assert.Contains(t, got.Metrics.Message, tt.wantMessage, tt.name)
		assert.Contains(t, got.Metrics.Message, "deployed by default on platform BareMetal", tt.name)
		assert.Equal(t, 1, strings.Count(got.Metrics.Message, "CRI-O metrics"), got.Metrics.Message)
	}
}
