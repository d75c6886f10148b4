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
)

// fixture is the controller on a fake NodeOperator, an Infrastructure cache
// and a scripted platform path lookup.
type fixture struct {
	t        *testing.T
	c        *controller
	no       *operatorclienttest.Fake
	infra    cache.Indexer
	path     platform.PlatformCRIOMetrics
	lookedUp []bool // machineConfigServed of each platform path lookup
	fresh    []bool // whether each lookup asked not to reuse an earlier one
	clock    *clocktesting.FakeClock
}

func newFixture(t *testing.T, infra *configv1.Infrastructure) *fixture {
	t.Helper()
	f := &fixture{
		t:     t,
		infra: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
		clock: clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
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
		served: func() platform.ServedAPIs {
			return platform.ServedAPIs{Monitoring: true, MachineConfig: true, MachineConfiguration: true}
		},
		platformPath: func(_ context.Context, machineConfigServed, fresh bool) platform.PlatformCRIOMetrics {
			f.lookedUp = append(f.lookedUp, machineConfigServed)
			f.fresh = append(f.fresh, fresh)
			return f.path
		},
	}
	return f
}

// sync runs one sync as the informers would see the world, and returns its
// writes.
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
	return &configv1.Infrastructure{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Status: configv1.InfrastructureStatus{
			PlatformStatus:         &configv1.PlatformStatus{Type: p},
			ControlPlaneTopology:   topology,
			InfrastructureTopology: configv1.HighlyAvailableTopologyMode,
		},
	}
}

var statusWrite = []string{"patch nodeoperators/status"}

// One status write records the decision for every stack, with reason and
// mode from the Infrastructure and the platform path; a second sync of the
// same world writes nothing.
func TestDecisionRecordedOnceThenNoWrites(t *testing.T) {
	kubeletMCs := platform.PlatformCRIOMetrics{MachineConfigs: []string{"01-master-kubelet", "01-worker-kubelet"}}
	tests := []struct {
		name          string
		infra         *configv1.Infrastructure
		path          platform.PlatformCRIOMetrics
		metrics       nodev1alpha1.StackStatus
		nmstate       nodev1alpha1.StackStatus
		lookForMCPath bool
	}{
		{
			name:          "BareMetal with MCO's kube-rbac-proxy-crio: platform path, NMState on",
			infra:         infrastructure(configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode),
			path:          kubeletMCs,
			metrics:       nodev1alpha1.StackStatus{Enabled: true, Reason: platform.ReasonPlatformDefault, Mode: nodev1alpha1.PlatformProxy},
			nmstate:       nodev1alpha1.StackStatus{Enabled: true, Reason: platform.ReasonPlatformDefault},
			lookForMCPath: true,
		},
		{
			name:    "hosted control plane: nothing, and no MCO to look at",
			infra:   infrastructure(configv1.AWSPlatformType, configv1.ExternalTopologyMode),
			metrics: nodev1alpha1.StackStatus{Enabled: false, Reason: platform.ReasonHostedControlPlane},
			nmstate: nodev1alpha1.StackStatus{Enabled: false, Reason: platform.ReasonHostedControlPlane},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.infra)
			f.path = tt.path
			assert.Equal(t, statusWrite, f.sync(), "first sync: one status apply")
			got := f.stacks()
			require.Len(t, got, 2)
			for name, want := range map[nodev1alpha1.StackName]nodev1alpha1.StackStatus{nodev1alpha1.MetricsStack: tt.metrics, nodev1alpha1.NMStateStack: tt.nmstate} {
				assert.Equal(t, want.Enabled, got[name].Enabled, "%s enabled", name)
				assert.Equal(t, want.Reason, got[name].Reason, "%s reason", name)
				assert.Equal(t, want.Mode, got[name].Mode, "%s mode", name)
				assert.NotEmpty(t, got[name].Message, "%s message", name)
			}
			assert.Equal(t, operatorv1.ConditionFalse, f.degraded().Status)
			assert.Equal(t, int64(1), f.no.Get().Status.ObservedGeneration)
			assert.Equal(t, []bool{tt.lookForMCPath}, f.lookedUp, "the platform path is looked for only where MCO can run")

			for i := range 3 {
				f.clock.Step(time.Minute)
				assert.Empty(t, f.sync(), "steady state: sync %d writes nothing", i)
			}
		})
	}
}

// A missing or empty Infrastructure keeps the last decision and reports
// StackDecisionDegraded, once.
func TestUnreadableInfrastructureKeepsTheDecision(t *testing.T) {
	for _, tc := range []struct {
		name    string
		breakIt func(f *fixture)
	}{
		{"deleted", func(f *fixture) {
			require.NoError(t, f.infra.Delete(infrastructure(configv1.BareMetalPlatformType, "")))
		}},
		{"no status", func(f *fixture) {
			require.NoError(t, f.infra.Update(&configv1.Infrastructure{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, infrastructure(configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode))
			require.Equal(t, statusWrite, f.sync())
			before := f.stacks()

			tc.breakIt(f)
			assert.Equal(t, statusWrite, f.sync(), "the problem is reported at once")
			after := f.stacks()
			for name, b := range before {
				assert.Equal(t, b.Enabled, after[name].Enabled, "%s kept", name)
				assert.Equal(t, b.Reason, after[name].Reason, "%s kept", name)
				assert.Equal(t, b.Mode, after[name].Mode, "%s kept", name)
			}
			d := f.degraded()
			assert.Equal(t, operatorv1.ConditionTrue, d.Status)
			assert.Equal(t, platform.ReasonInfrastructureUnavailable, d.Reason)
			assert.Contains(t, d.Message, "keeping the last decision")

			f.clock.Step(5 * time.Minute)
			assert.Empty(t, f.sync(), "a persistent problem is written once")

			require.NoError(t, f.infra.Update(infrastructure(configv1.BareMetalPlatformType, configv1.HighlyAvailableTopologyMode)))
			assert.Equal(t, statusWrite, f.sync(), "recovery clears the condition")
			assert.Equal(t, operatorv1.ConditionFalse, f.degraded().Status)
		})
	}
}

// An opt-out in the spec is one status write; the platform path appearing
// switches the mode with one more.
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
	assert.Equal(t, nodev1alpha1.StackDisabled, m.State)
	assert.False(t, m.Enabled, "the deprecated mirror of state")
	assert.Equal(t, platform.ReasonOptedOut, m.Reason)
	assert.Equal(t, int64(2), f.no.Get().Status.ObservedGeneration)
	assert.Empty(t, f.sync())
	assert.Equal(t, []bool{true, false, false, true, false}, f.fresh,
		"a lookup for a spec not decided yet is fresh; the others may reuse one")
}

// Unmanaged: the decision is frozen; nothing is written, not even the
// conversion of an old spelling (docs/api.md, "Compatibility").
func TestUnmanagedWritesNothing(t *testing.T) {
	f := newFixture(t, infrastructure(configv1.AWSPlatformType, configv1.HighlyAvailableTopologyMode))
	f.no.Update(func(no *nodev1alpha1.NodeOperator) {
		no.Spec.ManagementState, no.Spec.Metrics.ManagementState = operatorv1.Unmanaged, nodev1alpha1.StackManaged
	})
	assert.Empty(t, f.sync())
	assert.Empty(t, f.no.Get().Status.Stacks)
	assert.Empty(t, f.lookedUp)
}
