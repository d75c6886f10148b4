// +k8s:deepcopy-gen=package,register
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.openshift.api.machine.v1beta1

// +kubebuilder:validation:Optional
// +groupName=machine.openshift.io
package v1beta1
