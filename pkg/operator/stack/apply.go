package stack

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourcemerge"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// InPlace says whether a cached workload is one that library-go's
// ApplyDaemonSet or ApplyDeployment would leave alone (the generation last
// applied, the same metadata and spec hash), so that its GET can be
// skipped. A cache behind the server only costs that GET.
func InPlace(cached, required metav1.ObjectMeta, requiredSpec any, expectedGeneration int64) bool {
	if cached.Generation != expectedGeneration {
		return false
	}
	r := *required.DeepCopy()
	if err := resourceapply.SetSpecHashAnnotation(&r, requiredSpec); err != nil {
		return false
	}
	modified := false
	resourcemerge.EnsureObjectMeta(&modified, cached.DeepCopy(), r)
	return !modified
}

// ApplyUnstructured server-side applies desired (with fieldManager, forcing
// ownership: these objects are ours) unless the live object already contains
// every field of desired, in which case it writes nothing. Fields the server
// or another controller added are left alone. It reports whether it wrote.
func ApplyUnstructured(ctx context.Context, client dynamic.Interface, gvr schema.GroupVersionResource,
	desired *unstructured.Unstructured, fieldManager string) (bool, error) {
	ri := resourceFor(client, gvr, desired.GetNamespace())
	live, err := ri.Get(ctx, desired.GetName(), metav1.GetOptions{})
	switch {
	case err == nil && Contains(live.Object, desired.Object):
		return false, nil
	case err != nil && !apierrors.IsNotFound(err):
		return false, err
	}
	data, err := json.Marshal(desired)
	if err != nil {
		return false, err
	}
	_, err = ri.Patch(ctx, desired.GetName(), types.ApplyPatchType, data,
		metav1.PatchOptions{FieldManager: fieldManager, Force: ptrTrue()})
	return err == nil, err
}

// DeleteUnstructured deletes the object named like obj, if it exists, and
// reports whether it deleted anything. It reads first, so that removing what
// is already gone sends no DELETE.
func DeleteUnstructured(ctx context.Context, client dynamic.Interface, gvr schema.GroupVersionResource, obj *unstructured.Unstructured) (bool, error) {
	ri := resourceFor(client, gvr, obj.GetNamespace())
	live, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	}
	uid := live.GetUID()
	err = ri.Delete(ctx, obj.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}

func resourceFor(client dynamic.Interface, gvr schema.GroupVersionResource, namespace string) dynamic.ResourceInterface {
	if namespace == "" {
		return client.Resource(gvr)
	}
	return client.Resource(gvr).Namespace(namespace)
}

// Contains reports whether live holds every field of desired with the same
// value. Maps may have extra keys in live; lists must have the same length
// and each element must be contained.
func Contains(live, desired interface{}) bool {
	switch d := desired.(type) {
	case map[string]interface{}:
		l, ok := live.(map[string]interface{})
		if !ok {
			return false
		}
		for k, dv := range d {
			lv, found := l[k]
			if !found {
				if isEmpty(dv) {
					continue
				}
				return false
			}
			if !Contains(lv, dv) {
				return false
			}
		}
		return true
	case []interface{}:
		l, ok := live.([]interface{})
		if !ok || len(l) != len(d) {
			return false
		}
		for i := range d {
			if !Contains(l[i], d[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(normalizeNumber(live), normalizeNumber(desired))
	}
}

// isEmpty is true for values the API server drops when it stores an object.
func isEmpty(v interface{}) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]interface{}:
		return len(t) == 0
	case []interface{}:
		return len(t) == 0
	}
	return false
}

// normalizeNumber makes int64 from the API and float64 or int from parsed
// YAML compare equal.
func normalizeNumber(v interface{}) interface{} {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int32:
		return float64(n)
	case int64:
		return float64(n)
	}
	return v
}

func ptrTrue() *bool { t := true; return &t }

// ReadUnstructured decodes one YAML manifest without a scheme, so that kinds
// that library-go's resourceread knows (like SCC) stay unstructured.
func ReadUnstructured(raw []byte) (*unstructured.Unstructured, error) {
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(raw, &obj.Object); err != nil {
		return nil, err
	}
	if obj.GetKind() == "" || obj.GetName() == "" {
		return nil, fmt.Errorf("manifest has no kind or name")
	}
	return obj, nil
}
