package platform

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
)

// A failed discovery request is no answer: the last answer stands, an API
// never answered is Unknown, never "not served", and nothing is retried
// before the TTL (docs/architecture.md, "When a request fails").
func TestServedCacheKeepsTheLastAnswer(t *testing.T) {
	var mu sync.Mutex
	code, served, requests := 0, map[string][]string{}, 0
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		requests++
		if code != 0 {
			w.Header().Set("Retry-After", "1") // as priority and fairness sends it
			http.Error(w, http.StatusText(code), code)
			return
		}
		resources, ok := served[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		list := metav1.APIResourceList{GroupVersion: r.URL.Path[len("/apis/"):]}
		for _, name := range resources {
			list.APIResources = append(list.APIResources, metav1.APIResource{Name: name})
		}
		_ = json.NewEncoder(w).Encode(list)
	}))
	defer server.Close()
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	cache := NewServedCache(discovery.NewDiscoveryClientForConfigOrDie(&rest.Config{Host: server.URL}), clk, ServedTTL)

	allUnknown := []string{"monitoring.coreos.com/v1", "machineconfiguration.openshift.io/v1", "operator.openshift.io/v1"}
	mco := map[string][]string{
		"/apis/machineconfiguration.openshift.io/v1": {"machineconfigs"},
		"/apis/operator.openshift.io/v1":             {"machineconfigurations"},
	}
	mcoOnly := ServedAPIs{MachineConfig: true, MachineConfiguration: true}
	for _, step := range []struct {
		name     string
		code     int
		served   map[string][]string
		advance  time.Duration
		want     ServedAPIs
		requests int
	}{
		{"429 at start: nothing known, not retried", http.StatusTooManyRequests, mco, 0, ServedAPIs{Unknown: allUnknown}, 3},
		{"within the TTL: no request", 0, mco, time.Second, ServedAPIs{Unknown: allUnknown}, 0},
		{"answered: MCO's APIs served, monitoring's not (404)", 0, mco, ServedTTL, mcoOnly, 3},
		{"503: the last answer stands", http.StatusServiceUnavailable, nil, ServedTTL + time.Second, mcoOnly, 3},
		{"403 from a proxy: the last answer stands", http.StatusForbidden, nil, ServedTTL + time.Second, mcoOnly, 3},
		{"a resource goes: answered", 0, map[string][]string{"/apis/machineconfiguration.openshift.io/v1": {"machineconfigs"}, "/apis/operator.openshift.io/v1": {"consoles"}},
			ServedTTL + time.Second, ServedAPIs{MachineConfig: true}, 3},
	} {
		mu.Lock()
		code, served, requests = step.code, step.served, 0
		mu.Unlock()
		clk.Step(step.advance)
		got := cache.Get()
		mu.Lock()
		assert.Equal(t, step.requests, requests, step.name)
		mu.Unlock()
		require.Equal(t, step.want, got, step.name)
		assert.Equal(t, step.want.MachineConfig || !got.Known(MachineConfigGVR), got.MaybeServed(MachineConfigGVR), step.name)
	}
}
