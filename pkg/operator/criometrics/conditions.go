package criometrics

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

// Reasons of the Metrics conditions, besides the switching reasons of
// path.go and the decision's own reasons.
const (
	ReasonAsExpected             = "AsExpected"
	ReasonNotDeployed            = "NotDeployed"
	ReasonRemoving               = "Removing"
	ReasonDeploying              = "Deploying"
	ReasonRollingOut             = "RollingOut"
	ReasonNoNodeServesMetrics    = "NoNodeServesMetrics"
	ReasonNodesWithoutMetrics    = "NodesWithoutMetrics"
	ReasonWaitingForCertificates = "WaitingForCertificates"
	ReasonPlatformPathUnknown    = "PlatformPathUnknown"
	// ReasonMoving: an update moves the DaemonSet out of the operator's
	// namespace (legacy.go).
	ReasonMoving        = "MovingToOwnNamespace"
	MovingMessage       = "moving the CRI-O metrics DaemonSet from " + legacyNamespace + " to " + namespace + ": the new one follows once the old one's pods are gone"
	ReasonPlatformProxy = string(nodev1alpha1.PlatformProxy)
	// Problems that stop a sync (observation.Problem.Reason).
	ReasonInvalidTLSSecurityProfile = "InvalidTLSSecurityProfile"
	ReasonInvalidConfiguration      = "InvalidConfiguration"
	ReasonApplyFailed               = "ApplyFailed"
	ReasonRemovalFailed             = "RemovalFailed"
	ReasonRotationFailed            = "CertificateRotationFailed"
	// While the drop-in MachineConfigs wait for MCO's node disruption
	// policy (Progressing), and once the wait has outlasted its grace
	// (Degraded); MachineConfigsHeldBack starts the message, a
	// nodedisruption.Wait* message follows.
	ReasonWaitingForDisruptionPolicy = "WaitingForNodeDisruptionPolicy"
	ReasonDisruptionPolicyNotReady   = "NodeDisruptionPolicyNotReady"
	MachineConfigsHeldBack           = "CRI-O drop-in MachineConfigs held back: "
	// ConditionHeldBack (after Prefix) is True while the drop-in
	// MachineConfigs wait, whatever for; its lastTransitionTime is when the
	// wait began, which the grace counts from.
	ConditionHeldBack = "MachineConfigsHeldBack"
)

// observation is what one sync of the stack's controller found;
// conditionsFor turns it into the Metrics conditions without any I/O.
type observation struct {
	// Decision is the recorded decision; Intent what it means for the own
	// TLS stack.
	Decision nodev1alpha1.StackStatus
	Intent   Intent
	// TLS says which parts of the own TLS stack exist; MonitoringServed
	// whether a ServiceMonitor is expected at all.
	TLS              TLSStack
	MonitoringServed bool
	// PlatformProxies counts the nodes that run MCO's kube-rbac-proxy-crio.
	PlatformProxies int
	// WaitingForCertificates: the CA bundle does not exist yet.
	WaitingForCertificates bool
	// Moving: an earlier release's DaemonSet in the operator's namespace
	// is being deleted, and the new one waits for its pods to go
	// (legacy.go).
	Moving bool
	// Problem stopped a step (a denied write, an unusable TLS profile).
	Problem *condition
	// Waiting says why the drop-in MachineConfigs wait for MCO's node
	// disruption policy, if they do; WaitPersists: for longer than the
	// grace.
	Waiting      string
	WaitPersists bool
	// DaemonSet is the DaemonSet as applied or, after a problem, as cached;
	// nil when there is none.
	DaemonSet *appsv1.DaemonSet
	// Now is when the observation was made (the first rollout's grace).
	Now time.Time
	// Profile is the platform Prometheus' collection profile
	// (collectionprofile.go): what it leaves our alerts and dashboard.
	Profile MonitoringProfile
}

type condition struct {
	Status  bool
	Reason  string
	Message string
}

type conditions struct {
	Available, Progressing, Degraded condition
}

// conditionsFor decides MetricsAvailable, MetricsProgressing and
// MetricsDegraded. Messages hold no time or counter that changes by itself,
// so a persistent problem is written once.
func conditionsFor(o observation) conditions {
	out := stackConditions(o)
	if o.Waiting == "" {
		return out
	}
	held := MachineConfigsHeldBack + o.Waiting
	if out.Progressing.Status {
		out.Progressing.Message += "; " + held
	} else {
		out.Progressing = condition{true, ReasonWaitingForDisruptionPolicy, held}
	}
	if o.WaitPersists && o.Problem == nil {
		out.Degraded = condition{true, ReasonDisruptionPolicyNotReady, held}
	}
	return out
}

func stackConditions(o observation) conditions {
	out := conditions{
		Progressing: condition{Reason: ReasonAsExpected},
		Degraded:    condition{Reason: ReasonAsExpected},
	}
	if o.Problem != nil {
		out.Degraded = *o.Problem
	}

	switch {
	case o.Intent == Hold:
		// Enabled with the path unknown: nothing is deployed on nodes until
		// the lookup works, because guessing "no platform path" could break
		// the platform's job="crio".
		out.Available = condition{true, ReasonPlatformPathUnknown, o.Decision.Message}
		out.Degraded = condition{true, ReasonPlatformPathUnknown,
			"nothing is deployed on nodes until the operator can tell whether the machine-config operator's kube-rbac-proxy-crio serves CRI-O metrics: " + o.Decision.Message}
		return out

	case o.Intent == TearDown && !o.Decision.Enabled:
		out.Available = condition{true, ReasonNotDeployed, o.Decision.Message}
		if left := o.TLS.Remaining(); len(left) > 0 {
			out.Progressing = condition{true, ReasonRemoving, "removing in order: " + strings.Join(left, ", ")}
		}
		if o.Problem == nil {
			out.Degraded.Reason = ReasonNotDeployed
		}
		return out

	case o.Intent == TearDown:
		out.Available = condition{true, ReasonPlatformProxy, stack.Join(PlatformProxyNodes(o.PlatformProxies), o.Decision.Message,
			ProfileNote(o.Profile, nodev1alpha1.PlatformProxy))}
		if reason, message, ok := SwitchStatus(TearDown, nodev1alpha1.PlatformProxy, o.TLS, o.MonitoringServed); ok {
			out.Progressing = condition{true, reason, message}
		}
		return out

	case o.WaitingForCertificates:
		out.Available = condition{true, ReasonWaitingForCertificates, stack.Join(o.Decision.Message, "deploying: waiting for the CRI-O metrics CA bundle to be created")}
		out.Progressing = building(o, condition{true, ReasonWaitingForCertificates, "waiting for the CRI-O metrics certificates"})
		return out

	case o.Moving && o.DaemonSet == nil:
		out.Available = condition{true, ReasonMoving, stack.Join(o.Decision.Message, MovingMessage)}
		out.Progressing = building(o, condition{true, ReasonMoving, MovingMessage})
		return out

	case o.DaemonSet == nil:
		// A problem before the first DaemonSet: nothing serves yet.
		out.Available = condition{true, ReasonDeploying, stack.Join(o.Decision.Message, "deploying: the DaemonSet could not be applied yet")}
		out.Progressing = building(o, condition{true, ReasonDeploying, "the CRI-O metrics DaemonSet could not be applied yet"})
		return out
	}

	rollout := Rollout(o.DaemonSet, o.Now)
	out.Available = condition{rollout.Available, ReasonAsExpected, stack.Join(rollout.Message, o.Decision.Message,
		ProfileNote(o.Profile, nodev1alpha1.OperatorTLS))}
	switch {
	case rollout.Deploying:
		out.Available.Reason = ReasonDeploying
	case !rollout.Available:
		out.Available.Reason = ReasonNoNodeServesMetrics
	}
	step := condition{Reason: ReasonAsExpected}
	if rollout.Progressing {
		step = condition{true, ReasonRollingOut, rollout.Message}
	}
	out.Progressing = building(o, step)
	if rollout.TooManyUnavailable && o.Problem == nil {
		out.Degraded = condition{true, ReasonNodesWithoutMetrics, rollout.Message}
	}
	return out
}

// building is the Progressing condition of a build step. Until the
// ServiceMonitor is in, the whole build is one switch to the own TLS stack,
// so its reason holds from the first sync to the last and the step is in
// the message: a build takes well under a second on a small cluster, too
// short for a reason that only its last step showed to be seen.
func building(o observation, step condition) condition {
	reason, message, switching := SwitchStatus(Build, nodev1alpha1.OperatorTLS, o.TLS, o.MonitoringServed)
	switch {
	case !switching:
		return step
	case step.Status:
		return condition{true, reason, message + "; now: " + step.Message}
	}
	return condition{true, reason, message}
}

// addProblem adds a step's problem to the Degraded condition: the first
// problem's reason, every problem's message.
func (o *observation) addProblem(reason, format string, args ...interface{}) {
	message := fmt.Sprintf(format, args...)
	if o.Problem == nil {
		o.Problem = &condition{true, reason, message}
		return
	}
	o.Problem.Message = stack.Join(o.Problem.Message, message)
}

// PlatformProxyNodes says on how many nodes the platform's proxy runs. MCO
// labels the static pod only since 4.16, so on older clusters the count is
// not known.
func PlatformProxyNodes(n int) string {
	if n == 0 {
		return "kube-rbac-proxy-crio runs on every node of MCO's pools (no mirror pod labelled k8s-app=kube-rbac-proxy-crio to count: MCO before 4.16 does not label them)"
	}
	return fmt.Sprintf("kube-rbac-proxy-crio serves CRI-O metrics on %d nodes", n)
}
