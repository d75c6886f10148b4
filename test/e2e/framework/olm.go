package framework

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// OLMNMState is what an OLM install of kubernetes-nmstate-operator leaves (OLM itself does not run here).
type OLMNMState struct {
	Namespace string
	CSV       string
	dyn       dynamic.Interface
	kube      kubernetes.Interface
}

var (
	olmCSVs          = schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1alpha1", Resource: "clusterserviceversions"}
	olmSubscriptions = schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1alpha1", Resource: "subscriptions"}
	olmGroups        = schema.GroupVersionResource{Group: "operators.coreos.com", Version: "v1", Resource: "operatorgroups"}
)

// InstallOLMNMState leaves an OLM install in namespace (in openshift-nmstate it adopts our Deployment).
func InstallOLMNMState(t testing.TB, admin *rest.Config, namespace string) *OLMNMState {
	t.Helper()
	ctx := Context(t, time.Minute)
	o := &OLMNMState{Namespace: namespace, CSV: "kubernetes-nmstate-operator.v4.20.0",
		dyn: dynamic.NewForConfigOrDie(admin), kube: kubernetes.NewForConfigOrDie(admin)}
	_, err := o.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	// The CRD the CSV owns, which OLM installs with it (the operand's, as the stack ships it, without the stack's label); it stays on uninstall.
	crd := ReadManifests(t, filepath.Join(RepoRoot(t), "bindata", "nmstate", "crd-nmstates.yaml"))[0]
	crd.SetLabels(nil)
	applier := NewApplier(t, admin)
	if _, err := applier.Resource(&unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "nmstate.io/v1", "kind": "NMState"}}); err != nil {
		require.NoError(t, applier.Apply(ctx, crd, "olm"), "the NMState CRD")
	}
	for _, it := range []struct {
		gvr schema.GroupVersionResource
		obj map[string]interface{}
	}{
		{olmGroups, map[string]interface{}{"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup",
			"metadata": map[string]interface{}{"name": "nmstate", "namespace": namespace},
			"spec":     map[string]interface{}{"targetNamespaces": []interface{}{namespace}}}},
		{olmSubscriptions, map[string]interface{}{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "Subscription",
			"metadata": map[string]interface{}{"name": "kubernetes-nmstate-operator", "namespace": namespace},
			"spec": map[string]interface{}{"name": "kubernetes-nmstate-operator", "channel": "stable",
				"source": "redhat-operators", "sourceNamespace": "openshift-marketplace"}}},
		{olmCSVs, map[string]interface{}{"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
			"metadata": map[string]interface{}{"name": o.CSV, "namespace": namespace},
			"spec": map[string]interface{}{"displayName": "Kubernetes NMState Operator",
				"customresourcedefinitions": map[string]interface{}{"owned": []interface{}{
					map[string]interface{}{"name": "nmstates.nmstate.io", "version": "v1", "kind": "NMState"}}},
				"install": map[string]interface{}{"strategy": "deployment"}}}},
	} {
		_, err := o.dyn.Resource(it.gvr).Namespace(namespace).Create(ctx, &unstructured.Unstructured{Object: it.obj}, metav1.CreateOptions{})
		require.NoError(t, err, "creating %s", it.gvr.Resource)
	}
	csv, err := o.dyn.Resource(olmCSVs).Namespace(namespace).Get(ctx, o.CSV, metav1.GetOptions{})
	require.NoError(t, err)
	owner := metav1.OwnerReference{APIVersion: "operators.coreos.com/v1alpha1", Kind: "ClusterServiceVersion", Name: o.CSV, UID: csv.GetUID(),
		Controller: ptr(false), BlockOwnerDeletion: ptr(false)}
	labels := map[string]string{"olm.owner": o.CSV, "olm.owner.kind": "ClusterServiceVersion", "olm.owner.namespace": namespace,
		"app": "kubernetes-nmstate-operator"}

	// OLM creates the CSV's ServiceAccount (or uses the one of that name) before its Deployment, whose pods need it.
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "nmstate-operator", Namespace: namespace, Labels: labels,
		OwnerReferences: []metav1.OwnerReference{owner}}}
	if _, err := o.kube.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err, "the OLM install's ServiceAccount")
	}

	// OLM creates its Deployment, or adopts the one of the same name. The node operator may delete its own meanwhile: look again then.
	deployments := o.kube.AppsV1().Deployments(namespace)
	err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		d, err := deployments.Get(ctx, "nmstate-operator", metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			_, err = deployments.Create(ctx, olmDeployment(namespace, labels, owner), metav1.CreateOptions{})
		case err == nil:
			if d.Labels == nil {
				d.Labels = map[string]string{}
			}
			for k, v := range labels {
				d.Labels[k] = v
			}
			d.OwnerReferences = append(d.OwnerReferences, owner)
			_, err = deployments.Update(ctx, d, metav1.UpdateOptions{})
		}
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) || apierrors.IsAlreadyExists(err) {
			return false, nil
		}
		return err == nil, err
	})
	require.NoError(t, err, "the OLM install's Deployment")
	// The cluster runs it: its rollout is over before the test goes on.
	require.NoError(t, wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(context.Context) (bool, error) {
		d, err := deployments.Get(ctx, "nmstate-operator", metav1.GetOptions{})
		return err == nil && d.Status.ObservedGeneration == d.Generation && d.Status.AvailableReplicas > 0, nil
	}), "the OLM install's Deployment does not become available")
	t.Cleanup(func() { o.Uninstall(t) })
	return o
}

// olmDeployment is the operator's Deployment as OLM creates it from the CSV.
func olmDeployment(namespace string, labels map[string]string, owner metav1.OwnerReference) *appsv1.Deployment {
	one := int32(1)
	sel := map[string]string{"name": "kubernetes-nmstate-operator"}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "nmstate-operator", Namespace: namespace, Labels: labels,
		OwnerReferences: []metav1.OwnerReference{owner}},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel}, Spec: corev1.PodSpec{
				ServiceAccountName: "nmstate-operator",
				Containers: []corev1.Container{{Name: "nmstate-operator", Image: "registry.redhat.io/openshift4/kubernetes-nmstate-rhel9-operator:v4.20",
					Env: []corev1.EnvVar{{Name: "HANDLER_IMAGE", Value: "registry.redhat.io/openshift4/ose-kubernetes-nmstate-handler-rhel9:v4.20"}}}}}}}}
}

// Versions are the resourceVersions of every object of the install.
func (o *OLMNMState) Versions(t testing.TB) map[string]string {
	t.Helper()
	ctx := Context(t, time.Minute)
	out := map[string]string{}
	for gvr, name := range map[schema.GroupVersionResource]string{olmGroups: "nmstate", olmSubscriptions: "kubernetes-nmstate-operator", olmCSVs: o.CSV,
		{Group: "apps", Version: "v1", Resource: "deployments"}: "nmstate-operator"} {
		u, err := o.dyn.Resource(gvr).Namespace(o.Namespace).Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err, "%s %s/%s", gvr.Resource, o.Namespace, name)
		out[gvr.Resource+"/"+name] = u.GetResourceVersion()
	}
	return out
}

// Uninstall deletes the Subscription and CSV; the garbage collector removes the Deployment.
func (o *OLMNMState) Uninstall(t testing.TB) {
	t.Helper()
	ctx := Context(t, 2*time.Minute)
	for gvr, name := range map[schema.GroupVersionResource]string{olmSubscriptions: "kubernetes-nmstate-operator", olmCSVs: o.CSV} {
		if err := o.dyn.Resource(gvr).Namespace(o.Namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting %s %s/%s: %v", gvr.Resource, o.Namespace, name, err)
		}
	}
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(context.Context) (bool, error) {
		d, err := o.kube.AppsV1().Deployments(o.Namespace).Get(ctx, "nmstate-operator", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return err == nil && d.Labels["olm.owner"] == "", err
	})
	if err != nil {
		t.Errorf("the OLM install's Deployment was not garbage-collected: %v", err)
	}
}

func (o *OLMNMState) String() string {
	return fmt.Sprintf("ClusterServiceVersion %s/%s", o.Namespace, o.CSV)
}
