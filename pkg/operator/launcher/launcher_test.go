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
