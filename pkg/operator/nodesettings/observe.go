package nodesettings

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strings"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/cluster-node-operator/pkg/operator/platform"
)

// PoolObjects are MCO's objects one sync read for a pool.
type PoolObjects struct {
	// Pool is the MachineConfigPool.
	Pool *mcfgv1.MachineConfigPool
	// Ours is our MachineConfig for the pool; nil when there is none.
	Ours *mcfgv1.MachineConfig
	// Inherited is our worker pool's MachineConfig when the pool selects
	// the worker role too and has none of its own: then its files are the
	// ones the pool's nodes get from us.
	Inherited *mcfgv1.MachineConfig
	// Current is the rendered MachineConfig the pool's machines run
	// (status.configuration.name); nil when it could not be read.
	Current *mcfgv1.MachineConfig
	// Nodes are the pool's MachineConfigNodes; nil where the API is not
	// served.
	Nodes []*mcfgv1.MachineConfigNode
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
		obs.Written = Revision(o.Ours.Annotations[RevisionAnnotation])
	}
	pool := o.Pool
	current := pool.Status.Configuration.Name
	_, updated := poolCondition(pool, mcfgv1.MachineConfigPoolUpdated)
	finished := current != "" && current == pool.Spec.Configuration.Name &&
		pool.Status.MachineCount == pool.Status.UpdatedMachineCount &&
		pool.Status.ObservedGeneration == pool.Generation && updated
	expected := o.Ours
	if expected == nil {
		expected = o.Inherited
	}
	if finished && o.Current != nil && o.Current.Name == current {
		have, errHave := ourFiles(o.Current)
		want, errWant := ourFiles(expected)
		obs.Updated = errHave == nil && errWant == nil && reflect.DeepEqual(have, want)
	}

	// The pool's own message first, then the nodes' in a fixed order: the
	// list order of MachineConfigNodes must not change the message.
	var why, nodes []string
	for _, t := range []mcfgv1.MachineConfigPoolConditionType{mcfgv1.MachineConfigPoolDegraded, mcfgv1.MachineConfigPoolNodeDegraded} {
		if msg, ok := poolCondition(pool, t); ok {
			why = append(why, msg)
			break
		}
	}
	for _, n := range o.Nodes {
		if c := meta.FindStatusCondition(n.Status.Conditions, nodeDegraded); c != nil && c.Status == metav1.ConditionTrue {
			nodes = append(nodes, messageOr(c.Message, c.Reason))
		}
	}
	sort.Strings(nodes)
	why = dedupe(append(why, nodes...))
	if len(why) > 0 {
		obs.Degraded = true
		obs.DegradedMessage = fmt.Sprintf("MachineConfigPool %s is degraded: %s", pool.Name, strings.Join(why, "; "))
	}
	return obs
}

// nodeDegraded is the MachineConfigNode condition of a node MCO could not
// update.
const nodeDegraded = "NodeDegraded"

// ourFiles returns the contents of the files at our paths in a
// MachineConfig, decoded; empty for a nil MachineConfig.
func ourFiles(mc *mcfgv1.MachineConfig) (map[string]string, error) {
	out := map[string]string{}
	if mc == nil {
		return out, nil
	}
	ign, err := platform.IgnitionOf(mc)
	if err != nil {
		return nil, err
	}
	for _, f := range ign.Storage.Files {
		if _, ours := DisruptionPolicy()[f.Path]; !ours {
			continue
		}
		data, err := decodeDataURL(f.Contents.Source)
		if err != nil {
			data = "undecodable: " + f.Contents.Source
		}
		out[f.Path] = data
	}
	return out, nil
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

// poolCondition returns the message (or reason) of the pool's condition t
// when it is True.
func poolCondition(pool *mcfgv1.MachineConfigPool, t mcfgv1.MachineConfigPoolConditionType) (string, bool) {
	for _, c := range pool.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return messageOr(c.Message, c.Reason), true
		}
	}
	return "", false
}

func messageOr(message, reason string) string {
	if message == "" {
		return reason
	}
	return message
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
