package nodesettings

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/common/model"
	"golang.org/x/oauth2"
	"k8s.io/client-go/transport"

	nodev1alpha1 "github.com/openshift/cluster-node-operator/pkg/apis/nodeoperator/v1alpha1"
	"github.com/openshift/cluster-node-operator/pkg/operator/criometrics"
)

// The CRI-O part of the health gate: CRI-O's metrics scraped on every node
// of the pool since MCO reported the pool updated, on whichever path serves
// them (docs/node-config.md, "Health gate").

// DefaultPrometheusURL is the cluster monitoring stack's query endpoint:
// Thanos Querier's web port, behind a proxy that lets a ServiceAccount
// query when it may get namespaces, with a serving certificate from the
// service CA.
const DefaultPrometheusURL = "https://thanos-querier.openshift-monitoring.svc:9091"

// ScrapeProbe says which nodes had CRI-O's metrics scraped successfully
// (up == 1 for job) on every scrape of the last window, and at least once,
// by node name.
type ScrapeProbe interface {
	ScrapedThroughout(ctx context.Context, job string, window time.Duration) (map[string]bool, error)
}

// ScrapeQuery is the PromQL of ScrapedThroughout: per node, every sample
// of up for job in the window is 1 (a node without a sample there has no
// series in the answer).
func ScrapeQuery(job string, window time.Duration) string {
	return fmt.Sprintf("group by (node) (min_over_time(up{job=%q}[%dms]) == 1)", job, window.Milliseconds())
}

// ScrapeWindow is the window the gate checks at now for a pool verified
// since since: the scrapes since then, at most the last soak (a scrape
// that failed once recovers after a soak; none from before the pool was
// updated counts), at least a second.
func ScrapeWindow(since, now time.Time, soak time.Duration) time.Duration {
	return max(min(now.Sub(since), soak), time.Second)
}

// ScrapeJob is the Prometheus job that scrapes CRI-O according to the
// recorded metrics stack decision; "" and why not when CRI-O's metrics are
// not scraped as far as the operator knows.
func ScrapeJob(stacks []nodev1alpha1.StackStatus) (job, why string) {
	for _, s := range stacks {
		if s.Name != nodev1alpha1.MetricsStack {
			continue
		}
		switch {
		case !s.Enabled:
			return "", "the metrics stack is off"
		case s.Mode == nodev1alpha1.PlatformProxy:
			return criometrics.PlatformJob, ""
		case s.Mode == nodev1alpha1.OperatorTLS:
			return criometrics.OperatorJob, ""
		}
		return "", "the metrics stack's path is not decided yet"
	}
	return "", "the metrics stack is not decided yet"
}

// ScrapeVerdict is the gate's CRI-O verdict on a pool's nodes: "" when
// every one was scraped, otherwise which were not (the first few by name:
// the message must not change with the order of a list).
func ScrapeVerdict(job string, nodes []string, scraped map[string]bool) string {
	var missing []string
	for _, n := range nodes {
		if !scraped[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	sort.Strings(missing)
	if len(missing) > 3 {
		missing = append(missing[:3], fmt.Sprintf("and %d more", len(missing)-3))
	}
	return fmt.Sprintf("CRI-O's metrics were not scraped without failure (up{job=%q}) since the pool was updated on node %s", job, strings.Join(missing, ", "))
}

// PrometheusProbe queries a Prometheus HTTP API with the operator's
// ServiceAccount token, trusting the CA bundle in caFile (the service CA,
// re-read when the file changes: the service CA rotates).
//
// It queries with GET: Thanos Querier's proxy authorizes a request as "get
// namespaces" whatever its method, but a stock kube-rbac-proxy derives the
// verb from the method (a POST, which Prometheus clients prefer, would
// need "create namespaces").
type PrometheusProbe struct {
	url    *url.URL
	client *http.Client
}

// NewPrometheusProbe returns a probe of the Prometheus API at base. The
// token and CA files are read at each query, so a missing file is an
// error of the query (reported by the gate), not of the operator's start.
func NewPrometheusProbe(base, caFile, tokenFile string) (*PrometheusProbe, error) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("prometheus URL %q: want http(s)://host[:port][/path] (%v)", base, err)
	}
	rt := &bearerFromFile{token: transport.NewCachedFileTokenSource(tokenFile), next: &caReloadingTransport{caFile: caFile}}
	return &PrometheusProbe{url: u, client: &http.Client{Transport: rt, Timeout: 10 * time.Second}}, nil
}

// queryResponse is the envelope of /api/v1/query.
type queryResponse struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
}

// ScrapedThroughout implements ScrapeProbe.
func (p *PrometheusProbe) ScrapedThroughout(ctx context.Context, job string, window time.Duration) (map[string]bool, error) {
	u := p.url.JoinPath("api", "v1", "query")
	u.RawQuery = url.Values{"query": {ScrapeQuery(job, window)}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("querying %s: %w", p.url.Redacted(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("querying %s: %w", p.url.Redacted(), err)
	}
	var r queryResponse
	if err := json.Unmarshal(body, &r); err != nil || r.Status == "" {
		return nil, fmt.Errorf("querying %s: HTTP %d: %s", p.url.Redacted(), resp.StatusCode, firstLine(body))
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("querying %s: %s: %s", p.url.Redacted(), r.ErrorType, r.Error)
	}
	var vec model.Vector
	if r.Data.ResultType != model.ValVector.String() || json.Unmarshal(r.Data.Result, &vec) != nil {
		return nil, fmt.Errorf("querying %s: a %q result instead of a vector", p.url.Redacted(), r.Data.ResultType)
	}
	out := map[string]bool{}
	for _, s := range vec {
		out[string(s.Metric["node"])] = true
	}
	return out, nil
}

// firstLine is the start of an unexpected answer, for an error message.
func firstLine(b []byte) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if len(line) > 200 {
		line = line[:200] + "..."
	}
	return line
}

// bearerFromFile sends the token of a file (re-read now and then: a
// projected ServiceAccount token is rotated); a file that cannot be read
// fails the request.
type bearerFromFile struct {
	token oauth2.TokenSource
	next  http.RoundTripper
}

func (b *bearerFromFile) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := b.token.Token()
	if err != nil {
		return nil, fmt.Errorf("the token for Prometheus: %w", err)
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	return b.next.RoundTrip(req)
}

// caReloadingTransport trusts the bundle in caFile (the system's roots
// when ""), and starts a new connection pool when the bundle changes.
type caReloadingTransport struct {
	caFile string

	mu     sync.Mutex
	pem    []byte
	client *http.Transport
}

func (t *caReloadingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rt, err := t.transport()
	if err != nil {
		return nil, err
	}
	return rt.RoundTrip(req)
}

func (t *caReloadingTransport) transport() (*http.Transport, error) {
	var pem []byte
	if t.caFile != "" {
		var err error
		if pem, err = os.ReadFile(t.caFile); err != nil {
			return nil, fmt.Errorf("the CA bundle for Prometheus: %w", err)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.client != nil && bytes.Equal(pem, t.pem) {
		return t.client, nil
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if pem != nil {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("the CA bundle for Prometheus (%s) holds no certificate", t.caFile)
		}
		tlsConfig.RootCAs = pool
	}
	if t.client != nil {
		t.client.CloseIdleConnections()
	}
	t.pem = pem
	t.client = &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: tlsConfig,
		TLSHandshakeTimeout: 10 * time.Second, IdleConnTimeout: 90 * time.Second, MaxIdleConns: 2}
	return t.client, nil
}
