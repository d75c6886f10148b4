package watchtimeout

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
)

func TestWatchRequestsGetLongTimeouts(t *testing.T) {
	seen := make(chan *http.Request, 10)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r
		w.WriteHeader(http.StatusOK)
	}))
	defer server.Close()

	config := Wrap(&rest.Config{Host: server.URL}, 30*time.Minute)
	client, err := rest.HTTPClientFor(config)
	require.NoError(t, err)

	for _, tc := range []struct {
		query   string
		wantMin int
		wantMax int
	}{
		{"watch=true&timeoutSeconds=300", 1800, 3600},
		{"watch=true", 1800, 3600},
		{"watch=true&timeoutSeconds=5000", 5000, 5000},
		{"timeoutSeconds=300", 300, 300},
	} {
		resp, err := client.Get(server.URL + "/api/v1/pods?" + tc.query)
		require.NoError(t, err)
		resp.Body.Close()
		req := <-seen
		got, _ := strconv.Atoi(req.URL.Query().Get("timeoutSeconds"))
		assert.GreaterOrEqual(t, got, tc.wantMin, tc.query)
		assert.LessOrEqual(t, got, tc.wantMax, tc.query)
	}
}
