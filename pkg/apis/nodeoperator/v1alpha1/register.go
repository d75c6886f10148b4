package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	// GroupName is the API group of the node operator's configuration.
	GroupName = "nodeoperator.openshift.io"
	// Version is the only served version.
	Version = "v1alpha1"
	// Resource is the plural resource name of NodeOperator.
	Resource = "nodeoperators"
	// SingletonName is the only accepted name of a NodeOperator.
	SingletonName = "cluster"
)

var (
	// GroupVersion is the group and version of this package's types.
	GroupVersion = schema.GroupVersion{Group: GroupName, Version: Version}
	// SchemeGroupVersion is the name code generators expect for GroupVersion.
	SchemeGroupVersion = GroupVersion
	// GroupVersionResource identifies nodeoperators for dynamic clients.
	GroupVersionResource = GroupVersion.WithResource(Resource)
	// GroupVersionKind identifies the NodeOperator kind.
	GroupVersionKind = GroupVersion.WithKind("NodeOperator")

	schemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds this package's types to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

// Resource takes an unqualified resource and returns a group-qualified one.
func GroupResource(resource string) schema.GroupResource {
	return GroupVersion.WithResource(resource).GroupResource()
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion, &NodeOperator{}, &NodeOperatorList{})
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
