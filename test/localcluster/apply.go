package localcluster

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
)

// optionalGroups are APIs a cluster may not serve (LCP_MONITORING_CRDS=0):
// their manifests are skipped there, as the e2e framework skips them.
var optionalGroups = map[string]bool{"monitoring.coreos.com": true}

// ApplyFiles applies the manifests in files as the CVO does (server-side
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
	for _, f := range files {
		objs, err := readManifests(f)
		if err != nil {
			return err
		}
		for _, obj := range objs {
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
