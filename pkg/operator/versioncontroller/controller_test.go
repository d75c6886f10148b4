package versioncontroller

import (
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
)

func cond(t string, s operatorv1.ConditionStatus) operatorv1.OperatorCondition {
	return operatorv1.OperatorCondition{Type: t, Status: s}
}

// conds are the conditions of "Type=Status" pairs.
func conds(pairs ...string) []operatorv1.OperatorCondition {
	var out []operatorv1.OperatorCondition
	for _, p := range pairs {
		typ, status, _ := strings.Cut(p, "=")
		out = append(out, cond(typ, operatorv1.ConditionStatus(status)))
	}
	return out
}

func TestRolledOut(t *testing.T) {
	stacks := []string{"Metrics", "NMState"}
	for _, tc := range []struct {
		name       string
		conditions []operatorv1.OperatorCondition
		want       bool
	}{
		{"no stack reported yet", nil, false},
		{"one stack not reported", conds("MetricsAvailable=True"), false},
		{"available, progressing not reported", conds("MetricsAvailable=True", "NMStateAvailable=True"), true},
		{"all available, nothing progressing", conds("MetricsAvailable=True", "MetricsProgressing=False", "NMStateAvailable=True", "NMStateProgressing=False", "StackDecisionDegraded=True"), true},
		{"a rollout in progress", conds("MetricsAvailable=True", "MetricsProgressing=True", "NMStateAvailable=True"), false},
		{"a stack unavailable", conds("MetricsAvailable=False", "NMStateAvailable=True"), false},
		{"unknown progressing", conds("MetricsAvailable=True", "NMStateAvailable=True", "NMStateProgressing=Unknown"), false},
		{"a condition of no stack progressing", conds("MetricsAvailable=True", "NMStateAvailable=True", "NodeSettingsProgressing=True"), false},
		{"only the version's own announcement progressing", conds(ConditionProgressing+"=True", "MetricsAvailable=True", "NMStateAvailable=True"), true},
	} {
		assert.Equal(t, tc.want, RolledOut(tc.conditions, stacks), tc.name)
	}
}

func TestStackRolledOut(t *testing.T) {
	for _, tc := range []struct {
		name       string
		conditions []operatorv1.OperatorCondition
		want       bool
	}{
		{"not reported", conds("NMStateAvailable=True"), false},
		{"available, progressing not reported", conds("MetricsAvailable=True"), true},
		{"available, not progressing", conds("MetricsAvailable=True", "MetricsProgressing=False"), true},
		{"available, progressing", conds("MetricsAvailable=True", "MetricsProgressing=True"), false},
		{"available, progressing unknown", conds("MetricsAvailable=True", "MetricsProgressing=Unknown"), false},
		{"unavailable", conds("MetricsAvailable=False", "MetricsProgressing=False"), false},
		{"another stack progressing", conds("MetricsAvailable=True", "NMStateProgressing=True"), true},
	} {
		assert.Equal(t, tc.want, StackRolledOut(tc.conditions, "Metrics"), tc.name)
	}
}

func TestNextStep(t *testing.T) {
	stacks := []string{"Metrics", "NMState"}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	ready := conds("MetricsAvailable=True", "MetricsProgressing=False", "NMStateAvailable=True", "NMStateProgressing=False")
	// announced: the version's Progressing set ago, beside the stacks' conditions.
	announced := func(ago time.Duration, stacks []operatorv1.OperatorCondition) []operatorv1.OperatorCondition {
		c := operatorv1.OperatorCondition{Type: ConditionProgressing, Status: operatorv1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-ago))}
		return append([]operatorv1.OperatorCondition{c}, stacks...)
	}
	nmstateRolling := conds("MetricsAvailable=True", "MetricsProgressing=False", "NMStateAvailable=True", "NMStateProgressing=True")
	for _, tc := range []struct {
		name       string
		reported   string
		conditions []operatorv1.OperatorCondition
		// workloadsPending: not rolled out though no condition says so.
		workloadsPending bool
		want             Step
	}{
		{"restart at the reported version: no announcement", "4.22.1", ready, false, Step{Report: true}},
		{"restart at the reported version while a workload rolls: the version stands", "4.22.1", ready, true, Step{Report: true}},
		{"upgrade: announce first", "4.22.0", ready, false, Step{Announce: true, Wait: Announce}},
		{"install: announce first", "", ready, false, Step{Announce: true, Wait: Announce}},
		{"announced a moment ago: wait", "4.22.0", announced(4*time.Second, ready), false, Step{Wait: Announce - 4*time.Second}},
		{"announced long enough, operands ready: report", "4.22.0", announced(Announce, ready), false, Step{Report: true}},
		{"announced long enough, a stack still rolling out: wait for it", "4.22.0",
			announced(time.Minute, nmstateRolling), false, Step{}},
		{"announced long enough, conditions settled but a DaemonSet's last batch not created: wait for it", "4.22.0",
			announced(time.Minute, ready), true, Step{}},
		{"reported, announcement to clear", "4.22.1", announced(time.Minute, ready), false, Step{Report: true}},
	} {
		assert.Equal(t, tc.want, NextStep(tc.reported, "4.22.1", tc.conditions, stacks, !tc.workloadsPending, now), tc.name)
	}
}

const ns = "openshift-cluster-node-operator"

func podSpec(containers ...string) corev1.PodSpec {
	var spec corev1.PodSpec
	for i := 0; i+1 < len(containers); i += 2 {
		spec.Containers = append(spec.Containers, corev1.Container{Name: containers[i], Image: containers[i+1]})
	}
	return spec
}

func TestWorkloads(t *testing.T) {
	ds := func(gen, observed int64, desired, updated, available int32) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "crio-metrics", Generation: gen},
			Spec:       appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{Spec: podSpec("kube-rbac-proxy", "krp:1")}},
			Status: appsv1.DaemonSetStatus{ObservedGeneration: observed, DesiredNumberScheduled: desired, UpdatedNumberScheduled: updated,
				NumberAvailable: available},
		}
	}
	deploy := func(gen, observed int64, replicas, current, updated, available int32) *appsv1.Deployment {
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: "openshift-nmstate", Name: "nmstate-operator", Generation: gen},
			Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(replicas)},
			Status:     appsv1.DeploymentStatus{ObservedGeneration: observed, Replicas: current, UpdatedReplicas: updated, AvailableReplicas: available},
		}
	}
	for _, tc := range []struct {
		name string
		got  Workload
		want bool
	}{
		{"DaemonSet rolled out", DaemonSetWorkload(ds(2, 2, 3, 3, 3)), true},
		{"DaemonSet template not seen yet", DaemonSetWorkload(ds(3, 2, 3, 3, 3)), false},
		{"DaemonSet still updating nodes", DaemonSetWorkload(ds(2, 2, 3, 1, 3)), false},
		// The rolling update deleted the last batch's old pods and has not
		// created their new ones: those nodes are in no count but desired.
		{"DaemonSet's last batch between its old and new pods", DaemonSetWorkload(ds(3, 3, 250, 245, 250)), false},
		{"DaemonSet updated everywhere, new pods not all available yet", DaemonSetWorkload(ds(3, 3, 250, 250, 244)), false},
		{"DaemonSet on no node", DaemonSetWorkload(ds(1, 1, 0, 0, 0)), true},
		{"Deployment rolled out", DeploymentWorkload(deploy(1, 1, 1, 1, 1, 1)), true},
		{"Deployment template not seen yet", DeploymentWorkload(deploy(2, 1, 1, 1, 1, 1)), false},
		{"Deployment with an old pod left", DeploymentWorkload(deploy(2, 2, 1, 2, 1, 1)), false},
		{"Deployment without its new pod", DeploymentWorkload(deploy(2, 2, 1, 1, 0, 1)), false},
		{"Deployment with its new pod not available yet", DeploymentWorkload(deploy(2, 2, 1, 1, 1, 0)), false},
	} {
		assert.Equal(t, tc.want, tc.got.RolledOut, tc.name)
	}
	assert.Equal(t, "DaemonSet", DaemonSetWorkload(ds(1, 1, 1, 1, 1)).Kind)
	assert.Equal(t, "Deployment", DeploymentWorkload(deploy(1, 1, 1, 1, 1, 1)).Kind)

	// AllRolledOut: every workload of every stack (none when every stack is off).
	type byStack = map[nodev1alpha1.StackName][]Workload
	done := Workload{Kind: "DaemonSet", Name: "crio-metrics", RolledOut: true}
	metrics, nmstate := nodev1alpha1.MetricsStack, nodev1alpha1.NMStateStack
	assert.True(t, AllRolledOut(byStack{metrics: nil}), "no workload")
	assert.True(t, AllRolledOut(byStack{metrics: {done}, nmstate: {done, done}}), "every workload rolled out")
	assert.False(t, AllRolledOut(byStack{metrics: {done}, nmstate: {done, {Name: "nmstate-handler"}}}), "one workload of one stack not rolled out")
	assert.False(t, AllRolledOut(byStack{metrics: {{Name: "crio-metrics", Missing: true, RolledOut: true}}}), "a workload not listed yet")
}

func TestObserve(t *testing.T) {
	ready := conds("MetricsAvailable=True", "MetricsProgressing=False")
	rolling := conds("MetricsAvailable=True", "MetricsProgressing=True")
	daemonSet := Workload{Kind: "DaemonSet", Namespace: ns, Name: "crio-metrics", RolledOut: true,
		Template: podSpec("kube-rbac-proxy", "krp:2", "cert-syncer", "op:2")}
	previous := nodev1alpha1.StackStatus{Name: nodev1alpha1.MetricsStack, Enabled: true, Mode: nodev1alpha1.OperatorTLS,
		ObservedVersion: "4.21.0", Containers: []nodev1alpha1.StackContainer{{Namespace: ns, ParentKind: "DaemonSet", ParentName: "crio-metrics", Name: "kube-rbac-proxy", Image: "krp:1"}}}
	fresh := nodev1alpha1.StackStatus{Name: nodev1alpha1.MetricsStack, Enabled: true, Mode: nodev1alpha1.OperatorTLS}
	newContainers := []nodev1alpha1.StackContainer{
		{Namespace: ns, ParentKind: "DaemonSet", ParentName: "crio-metrics", Name: "cert-syncer", Image: "op:2"},
		{Namespace: ns, ParentKind: "DaemonSet", ParentName: "crio-metrics", Name: "kube-rbac-proxy", Image: "krp:2"},
	}
	for _, tc := range []struct {
		name           string
		recorded       nodev1alpha1.StackStatus
		conditions     []operatorv1.OperatorCondition
		reported       bool
		workloads      []Workload
		wantVersion    string
		wantContainers []nodev1alpha1.StackContainer
	}{
		{"first rollout done: version and containers, sorted", fresh, ready, true, []Workload{daemonSet}, "4.22.0", newContainers},
		{"before the first rollout: nothing", fresh, rolling, true, []Workload{daemonSet}, "", nil},
		{"upgrade not reported yet: the last rollout stands", previous, ready, false, []Workload{daemonSet}, "4.21.0", previous.Containers},
		{"upgrade reported, stack rolled out: the new rollout", previous, ready, true, []Workload{daemonSet}, "4.22.0", newContainers},
		{"stack progressing again: the last rollout stands", previous, rolling, true, []Workload{daemonSet}, "4.21.0", previous.Containers},
		{"a workload still rolling: the last rollout stands", previous, ready, true, []Workload{{Kind: "DaemonSet", Namespace: ns, Name: "crio-metrics", Template: podSpec("kube-rbac-proxy", "krp:3")}}, "4.21.0", previous.Containers},
		{"a workload missing from the cache: the last rollout stands", previous, ready, true, []Workload{{Kind: "DaemonSet", Namespace: ns, Name: "crio-metrics", Missing: true}}, "4.21.0", previous.Containers},
		{"no workload (off, or the platform's path): version, no container", previous, ready, true, nil, "4.22.0", nil},
	} {
		version, containers := Observe(tc.recorded, tc.conditions, tc.reported, "4.22.0", tc.workloads)
		assert.Equal(t, []any{tc.wantVersion, tc.wantContainers}, []any{version, containers}, tc.name)
	}
}

func TestSummary(t *testing.T) {
	krp := []nodev1alpha1.StackContainer{
		{Namespace: ns, ParentKind: "DaemonSet", ParentName: "crio-metrics", Name: "cert-syncer", Image: "op"},
		{Namespace: ns, ParentKind: "DaemonSet", ParentName: "crio-metrics", Name: "kube-rbac-proxy", Image: "krp"},
	}
	nmstate := []nodev1alpha1.StackContainer{
		{Namespace: "openshift-nmstate", ParentKind: "DaemonSet", ParentName: "nmstate-handler", Name: "nmstate-handler", Image: "h"},
		{Namespace: "openshift-nmstate", ParentKind: "Deployment", ParentName: "nmstate-operator", Name: "nmstate-operator", Image: "o"},
	}
	metrics := func(mode nodev1alpha1.StackMode, containers ...nodev1alpha1.StackContainer) nodev1alpha1.StackStatus {
		return nodev1alpha1.StackStatus{Name: nodev1alpha1.MetricsStack, Enabled: true, Mode: mode, Containers: containers}
	}
	off := func(name nodev1alpha1.StackName, reason string) nodev1alpha1.StackStatus {
		return nodev1alpha1.StackStatus{Name: name, Reason: reason}
	}
	for _, tc := range []struct {
		name     string
		stacks   []nodev1alpha1.StackStatus
		platform configv1.PlatformType
		want     string
	}{
		{"nothing decided", nil, configv1.AWSPlatformType, "no stack decided yet"},
		{"platform path, NMState off on AWS", []nodev1alpha1.StackStatus{metrics(nodev1alpha1.PlatformProxy), off(nodev1alpha1.NMStateStack, platform.ReasonNotDefaultOnPlatform)}, configv1.AWSPlatformType,
			"CRI-O metrics: platform kube-rbac-proxy-crio (the operator adds alerts, dashboard); NMState: off on AWS"},
		{"own TLS stack and NMState on bare metal", []nodev1alpha1.StackStatus{metrics(nodev1alpha1.OperatorTLS, krp...),
			{Name: nodev1alpha1.NMStateStack, Enabled: true, Containers: nmstate}}, configv1.BareMetalPlatformType,
			"CRI-O metrics: operator TLS stack, DaemonSet openshift-cluster-node-operator/crio-metrics (cert-syncer, kube-rbac-proxy); " +
				"NMState: DaemonSet openshift-nmstate/nmstate-handler (nmstate-handler), Deployment openshift-nmstate/nmstate-operator (nmstate-operator)"},
		{"own TLS stack before its first rollout", []nodev1alpha1.StackStatus{metrics(nodev1alpha1.OperatorTLS)}, configv1.NonePlatformType, "CRI-O metrics: rolling out"},
		{"off for each reason", []nodev1alpha1.StackStatus{off(nodev1alpha1.MetricsStack, platform.ReasonOptedOut), off(nodev1alpha1.NMStateStack, platform.ReasonHostedControlPlane)}, configv1.AWSPlatformType,
			"CRI-O metrics: off (opted out); NMState: off (hosted control plane)"},
		{"off: operator removed, Infrastructure unreadable", []nodev1alpha1.StackStatus{off(nodev1alpha1.MetricsStack, platform.ReasonOperatorRemoved), off(nodev1alpha1.NMStateStack, platform.ReasonInfrastructureUnavailable)}, "",
			"CRI-O metrics: off (operator Removed); NMState: off until the Infrastructure can be read"},
		{"not a default, platform unknown", []nodev1alpha1.StackStatus{off(nodev1alpha1.NMStateStack, platform.ReasonNotDefaultOnPlatform)}, "", "NMState: off (not a default on this platform)"},
	} {
		assert.Equal(t, tc.want, Summary(tc.stacks, tc.platform), tc.name)
	}
}

// A settled cluster's apply is the recorded status (no write); nothing observed, no entry.
func TestStacksStatusIsStable(t *testing.T) {
	conditions := conds("MetricsAvailable=True", "MetricsProgressing=False", "NMStateAvailable=True", "NMStateProgressing=True")
	workloads := func(s nodev1alpha1.StackStatus) []Workload {
		if s.Name == nodev1alpha1.MetricsStack {
			return []Workload{{Kind: "DaemonSet", Namespace: ns, Name: "crio-metrics", RolledOut: true, Template: podSpec("kube-rbac-proxy", "krp")}}
		}
		return nil
	}
	recorded := []nodev1alpha1.StackStatus{
		{Name: nodev1alpha1.MetricsStack, Enabled: true, Mode: nodev1alpha1.OperatorTLS, Reason: platform.ReasonPlatformDefault},
		{Name: nodev1alpha1.NMStateStack, Enabled: true, Reason: platform.ReasonPlatformDefault},
	}
	toStatus := func(apply interface{}) *nodev1alpha1.NodeOperatorStatus {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(apply)
		require.NoError(t, err)
		out := &nodev1alpha1.NodeOperatorStatus{}
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u, out))
		return out
	}

	first := toStatus(stacksStatus(recorded, conditions, true, "4.22.0", workloads, configv1.BareMetalPlatformType))
	assert.Equal(t, []nodev1alpha1.StackStatus{{Name: nodev1alpha1.MetricsStack, ObservedVersion: "4.22.0", Containers: []nodev1alpha1.StackContainer{
		{Namespace: ns, ParentKind: "DaemonSet", ParentName: "crio-metrics", Name: "kube-rbac-proxy", Image: "krp"}}}}, first.Stacks, "NMState is still rolling out and has nothing recorded: no entry")
	assert.Equal(t, []operatorv1.OperatorCondition{{Type: ConditionSummary, Status: operatorv1.ConditionTrue, Reason: "AsExpected",
		Message: "CRI-O metrics: operator TLS stack, DaemonSet openshift-cluster-node-operator/crio-metrics (kube-rbac-proxy); NMState: rolling out"}}, first.Conditions)

	// The next sync, with the recorded fields written back: the same apply.
	recorded[0].ObservedVersion, recorded[0].Containers = first.Stacks[0].ObservedVersion, first.Stacks[0].Containers
	second := toStatus(stacksStatus(recorded, conditions, true, "4.22.0", workloads, configv1.BareMetalPlatformType))
	assert.Equal(t, first, second)

	// Not reported (an upgrade announced): the recorded values are applied
	// again, unchanged.
	third := toStatus(stacksStatus(recorded, conditions, false, "4.23.0", workloads, configv1.BareMetalPlatformType))
	assert.Equal(t, first, third)
}
