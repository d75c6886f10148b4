// Package nmstate is the NMState stack: the Kubernetes NMState operator in
// openshift-nmstate, its API (nmstates.nmstate.io) and the singleton NMState
// "nmstate" that makes it deploy the handler on every node.
//
// One controller, NMStateStack, owns the whole lifecycle, because the order
// matters both ways:
//
//   - deploy: CRD, namespace, ServiceAccount and RBAC, then the nmstate-operator
//     Deployment, then, once it is available, the NMState CR;
//   - remove: the NMState CR first (the NMState operator's objects are owned by
//     it and garbage-collected with it, including the cluster-scoped ones), then
//     the Deployment, then RBAC, ServiceAccount and the namespace.
//
// Removal never deletes user data. The nmstates.nmstate.io CRD is never
// deleted (deleting a CRD deletes every object of it), and neither are the
// NodeNetwork* CRDs and objects (the NMState operator creates those CRDs
// without owner references; the node operator never touches them). An NMState
// that an administrator created is adopted (its spec is left alone) and kept
// on opt-out; only objects carrying the label nodeoperator.openshift.io/stack=nmstate
// are ever deleted.
//
// Where another NMState operator runs (installed through OLM, or by hand),
// the stack steps aside instead (provider.go): one operator reconciles the
// NMState, and the stack keeps everything that operator may use.
package nmstate

import (
	"fmt"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/openshift/cluster-node-operator/bindata"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
	"github.com/openshift/cluster-node-operator/pkg/operator/stack"
)

const (
	// Namespace holds the NMState operator and what it deploys.
	Namespace = operatorclient.NMStateNamespace
	// DeploymentName is the NMState operator's Deployment.
	DeploymentName = "nmstate-operator"
	// CRName is the NMState singleton.
	CRName = "nmstate"

	// StackLabel marks every object this stack created. Only objects with
	// this label are ever deleted, so that an NMState, namespace or operator
	// that someone else created is never removed by an opt-out.
	StackLabel      = "nodeoperator.openshift.io/stack"
	StackLabelValue = "nmstate"
)

// Manifests, in the order they are applied. They are deleted in the reverse
// order, except crdFile, which is never deleted.
const (
	crdFile        = "nmstate/crd-nmstates.yaml"
	deploymentFile = "nmstate/deployment.yaml"
	crFile         = "nmstate/nmstate.yaml"
)

var staticFiles = append([]string{
	"nmstate/namespace.yaml",
	"nmstate/serviceaccount.yaml",
	"nmstate/networkpolicy.yaml",
}, rbacFiles...)

// rbacFiles are the NMState operator's roles and bindings, in the order they
// are applied; removing the stack, or stepping aside for another NMState
// operator, deletes them in reverse.
var rbacFiles = []string{
	"nmstate/clusterrole.yaml",
	"nmstate/clusterrolebinding.yaml",
	"nmstate/role.yaml",
	"nmstate/rolebinding.yaml",
}

// NMStateGVR is the NMState API.
var NMStateGVR = schema.GroupVersionResource{Group: "nmstate.io", Version: "v1", Resource: "nmstates"}

// PolicyGVR is the NodeNetworkConfigurationPolicy API (its CRD is in the
// payload, so policies from install-time manifests can be created anywhere).
var PolicyGVR = schema.GroupVersionResource{Group: "nmstate.io", Version: "v1", Resource: "nodenetworkconfigurationpolicies"}

// RelatedObjects lists the CRD, namespace, RBAC, Deployment and the NMState
// CR, derived from the manifests. It also reads the manifests the controller
// renders, so that a broken one fails at start, not at the first sync.
func RelatedObjects() ([]configv1.ObjectReference, error) {
	if _, err := readCR(); err != nil {
		return nil, err
	}
	if _, err := readDeployment(images{operator: "x", handler: "x", plugin: "x"}); err != nil {
		return nil, err
	}
	return relatedObjects()
}

// relatedObjects lists everything the stack creates, from its manifests.
func relatedObjects() ([]configv1.ObjectReference, error) {
	files := append(append([]string{crdFile}, staticFiles...), deploymentFile, crFile)
	return stack.RelatedObjects(bindata.Asset, files...)
}

// images are the pull specs the Deployment needs.
type images struct {
	operator, handler, plugin, kubeRBACProxy string
}

func imagesFrom(i stack.Images) images {
	return images{operator: i.NMStateOperator, handler: i.NMStateHandler, plugin: i.NMStatePlugin, kubeRBACProxy: i.KubeRBACProxy}
}

// readDeployment returns the nmstate-operator Deployment with its images.
func readDeployment(img images) (*appsv1.Deployment, error) {
	var missing []string
	if img.operator == "" {
		missing = append(missing, "NMSTATE_OPERATOR_IMAGE")
	}
	if img.handler == "" {
		missing = append(missing, "NMSTATE_HANDLER_IMAGE")
	}
	if img.plugin == "" {
		missing = append(missing, "NMSTATE_CONSOLE_PLUGIN_IMAGE")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("the node operator's environment does not set %s; it comes from the node operator's Deployment (manifests/image-references)",
			strings.Join(missing, ", "))
	}
	raw, err := bindata.Asset(deploymentFile)
	if err != nil {
		return nil, err
	}
	raw = []byte(strings.NewReplacer(
		"${NMSTATE_OPERATOR_IMAGE}", img.operator,
		"${NMSTATE_HANDLER_IMAGE}", img.handler,
		"${NMSTATE_CONSOLE_PLUGIN_IMAGE}", img.plugin,
		"${KUBE_RBAC_PROXY_IMAGE}", img.kubeRBACProxy,
	).Replace(string(raw)))
	obj, err := resourceread.ReadGenericWithUnstructured(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", deploymentFile, err)
	}
	d, ok := obj.(*appsv1.Deployment)
	if !ok {
		return nil, fmt.Errorf("%s: got %T, want a Deployment", deploymentFile, obj)
	}
	return d, nil
}

// readCR returns the NMState the stack creates.
func readCR() (*unstructured.Unstructured, error) {
	raw, err := bindata.Asset(crFile)
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &obj.Object); err != nil {
		return nil, fmt.Errorf("%s: %w", crFile, err)
	}
	return obj, nil
}

// ours tells whether an object was created by this stack.
func ours(labels map[string]string) bool { return labels[StackLabel] == StackLabelValue }
