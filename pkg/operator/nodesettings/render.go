// Package nodesettings renders the Node team's settings of CRI-O and the
// kubelet into MachineConfigs, one per pool, and decides their staged
// rollout (rollout.go). It writes nothing itself.
package nodesettings

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Where the drop-ins go. CRI-O reads /etc/crio/crio.conf.d in name order
// after MCO's 00-default and the ContainerRuntimeConfig files (01-ctrcfg-*);
// none of those sets [crio.tracing]. The kubelet reads
// /etc/openshift/kubelet.conf.d (its --config-dir in MCO's kubelet.service
// since OpenShift 4.21) over /etc/kubernetes/kubelet.conf, where a
// KubeletConfig lands, so a drop-in key would override the administrator's
// KubeletConfig: we write the kubelet part only where no KubeletConfig sets
// tracing (PoolFacts.AdminKubeletTracing).
const (
	CRIODropInPath    = "/etc/crio/crio.conf.d/60-node-settings.conf"
	KubeletDropInPath = "/etc/openshift/kubelet.conf.d/60-node-settings.conf"
	// KubeletConfigDir is the kubelet flag that marks a pool whose kubelet
	// reads drop-ins.
	KubeletConfigDir = "--config-dir=/etc/openshift/kubelet.conf.d"

	crioService    = "crio.service"
	kubeletService = "kubelet.service"

	// RevisionAnnotation on our MachineConfig records the revision it carries.
	RevisionAnnotation = "nodeoperator.openshift.io/node-settings-revision"
	roleLabel          = "machineconfiguration.openshift.io/role"
)

// Tracing is the node tracing the administrator asked for.
type Tracing struct {
	// Endpoint is where CRI-O and the kubelet send spans (OTLP over gRPC,
	// host:port): a collector on the node's loopback, or the destination
	// as given.
	Endpoint string
	// CRIOSamplingPerMillion is nil when CRI-O is not to be traced.
	CRIOSamplingPerMillion *int32
	// KubeletSamplingPerMillion is nil when the kubelet is not to be traced.
	KubeletSamplingPerMillion *int32
}

// PoolFacts are what rendering needs to know of a pool.
type PoolFacts struct {
	// KubeletConfigDir: the pool's kubelet reads KubeletDropInPath.
	KubeletConfigDir bool
	// AdminKubeletTracing: a KubeletConfig of the administrator sets
	// tracing for the pool; the kubelet part is theirs.
	AdminKubeletTracing bool
}

// File is one file of our MachineConfig and the service that must restart
// when it changes (the node disruption policy entry for it).
type File struct {
	Path     string
	Contents string
	Restart  string
}

// Render returns the files for a pool, sorted by path, and the parts left
// out with the reason, for status. No tracing gives no files.
func Render(t *Tracing, pool PoolFacts) (files []File, skipped []string) {
	if t == nil {
		return nil, nil
	}
	if t.CRIOSamplingPerMillion != nil {
		files = append(files, File{Path: CRIODropInPath, Restart: crioService, Contents: fmt.Sprintf(
			"# Node tracing, set by the node operator (NodeOperator spec.nodeSettings).\n"+
				"[crio.tracing]\nenable_tracing = true\ntracing_endpoint = %q\ntracing_sampling_rate_per_million = %d\n",
			t.Endpoint, *t.CRIOSamplingPerMillion)})
	}
	if t.KubeletSamplingPerMillion != nil {
		switch {
		case !pool.KubeletConfigDir:
			skipped = append(skipped, "kubelet tracing skipped: the pool's kubelet does not read /etc/openshift/kubelet.conf.d (OpenShift 4.21 and later)")
		case pool.AdminKubeletTracing:
			skipped = append(skipped, "kubelet tracing skipped: a KubeletConfig sets tracing for the pool")
		default:
			files = append(files, File{Path: KubeletDropInPath, Restart: kubeletService, Contents: fmt.Sprintf(
				"# Node tracing, set by the node operator (NodeOperator spec.nodeSettings).\n"+
					"apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"+
					"tracing:\n  endpoint: %q\n  samplingRatePerMillion: %d\n",
				t.Endpoint, *t.KubeletSamplingPerMillion)})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, skipped
}

// RevisionOf names a set of files: the same files give the same revision,
// and no files give the empty revision (no MachineConfig).
func RevisionOf(files []File) Revision {
	if len(files) == 0 {
		return ""
	}
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", f.Path, f.Contents, f.Restart)
	}
	return Revision(hex.EncodeToString(h.Sum(nil))[:10])
}

// MachineConfig returns our MachineConfig for a pool carrying files. The
// role label is the pool's name: MCO's master and worker pools select their
// role, and a custom pool selects its own name (and usually worker too,
// see MachineConfigName).
func MachineConfig(pool string, files []File) *unstructured.Unstructured {
	var ignFiles []interface{}
	for _, f := range files {
		ignFiles = append(ignFiles, map[string]interface{}{
			"path":      f.Path,
			"mode":      int64(0o644),
			"overwrite": true,
			"contents":  map[string]interface{}{"source": "data:," + url.PathEscape(f.Contents)},
		})
	}
	mc := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "machineconfiguration.openshift.io/v1",
		"kind":       "MachineConfig",
		"metadata": map[string]interface{}{
			"name":        MachineConfigName(pool),
			"labels":      map[string]interface{}{roleLabel: pool, ownedLabel: ""},
			"annotations": map[string]interface{}{RevisionAnnotation: string(RevisionOf(files))},
		},
		"spec": map[string]interface{}{
			"config": map[string]interface{}{
				// Files only: MCO refuses other Ignition changes on a running cluster.
				"ignition": map[string]interface{}{"version": "3.2.0"},
				"storage":  map[string]interface{}{"files": ignFiles},
			},
		},
	}}
	return mc
}

// DisruptionPolicy returns, by path, the service each of our files restarts
// when it appears, changes or goes away. The entries must be in MCO's
// MachineConfiguration before the first MachineConfig carrying the file, or
// MCO drains and reboots the pool's nodes.
func DisruptionPolicy() map[string]string {
	return map[string]string{CRIODropInPath: crioService, KubeletDropInPath: kubeletService}
}

// KubeletReadsDropIns tells from the kubelet unit of MCO's 01-<role>-kubelet
// MachineConfig whether the pool's kubelet reads drop-ins.
func KubeletReadsDropIns(kubeletUnit string) bool {
	return strings.Contains(kubeletUnit, KubeletConfigDir)
}
