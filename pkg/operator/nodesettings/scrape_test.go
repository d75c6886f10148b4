package nodesettings

import (
	"context"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
)

// The gate's CRI-O decisions: the job (the platform path, off and undecided
// are TestControllerGate's rows), the verdict and the window of the query.
func TestScrapeDecisions(t *testing.T) {
	for mode, want := range map[nodev1alpha1.StackMode][2]string{
		nodev1alpha1.OperatorTLS: {"crio-metrics", ""},
		"":                       {"", "the metrics stack's path is not decided yet"},
	} {
		job, why := ScrapeJob([]nodev1alpha1.StackStatus{{Name: nodev1alpha1.NMStateStack, Enabled: true}, {Name: nodev1alpha1.MetricsStack, Enabled: true, Mode: mode}})
		assert.Equal(t, want, [2]string{job, why}, mode)
	}
	assert.Empty(t, ScrapeVerdict("crio", []string{"a", "b"}, map[string]bool{"a": true, "b": true, "c": true}), "all scraped")
	assert.Empty(t, ScrapeVerdict("crio", nil, nil), "no nodes")
	assert.Equal(t, `CRI-O's metrics were not scraped without failure (up{job="crio"}) since the pool was updated on node a, b, c, and 2 more`,
		ScrapeVerdict("crio", []string{"e", "d", "c", "b", "a"}, map[string]bool{}), "many missing, sorted and cut")
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for after, want := range map[time.Duration]time.Duration{
		200 * time.Millisecond: time.Second,      // just updated: at least a second
		90 * time.Second:       90 * time.Second, // within the soak: since the update
		7 * time.Minute:        2 * time.Minute,  // past the soak: the last soak
	} {
		assert.Equal(t, want, ScrapeWindow(since, since.Add(after), 2*time.Minute), after)
	}
}

// The probe's token and CA files, read at each query (docs/test-behaviours.md).
func TestPrometheusProbe(t *testing.T) {
	dir := t.TempDir()
	tokenFile, caFile := filepath.Join(dir, "token"), filepath.Join(dir, "ca.crt")
	window := 1500 * time.Millisecond
	var gotAuth, gotQuery, gotMethod string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.ParseForm())
		gotAuth, gotQuery, gotMethod = r.Header.Get("Authorization"), r.Form.Get("query"), r.Method
		if r.URL.Path != "/prefix/api/v1/query" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[`+
			`{"metric":{"node":"worker-1"},"value":[1767225700,"1"]},{"metric":{"node":"worker-2"},"value":[1767225700,"1"]}]}}`)
	}))
	defer srv.Close()

	p, err := NewPrometheusProbe(srv.URL+"/prefix", caFile, tokenFile)
	require.NoError(t, err, "the files need not exist yet")
	_, err = p.ScrapedThroughout(context.Background(), "crio", window)
	assert.ErrorContains(t, err, "the token for Prometheus")
	require.NoError(t, os.WriteFile(tokenFile, []byte("sa-token\n"), 0o600))
	_, err = p.ScrapedThroughout(context.Background(), "crio", window)
	assert.ErrorContains(t, err, "the CA bundle for Prometheus")

	// Another CA's bundle: refused until the file has the server's CA.
	other, err := crypto.MakeSelfSignedCAConfig("prometheus-ca", time.Hour)
	require.NoError(t, err)
	otherPEM, _, err := other.GetPEMBytes()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(caFile, otherPEM, 0o600))
	_, err = p.ScrapedThroughout(context.Background(), "crio", window)
	assert.ErrorContains(t, err, "certificate")
	require.NoError(t, os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600))
	got, err := p.ScrapedThroughout(context.Background(), "crio", window)
	require.NoError(t, err, "the new bundle is read")
	assert.Equal(t, map[string]bool{"worker-1": true, "worker-2": true}, got)
	assert.Equal(t, "Bearer sa-token", gotAuth)
	assert.Equal(t, `group by (node) (min_over_time(up{job="crio"}[1500ms]) == 1)`, gotQuery)
	assert.Equal(t, http.MethodGet, gotMethod, "a proxy that derives the verb from the method authorizes a GET as get")

	// An answer that is not Prometheus's (a proxy's refusal, a wrong path).
	p, err = NewPrometheusProbe(srv.URL, caFile, tokenFile)
	require.NoError(t, err)
	_, err = p.ScrapedThroughout(context.Background(), "crio", window)
	assert.ErrorContains(t, err, "HTTP 404: not found")
}
