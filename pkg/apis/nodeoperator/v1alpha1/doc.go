// Package v1alpha1 is the configuration API of the node operator: the
// cluster-scoped singleton NodeOperator "cluster".
//
// +k8s:deepcopy-gen=package,register
// +k8s:openapi-gen=true
// +groupName=nodeoperator.openshift.io
// +kubebuilder:validation:Optional
package v1alpha1
