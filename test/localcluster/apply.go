package localcluster

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/openshift/cluster-node-operator/pkg/features"
)

// optionalGroups are APIs a cluster may not serve (LCP_MONITORING_CRDS=0):
// their manifests are skipped there, as the e2e framework skips them.
var optionalGroups = map[string]bool{"monitoring.coreos.com": true}

// ApplyFiles applies the manifests in files as the CVO does (those of
// FeatureGate cluster's feature set only; server-side
// apply as fieldManager, forcing conflicts; objects annotated
// release.openshift.io/create-only only created when missing), finding each
// kind's resource through discovery. make run applies manifests/ with it.
func (c *Config) ApplyFiles(ctx context.Context, fieldManager string, files []string) error {
	if err := c.healthy(ctx); err != nil {
		return fmt.Errorf("the cluster is not up (%v); run hack/local-cluster.sh up", err)
	}
	cl, err := c.clients()
	if err != nil {
		return err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(cl.kube.Discovery()))
	featureSet, err := cl.featureSet(ctx)
	if err != nil {
		return err
	}
	for _, f := range files {
		objs, err := readManifests(f)
		if err != nil {
			return err
		}
		for _, obj := range objs {
			if !features.Includes(obj.GetAnnotations(), featureSet) {
				continue // another feature set's
			}
			gvk := obj.GroupVersionKind()
			var mapping *meta.RESTMapping
			// A CRD applied just before may not be in discovery yet.
			err := poll(ctx, 30*time.Second, "the resource of "+gvk.String(), func() (bool, error) {
				var err error
				if mapping, err = mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
					mapper.Reset()
					return false, nil
				}
				return true, nil
			})
			if err != nil && optionalGroups[gvk.Group] {
				logf("skipping %s %s of %s: %s is not served", obj.GetKind(), obj.GetName(), filepath.Base(f), gvk.GroupVersion())
				continue
			}
			if err != nil {
				return err
			}
			var ri dynamic.ResourceInterface = cl.dynamic.Resource(mapping.Resource)
			if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
				ri = cl.dynamic.Resource(mapping.Resource).Namespace(obj.GetNamespace())
			}
			createOnly := obj.GetAnnotations()["release.openshift.io/create-only"] == "true"
			if err := applyTo(ctx, ri, obj, fieldManager, createOnly); err != nil {
				return fmt.Errorf("applying %s %s of %s: %w", obj.GetKind(), obj.GetName(), f, err)
			}
		}
	}
	return nil
}

// featureSet is FeatureGate cluster's feature set; Default where it is
// missing, as for the CVO.
func (cl *clients) featureSet(ctx context.Context) (features.FeatureSet, error) {
	fg, err := cl.dynamic.Resource(schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "featuregates"}).
		Get(ctx, "cluster", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "Default", nil
	}
	if err != nil {
		return "", err
	}
	set, _, err := unstructured.NestedString(fg.Object, "spec", "featureSet")
	return features.Of(configv1.FeatureSet(set)), err
}
