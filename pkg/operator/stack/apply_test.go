package stack

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Contains(live, tc.desired))
		})
	}
}
