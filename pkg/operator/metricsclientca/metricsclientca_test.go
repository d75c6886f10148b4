package metricsclientca

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
)

func configMap(namespace, name, key, value string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Data: map[string]string{key: value}}
}

// The copy is written only when it differs; an unreadable source: Degraded, no write.
func TestEnsureAndConditionFor(t *testing.T) {
	const ns = "ns"
	for _, tc := range []struct {
		name             string
		objects          []runtime.Object // the source, then the copy
		forbidden, write bool
		degraded         string // a part of the condition's message; "" for False
	}{
		{"copy equal", []runtime.Object{configMap(SourceNamespace, SourceName, SourceKey, "CA"), configMap(ns, Name, Key, "CA")}, false, false, ""},
		{"copy differs", []runtime.Object{configMap(SourceNamespace, SourceName, SourceKey, "CA"), configMap(ns, Name, Key, "old")}, false, true, ""},
		{"copy missing", []runtime.Object{configMap(SourceNamespace, SourceName, SourceKey, "CA")}, false, true, ""},
		{"source missing", []runtime.Object{configMap(ns, Name, Key, "CA")}, false, false, "not found"},
		{"source forbidden", []runtime.Object{configMap(SourceNamespace, SourceName, SourceKey, "CA")}, true, false, "forbidden"},
	} {
		kube, copies := kubefake.NewClientset(tc.objects...), cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
		for _, o := range tc.objects {
			assert.NoError(t, copies.Add(o))
		}
		kube.PrependReactor("get", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
			return tc.forbidden, nil, apierrors.NewForbidden(corev1.Resource("configmaps"), SourceName, nil)
		})
		var messages []string
		for range 2 {
			kube.ClearActions()
			_, err := Ensure(context.Background(), kube, corelisters.NewConfigMapLister(copies).ConfigMaps(ns), ns)
			cond := ConditionFor(err).Conditions[0]
			assert.Equal(t, tc.degraded != "", *cond.Status == "True", "%s: %v", tc.name, err)
			assert.Contains(t, *cond.Message, tc.degraded, tc.name)
			messages = append(messages, *cond.Message)
			writes := kube.Actions()[1:] // after the source's GET
			if assert.Len(t, writes, map[bool]int{true: 1}[tc.write], tc.name) && tc.write {
				var cm corev1.ConfigMap
				assert.NoError(t, json.Unmarshal(writes[0].(clienttesting.PatchAction).GetPatch(), &cm), tc.name)
				assert.Equal(t, map[string]string{Key: "CA"}, cm.Data, tc.name)
			}
		}
		assert.Equal(t, messages[0], messages[1], "%s: the same message on every call", tc.name)
	}
}
