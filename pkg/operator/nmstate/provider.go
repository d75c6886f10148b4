package nmstate

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
)

// Another NMState operator on the cluster, most often the Kubernetes NMState
// operator installed through OLM (package kubernetes-nmstate-operator,
// suggested namespace openshift-nmstate, though any namespace works). Two
// operators reconciling the one NMState would fight over its handler, so the
// stack steps aside while such an operator is installed.

var (
	csvGVR          = schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1alpha1", Resource: "clusterserviceversions"}
	subscriptionGVR = schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1alpha1", Resource: "subscriptions"}
)

const (
	// olmPackage is the NMState operator's package in the OpenShift catalog:
	// the spec.name of its Subscription.
	olmPackage = "kubernetes-nmstate-operator"
	// nmstatesCRD is the API whose owner is the NMState operator; a CSV that
	// owns it is an NMState operator, whatever its name.
	nmstatesCRD = "nmstates.nmstate.io"
	// olmCopiedFrom marks the copies of a CSV that OLM puts in every
	// namespace of an AllNamespaces install; only the original counts.
	olmCopiedFrom = "olm.copiedFrom"
	// olmOwner is the label OLM sets on what a CSV installed (the CSV's name).
	olmOwner = "olm.owner"
)

// Reasons of NMStateAvailable while someone else's NMState operator runs.
const (
	ReasonProvidedByOLM      = "ProvidedByOLM"
	ReasonProvidedExternally = "ProvidedExternally"
)

// provider is someone else's NMState operator; the zero value is none.
type provider struct {
	// Reason is ReasonProvidedByOLM or ReasonProvidedExternally.
	Reason string
	// What names the object that shows it, e.g.
	// "ClusterServiceVersion openshift-nmstate/kubernetes-nmstate-operator.v4.20.0".
	What string
}

func (p provider) found() bool { return p.What != "" }

// HandedOver tells from the NodeOperator's status whether the stack stepped
// aside for another NMState operator: then it owns nothing of NMState, and
// its objects are not its related objects (OLM's must-gather covers OLM's).
func HandedOver(no *nodev1alpha1.NodeOperator) bool {
	for _, c := range no.Status.Conditions {
		if c.Type == string(nodev1alpha1.NMStateStack)+"Available" {
			return c.Reason == ReasonProvidedByOLM || c.Reason == ReasonProvidedExternally
		}
	}
	return false
}

// providerOf decides from what the cluster holds whether someone else runs
// the NMState operator: an OLM install (a CSV that owns nmstates.nmstate.io,
// else a Subscription to the package, which comes before its CSV), else an
// nmstate-operator Deployment in openshift-nmstate that the stack did not
// create (nil: none).
func providerOf(csvs, subscriptions []unstructured.Unstructured, deployment *appsv1.Deployment) provider {
	for _, csv := range csvs {
		if _, copied := csv.GetLabels()[olmCopiedFrom]; copied {
			continue
		}
		var read struct {
			Spec struct {
				CustomResourceDefinitions struct {
					Owned []struct {
						Name string `json:"name"`
					} `json:"owned"`
				} `json:"customresourcedefinitions"`
			} `json:"spec"`
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(csv.Object, &read); err != nil {
			continue // not a CSV OLM would install
		}
		for _, o := range read.Spec.CustomResourceDefinitions.Owned {
			if o.Name == nmstatesCRD {
				return provider{ReasonProvidedByOLM, fmt.Sprintf("ClusterServiceVersion %s/%s", csv.GetNamespace(), csv.GetName())}
			}
		}
	}
	for _, s := range subscriptions {
		var read struct {
			Spec struct {
				Name string `json:"name"`
			} `json:"spec"`
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(s.Object, &read); err == nil && read.Spec.Name == olmPackage {
			return provider{ReasonProvidedByOLM, fmt.Sprintf("Subscription %s/%s", s.GetNamespace(), s.GetName())}
		}
	}
	switch {
	case deployment == nil:
	case olmOwned(deployment.Labels, deployment.OwnerReferences):
		return provider{ReasonProvidedByOLM, fmt.Sprintf("Deployment %s/%s, installed by OLM", deployment.Namespace, deployment.Name)}
	case !ours(deployment.Labels):
		return provider{ReasonProvidedExternally, fmt.Sprintf("Deployment %s/%s, not created by the node operator", deployment.Namespace, deployment.Name)}
	}
	return provider{}
}

// olmOwned tells whether OLM installed or adopted an object: the stack never
// writes or deletes those, even where they carry its label.
func olmOwned(labels map[string]string, owners []metav1.OwnerReference) bool {
	if labels[olmOwner] != "" {
		return true
	}
	for _, o := range owners {
		if o.Kind == "ClusterServiceVersion" {
			return true
		}
	}
	return false
}

// findProvider lists what providerOf needs: CSVs (not their copies) and
// Subscriptions in every namespace, where OLM's API is served, and the cached
// nmstate-operator Deployment.
func (c *controller) findProvider(ctx context.Context) (provider, error) {
	var lists [2][]unstructured.Unstructured
	for i, gvr := range []schema.GroupVersionResource{csvGVR, subscriptionGVR} {
		opts := metav1.ListOptions{}
		if gvr == csvGVR {
			opts.LabelSelector = "!" + olmCopiedFrom
		}
		l, err := c.dynamic.Resource(gvr).List(ctx, opts)
		switch {
		case apierrors.IsNotFound(err):
			// OLM's API is not served on this cluster.
		case err != nil:
			return provider{}, fmt.Errorf("looking for an NMState operator installed by OLM: %w", err)
		default:
			lists[i] = l.Items
		}
	}
	d, err := c.deployments.Get(DeploymentName)
	if err != nil {
		d = nil
	}
	return providerOf(lists[0], lists[1], d), nil
}
