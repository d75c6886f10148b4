package versioncontroller

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	applynodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/generated/applyconfiguration/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
)

const (
	// StacksFieldManager owns status.stacks[*].observedVersion and
	// status.stacks[*].containers, and the ConditionSummary condition. The
	// stack decision (stackdecision.FieldManager) owns the other fields of
	// the same list entries; server-side apply merges the entries by name.
	StacksFieldManager = "OperatorVersionStacks"
	// ConditionSummary is always True; its message says in one line what
	// runs where, and library-go's status controller repeats it in the
	// ClusterOperator's Available message.
	ConditionSummary = "StacksAvailable"
)

// Workload is one DaemonSet or Deployment of a stack, as the informers see
// it. Missing is set for a workload the stack must have that is not there
// (yet).
type Workload struct {
	Kind      string // DaemonSet or Deployment
	Namespace string
	Name      string
	Missing   bool
	// RolledOut: its controller has seen the latest pod template and every
	// pod it wants runs it and is available (what `oc rollout status`
	// waits for).
	RolledOut bool
	Template  corev1.PodSpec
}

// DaemonSetWorkload describes a DaemonSet.
func DaemonSetWorkload(ds *appsv1.DaemonSet) Workload {
	return Workload{
		Kind: "DaemonSet", Namespace: ds.Namespace, Name: ds.Name, Template: ds.Spec.Template.Spec,
		RolledOut: ds.Status.ObservedGeneration >= ds.Generation &&
			ds.Status.UpdatedNumberScheduled >= ds.Status.DesiredNumberScheduled &&
			ds.Status.NumberAvailable >= ds.Status.DesiredNumberScheduled,
	}
}

// DeploymentWorkload describes a Deployment.
func DeploymentWorkload(d *appsv1.Deployment) Workload {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	return Workload{
		Kind: "Deployment", Namespace: d.Namespace, Name: d.Name, Template: d.Spec.Template.Spec,
		RolledOut: d.Status.ObservedGeneration >= d.Generation &&
			d.Status.UpdatedReplicas >= want && d.Status.Replicas == d.Status.UpdatedReplicas &&
			d.Status.AvailableReplicas >= want,
	}
}

// StackRolledOut is true when the stack with this condition prefix reports
// Available=True and is not progressing.
func StackRolledOut(conditions []operatorv1.OperatorCondition, prefix string) bool {
	a := v1helpers.FindOperatorCondition(conditions, prefix+operatorv1.OperatorStatusTypeAvailable)
	p := v1helpers.FindOperatorCondition(conditions, prefix+operatorv1.OperatorStatusTypeProgressing)
	return a != nil && settled(*a) && (p == nil || settled(*p))
}

// Observe returns a stack's observedVersion and containers. They change only
// when the operator's version is reported (versionReported: every stack has
// rolled out at this version, see NextStep), the stack itself has rolled out
// (its conditions) and each of its workloads has rolled out (their status);
// otherwise they stay what they were, so that they describe the last
// complete rollout and a steady state writes nothing.
func Observe(recorded nodev1alpha1.StackStatus, conditions []operatorv1.OperatorCondition, versionReported bool, version string,
	workloads []Workload) (string, []nodev1alpha1.StackContainer) {
	keep := func() (string, []nodev1alpha1.StackContainer) { return recorded.ObservedVersion, recorded.Containers }
	if !versionReported || !StackRolledOut(conditions, string(recorded.Name)) {
		return keep()
	}
	var containers []nodev1alpha1.StackContainer
	for _, w := range workloads {
		if w.Missing || !w.RolledOut {
			return keep()
		}
		for _, c := range w.Template.Containers {
			containers = append(containers, nodev1alpha1.StackContainer{
				Namespace: w.Namespace, ParentKind: w.Kind, ParentName: w.Name, Name: c.Name, Image: c.Image,
			})
		}
	}
	slices.SortFunc(containers, func(a, b nodev1alpha1.StackContainer) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.ParentKind, b.ParentKind),
			cmp.Compare(a.ParentName, b.ParentName), cmp.Compare(a.Name, b.Name))
	})
	return version, containers
}

// stackTitles name the stacks for an administrator.
var stackTitles = map[nodev1alpha1.StackName]string{
	nodev1alpha1.MetricsStack: "CRI-O metrics",
	nodev1alpha1.NMStateStack: "NMState",
}

// Summary says in one line what runs where, from status.stacks (the
// decision and, for a stack that is on, the operands recorded at its last
// rollout) and the platform type. It holds no counter or time, so it
// changes only when a decision or an operand changes.
func Summary(stacks []nodev1alpha1.StackStatus, platformType configv1.PlatformType) string {
	var parts []string
	for _, s := range stacks {
		title := stackTitles[s.Name]
		if title == "" {
			title = string(s.Name)
		}
		parts = append(parts, title+": "+stackSummary(s, platformType))
	}
	if len(parts) == 0 {
		return "no stack decided yet"
	}
	return strings.Join(parts, "; ")
}

func stackSummary(s nodev1alpha1.StackStatus, platformType configv1.PlatformType) string {
	if !s.Enabled {
		switch s.Reason {
		case platform.ReasonNotDefaultOnPlatform:
			if platformType != "" {
				return "off on " + string(platformType)
			}
			return "off (not a default on this platform)"
		case platform.ReasonOptedOut:
			return "off (opted out)"
		case platform.ReasonHostedControlPlane:
			return "off (hosted control plane)"
		case platform.ReasonOperatorRemoved:
			return "off (operator Removed)"
		case platform.ReasonInfrastructureUnavailable:
			return "off until the Infrastructure can be read"
		}
		return fmt.Sprintf("off (%s)", s.Reason)
	}
	if s.Mode == nodev1alpha1.PlatformProxy {
		return "platform kube-rbac-proxy-crio (the operator adds alerts, dashboard)"
	}
	if len(s.Containers) == 0 {
		return "rolling out"
	}
	// The workloads in order, each with its containers.
	var workloads []string
	byWorkload := map[string][]string{}
	for _, c := range s.Containers {
		w := fmt.Sprintf("%s %s/%s", c.ParentKind, c.Namespace, c.ParentName)
		if _, ok := byWorkload[w]; !ok {
			workloads = append(workloads, w)
		}
		byWorkload[w] = append(byWorkload[w], c.Name)
	}
	for i, w := range workloads {
		workloads[i] = fmt.Sprintf("%s (%s)", w, strings.Join(byWorkload[w], ", "))
	}
	out := strings.Join(workloads, ", ")
	if s.Mode == nodev1alpha1.OperatorTLS {
		out = "operator TLS stack, " + out
	}
	return out
}

// stacksStatus is what StacksFieldManager applies: for every recorded
// stack its observedVersion and containers (nothing for a stack with
// neither yet), and the summary condition.
func stacksStatus(recorded []nodev1alpha1.StackStatus, conditions []operatorv1.OperatorCondition, versionReported bool, version string,
	workloads func(nodev1alpha1.StackStatus) []Workload, platformType configv1.PlatformType) *applynodev1alpha1.NodeOperatorStatusApplyConfiguration {
	status := applynodev1alpha1.NodeOperatorStatus()
	var merged []nodev1alpha1.StackStatus
	for _, rec := range recorded {
		observed, containers := Observe(rec, conditions, versionReported, version, workloads(rec))
		rec.ObservedVersion, rec.Containers = observed, containers
		merged = append(merged, rec)
		if observed == "" && len(containers) == 0 {
			continue
		}
		entry := applynodev1alpha1.StackStatus().WithName(rec.Name)
		if observed != "" {
			entry.WithObservedVersion(observed)
		}
		for _, c := range containers {
			entry.WithContainers(applynodev1alpha1.StackContainer().
				WithNamespace(c.Namespace).WithParentKind(c.ParentKind).WithParentName(c.ParentName).WithName(c.Name).WithImage(c.Image))
		}
		status.WithStacks(entry)
	}
	status.WithConditions(operatorclient.Condition(ConditionSummary, operatorv1.ConditionTrue, "AsExpected", Summary(merged, platformType)))
	return status
}
