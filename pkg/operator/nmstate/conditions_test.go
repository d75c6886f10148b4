package nmstate

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

var (
	onByDefault = nodev1alpha1.StackStatus{Name: nodev1alpha1.NMStateStack, Enabled: true, Reason: "PlatformDefault",
		Message: "deployed by default on platform BareMetal; set spec.nmstate.managementState=Removed to opt out"}
	offOnAWS = nodev1alpha1.StackStatus{Name: nodev1alpha1.NMStateStack, Enabled: false, Reason: "NotDefaultOnPlatform",
		Message: "not deployed (platform AWS is not enabled by default; set spec.nmstate.managementState=Managed to opt in)"}
)

var (
	t0           = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	olmCSV       = provider{ReasonProvidedByOLM, "ClusterServiceVersion nmstate/kubernetes-nmstate-operator.v4.20.0"}
	deployedOurs = "nmstate-operator available (1/1 replicas available), NMState nmstate created by the node operator"
	notReported  = "; the NMState operator has not reported on its handler yet"
)

// handler is what the NMState operator reports of its handler since t.
func handler(available string, since time.Time) operandStatus {
	msg := "All components are available and ready"
	reason := "SuccessfullyDeployed"
	if available == "False" {
		reason, msg = "Deploying", `DaemonSet "nmstate-handler" is not available (awaiting 2 nodes)`
	}
	return operandStatus{Reported: true,
		Available: operandCondition{Status: available, Reason: reason, Message: msg, Since: since},
		Degraded:  operandCondition{Status: "False", Reason: reason, Message: msg, Since: since}}
}

// deployment builds a Deployment status: generation and observedGeneration,
// then updated and available replicas out of one, and the Available condition.
func deployment(generation, observed int64, updated, available int32, availableCond corev1.ConditionStatus, extra ...appsv1.DeploymentCondition) *appsv1.Deployment {
	one := int32(1)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: DeploymentName, Namespace: Namespace, Generation: generation,
			Labels: map[string]string{StackLabel: StackLabelValue}},
		Spec: appsv1.DeploymentSpec{Replicas: &one},
		Status: appsv1.DeploymentStatus{
			ObservedGeneration: observed, Replicas: updated, UpdatedReplicas: updated, AvailableReplicas: available,
			Conditions: append([]appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: availableCond}}, extra...),
		},
	}
	if updated == 0 {
		d.Status.Replicas = 0
	}
	return d
}

func TestConditionsFor(t *testing.T) {
	// calm: a condition with nothing to report.
	calm := condition{false, ReasonAsExpected, ""}
	ready := deployment(1, 1, 1, 1, corev1.ConditionTrue)
	stuck := deployment(2, 2, 0, 1, corev1.ConditionTrue, appsv1.DeploymentCondition{
		Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded",
		Message: `ReplicaSet "nmstate-operator-2" has timed out progressing.`})
	stuck.Status.Replicas = 2

	for _, tc := range []struct {
		name string
		obs  observation
		want conditions
	}{{name: "off and nothing left: the decision's message says how to opt in", obs: observation{Decision: offOnAWS},
		want: conditions{condition{true, "NotDefaultOnPlatform", offOnAWS.Message}, calm, calm},
	}, {name: "off with an administrator's NMState kept", obs: observation{Decision: offOnAWS, CR: crAdopted},
		want: conditions{condition{true, "NotDefaultOnPlatform", offOnAWS.Message + "; NMState nmstate, created by an administrator, is kept"}, calm, calm},
	}, {name: "removing: progressing, still available", obs: observation{Decision: offOnAWS, Remaining: []string{"Namespace openshift-nmstate"}},
		want: conditions{condition{true, ReasonRemoving, offOnAWS.Message + "; removing: deleting Namespace openshift-nmstate"},
			condition{true, ReasonRemoving, "removing the NMState stack: deleting Namespace openshift-nmstate"}, calm},
	}, {name: "on, nothing created yet", obs: observation{Decision: onByDefault},
		want: conditions{condition{true, ReasonDeploying, onByDefault.Message + "; not available yet: Deployment openshift-nmstate/nmstate-operator not created yet"},
			condition{true, ReasonDeploying, "deploying the NMState stack: creating Deployment openshift-nmstate/nmstate-operator"}, calm},
	}, {name: "on, waiting for the namespace of the last opt-out to go", obs: observation{Decision: onByDefault, Waiting: "namespace openshift-nmstate to finish terminating"},
		want: conditions{condition{true, ReasonDeploying, onByDefault.Message + "; not available yet: waiting for namespace openshift-nmstate to finish terminating"},
			condition{true, ReasonDeploying, "deploying the NMState stack: waiting for namespace openshift-nmstate to finish terminating"}, calm},
	}, {name: "on, Deployment created, not observed yet", obs: observation{Decision: onByDefault, Deployment: deployment(1, 0, 0, 0, corev1.ConditionFalse)},
		want: conditions{condition{true, ReasonDeploying, onByDefault.Message + "; not available yet: nmstate-operator 0/1 replicas updated, 0 available"},
			condition{true, ReasonRollingOut, "Deployment openshift-nmstate/nmstate-operator is rolling out: 0/1 replicas updated, 0 available"}, calm},
	}, {name: "on, Deployment created long ago and still not rolled out: unavailable", obs: observation{Decision: onByDefault, Deployment: deployment(1, 0, 0, 0, corev1.ConditionFalse), Now: time.Unix(0, 0).Add(time.Hour)},
		want: conditions{condition{false, ReasonDeploying, onByDefault.Message + "; not available yet: nmstate-operator 0/1 replicas updated, 0 available"},
			condition{true, ReasonRollingOut, "Deployment openshift-nmstate/nmstate-operator is rolling out: 0/1 replicas updated, 0 available"}, calm},
	}, {name: "on, Deployment available, CR not there yet: still deploying (both are required)", obs: observation{Decision: onByDefault, Deployment: ready},
		want: conditions{condition{true, ReasonDeploying, onByDefault.Message + "; not available yet: NMState nmstate is created once the Deployment is available"},
			condition{true, ReasonDeploying, "deploying the NMState stack: NMState nmstate is created once the Deployment is available"}, calm},
	}, {name: "on and settled, our CR; the NMState operator has not reported yet: available, and says so", obs: observation{Decision: onByDefault, Deployment: ready, CR: crOurs},
		want: conditions{condition{true, "PlatformDefault", onByDefault.Message + "; " + deployedOurs + notReported}, calm, calm},
	}, {name: "on and settled, adopted CR", obs: observation{Decision: onByDefault, Deployment: ready, CR: crAdopted},
		want: conditions{
			Available: condition{true, "PlatformDefault", onByDefault.Message +
				"; nmstate-operator available (1/1 replicas available), NMState nmstate created by an administrator (adopted: its spec is left alone and it is kept on opt-out)" + notReported},
			Progressing: calm, Degraded: calm},
	}, {name: "on, new spec rolling out while the old pod serves: available and progressing",
		obs: observation{Decision: onByDefault, CR: crOurs, Deployment: func() *appsv1.Deployment {
			d := deployment(2, 2, 1, 1, corev1.ConditionTrue)
			d.Status.Replicas = 2 // the old pod is still there
			return d
		}()},
		want: conditions{condition{true, "PlatformDefault", onByDefault.Message + "; " + deployedOurs + notReported},
			condition{true, ReasonRollingOut, "Deployment openshift-nmstate/nmstate-operator is rolling out: 1/1 replicas updated, 1 available"}, calm},
	}, {name: "on with an administrator's NMState, first pod not ready yet at the end of the grace: deploying, still available", obs: observation{Decision: onByDefault, CR: crAdopted, Deployment: deployment(1, 1, 1, 0, corev1.ConditionFalse), Now: time.Time{}.Add(stack.FirstRolloutGrace - time.Second)},
		want: conditions{condition{true, ReasonDeploying, onByDefault.Message + "; not available yet: nmstate-operator 1/1 replicas updated, 0 available"},
			condition{true, ReasonDeploying, "deploying the NMState stack: waiting for Deployment openshift-nmstate/nmstate-operator to become available: 1/1 replicas updated, 0 available"},
			calm},
	}, {name: "on, first pod still not ready after the grace: unavailable", obs: observation{Decision: onByDefault, Deployment: deployment(1, 1, 1, 0, corev1.ConditionFalse), Now: time.Time{}.Add(stack.FirstRolloutGrace)},
		want: conditions{condition{false, ReasonDeploymentUnavailable, onByDefault.Message + "; Deployment openshift-nmstate/nmstate-operator is not available: 0/1 replicas available"}, calm, calm},
	}, {name: "on, pod lost with its node, Deployment created long ago: unavailable but not progressing (no new spec)", obs: observation{Decision: onByDefault, CR: crOurs, Deployment: deployment(1, 1, 1, 0, corev1.ConditionFalse), Now: time.Unix(0, 0).Add(time.Hour)},
		want: conditions{condition{false, ReasonDeploymentUnavailable, onByDefault.Message + "; Deployment openshift-nmstate/nmstate-operator is not available: 0/1 replicas available"}, calm, calm},
	}, {name: "on, rollout stuck past its deadline: degraded at once (the Deployment controller waited)", obs: observation{Decision: onByDefault, CR: crOurs, Deployment: stuck},
		want: conditions{condition{true, "PlatformDefault", onByDefault.Message + "; " + deployedOurs + notReported},
			condition{true, ReasonRollingOut, "Deployment openshift-nmstate/nmstate-operator is rolling out: 0/1 replicas updated, 1 available"},
			condition{true, ReasonRolloutStuck, `Deployment openshift-nmstate/nmstate-operator does not roll out: ReplicaSet "nmstate-operator-2" has timed out progressing.`}},
	}, {name: "sync failing, stack available: degraded at once (the ClusterOperator follows after the inertia)", obs: observation{Decision: onByDefault, CR: crOurs, Deployment: ready, SyncError: errors.New("boom")},
		want: conditions{condition{true, "PlatformDefault", onByDefault.Message + "; " + deployedOurs + notReported},
			calm, condition{true, ReasonSyncFailing, "boom"}},
	}, {name: "removal failing: degraded", obs: observation{Decision: offOnAWS, SyncError: errors.New("deleting ClusterRole nmstate-operator: forbidden")},
		want: conditions{condition{true, "NotDefaultOnPlatform", offOnAWS.Message},
			calm, condition{true, ReasonSyncFailing, "deleting ClusterRole nmstate-operator: forbidden"}},
	}, {name: "on, an NMState operator installed by OLM: available, the stack steps aside and says how to take over", obs: observation{Decision: onByDefault, Provider: olmCSV},
		want: conditions{
			Available: condition{true, ReasonProvidedByOLM, onByDefault.Message + "; NMState is run by the Kubernetes NMState operator installed by OLM " +
				"(ClusterServiceVersion nmstate/kubernetes-nmstate-operator.v4.20.0); the node operator leaves it, the NMState and every policy alone " +
				"(to have the node operator run NMState instead, uninstall that operator; see docs/nmstate.md)"},
			Progressing: calm, Degraded: calm},
	}, {name: "off, someone else's NMState operator: the decision's reason stays", obs: observation{Decision: offOnAWS, Provider: provider{ReasonProvidedExternally, "Deployment openshift-nmstate/nmstate-operator, not created by the node operator"}},
		want: conditions{
			Available: condition{true, "NotDefaultOnPlatform", offOnAWS.Message + "; NMState is run by an NMState operator the node operator did not deploy " +
				"(Deployment openshift-nmstate/nmstate-operator, not created by the node operator); the node operator leaves it, the NMState and every policy alone " +
				"(to have the node operator run NMState instead, uninstall that operator; see docs/nmstate.md)"},
			Progressing: calm, Degraded: calm},
	}, {name: "handler available", obs: observation{Decision: onByDefault, CR: crOurs, Deployment: ready, Operand: handler("True", t0), Now: t0.Add(time.Hour)},
		want: conditions{condition{true, "PlatformDefault", onByDefault.Message + "; " + deployedOurs + "; handler available"}, calm, calm},
	}, {name: "handler rolling out, within the grace: still available, with the operand's message", obs: observation{Decision: onByDefault, CR: crOurs, Deployment: ready, Operand: handler("False", t0), Now: t0.Add(HandlerGrace - time.Second)},
		want: conditions{
			Available: condition{true, "PlatformDefault", onByDefault.Message + "; " + deployedOurs +
				`; handler not available yet: Deploying: DaemonSet "nmstate-handler" is not available (awaiting 2 nodes)`},
			Progressing: calm, Degraded: calm},
	}, {name: "handler unavailable past the grace: unavailable, with the operand's message", obs: observation{Decision: onByDefault, CR: crOurs, Deployment: ready, Operand: handler("False", t0), Now: t0.Add(HandlerGrace)},
		want: conditions{
			Available: condition{false, ReasonHandlerUnavailable, onByDefault.Message + "; " + deployedOurs +
				`; the NMState operator reports its handler unavailable: Deploying: DaemonSet "nmstate-handler" is not available (awaiting 2 nodes)`},
			Progressing: calm, Degraded: calm},
	}, {name: "the NMState operator cannot apply its handler: degraded with its message",
		obs: observation{Decision: onByDefault, CR: crOurs, Deployment: ready, Now: t0, Operand: operandStatus{Reported: true,
			Available: operandCondition{Status: "False", Reason: "InternalError", Message: "failed applying RBAC: forbidden", Since: t0},
			Degraded:  operandCondition{Status: "True", Reason: "InternalError", Message: "failed applying RBAC: forbidden", Since: t0}}},
		want: conditions{condition{true, "PlatformDefault", onByDefault.Message + "; " + deployedOurs + "; handler not available yet: InternalError: failed applying RBAC: forbidden"},
			calm, condition{true, ReasonHandlerDegraded, "the NMState operator reports NMState nmstate degraded: InternalError: failed applying RBAC: forbidden"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, conditionsFor(tc.obs))
		})
	}
}

func TestRollingOut(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    *appsv1.Deployment
		want bool
	}{
		{"settled", deployment(3, 3, 1, 1, corev1.ConditionTrue), false},
		{"new generation not observed", deployment(4, 3, 1, 1, corev1.ConditionTrue), true},
		{"new pod not created yet", deployment(4, 4, 0, 1, corev1.ConditionTrue), true},
		{"replacement pod for a lost node", deployment(3, 3, 1, 0, corev1.ConditionFalse), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, rollingOut(tc.d))
		})
	}
}

// A persistent error must give the same conditions on every retry: anything
// that changes with time would rewrite the status in a loop.
func TestConditionsForPersistentErrorDoNotChangeWithTime(t *testing.T) {
	decision := nodev1alpha1.StackStatus{Name: nodev1alpha1.NMStateStack, Enabled: true, Reason: "PlatformDefault", Message: "deployed by default on platform BareMetal"}
	err := errors.New("NMSTATE_OPERATOR_IMAGE is not set")
	first := conditionsFor(observation{Decision: decision, SyncError: err, Now: time.Date(2026, 1, 1, 0, 1, 1, 0, time.UTC)})
	later := conditionsFor(observation{Decision: decision, SyncError: err, Now: time.Date(2026, 1, 3, 7, 0, 0, 0, time.UTC)})
	assert.Equal(t, first, later)
	assert.True(t, first.Degraded.Status)
	// The handler reported unavailable past the grace: written once too.
	past := observation{Decision: decision, CR: crOurs, Deployment: deployment(1, 1, 1, 1, corev1.ConditionTrue), Operand: handler("False", t0), Now: t0.Add(HandlerGrace)}
	again := past
	again.Now = past.Now.Add(48 * time.Hour)
	assert.Equal(t, conditionsFor(past), conditionsFor(again))
	assert.False(t, conditionsFor(again).Available.Status)
}

func TestOperandOf(t *testing.T) {
	cr := &unstructured.Unstructured{Object: map[string]interface{}{"status": map[string]interface{}{"conditions": []interface{}{
		map[string]interface{}{"type": "Available", "status": "False", "reason": "Deploying", "lastTransitionTime": "2026-01-01T00:00:00Z",
			"message": "Deployment \"nmstate-webhook\" is not available (awaiting 1 nodes)\nDaemonSet \"nmstate-handler\" is not available (awaiting 2 nodes)"},
		map[string]interface{}{"type": "Degraded", "status": "False", "reason": "Deploying"},
	}}}}
	got := operandOf(cr)
	require.True(t, got.Reported)
	assert.Equal(t, operandCondition{Status: "False", Reason: "Deploying", Since: t0,
		Message: `Deployment "nmstate-webhook" is not available (awaiting 1 nodes); DaemonSet "nmstate-handler" is not available (awaiting 2 nodes)`}, got.Available)
	assert.Equal(t, "False", got.Degraded.Status)
	assert.False(t, operandOf(&unstructured.Unstructured{Object: map[string]interface{}{}}).Reported)
}
