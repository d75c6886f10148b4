// +k8s:deepcopy-gen=package,register
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.openshift.api.sharedresource.v1alpha1

// +groupName=sharedresource.openshift.io
// Package v1alplha1 is the v1alpha1 version of the API.
package v1alpha1
