package nodesettings

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func ptr(v int32) *int32 { return &v }

func TestRender(t *testing.T) {
	both := &Tracing{Endpoint: "127.0.0.1:4317", CRIOSamplingPerMillion: ptr(1000000), KubeletSamplingPerMillion: ptr(250)}
	current := PoolFacts{KubeletConfigDir: true}
	for _, tc := range []struct {
		name        string
		tracing     *Tracing
		pool        PoolFacts
		wantPaths   []string
		wantSkipped string
		wantIn      map[string][]string // path: what its contents hold
	}{
		{name: "no tracing: no files", pool: current},
		{name: "CRI-O and the kubelet", tracing: both, pool: current, wantPaths: []string{CRIODropInPath, KubeletDropInPath}, wantIn: map[string][]string{
			CRIODropInPath:    {"[crio.tracing]\n", "enable_tracing = true\n", `tracing_endpoint = "127.0.0.1:4317"`, "tracing_sampling_rate_per_million = 1000000\n"},
			KubeletDropInPath: {"apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n", "tracing:\n  endpoint: \"127.0.0.1:4317\"\n  samplingRatePerMillion: 250\n"},
		}},
		{name: "CRI-O only", tracing: &Tracing{Endpoint: "otel:4317", CRIOSamplingPerMillion: ptr(1)}, pool: current, wantPaths: []string{CRIODropInPath}},
		{name: "kubelet without --config-dir (before 4.21)", tracing: both, pool: PoolFacts{}, wantPaths: []string{CRIODropInPath}, wantSkipped: "does not read /etc/openshift/kubelet.conf.d"},
		{name: "administrator's KubeletConfig sets tracing", tracing: both, pool: PoolFacts{KubeletConfigDir: true, AdminKubeletTracing: true}, wantPaths: []string{CRIODropInPath}, wantSkipped: "a KubeletConfig sets tracing"},
	} {
		files, skipped := Render(tc.tracing, tc.pool)
		var paths []string
		for _, f := range files {
			paths = append(paths, f.Path)
			for _, want := range tc.wantIn[f.Path] {
				assert.Contains(t, f.Contents, want, "%s: %s", tc.name, f.Path)
			}
			// Every file we write has its disruption policy entry:
			// without it MCO reboots the pool's nodes.
			assert.NotEmpty(t, DisruptionPolicy()[f.Path], "%s: %s", tc.name, f.Path)
			assert.Equal(t, DisruptionPolicy()[f.Path], f.Restart, "%s: %s", tc.name, f.Path)
		}
		assert.Equal(t, tc.wantPaths, paths, tc.name)
		assert.Equal(t, tc.wantSkipped == "", len(skipped) == 0, tc.name)
		assert.Contains(t, strings.Join(skipped, ";"), tc.wantSkipped, tc.name)
		assert.Equal(t, len(files) == 0, RevisionOf(files) == "", "%s: a revision for files, none for none", tc.name)
	}
}
