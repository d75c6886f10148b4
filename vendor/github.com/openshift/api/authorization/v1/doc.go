// +k8s:deepcopy-gen=package,register
// +k8s:conversion-gen=github.com/openshift/origin/pkg/authorization/apis/authorization
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.openshift.api.authorization.v1

// +kubebuilder:validation:Optional
// +groupName=authorization.openshift.io
// Package v1 is the v1 version of the API.
package v1
