package launcher

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/tools/leaderelection"

	"github.com/openshift/cluster-node-operator/pkg/version"
)

func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(body)
}

func TestReadyOnlyWhileLeading(t *testing.T) {
	var leading atomic.Bool
	mux := newMux(leaderelection.NewLeaderHealthzAdaptor(20*time.Second), &leading)

	if code, body := get(t, mux, "/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "not leading") {
		t.Errorf("standby: /readyz %d %q, want 503 not leading", code, body)
	}
	// A standby is healthy: it has no lease whose renewal could be stuck.
	if code, _ := get(t, mux, "/healthz"); code != http.StatusOK {
		t.Errorf("standby: /healthz %d, want 200", code)
	}
	leading.Store(true)
	if code, _ := get(t, mux, "/readyz"); code != http.StatusOK {
		t.Errorf("leading: /readyz %d, want 200", code)
	}
}

func TestMetricsCarryTheBuildInfo(t *testing.T) {
	registerBuildInfo("openshift-cluster-node-operator", "cluster-node-operator", version.Get())
	var leading atomic.Bool
	code, body := get(t, newMux(leaderelection.NewLeaderHealthzAdaptor(time.Second), &leading), "/metrics")
	if code != http.StatusOK || !strings.Contains(body, "openshift_cluster_node_operator_build_info{") {
		t.Errorf("/metrics %d, want openshift_cluster_node_operator_build_info in:\n%.500s", code, body)
	}
}

func TestNamespaceFlagWins(t *testing.T) {
	o := NewOptions("x")
	o.Namespace = "ns"
	if ns, err := o.namespace(); err != nil || ns != "ns" {
		t.Errorf("namespace() = %q, %v; want ns", ns, err)
	}
}
