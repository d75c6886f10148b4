package nodesettings

import (
	"net/url"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
	}{
		{name: "no tracing: no files", pool: current},
		{name: "CRI-O and the kubelet", tracing: both, pool: current, wantPaths: []string{CRIODropInPath, KubeletDropInPath}},
		{name: "CRI-O only", tracing: &Tracing{Endpoint: "otel:4317", CRIOSamplingPerMillion: ptr(1)}, pool: current, wantPaths: []string{CRIODropInPath}},
		{name: "kubelet without --config-dir (before 4.21)", tracing: both, pool: PoolFacts{}, wantPaths: []string{CRIODropInPath}, wantSkipped: "does not read /etc/openshift/kubelet.conf.d"},
		{name: "administrator's KubeletConfig sets tracing", tracing: both, pool: PoolFacts{KubeletConfigDir: true, AdminKubeletTracing: true}, wantPaths: []string{CRIODropInPath}, wantSkipped: "a KubeletConfig sets tracing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, skipped := Render(tc.tracing, tc.pool)
			var paths []string
			for _, f := range files {
				paths = append(paths, f.Path)
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

func TestRenderedContents(t *testing.T) {
	files, _ := Render(&Tracing{Endpoint: "127.0.0.1:4317", CRIOSamplingPerMillion: ptr(100), KubeletSamplingPerMillion: ptr(5)}, PoolFacts{KubeletConfigDir: true})
	want := map[string][]string{
		CRIODropInPath:    {"[crio.tracing]\n", "enable_tracing = true\n", `tracing_endpoint = "127.0.0.1:4317"`, "tracing_sampling_rate_per_million = 100\n"},
		KubeletDropInPath: {"apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n", "tracing:\n  endpoint: \"127.0.0.1:4317\"\n  samplingRatePerMillion: 5\n"},
	}
	for _, f := range files {
		for _, s := range want[f.Path] {
			if !strings.Contains(f.Contents, s) {
				t.Errorf("%s lacks %q:\n%s", f.Path, s, f.Contents)
			}
		}
	}
}

func TestRevisionOf(t *testing.T) {
	a, _ := Render(&Tracing{Endpoint: "e:1", CRIOSamplingPerMillion: ptr(1)}, PoolFacts{})
	b, _ := Render(&Tracing{Endpoint: "e:1", CRIOSamplingPerMillion: ptr(1)}, PoolFacts{})
	c, _ := Render(&Tracing{Endpoint: "e:1", CRIOSamplingPerMillion: ptr(2)}, PoolFacts{})
	if RevisionOf(a) != RevisionOf(b) || RevisionOf(a) == RevisionOf(c) {
		t.Errorf("revisions: same files %q %q, other files %q", RevisionOf(a), RevisionOf(b), RevisionOf(c))
	}
}

func TestMachineConfig(t *testing.T) {
	files, _ := Render(&Tracing{Endpoint: "127.0.0.1:4317", CRIOSamplingPerMillion: ptr(7)}, PoolFacts{})
	mc := MachineConfig("infra", files)
	if mc.GetName() != "60-infra-node-settings" || mc.GetLabels()[roleLabel] != "infra" || mc.GetAnnotations()[RevisionAnnotation] != string(RevisionOf(files)) {
		t.Errorf("metadata: %s %v %v", mc.GetName(), mc.GetLabels(), mc.GetAnnotations())
	}
	list, _, _ := unstructured.NestedSlice(mc.Object, "spec", "config", "storage", "files")
	if len(list) != 1 {
		t.Fatalf("files: %v", list)
	}
	src, _, _ := unstructured.NestedString(list[0].(map[string]interface{}), "contents", "source")
	got, err := url.PathUnescape(strings.TrimPrefix(src, "data:,"))
	if err != nil || got != files[0].Contents {
		t.Errorf("contents do not decode back (%v):\n%s", err, got)
	}
}

func TestKubeletReadsDropIns(t *testing.T) {
	unit := "ExecStart=/usr/bin/kubelet \\\n  --config=/etc/kubernetes/kubelet.conf \\\n  --config-dir=/etc/openshift/kubelet.conf.d \\\n"
	if !KubeletReadsDropIns(unit) || KubeletReadsDropIns("ExecStart=/usr/bin/kubelet --config=/etc/kubernetes/kubelet.conf") {
		t.Error("KubeletReadsDropIns misreads the unit")
	}
}
