package nodesettings

import (
	"strings"
	"testing"
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
		t.Run(tc.name, func(t *testing.T) {
			files, skipped := Render(tc.tracing, tc.pool)
			var paths []string
			for _, f := range files {
				paths = append(paths, f.Path)
				for _, want := range tc.wantIn[f.Path] {
					if !strings.Contains(f.Contents, want) {
						t.Errorf("%s lacks %q:\n%s", f.Path, want, f.Contents)
					}
				}
				// Every file we write has its disruption policy entry:
				// without it MCO reboots the pool's nodes.
				if got := DisruptionPolicy()[f.Path]; got == "" || got != f.Restart {
					t.Errorf("%s: disruption policy %q, file restarts %q", f.Path, got, f.Restart)
				}
			}
			if strings.Join(paths, ",") != strings.Join(tc.wantPaths, ",") {
				t.Errorf("paths = %v, want %v", paths, tc.wantPaths)
			}
			if got := strings.Join(skipped, ";"); (tc.wantSkipped == "") != (got == "") || !strings.Contains(got, tc.wantSkipped) {
				t.Errorf("skipped = %q, want %q", got, tc.wantSkipped)
			}
			if (RevisionOf(files) == "") != (len(files) == 0) {
				t.Errorf("revision %q for %d files", RevisionOf(files), len(files))
			}
		})
	}
}
