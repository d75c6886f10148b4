// +k8s:deepcopy-gen=package,register
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.openshift.api.kubecontrolplane.v1

// +groupName=kubecontrolplane.config.openshift.io
// Package v1 is the v1 version of the API.
package v1
