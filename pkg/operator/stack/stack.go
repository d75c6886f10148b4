// Package stack holds what every stack controller shares: its operand images,
// how it reads the decision, how it reports conditions, and how it applies
// objects that library-go's resourceapply does not know, without writing at
// steady state.
package stack

import (
	"context"
	"fmt"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
)

// Images are the operand images, set in the operator Deployment's environment.
type Images struct {
	KubeRBACProxy   string // KUBE_RBAC_PROXY_IMAGE
	CertSyncer      string // OPERATOR_IMAGE (cert-syncer ships in the operator image)
	NMStateOperator string // NMSTATE_OPERATOR_IMAGE
	NMStateHandler  string // NMSTATE_HANDLER_IMAGE
	NMStatePlugin   string // NMSTATE_CONSOLE_PLUGIN_IMAGE
}

// State is what a stack controller needs to know before it acts.
type State struct {
	// Act is false while the operator is Unmanaged or the NodeOperator is
	// missing: the controller must not touch its operands.
	Act bool
	// Enabled is the recorded decision; Decided is false before the first
	// decision and while the recorded one is for an earlier spec
	// (Current), when a controller should wait rather than
	// deploy or remove anything.
	Enabled bool
	Decided bool
	// Decision is the recorded decision with its reason and message.
	Decision nodev1alpha1.StackStatus
	// NodeOperator is the cached object; do not mutate.
	NodeOperator *nodev1alpha1.NodeOperator
}

// Read returns the stack's state from the cached NodeOperator.
func Read(nodeOperators *operatorclient.NodeOperators, name nodev1alpha1.StackName) (State, error) {
	nodeOperator, err := nodeOperators.Get()
	if err != nil {
		return State{}, nil // the status controller reports a missing NodeOperator
	}
	s := State{NodeOperator: nodeOperator}
	switch nodeOperator.Spec.ManagementState {
	case operatorv1.Managed, operatorv1.Removed:
		s.Act = true
	}
	s.Decision, s.Decided = Recorded(nodeOperator, name)
	s.Decided = s.Decided && Current(nodeOperator)
	s.Enabled = s.Decided && s.Decision.State == nodev1alpha1.StackEnabled
	return s, nil
}

// FirstRolloutGrace is how long a newly created operand may take to become
// available before its stack reports Available=False. Until then the stack is
// Progressing: switching a stack on must not make the ClusterOperator look
// broken, but an operand that never comes up must.
const FirstRolloutGrace = 10 * time.Minute

// Conditions builds a stack's Available, Progressing and Degraded conditions.
type Conditions struct {
	Prefix string
}

// ApplyConditions writes conditions through library-go's operator client,
// which skips the write when nothing changed. fieldManager must be unique to
// the controller.
func ApplyConditions(ctx context.Context, client v1helpers.OperatorClient, fieldManager string, conds ...*applyoperatorv1.OperatorConditionApplyConfiguration) error {
	return client.ApplyOperatorStatus(ctx, fieldManager, applyoperatorv1.OperatorStatus().WithConditions(conds...))
}

// Available returns the <Prefix>Available condition.
func (c Conditions) Available(ok bool, reason, message string) *applyoperatorv1.OperatorConditionApplyConfiguration {
	return operatorclient.Condition(c.Prefix+operatorv1.OperatorStatusTypeAvailable, boolStatus(ok), reason, message)
}

// Progressing returns the <Prefix>Progressing condition.
func (c Conditions) Progressing(progressing bool, reason, message string) *applyoperatorv1.OperatorConditionApplyConfiguration {
	return operatorclient.Condition(c.Prefix+operatorv1.OperatorStatusTypeProgressing, boolStatus(progressing), reason, message)
}

// Degraded returns the <Prefix>Degraded condition.
func (c Conditions) Degraded(degraded bool, reason, message string) *applyoperatorv1.OperatorConditionApplyConfiguration {
	return operatorclient.Condition(c.Prefix+operatorv1.OperatorStatusTypeDegraded, boolStatus(degraded), reason, message)
}

func boolStatus(b bool) operatorv1.ConditionStatus {
	if b {
		return operatorv1.ConditionTrue
	}
	return operatorv1.ConditionFalse
}

// resources maps the kinds we ship to their lowercase plural resource, so that
// every relatedObject resolves with `oc get`.
var resources = map[schema.GroupKind]string{
	{Kind: "Namespace"}:                 "namespaces",
	{Kind: "ServiceAccount"}:            "serviceaccounts",
	{Kind: "Service"}:                   "services",
	{Kind: "ConfigMap"}:                 "configmaps",
	{Kind: "Secret"}:                    "secrets",
	{Group: "apps", Kind: "DaemonSet"}:  "daemonsets",
	{Group: "apps", Kind: "Deployment"}: "deployments",
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:            "clusterroles",
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:     "clusterrolebindings",
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:                   "roles",
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:            "rolebindings",
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}:    "customresourcedefinitions",
	{Group: "security.openshift.io", Kind: "SecurityContextConstraints"}: "securitycontextconstraints",
	{Group: "monitoring.coreos.com", Kind: "ServiceMonitor"}:             "servicemonitors",
	{Group: "monitoring.coreos.com", Kind: "PrometheusRule"}:             "prometheusrules",
	{Group: "machineconfiguration.openshift.io", Kind: "MachineConfig"}:  "machineconfigs",
	{Group: "nmstate.io", Kind: "NMState"}:                               "nmstates",
	{Group: "policy", Kind: "PodDisruptionBudget"}:                       "poddisruptionbudgets",
	{Group: "networking.k8s.io", Kind: "NetworkPolicy"}:                  "networkpolicies",
}

// ResourceFor returns the resource of a kind we ship, e.g. "clusterroles"
// for rbac.authorization.k8s.io ClusterRole.
func ResourceFor(gk schema.GroupKind) (string, bool) {
	r, ok := resources[gk]
	return r, ok
}

// RelatedObjects derives relatedObjects from manifests, so the list cannot
// drift from what is applied.
func RelatedObjects(asset func(string) ([]byte, error), files ...string) ([]configv1.ObjectReference, error) {
	var out []configv1.ObjectReference
	for _, f := range files {
		raw, err := asset(f)
		if err != nil {
			return nil, err
		}
		obj, err := resourceread.ReadGenericWithUnstructured(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		gvk := obj.GetObjectKind().GroupVersionKind()
		resource, ok := ResourceFor(gvk.GroupKind())
		if !ok {
			return nil, fmt.Errorf("%s: no resource known for kind %s", f, gvk.GroupKind())
		}
		meta, err := metaOf(obj)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, configv1.ObjectReference{Group: gvk.Group, Resource: resource, Namespace: meta.namespace, Name: meta.name})
	}
	return out, nil
}

type nameNamespace struct{ name, namespace string }

func metaOf(obj interface{}) (nameNamespace, error) {
	m, ok := obj.(interface {
		GetName() string
		GetNamespace() string
	})
	if !ok {
		return nameNamespace{}, fmt.Errorf("object %T has no metadata", obj)
	}
	return nameNamespace{name: m.GetName(), namespace: m.GetNamespace()}, nil
}

// Join joins non-empty message parts.
func Join(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "; ")
}

// Runnable is a controller.
type Runnable interface {
	Run(ctx context.Context, workers int)
}

// AnyExists reports whether any object of the manifests exists. Removal is
// gated on it: library-go's DeleteAll sends a DELETE per manifest on every
// resync, even for objects that are long gone, which would make a stack that
// is off write on every resync. A failed lookup counts as existing, so
// removal is retried rather than skipped.
func AnyExists(ctx context.Context, client dynamic.Interface, asset func(string) ([]byte, error), files ...string) bool {
	for _, f := range files {
		raw, err := asset(f)
		if err != nil {
			return true
		}
		obj, err := ReadUnstructured(raw)
		if err != nil {
			return true
		}
		gvk := obj.GroupVersionKind()
		resource, ok := resources[gvk.GroupKind()]
		if !ok {
			return true
		}
		gvr := gvk.GroupVersion().WithResource(resource)
		_, err = resourceFor(client, gvr, obj.GetNamespace()).Get(ctx, obj.GetName(), metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return true
		}
	}
	return false
}

// Current tells whether the recorded decision is for the spec as it is now:
// the controller records the generation it decided for. A stack controller
// holds until then, so that an operator restarted after a spec change, or
// one not yet caught up with it, does not act for a moment on a decision
// made for the earlier spec (apply a stack that was just removed).
func Current(nodeOperator *nodev1alpha1.NodeOperator) bool {
	return nodeOperator.Status.ObservedGeneration >= nodeOperator.Generation
}

// Recorded returns the recorded decision for a stack; ok is false while none
// is recorded yet.
func Recorded(nodeOperator *nodev1alpha1.NodeOperator, name nodev1alpha1.StackName) (nodev1alpha1.StackStatus, bool) {
	for _, s := range nodeOperator.Status.Stacks {
		if s.Name == name {
			return ConvertStatus(s), true
		}
	}
	return nodev1alpha1.StackStatus{Name: name, State: nodev1alpha1.StackDisabled}, false
}

// ConvertStatus fills state from the deprecated enabled of a decision
// recorded by the previous release, which wrote no state.
func ConvertStatus(s nodev1alpha1.StackStatus) nodev1alpha1.StackStatus {
	if s.State == "" {
		s.State = nodev1alpha1.StackDisabled
		if s.Enabled {
			s.State = nodev1alpha1.StackEnabled
		}
	}
	return s
}
