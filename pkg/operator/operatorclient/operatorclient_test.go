package operatorclient

import (
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	applynodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/generated/applyconfiguration/nodeoperator/v1alpha1"
)

// nodeOperatorWithManagedFields: StatusManager and Other applied a condition each, SpecManager spec.logLevel;
// StatusManager (the stack decision) and Rollout (the version controller) share the Metrics stack's entry.
func nodeOperatorWithManagedFields(t *testing.T) *unstructured.Unstructured {
	no := &nodev1alpha1.NodeOperator{
		TypeMeta:   metav1.TypeMeta{APIVersion: nodev1alpha1.GroupVersion.String(), Kind: "NodeOperator"},
		ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
	}
	no.Spec.ManagementState = operatorv1.Managed
	no.Spec.LogLevel = operatorv1.Debug
	no.Status.Conditions = []operatorv1.OperatorCondition{
		{Type: "MineDegraded", Status: operatorv1.ConditionFalse, Reason: "AsExpected"},
		{Type: "TheirsDegraded", Status: operatorv1.ConditionTrue, Reason: "Broken"},
	}
	no.Status.Stacks = []nodev1alpha1.StackStatus{{Name: nodev1alpha1.MetricsStack, Enabled: true, Reason: "PlatformDefault", ObservedVersion: "4.22.0",
		Containers: []nodev1alpha1.StackContainer{{Namespace: "ns", ParentKind: "DaemonSet", ParentName: "crio-metrics", Name: "kube-rbac-proxy", Image: "krp"}}}}
	no.ManagedFields = []metav1.ManagedFieldsEntry{
		{Manager: "StatusManager", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "nodeoperator.openshift.io/v1alpha1", Subresource: "status",
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:conditions":{"k:{\"type\":\"MineDegraded\"}":{".":{},"f:type":{},"f:status":{},"f:reason":{}}},"f:stacks":{"k:{\"name\":\"Metrics\"}":{".":{},"f:name":{},"f:enabled":{},"f:reason":{}}}}}`)}},
		{Manager: "Other", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "nodeoperator.openshift.io/v1alpha1", Subresource: "status",
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:conditions":{"k:{\"type\":\"TheirsDegraded\"}":{".":{},"f:type":{},"f:status":{},"f:reason":{}}}}}`)}},
		{Manager: "Rollout", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "nodeoperator.openshift.io/v1alpha1", Subresource: "status",
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:stacks":{"k:{\"name\":\"Metrics\"}":{".":{},"f:name":{},"f:observedVersion":{},"f:containers":{}}}}}`)}},
		{Manager: "SpecManager", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "nodeoperator.openshift.io/v1alpha1",
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:logLevel":{}}}`)}},
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(no)
	require.NoError(t, err)
	return &unstructured.Unstructured{Object: u}
}

// Each extraction returns only what its manager owns; neither manager of a status.stacks
// entry sees the other's fields, which would look like a change to apply.
func TestExtractOperatorStatusAndSpecReturnOnlyWhatTheManagerOwns(t *testing.T) {
	obj := nodeOperatorWithManagedFields(t)
	got, err := extractOperatorStatus(obj, "StatusManager")
	require.NoError(t, err)
	require.Len(t, got.Conditions, 1, "an empty extraction would make every sync look like a change")
	assert.Equal(t, "MineDegraded", ptr.Deref(got.Conditions[0].Type, ""))
	assert.Equal(t, operatorv1.ConditionFalse, ptr.Deref(got.Conditions[0].Status, ""))
	got, err = extractOperatorStatus(obj, "Nobody")
	require.NoError(t, err)
	assert.Empty(t, got.Conditions)

	spec, err := extractOperatorSpec(obj, "SpecManager")
	require.NoError(t, err)
	assert.Equal(t, operatorv1.Debug, ptr.Deref(spec.LogLevel, ""))
	assert.Nil(t, spec.ManagementState, "not owned by SpecManager")

	typed, err := FromUnstructured(obj)
	require.NoError(t, err)
	for manager, want := range map[string]*applynodev1alpha1.StackStatusApplyConfiguration{
		"StatusManager": applynodev1alpha1.StackStatus().WithName(nodev1alpha1.MetricsStack).WithEnabled(true).WithReason("PlatformDefault"),
		"Rollout": applynodev1alpha1.StackStatus().WithName(nodev1alpha1.MetricsStack).WithObservedVersion("4.22.0").WithContainers(applynodev1alpha1.StackContainer().
			WithNamespace("ns").WithParentKind("DaemonSet").WithParentName("crio-metrics").WithName("kube-rbac-proxy").WithImage("krp")),
	} {
		owned, err := applynodev1alpha1.ExtractNodeOperatorStatus(typed, manager)
		require.NoError(t, err)
		assert.Equal(t, []applynodev1alpha1.StackStatusApplyConfiguration{*want}, owned.Status.Stacks, manager)
	}
}
