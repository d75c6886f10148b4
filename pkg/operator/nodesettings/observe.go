package nodesettings

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// PoolObjects are MCO's objects one sync read for a pool.
type PoolObjects struct {
	// Pool is the MachineConfigPool.
	Pool *unstructured.Unstructured
	// Ours is our MachineConfig for the pool; nil when there is none.
	Ours *unstructured.Unstructured
	// Inherited is our worker pool's MachineConfig when the pool selects
	// the worker role too and has none of its own: then its files are the
	// ones the pool's nodes get from us.
	Inherited *unstructured.Unstructured
	// Current is the rendered MachineConfig the pool's machines run
	// (status.configuration.name); nil when it could not be read.
	Current *unstructured.Unstructured
	// Nodes are the pool's MachineConfigNodes; nil where the API is not
	// served.
	Nodes []*unstructured.Unstructured
}

// ObservePool says what the rollout needs to know of a pool from MCO's
// objects; health is the gate's probe of CRI-O and the kubelet on the
// pool's nodes ("" when healthy, otherwise why not).
//
// The pool counts as updated to what we wrote when MCO has finished with it
// (the configuration its machines run is the one it wants, every machine
// runs it, MCO saw the pool's latest spec) and that configuration carries
// exactly our files: a pool that finished before our write reached MCO's
// renderer is not mistaken for one that took it.
func ObservePool(o PoolObjects, health string) PoolObservation {
	obs := PoolObservation{Healthy: health == "", UnhealthyMessage: health}
	if o.Ours != nil {
		obs.Written = Revision(o.Ours.GetAnnotations()[RevisionAnnotation])
	}
	pool := o.Pool.Object
	current, _, _ := unstructured.NestedString(pool, "status", "configuration", "name")
	wanted, _, _ := unstructured.NestedString(pool, "spec", "configuration", "name")
	machines, _, _ := unstructured.NestedInt64(pool, "status", "machineCount")
	updated, _, _ := unstructured.NestedInt64(pool, "status", "updatedMachineCount")
	observed, _, _ := unstructured.NestedInt64(pool, "status", "observedGeneration")
	finished := current != "" && current == wanted && machines == updated &&
		observed == o.Pool.GetGeneration() && conditionTrue(pool, "Updated")
	expected := o.Ours
	if expected == nil {
		expected = o.Inherited
	}
	obs.Updated = finished && o.Current != nil && o.Current.GetName() == current &&
		reflect.DeepEqual(ourFiles(o.Current), ourFiles(expected))

	// The pool's own message first, then the nodes' in a fixed order: the
	// list order of MachineConfigNodes must not change the message.
	var why, nodes []string
	for _, t := range []string{"Degraded", "NodeDegraded"} {
		if msg, ok := conditionMessage(pool, t); ok {
			why = append(why, msg)
			break
		}
	}
	for _, n := range o.Nodes {
		if msg, ok := conditionMessage(n.Object, "NodeDegraded"); ok {
			nodes = append(nodes, msg)
		}
	}
	sort.Strings(nodes)
	why = dedupe(append(why, nodes...))
	if len(why) > 0 {
		obs.Degraded = true
		obs.DegradedMessage = fmt.Sprintf("MachineConfigPool %s is degraded: %s", o.Pool.GetName(), strings.Join(why, "; "))
	}
	return obs
}

// ourFiles returns the contents of the files at our paths in a
// MachineConfig, decoded; nil for a nil MachineConfig.
func ourFiles(mc *unstructured.Unstructured) map[string]string {
	out := map[string]string{}
	if mc == nil {
		return out
	}
	files, _, _ := unstructured.NestedSlice(mc.Object, "spec", "config", "storage", "files")
	for _, f := range files {
		m, ok := f.(map[string]interface{})
		if !ok {
			continue
		}
		path, _, _ := unstructured.NestedString(m, "path")
		if _, ours := DisruptionPolicy()[path]; !ours {
			continue
		}
		source, _, _ := unstructured.NestedString(m, "contents", "source")
		data, err := decodeDataURL(source)
		if err != nil {
			data = "undecodable: " + source
		}
		out[path] = data
	}
	return out
}

// decodeDataURL decodes the data URLs Ignition files carry: "data:,<url
// escaped>" as we write them, or base64 as other writers do.
func decodeDataURL(s string) (string, error) {
	rest, ok := strings.CutPrefix(s, "data:")
	if !ok {
		return "", fmt.Errorf("not a data URL")
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return "", fmt.Errorf("data URL without a comma")
	}
	if strings.HasSuffix(meta, ";base64") {
		b, err := base64.StdEncoding.DecodeString(data)
		return string(b), err
	}
	return url.PathUnescape(data)
}

func conditionTrue(obj map[string]interface{}, t string) bool {
	_, ok := conditionMessage(obj, t)
	return ok
}

// conditionMessage returns the message of condition t when it is True.
func conditionMessage(obj map[string]interface{}, t string) (string, bool) {
	conds, _, _ := unstructured.NestedSlice(obj, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]interface{})
		if !ok || m["type"] != t || m["status"] != "True" {
			continue
		}
		msg, _ := m["message"].(string)
		if msg == "" {
			msg, _ = m["reason"].(string)
		}
		return msg, true
	}
	return "", false
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
