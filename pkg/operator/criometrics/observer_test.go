package criometrics

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
)

// TestTLSObserverSharesOneLook: the controllers woken together by one
// NodeOperator write share one look; a part deleted by one of them, a new
// intent, other served APIs or the end of the window make the next caller
// look again.
func TestTLSObserverSharesOneLook(t *testing.T) {
	ctx := context.Background()
	dyn := tlsStackClient(object(serviceMonitorGVR, "ServiceMonitor", namespace, serviceName),
		object(machineConfigGVR, "MachineConfig", "", machineConfigName("master")))
	clk := clocktesting.NewFakeClock(time.Now())
	o := NewTLSObserver(dyn, clk, ShareLookFor)
	served := platform.ServedAPIs{Monitoring: true, MachineConfig: true}
	gets := func() int { n := len(dyn.Actions()); dyn.ClearActions(); return n }

	assert.True(t, o.Observe(ctx, served, TearDown, false).ServiceMonitor)
	assert.NotZero(t, gets())
	for i := 0; i < 3; i++ {
		assert.True(t, o.Observe(ctx, served, TearDown, false).ServiceMonitor)
	}
	assert.Zero(t, gets(), "shared within the window")

	assert.False(t, o.Observe(ctx, served, TearDown, true).Rest)
	assert.NotZero(t, gets(), "a look without the rest does not answer one with it")
	o.Observe(ctx, served, TearDown, false)
	assert.Zero(t, gets(), "a look with the rest answers one without")

	o.Observe(ctx, served, Build, false)
	assert.NotZero(t, gets(), "not shared across a change of intent")

	// The ServiceMonitor goes: a shared look is late to see it, for at
	// most the window.
	assert.NoError(t, dyn.Resource(serviceMonitorGVR).Namespace(namespace).Delete(ctx, serviceName, metav1.DeleteOptions{}))
	dyn.ClearActions()
	assert.True(t, o.Observe(ctx, served, Build, false).ServiceMonitor)
	clk.Step(ShareLookFor)
	assert.False(t, o.Observe(ctx, served, Build, false).ServiceMonitor)

	// A controller that deletes a part forgets the look.
	assert.NoError(t, dyn.Resource(machineConfigGVR).Delete(ctx, machineConfigName("master"), metav1.DeleteOptions{}))
	assert.True(t, o.Observe(ctx, served, Build, false).MachineConfigs)
	o.Forget()
	assert.False(t, o.Observe(ctx, served, Build, false).MachineConfigs)

	dyn.ClearActions()
	o.Observe(ctx, platform.ServedAPIs{Monitoring: true}, Build, false)
	assert.NotZero(t, gets(), "not shared across other served APIs")
}
