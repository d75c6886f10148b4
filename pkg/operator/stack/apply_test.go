package stack

import (
	"testing"

	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestContains(t *testing.T) {
	live := map[string]interface{}{
		"metadata": map[string]interface{}{"name": "a", "resourceVersion": "5", "labels": map[string]interface{}{"x": "1", "y": "2"}},
		"spec": map[string]interface{}{
			"replicas": int64(3),
			"list":     []interface{}{map[string]interface{}{"name": "a", "default": "d"}, "b"},
		},
	}
	for _, tc := range []struct {
		name    string
		desired map[string]interface{}
		want    bool
	}{
		{"subset with server additions", map[string]interface{}{"metadata": map[string]interface{}{"name": "a", "labels": map[string]interface{}{"x": "1"}}}, true},
		{"numbers from yaml", map[string]interface{}{"spec": map[string]interface{}{"replicas": float64(3)}}, true},
		{"list elements contained", map[string]interface{}{"spec": map[string]interface{}{"list": []interface{}{map[string]interface{}{"name": "a"}, "b"}}}, true},
		{"empty desired map is dropped by the server", map[string]interface{}{"spec": map[string]interface{}{"empty": map[string]interface{}{}}}, true},
		{"changed value", map[string]interface{}{"metadata": map[string]interface{}{"labels": map[string]interface{}{"x": "2"}}}, false},
		{"missing field", map[string]interface{}{"spec": map[string]interface{}{"other": "v"}}, false},
		{"list length differs", map[string]interface{}{"spec": map[string]interface{}{"list": []interface{}{"b"}}}, false},
		{"type differs", map[string]interface{}{"spec": "x"}, false},
	} {
		assert.Equal(t, tc.want, Contains(live, tc.desired), tc.name)
	}
}

// TestInPlace: only a workload that ApplyDaemonSet/ApplyDeployment would leave
// alone skips the GET.
func TestInPlace(t *testing.T) {
	spec := map[string]string{"image": "a"}
	applied := metav1.ObjectMeta{Name: "x", Generation: 3, Labels: map[string]string{"app": "x"}}
	require.NoError(t, resourceapply.SetSpecHashAnnotation(&applied, spec))
	required := metav1.ObjectMeta{Name: "x", Labels: map[string]string{"app": "x"}}
	edited := *applied.DeepCopy()
	edited.Generation = 4
	for name, c := range map[string]struct {
		cached metav1.ObjectMeta
		spec   any
		want   bool
	}{
		"as last applied":         {applied, spec, true},
		"spec edited by hand":     {edited, spec, false},
		"new spec asked for":      {applied, map[string]string{"image": "b"}, false},
		"a label the cache lacks": {metav1.ObjectMeta{Name: "x", Generation: 3, Annotations: applied.Annotations}, spec, false},
	} {
		assert.Equal(t, c.want, InPlace(c.cached, required, c.spec, 3), name)
	}
}
