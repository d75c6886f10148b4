// +k8s:deepcopy-gen=package,register
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.openshift.api.helm.v1beta1

// +kubebuilder:validation:Optional
// +groupName=helm.openshift.io
// Package v1 is the v1 version of the API.
package v1beta1
