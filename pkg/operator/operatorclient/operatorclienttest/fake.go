// Package operatorclienttest gives controller tests a NodeOperator "cluster"
// behind a fake dynamic client that server-side applies status the way the
// API server does: it records managed fields per manager, so that
// NodeOperators.ApplyStatus sees when nothing changed and a test can prove
// zero writes at steady state.
package operatorclienttest

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/generated/applyconfiguration"
	"github.com/openshift/cluster-node-operator/pkg/operator/operatorclient"
)

// Fake is the stored NodeOperator, its informer cache and the writes to it.
type Fake struct {
	t             testing.TB
	Dynamic       *dynamicfake.FakeDynamicClient
	NodeOperators *operatorclient.NodeOperators
	informer      cache.SharedIndexInformer
	// Writes lists every write to the NodeOperator in order, as
	// "<verb> nodeoperators[/<subresource>]".
	Writes []string
}

// New stores nodeOperator (named cluster) and fills the cache with it.
func New(t testing.TB, clk clock.PassiveClock, nodeOperator *nodev1alpha1.NodeOperator) *Fake {
	t.Helper()
	scheme := runtime.NewScheme()
	require.NoError(t, nodev1alpha1.AddToScheme(scheme))
	gvr := nodev1alpha1.GroupVersionResource
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{gvr: "NodeOperatorList"}, toUnstructured(t, nodeOperator))
	manager, err := managedfields.NewDefaultFieldManager(applyconfiguration.NewTypeConverter(scheme), scheme, scheme, scheme,
		nodev1alpha1.GroupVersionKind, nodev1alpha1.GroupVersion, "status", nil)
	require.NoError(t, err)

	f := &Fake{
		t:       t,
		Dynamic: client,
		informer: cache.NewSharedIndexInformer(&cache.ListWatch{}, &unstructured.Unstructured{}, 0,
			cache.Indexers{}),
	}
	f.NodeOperators = operatorclient.NewNodeOperators(clk, f.informer, client)
	client.PrependReactor("*", "nodeoperators", func(a clienttesting.Action) (bool, runtime.Object, error) {
		switch a.GetVerb() {
		case "get", "list", "watch":
			return false, nil, nil
		}
		write := a.GetVerb() + " nodeoperators"
		if a.GetSubresource() != "" {
			write += "/" + a.GetSubresource()
		}
		f.Writes = append(f.Writes, write)
		p, ok := a.(clienttesting.PatchActionImpl)
		if !ok || p.GetPatchType() != types.ApplyPatchType || p.GetSubresource() != "status" {
			return false, nil, nil
		}
		// Server-side apply of status, with the manager's fields recorded
		// under the status subresource as the API server records them.
		live, err := client.Tracker().Get(gvr, "", p.GetName())
		if err != nil {
			return true, nil, err
		}
		applied := &unstructured.Unstructured{}
		if err := json.Unmarshal(p.GetPatch(), &applied.Object); err != nil {
			return true, nil, err
		}
		opts := p.GetPatchOptions()
		merged, err := manager.Apply(live, applied, opts.FieldManager, ptr.Deref(opts.Force, false))
		if err != nil {
			return true, nil, fmt.Errorf("apply: %w", err)
		}
		// The field manager answers with the typed object; the dynamic
		// client stores and returns unstructured ones.
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(merged)
		if err != nil {
			return true, nil, err
		}
		out := &unstructured.Unstructured{Object: u}
		out.SetGroupVersionKind(nodev1alpha1.GroupVersionKind)
		return true, out, client.Tracker().Update(gvr, out, "")
	})
	f.Refresh()
	return f
}

// Refresh puts the stored NodeOperator into the cache, as the informer
// would after a write.
func (f *Fake) Refresh() {
	f.t.Helper()
	obj, err := f.Dynamic.Tracker().Get(nodev1alpha1.GroupVersionResource, "", nodev1alpha1.SingletonName)
	require.NoError(f.t, err)
	require.NoError(f.t, f.informer.GetIndexer().Update(obj))
}

// Get returns the stored NodeOperator.
func (f *Fake) Get() *nodev1alpha1.NodeOperator {
	f.t.Helper()
	obj, err := f.Dynamic.Tracker().Get(nodev1alpha1.GroupVersionResource, "", nodev1alpha1.SingletonName)
	require.NoError(f.t, err)
	no, err := operatorclient.FromUnstructured(obj.(*unstructured.Unstructured))
	require.NoError(f.t, err)
	return no
}

// Update replaces the stored NodeOperator's spec (as an administrator would)
// and refreshes the cache.
func (f *Fake) Update(mutate func(*nodev1alpha1.NodeOperator)) {
	f.t.Helper()
	no := f.Get()
	mutate(no)
	require.NoError(f.t, f.Dynamic.Tracker().Update(nodev1alpha1.GroupVersionResource, toUnstructured(f.t, no), ""))
	f.Refresh()
}

func toUnstructured(t testing.TB, no *nodev1alpha1.NodeOperator) *unstructured.Unstructured {
	t.Helper()
	no = no.DeepCopy()
	no.APIVersion, no.Kind = nodev1alpha1.GroupVersion.String(), nodev1alpha1.GroupVersionKind.Kind
	if no.Name == "" {
		no.Name = nodev1alpha1.SingletonName
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(no)
	require.NoError(t, err)
	return &unstructured.Unstructured{Object: u}
}
