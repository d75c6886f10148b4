package nmstate

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

// DegradedInertia is how long NMStateDegraded must hold before the
// ClusterOperator turns Degraded (the starter's inertia table): shorter
// problems (a namespace still terminating, an API server restart) only delay
// the stack.
const DegradedInertia = 3 * time.Minute

// Condition reasons of the NMState conditions. While the stack is settled,
// Available carries the decision's reason (PlatformDefault, OptedIn,
// NotDefaultOnPlatform, OptedOut, HostedControlPlane, ...).
const (
	ReasonAsExpected            = "AsExpected"
	ReasonDeploying             = "Deploying"
	ReasonRollingOut            = "RollingOut"
	ReasonDeploymentUnavailable = "DeploymentUnavailable"
	ReasonRemoving              = "Removing"
	ReasonSyncFailing           = "SyncFailing"
	ReasonRolloutStuck          = "RolloutStuck"
	ReasonHandlerUnavailable    = "HandlerUnavailable"
	ReasonHandlerDegraded       = "HandlerDegraded"
)

// HandlerGrace is how long the NMState operator may report its handler
// unavailable before NMStateAvailable turns False: a handler rollout (an
// upgrade, a new node selector) replaces a pod on every node in turn, and
// the NMState operator reports that as unavailable throughout.
const HandlerGrace = stack.FirstRolloutGrace

// crState is what the controller found of the NMState CR.
type crState int

const (
	crMissing  crState = iota // not there (or its API is not served yet)
	crOurs                    // created by this stack (it carries StackLabel)
	crAdopted                 // created by an administrator: used, never changed, kept on opt-out
	crDeleting                // being deleted
)

// observation is what one sync did and found; conditionsFor turns it into
// conditions without any I/O.
type observation struct {
	// Decision is the recorded decision for the stack.
	Decision nodev1alpha1.StackStatus

	// Waiting says what the stack waits for before it can go on (for example
	// a namespace that is still terminating); empty when nothing.
	Waiting string
	// Provider is another NMState operator the stack steps aside for.
	Provider provider

	// Deployment is the nmstate-operator Deployment as last seen; nil when
	// there is none.
	Deployment *appsv1.Deployment
	// Applied is true when this sync applied the Deployment: its generation
	// is then recorded in the NodeOperator status.
	Applied bool
	// CR is what was found of the NMState "nmstate".
	CR crState
	// Operand is what the NMState operator reports in the CR's status.
	Operand operandStatus

	// Policies is true when NodeNetworkConfigurationPolicies exist while the
	// stack is off: nothing applies them then.
	Policies bool

	// Remaining lists the objects that are still being removed while the
	// stack is off.
	Remaining []string

	// deleted lists what this sync deleted, for its event.
	deleted []string

	// SyncError is the error of this sync.
	SyncError error

	// Now is when the observation was made.
	Now time.Time
}

// condition is one condition before it becomes an apply configuration.
type condition struct {
	Status  bool
	Reason  string
	Message string
}

type conditions struct {
	Available, Progressing, Degraded condition
}

// conditionsFor decides the NMState conditions:
//   - Available: off, true (nothing is required) with the decision's message;
//     on, true when the nmstate-operator Deployment is available and the
//     NMState CR exists, and (reason Deploying) while a Deployment younger
//     than stack.FirstRolloutGrace is not available yet;
//   - Progressing: only while the Deployment rolls out a new spec, or while the
//     stack is being set up or removed;
//   - Degraded: when a sync fails (the ClusterOperator follows only after
//     DegradedInertia), or when the
//     Deployment controller gave up rolling out (ProgressDeadlineExceeded).
func conditionsFor(o observation) conditions {
	out := conditions{
		Progressing: condition{Reason: ReasonAsExpected},
		Degraded:    condition{Reason: ReasonAsExpected},
	}
	switch {
	case o.SyncError != nil:
		// No elapsed time or retry count in the message: it would change on
		// every retry and rewrite the status in a loop while the error
		// persists.
		out.Degraded = condition{Status: true, Reason: ReasonSyncFailing, Message: o.SyncError.Error()}
	case o.Deployment != nil && progressDeadlineExceeded(o.Deployment) != "":
		out.Degraded = condition{Status: true, Reason: ReasonRolloutStuck,
			Message: fmt.Sprintf("Deployment %s/%s does not roll out: %s", Namespace, DeploymentName, progressDeadlineExceeded(o.Deployment))}
	}

	switch {
	case o.Provider.found():
		return providerConditions(o, out)
	case !o.Decision.Enabled:
		return removalConditions(o, out)
	}
	return deployConditions(o, out)
}

// providerConditions: another NMState operator runs NMState; the stack is
// available because it requires nothing, and says how to take over.
func providerConditions(o observation, out conditions) conditions {
	reason := o.Decision.Reason
	if o.Decision.Enabled {
		reason = o.Provider.Reason
	}
	who := "an NMState operator the node operator did not deploy"
	if o.Provider.Reason == ReasonProvidedByOLM {
		who = "the Kubernetes NMState operator installed by OLM"
	}
	msg := fmt.Sprintf("NMState is run by %s (%s); the node operator leaves it, the NMState and every policy alone (to have the node operator run NMState instead, uninstall that operator; see docs/nmstate.md)", who, o.Provider.What)
	out.Available = condition{Status: true, Reason: reason, Message: stack.Join(o.Decision.Message, msg)}
	return out
}

// operandConditions: the NMState operator runs and the NMState exists, so
// what the NMState operator reports of its handler, webhook and metrics
// decides. Its Degraded (it failed to apply them) is NMStateDegraded at once
// (the ClusterOperator follows after DegradedInertia); its Available=False
// turns NMStateAvailable False only after HandlerGrace, since it also says
// so while the handler merely rolls out.
func operandConditions(o observation, out conditions, deployed string) conditions {
	op := o.Operand
	avail := condition{Status: true, Reason: o.Decision.Reason}
	switch {
	case !op.Reported:
		avail.Message = stack.Join(o.Decision.Message, deployed, "the NMState operator has not reported on its handler yet")
	case op.Available.Status == "False" && o.Now.Sub(op.Available.Since) >= HandlerGrace:
		avail = condition{Status: false, Reason: ReasonHandlerUnavailable,
			Message: stack.Join(o.Decision.Message, deployed, "the NMState operator reports its handler unavailable: "+op.Available.text())}
	case op.Available.Status == "False":
		avail.Message = stack.Join(o.Decision.Message, deployed, "handler not available yet: "+op.Available.text())
	default:
		avail.Message = stack.Join(o.Decision.Message, deployed, "handler available")
	}
	out.Available = avail
	if op.Degraded.Status == "True" && !out.Degraded.Status {
		out.Degraded = condition{Status: true, Reason: ReasonHandlerDegraded,
			Message: "the NMState operator reports NMState " + CRName + " degraded: " + op.Degraded.text()}
	}
	return out
}

// operandStatus is what the NMState operator reports in its NMState's status.
type operandStatus struct {
	// Reported is false until the NMState operator wrote its conditions.
	Reported            bool
	Available, Degraded operandCondition
}

// operandCondition is one of the NMState operator's conditions.
type operandCondition struct {
	Status, Reason, Message string
	// Since is its lastTransitionTime (zero when unknown).
	Since time.Time
}

func (c operandCondition) text() string {
	if c.Message == "" {
		return c.Reason
	}
	return c.Reason + ": " + c.Message
}

// operandOf reads the NMState operator's conditions from an NMState; an
// NMState whose status cannot be read reports none.
func operandOf(cr *unstructured.Unstructured) operandStatus {
	var out operandStatus
	var read struct {
		Status struct {
			Conditions []struct {
				Type               string `json:"type"`
				Status             string `json:"status"`
				Reason             string `json:"reason"`
				Message            string `json:"message"`
				LastTransitionTime string `json:"lastTransitionTime"`
			} `json:"conditions"`
		} `json:"status"`
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(cr.Object, &read); err != nil {
		return out
	}
	for _, m := range read.Status.Conditions {
		c := operandCondition{Status: m.Status, Reason: m.Reason, Message: strings.ReplaceAll(strings.TrimSpace(m.Message), "\n", "; ")}
		if t, err := time.Parse(time.RFC3339, m.LastTransitionTime); err == nil {
			c.Since = t
		}
		switch m.Type {
		case "Available":
			out.Available, out.Reported = c, true
		case "Degraded":
			out.Degraded = c
		}
	}
	return out
}

func removalConditions(o observation, out conditions) conditions {
	kept := ""
	if o.CR == crAdopted {
		kept = fmt.Sprintf("NMState %s, created by an administrator, is kept", CRName)
	}
	if o.Policies {
		kept = stack.Join(kept, unappliedPolicies(o.Decision.Reason))
	}
	if len(o.Remaining) == 0 && o.Waiting == "" {
		out.Available = condition{Status: true, Reason: o.Decision.Reason, Message: stack.Join(o.Decision.Message, kept)}
		return out
	}
	waiting := o.Waiting
	if len(o.Remaining) > 0 {
		waiting = stack.Join(waiting, "deleting "+strings.Join(o.Remaining, ", "))
	}
	out.Available = condition{Status: true, Reason: ReasonRemoving, Message: stack.Join(o.Decision.Message, "removing: "+waiting, kept)}
	out.Progressing = condition{Status: true, Reason: ReasonRemoving, Message: "removing the NMState stack: " + waiting}
	return out
}

// unappliedPolicies says that policies wait for NMState, and how to deploy it
// where it can be.
func unappliedPolicies(reason string) string {
	msg := "NodeNetworkConfigurationPolicies exist and nothing applies them while NMState is not deployed; they are kept"
	if reason == platform.ReasonHostedControlPlane {
		return msg + " (nodes of a hosted control plane are configured by the hosting cluster)"
	}
	return msg + "; to apply them, set spec.nmstate.state=Enabled (oc patch nodeoperator cluster --type=merge -p '{\"spec\":{\"nmstate\":{\"state\":\"Enabled\"}}}')"
}

func deployConditions(o observation, out conditions) conditions {
	d := o.Deployment
	available := d != nil && deploymentAvailable(d)
	rolling := d == nil || rollingOut(d)
	crPresent := o.CR == crOurs || o.CR == crAdopted

	var cr string
	switch o.CR {
	case crOurs:
		cr = fmt.Sprintf("NMState %s created by the node operator", CRName)
	case crAdopted:
		cr = fmt.Sprintf("NMState %s created by an administrator (adopted: its spec is left alone and it is kept on opt-out)", CRName)
	case crDeleting:
		cr = fmt.Sprintf("NMState %s is being deleted; it is created again once it is gone", CRName)
	default:
		cr = fmt.Sprintf("NMState %s is created once the Deployment is available", CRName)
	}

	// A stack that is being switched on is deploying, not broken: it reports
	// Available=False only when its Deployment has had stack.FirstRolloutGrace
	// to become available. That holds after the Deployment controller has
	// created the first pod too: the Deployment is then rolled out as far as
	// it is concerned (1/1 replicas updated) but not available until the pod
	// is scheduled, pulled, started and ready, which takes from milliseconds
	// to minutes (and longer the busier the cluster); such a Deployment is
	// indistinguishable from one that lost its pod, so its age decides.
	deploying := d == nil || o.Now.Sub(d.CreationTimestamp.Time) < stack.FirstRolloutGrace
	// firstPods: the Deployment's pods are of its current spec but none is
	// available yet, within the grace.
	firstPods := d != nil && !rolling && !available && deploying

	switch {
	case o.Waiting != "":
		out.Progressing = condition{Status: true, Reason: ReasonDeploying, Message: "deploying the NMState stack: waiting for " + o.Waiting}
	case d == nil:
		out.Progressing = condition{Status: true, Reason: ReasonDeploying, Message: fmt.Sprintf("deploying the NMState stack: creating Deployment %s/%s", Namespace, DeploymentName)}
	case rolling:
		out.Progressing = condition{Status: true, Reason: ReasonRollingOut, Message: fmt.Sprintf("Deployment %s/%s is rolling out: %s", Namespace, DeploymentName, rollout(d))}
	case firstPods:
		out.Progressing = condition{Status: true, Reason: ReasonDeploying, Message: fmt.Sprintf("deploying the NMState stack: waiting for Deployment %s/%s to become available: %s", Namespace, DeploymentName, rollout(d))}
	case available && !crPresent:
		out.Progressing = condition{Status: true, Reason: ReasonDeploying, Message: "deploying the NMState stack: " + cr}
	}

	switch {
	case available && crPresent:
		out = operandConditions(o, out, fmt.Sprintf("nmstate-operator available (%s), %s", replicas(d), cr))
	case d == nil || (rolling && !available) || firstPods:
		detail := "Deployment " + Namespace + "/" + DeploymentName + " not created yet"
		if d != nil {
			detail = "nmstate-operator " + rollout(d)
		}
		if o.Waiting != "" {
			detail = "waiting for " + o.Waiting
		}
		out.Available = condition{Status: deploying, Reason: ReasonDeploying, Message: stack.Join(o.Decision.Message, "not available yet: "+detail)}
	case !available:
		out.Available = condition{Status: false, Reason: ReasonDeploymentUnavailable,
			Message: stack.Join(o.Decision.Message, fmt.Sprintf("Deployment %s/%s is not available: %s", Namespace, DeploymentName, replicas(d)))}
	default:
		detail := cr
		if o.Waiting != "" {
			detail = "waiting for " + o.Waiting
		}
		out.Available = condition{Status: deploying, Reason: ReasonDeploying, Message: stack.Join(o.Decision.Message, "not available yet: "+detail)}
	}
	return out
}

// deploymentAvailable is the Deployment's own Available condition: at least
// the required number of replicas (here all) are available.
func deploymentAvailable(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == corev1.ConditionTrue && d.Status.AvailableReplicas > 0
		}
	}
	return false
}

// rollingOut is true while the Deployment's controller has not yet brought
// every replica to the current spec. A pod that is replaced because its node
// went away is not a rollout: its replacement is already of the current spec.
func rollingOut(d *appsv1.Deployment) bool {
	return d.Status.ObservedGeneration < d.Generation ||
		d.Status.UpdatedReplicas < desired(d) ||
		d.Status.Replicas > d.Status.UpdatedReplicas
}

// progressDeadlineExceeded returns the Deployment controller's message when it
// gave up waiting for the rollout, "" otherwise.
func progressDeadlineExceeded(d *appsv1.Deployment) string {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded" {
			if c.Message == "" {
				return c.Reason
			}
			return c.Message
		}
	}
	return ""
}

func desired(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas != nil {
		return *d.Spec.Replicas
	}
	return 1
}

func replicas(d *appsv1.Deployment) string {
	return fmt.Sprintf("%d/%d replicas available", d.Status.AvailableReplicas, desired(d))
}

func rollout(d *appsv1.Deployment) string {
	return fmt.Sprintf("%d/%d replicas updated, %d available", d.Status.UpdatedReplicas, desired(d), d.Status.AvailableReplicas)
}
