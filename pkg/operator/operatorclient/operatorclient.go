// Package operatorclient builds the library-go operator client for the
// NodeOperator "cluster" and gives typed access to the parts of it that
// library-go does not know (spec.metrics, spec.nmstate, status.stacks).
package operatorclient

import (
	"context"
	"fmt"
	"slices"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/operator/genericoperatorclient"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	applynodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/generated/applyconfiguration/nodeoperator/v1alpha1"
)

const (
	// ClusterOperatorName is the name of our ClusterOperator.
	ClusterOperatorName = "node"
	// OperatorNamespace holds the operator; Pod Security restricted.
	OperatorNamespace = "openshift-cluster-node-operator"
	// CRIOMetricsNamespace holds the CRI-O metrics stack's namespaced
	// operands, whose DaemonSet needs the privileged level.
	CRIOMetricsNamespace = "openshift-crio-metrics"
	// NMStateNamespace holds the NMState stack.
	NMStateNamespace = "openshift-nmstate"
	// GlobalConfigNamespace is where cluster-wide user configuration lives.
	GlobalConfigNamespace = "openshift-config"
)

// New returns library-go's generic operator client for NodeOperator "cluster",
// with extractors generated from the CRD's schema, and the informer factory
// that must be started for it.
func New(clk clock.PassiveClock, config *rest.Config) (v1helpers.OperatorClientWithFinalizers, dynamicinformer.DynamicSharedInformerFactory, error) {
	return genericoperatorclient.NewClusterScopedOperatorClientWithConfigName(clk, config,
		nodev1alpha1.GroupVersionResource, nodev1alpha1.GroupVersionKind, nodev1alpha1.SingletonName,
		extractOperatorSpec, extractOperatorStatus)
}

// extractOperatorSpec returns the spec fields fieldManager owns. library-go
// compares it with what the manager wants to apply and skips equal applies,
// so it must be real: an empty result would make every sync a write.
func extractOperatorSpec(obj *unstructured.Unstructured, fieldManager string) (*applyoperatorv1.OperatorSpecApplyConfiguration, error) {
	typed, err := FromUnstructured(obj)
	if err != nil {
		return nil, err
	}
	owned, err := applynodev1alpha1.ExtractNodeOperator(typed, fieldManager)
	if err != nil {
		return nil, fmt.Errorf("unable to extract spec fields of %q: %w", fieldManager, err)
	}
	if owned.Spec == nil {
		return &applyoperatorv1.OperatorSpecApplyConfiguration{}, nil
	}
	return &owned.Spec.OperatorSpecApplyConfiguration, nil
}

// extractOperatorStatus returns the status fields fieldManager owns; see
// extractOperatorSpec for why it matters.
func extractOperatorStatus(obj *unstructured.Unstructured, fieldManager string) (*applyoperatorv1.OperatorStatusApplyConfiguration, error) {
	typed, err := FromUnstructured(obj)
	if err != nil {
		return nil, err
	}
	owned, err := applynodev1alpha1.ExtractNodeOperatorStatus(typed, fieldManager)
	if err != nil {
		return nil, fmt.Errorf("unable to extract status fields of %q: %w", fieldManager, err)
	}
	if owned.Status == nil {
		return &applyoperatorv1.OperatorStatusApplyConfiguration{}, nil
	}
	return &owned.Status.OperatorStatusApplyConfiguration, nil
}

// FromUnstructured converts a NodeOperator read through a dynamic client.
func FromUnstructured(obj *unstructured.Unstructured) (*nodev1alpha1.NodeOperator, error) {
	typed := &nodev1alpha1.NodeOperator{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, typed); err != nil {
		return nil, fmt.Errorf("unable to convert %s to NodeOperator: %w", obj.GetName(), err)
	}
	return typed, nil
}

// NodeOperators reads the typed NodeOperator from the operator client's cache
// and applies the status fields that library-go does not model.
type NodeOperators struct {
	informer cache.SharedIndexInformer
	client   dynamic.ResourceInterface
	clock    clock.PassiveClock
}

// NewNodeOperators reads through informer, the NodeOperator informer of
// library-go's operator client (so the extra fields cost no extra watch), and
// applies status through dyn.
func NewNodeOperators(clk clock.PassiveClock, informer cache.SharedIndexInformer, dyn dynamic.Interface) *NodeOperators {
	return &NodeOperators{informer: informer, client: dyn.Resource(nodev1alpha1.GroupVersionResource), clock: clk}
}

// Informer is the shared informer of NodeOperator "cluster".
func (n *NodeOperators) Informer() cache.SharedIndexInformer { return n.informer }

// Get returns the cached NodeOperator "cluster"; callers must not mutate it.
func (n *NodeOperators) Get() (*nodev1alpha1.NodeOperator, error) {
	obj, exists, err := n.informer.GetIndexer().GetByKey(nodev1alpha1.SingletonName)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, fmt.Errorf("nodeoperator/%s not found", nodev1alpha1.SingletonName)
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("unexpected %T in the NodeOperator cache", obj)
	}
	return FromUnstructured(u)
}

// ApplyStatus server-side applies status fields owned by fieldManager
// (conditions and stacks). It writes nothing when the fields fieldManager
// already owns are equal to the desired ones, which keeps steady state free of
// writes.
func (n *NodeOperators) ApplyStatus(ctx context.Context, fieldManager string, desired *applynodev1alpha1.NodeOperatorStatusApplyConfiguration) error {
	current, err := n.Get()
	if err != nil {
		return err
	}
	owned, err := applynodev1alpha1.ExtractNodeOperatorStatus(current, fieldManager)
	if err != nil {
		return fmt.Errorf("unable to extract status fields of %q: %w", fieldManager, err)
	}
	var previous []applyoperatorv1.OperatorConditionApplyConfiguration
	if owned.Status != nil {
		previous = owned.Status.Conditions
	}
	v1helpers.SetApplyConditionsLastTransitionTime(n.clock, &desired.Conditions, previous)
	if owned.Status != nil && equality.Semantic.DeepEqual(canonical(owned.Status), canonical(desired)) {
		return nil
	}

	apply := applynodev1alpha1.NodeOperator(nodev1alpha1.SingletonName).WithStatus(desired)
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(apply)
	if err != nil {
		return err
	}
	_, err = n.client.ApplyStatus(ctx, nodev1alpha1.SingletonName, &unstructured.Unstructured{Object: u},
		metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
	return err
}

// PatchSpec writes a JSON merge patch to the spec of NodeOperator "cluster":
// the operator's conversion of old spellings (stackdecision.SpecPatch).
func (n *NodeOperators) PatchSpec(ctx context.Context, patch []byte) error {
	_, err := n.client.Patch(ctx, nodev1alpha1.SingletonName, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// canonical converts to the API type, so that equal statuses compare equal
// whatever the order and the pointer-ness of their parts.
func canonical(status *applynodev1alpha1.NodeOperatorStatusApplyConfiguration) *nodev1alpha1.NodeOperatorStatus {
	out := &nodev1alpha1.NodeOperatorStatus{}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(status)
	if err == nil {
		_ = runtime.DefaultUnstructuredConverter.FromUnstructured(u, out)
	}
	slices.SortFunc(out.Conditions, func(a, b operatorv1.OperatorCondition) int { return strings.Compare(a.Type, b.Type) })
	slices.SortFunc(out.Stacks, func(a, b nodev1alpha1.StackStatus) int { return strings.Compare(string(a.Name), string(b.Name)) })
	return out
}

// Condition is a shorthand for an operator condition apply configuration.
func Condition(conditionType string, status operatorv1.ConditionStatus, reason, message string) *applyoperatorv1.OperatorConditionApplyConfiguration {
	return applyoperatorv1.OperatorCondition().WithType(conditionType).WithStatus(status).WithReason(reason).WithMessage(message)
}
