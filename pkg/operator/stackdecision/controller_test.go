package stackdecision

import (
	"context"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	configlistersv1 "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient/operatorclienttest"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

// fixture: the controller on a fake NodeOperator, an Infrastructure cache and a scripted path lookup.
type fixture struct {
	t        *testing.T
	c        *controller
	no       *operatorclienttest.Fake
	infra    cache.Indexer
	path     platform.PlatformCRIOMetrics
	served   platform.ServedAPIs
	lookedUp []bool // machineConfigServed of each platform path lookup
	fresh    []bool // whether each lookup asked not to reuse an earlier one
	clock    *clocktesting.FakeClock
}

func newFixture(t *testing.T, infra *configv1.Infrastructure) *fixture {
	t.Helper()
	f := &fixture{
		t:      t,
		infra:  cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
		clock:  clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		served: platform.ServedAPIs{Monitoring: true, MachineConfig: true, MachineConfiguration: true},
	}
	f.no = operatorclienttest.New(t, f.clock, &nodev1alpha1.NodeOperator{
		ObjectMeta: metav1.ObjectMeta{Generation: 1},
		Spec:       nodev1alpha1.NodeOperatorSpec{OperatorSpec: operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}},
	})
	if infra != nil {
		require.NoError(t, f.infra.Add(infra))
	}
	f.c = &controller{
		nodeOperators: f.no.NodeOperators,
		infraLister:   configlistersv1.NewInfrastructureLister(f.infra),
		served:        func() platform.ServedAPIs { return f.served },
		platformPath: func(_ context.Context, machineConfigServed, fresh bool) platform.PlatformCRIOMetrics {
			f.lookedUp = append(f.lookedUp, machineConfigServed)
			f.fresh = append(f.fresh, fresh)
			return f.path
		},
	}
	return f
}

// sync runs one sync as the informers would see the world, and returns its writes.
func (f *fixture) sync() []string {
	f.t.Helper()
	f.no.Refresh()
	f.no.Writes = nil
	require.NoError(f.t, f.c.sync(context.Background(), factory.NewSyncContext("test", events.NewInMemoryRecorder("test", f.clock))))
	return f.no.Writes
}

func (f *fixture) stacks() map[nodev1alpha1.StackName]nodev1alpha1.StackStatus {
	out := map[nodev1alpha1.StackName]nodev1alpha1.StackStatus{}
	for _, s := range f.no.Get().Status.Stacks {
		out[s.Name] = s
	}
	return out
}

func (f *fixture) degraded() operatorv1.OperatorCondition {
	f.t.Helper()
	c := v1helpers.FindOperatorCondition(f.no.Get().Status.Conditions, ConditionDegraded)
	require.NotNil(f.t, c)
	return *c
}

func infrastructure(p configv1.PlatformType, topology configv1.TopologyMode) *configv1.Infrastructure {
	return &configv1.Infrastructure{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Status: configv1.InfrastructureStatus{
		PlatformStatus: &configv1.PlatformStatus{Type: p}, ControlPlaneTopology: topology, InfrastructureTopology: configv1.HighlyAvailableTopologyMode}}
}

var statusWrite = []string{"patch nodeoperators/status"}

// One status write records every stack's decision; the same world again writes nothing.
func TestDecisionRecordedOnceThenNoWrites(t *testing.T) {
	kubeletMCs := platform.PlatformCRIOMetrics{MachineConfigs: []string{"01-master-kubelet", "01-worker-kubelet"}}
	for _, tt := range []struct {
		name             string
		infra            *configv1.Infrastructure
		path             platform.PlatformCRIOMetrics
		metrics, nmstate nodev1alpha1.StackStatus
		lookForMCPath    bool
	}{
		{"BareMetal with MCO's kube-rbac-proxy-crio: platform path, NMState on", infrastructure(configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode), kubeletMCs,
			nodev1alpha1.StackStatus{Enabled: true, Reason: platform.ReasonPlatformDefault, Mode: nodev1alpha1.PlatformProxy},
			nodev1alpha1.StackStatus{Enabled: true, Reason: platform.ReasonPlatformDefault}, true},
		{"hosted control plane: nothing, and no MCO to look at", infrastructure(configv1.AWSPlatformType, configv1.ExternalTopologyMode), platform.PlatformCRIOMetrics{},
			nodev1alpha1.StackStatus{Reason: platform.ReasonHostedControlPlane}, nodev1alpha1.StackStatus{Reason: platform.ReasonHostedControlPlane}, false},
	} {
		f := newFixture(t, tt.infra)
		f.path = tt.path
		assert.Equal(t, statusWrite, f.sync(), "%s: first sync: one status apply", tt.name)
		got := f.stacks()
		require.Len(t, got, 2)
		for name, want := range map[nodev1alpha1.StackName]nodev1alpha1.StackStatus{nodev1alpha1.MetricsStack: tt.metrics, nodev1alpha1.NMStateStack: tt.nmstate} {
			assert.Equal(t, []any{want.Enabled, want.Reason, want.Mode}, []any{got[name].Enabled, got[name].Reason, got[name].Mode}, "%s: %s", tt.name, name)
			assert.NotEmpty(t, got[name].Message, "%s: %s message", tt.name, name)
		}
		assert.Equal(t, operatorv1.ConditionFalse, f.degraded().Status, tt.name)
		assert.Equal(t, int64(1), f.no.Get().Status.ObservedGeneration, tt.name)
		assert.Equal(t, []bool{tt.lookForMCPath}, f.lookedUp, "%s: the platform path is looked for only where MCO can run", tt.name)

		for i := range 3 {
			f.clock.Step(time.Minute)
			assert.Empty(t, f.sync(), "%s: steady state: sync %d writes nothing", tt.name, i)
		}
	}
}

// A missing Infrastructure keeps the decision, StackDecisionDegraded once (no status: platform tests).
func TestUnreadableInfrastructureKeepsTheDecision(t *testing.T) {
	f := newFixture(t, infrastructure(configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode))
	require.Equal(t, statusWrite, f.sync())
	before := f.stacks()

	require.NoError(t, f.infra.Delete(infrastructure(configv1.BareMetalPlatformType, "")))
	assert.Equal(t, statusWrite, f.sync(), "the problem is reported at once")
	after := f.stacks()
	for name, b := range before {
		assert.Equal(t, []any{b.Enabled, b.Reason, b.Mode}, []any{after[name].Enabled, after[name].Reason, after[name].Mode}, "%s kept", name)
	}
	d := f.degraded()
	assert.Equal(t, []any{operatorv1.ConditionTrue, platform.ReasonInfrastructureUnavailable}, []any{d.Status, d.Reason})
	assert.Contains(t, d.Message, "keeping the last decision")

	f.clock.Step(5 * time.Minute)
	assert.Empty(t, f.sync(), "a persistent problem is written once")

	require.NoError(t, f.infra.Add(infrastructure(configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode)))
	assert.Equal(t, statusWrite, f.sync(), "recovery clears the condition")
	assert.Equal(t, operatorv1.ConditionFalse, f.degraded().Status)
}

// An opt-out and the platform path are one write each (docs/test-behaviours.md).
func TestSpecAndPlatformPathChangesAreOneWriteEach(t *testing.T) {
	f := newFixture(t, infrastructure(configv1.AWSPlatformType, configv1.HighlyAvailableTopologyMode))
	require.Equal(t, statusWrite, f.sync())
	require.Equal(t, nodev1alpha1.OperatorTLS, f.stacks()[nodev1alpha1.MetricsStack].Mode)

	f.path = platform.PlatformCRIOMetrics{MirrorPods: 3}
	assert.Equal(t, statusWrite, f.sync())
	assert.Equal(t, nodev1alpha1.PlatformProxy, f.stacks()[nodev1alpha1.MetricsStack].Mode)
	assert.Empty(t, f.sync())

	f.no.Update(func(no *nodev1alpha1.NodeOperator) {
		no.Spec.Metrics = nodev1alpha1.StackConfig{State: nodev1alpha1.StackDisabled, ManagementState: nodev1alpha1.StackRemoved}
		no.Generation = 2
	})
	assert.Equal(t, statusWrite, f.sync())
	m := f.stacks()[nodev1alpha1.MetricsStack]
	assert.Equal(t, []any{nodev1alpha1.StackDisabled, false, platform.ReasonOptedOut}, []any{m.State, m.Enabled, m.Reason}, "state, its deprecated mirror, reason")
	assert.Equal(t, int64(2), f.no.Get().Status.ObservedGeneration)
	assert.Empty(t, f.sync())
	assert.Equal(t, []bool{true, false, false, true, false}, f.fresh,
		"a lookup for a spec not decided yet is fresh; the others may reuse one")
}

// Discovery of MCO's API not answered yet: the MachineConfigs are read
// anyway; only what they prove changes the mode, and the recorded mode (or
// none) stands otherwise (docs/test-behaviours.md).
func TestUnansweredDiscoveryNeverSwitchesThePath(t *testing.T) {
	unknown := platform.ServedAPIs{Unknown: []string{"machineconfiguration.openshift.io/v1", "monitoring.coreos.com/v1", "operator.openshift.io/v1"}}
	kubeletMCs := platform.PlatformCRIOMetrics{MachineConfigs: []string{"01-master-kubelet", "01-worker-kubelet"}}
	for _, tt := range []struct {
		name     string
		recorded nodev1alpha1.StackMode // "" when never decided
		path     platform.PlatformCRIOMetrics
		want     nodev1alpha1.StackMode
	}{
		{"never decided, MachineConfigs readable", "", kubeletMCs, nodev1alpha1.PlatformProxy},
		{"never decided, nothing found", "", platform.PlatformCRIOMetrics{}, ""},
		{"platform path recorded, nothing found", nodev1alpha1.PlatformProxy, platform.PlatformCRIOMetrics{}, nodev1alpha1.PlatformProxy},
		{"own TLS recorded, nothing found", nodev1alpha1.OperatorTLS, platform.PlatformCRIOMetrics{}, nodev1alpha1.OperatorTLS},
	} {
		f := newFixture(t, infrastructure(configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode))
		if tt.recorded != "" {
			f.path = map[nodev1alpha1.StackMode]platform.PlatformCRIOMetrics{nodev1alpha1.PlatformProxy: kubeletMCs}[tt.recorded]
			f.sync()
			require.Equal(t, tt.recorded, f.stacks()[nodev1alpha1.MetricsStack].Mode, tt.name)
		}
		f.served, f.path, f.lookedUp = unknown, tt.path, nil
		f.sync()
		m := f.stacks()[nodev1alpha1.MetricsStack]
		assert.Equal(t, tt.want, m.Mode, tt.name)
		assert.Equal(t, []bool{true}, f.lookedUp, "%s: MCO's MachineConfigs are read while discovery has not answered", tt.name)
		if tt.want == "" {
			assert.Contains(t, m.Message, "not known yet (discovery of machineconfiguration.openshift.io/v1 has not answered yet)", tt.name)
		}
		assert.NotContains(t, m.Message, "is not served", tt.name)
		assert.Empty(t, f.sync(), "%s: a persistent discovery fault writes nothing more", tt.name)
	}
}

// Unmanaged: nothing is written (docs/test-behaviours.md, docs/api.md "Compatibility").
func TestUnmanagedWritesNothing(t *testing.T) {
	f := newFixture(t, infrastructure(configv1.AWSPlatformType, configv1.HighlyAvailableTopologyMode))
	f.no.Update(func(no *nodev1alpha1.NodeOperator) {
		no.Spec.ManagementState, no.Spec.Metrics.ManagementState = operatorv1.Unmanaged, nodev1alpha1.StackManaged
	})
	assert.Empty(t, f.sync())
	assert.Empty(t, f.no.Get().Status.Stacks)
	assert.Empty(t, f.lookedUp)
}

func TestConvertStackConfig(t *testing.T) {
	const (
		on, off       = nodev1alpha1.StackEnabled, nodev1alpha1.StackDisabled
		managed, gone = nodev1alpha1.StackManaged, nodev1alpha1.StackRemoved
	)
	for _, tc := range []struct {
		name string
		in   nodev1alpha1.StackConfig
		want nodev1alpha1.StackConfig
	}{
		{"omitted stays omitted", nodev1alpha1.StackConfig{}, nodev1alpha1.StackConfig{}},
		{"old Managed", nodev1alpha1.StackConfig{ManagementState: managed}, nodev1alpha1.StackConfig{State: on, ManagementState: managed}},
		{"old Removed", nodev1alpha1.StackConfig{ManagementState: gone}, nodev1alpha1.StackConfig{State: off, ManagementState: gone}},
		{"new Enabled gets its mirror", nodev1alpha1.StackConfig{State: on}, nodev1alpha1.StackConfig{State: on, ManagementState: managed}},
		{"new Disabled gets its mirror", nodev1alpha1.StackConfig{State: off}, nodev1alpha1.StackConfig{State: off, ManagementState: gone}},
		{"state wins over a stale mirror", nodev1alpha1.StackConfig{State: on, ManagementState: gone}, nodev1alpha1.StackConfig{State: on, ManagementState: managed}},
		{"converted is left alone", nodev1alpha1.StackConfig{State: off, ManagementState: gone}, nodev1alpha1.StackConfig{State: off, ManagementState: gone}},
	} {
		assert.Equal(t, tc.want, ConvertStackConfig(tc.in), tc.name)
	}
	no := &nodev1alpha1.NodeOperator{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "42"}, Spec: nodev1alpha1.NodeOperatorSpec{
		Metrics: nodev1alpha1.StackConfig{ManagementState: gone}, NMState: nodev1alpha1.StackConfig{State: on, ManagementState: managed}}}
	assert.JSONEq(t, `{"metadata":{"resourceVersion":"42"},"spec":{"metrics":{"state":"Disabled","managementState":"Removed"}}}`, string(SpecPatch(no)))

	no.Spec = ConvertSpec(no.Spec)
	assert.Nil(t, SpecPatch(no), "a converted spec is not written again")
	// A status of the old spelling gets its state from enabled.
	for _, in := range []nodev1alpha1.StackStatus{{Enabled: true}, {Enabled: false}, {State: on, Enabled: true}, {State: off}} {
		want := map[bool]nodev1alpha1.StackState{true: on, false: off}[in.Enabled]
		assert.Equal(t, want, stack.ConvertStatus(in).State, "%+v", in)
	}
}
