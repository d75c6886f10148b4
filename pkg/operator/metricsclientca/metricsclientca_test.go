package metricsclientca

import (
	"context"
	"encoding/json"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

func configMap(namespace, name, key, value string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Data: map[string]string{key: value}}
}

// Ensure writes the copy only when it differs from the source, once, with
// the source's client-ca-file; a source it cannot read is reported with a
// message that is the same on every call, and nothing is written.
func TestEnsureAndConditionFor(t *testing.T) {
	const ns = "openshift-cluster-node-operator"
	source := configMap(SourceNamespace, SourceName, SourceKey, "CA")
	for _, tc := range []struct {
		name       string
		source     *corev1.ConfigMap
		copied     *corev1.ConfigMap
		forbidden  bool
		wantWrites int
		degraded   string // a part of MetricsClientCADegraded's message; "" for False
	}{
		{name: "copy equal", source: source, copied: configMap(ns, Name, Key, "CA")},
		{name: "copy differs", source: source, copied: configMap(ns, Name, Key, "old CA"), wantWrites: 1},
		{name: "copy missing", source: source, wantWrites: 1},
		{name: "source missing", copied: configMap(ns, Name, Key, "CA"), degraded: "not found"},
		{name: "source forbidden", source: source, forbidden: true, degraded: "forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var objects []runtime.Object
			copies := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
			for _, cm := range []*corev1.ConfigMap{tc.source, tc.copied} {
				if cm != nil {
					objects = append(objects, cm)
				}
			}
			if tc.copied != nil {
				assert.NoError(t, copies.Add(tc.copied))
			}
			kube := kubefake.NewClientset(objects...)
			if tc.forbidden {
				kube.PrependReactor("get", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewForbidden(corev1.Resource("configmaps"), SourceName, nil)
				})
			}
			var messages []string
			for range 2 {
				kube.ClearActions()
				_, err := Ensure(context.Background(), kube, corelisters.NewConfigMapLister(copies).ConfigMaps(ns), ns)
				cond := ConditionFor(err).Conditions[0]
				assert.Equal(t, tc.degraded != "", ptr.Deref(cond.Status, "") == operatorv1.ConditionTrue, "%v", err)
				assert.Contains(t, ptr.Deref(cond.Message, ""), tc.degraded)
				messages = append(messages, ptr.Deref(cond.Message, ""))
				var writes []clienttesting.PatchAction
				for _, a := range kube.Actions() {
					if a.GetVerb() != "get" {
						writes = append(writes, a.(clienttesting.PatchAction))
					}
				}
				if assert.Len(t, writes, tc.wantWrites) && tc.wantWrites == 1 {
					var applied corev1.ConfigMap
					assert.NoError(t, json.Unmarshal(writes[0].GetPatch(), &applied))
					assert.Equal(t, map[string]string{Key: "CA"}, applied.Data)
				}
			}
			assert.Equal(t, messages[0], messages[1], "the same message on every call")
		})
	}
}
