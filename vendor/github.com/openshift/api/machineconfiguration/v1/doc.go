// +k8s:deepcopy-gen=package,register
// +groupName=machineconfiguration.openshift.io
// +k8s:openapi-model-package=com.github.openshift.api.machineconfiguration.v1

// +kubebuilder:validation:Optional
// Package v1 is the v1 version of the API.
package v1
