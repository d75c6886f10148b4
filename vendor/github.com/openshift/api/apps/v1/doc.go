// +k8s:deepcopy-gen=package,register
// +k8s:conversion-gen=github.com/openshift/origin/pkg/apps/apis/apps
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.openshift.api.apps.v1
// +k8s:prerelease-lifecycle-gen=true

// +groupName=apps.openshift.io
// Package v1 is the v1 version of the API.
package v1
