// +k8s:deepcopy-gen=package,register
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.openshift.api.etcd.v1alpha1
// +openshift:featuregated-schema-gen=true
// +groupName=etcd.openshift.io
package v1alpha1
