package framework

// Real scrapes: a real Prometheus, TLS handshakes and HTTP requests.

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// StartProcess runs binary (no pod's container) as a logged local process until the test ends.
func StartProcess(t testing.TB, name, binary string, args, env []string) *Process {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	o := startLogged(t, cmd, e2eLogPath(t, name))
	t.Logf("%s started (pid %d): %s %q; log %s", name, cmd.Process.Pid, binary, args, o.LogPath)
	return o
}

// Handshake makes one TLS handshake with cfg on a new connection to addr.
func Handshake(addr string, cfg *tls.Config) (*tls.ConnectionState, error) {
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	st := conn.ConnectionState()
	return &st, nil
}

// ServedCertificate returns the leaf certificate served at addr, unverified.
func ServedCertificate(addr string) (*x509.Certificate, error) {
	st, err := Handshake(addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only reads the peer certificate
	if err != nil {
		return nil, err
	}
	return st.PeerCertificates[0], nil // a TLS server always sends one here (no PSK)
}

// FirstCertificate parses the first PEM certificate of data.
func FirstCertificate(data []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("no PEM block")
	}
	return x509.ParseCertificate(block.Bytes)
}

// Prometheus is a real Prometheus on 127.0.0.1.
type Prometheus struct {
	URL     string
	Process *Process
}

// StartPrometheus runs Debian's prometheus with config in dir on 127.0.0.1 and waits until it is ready.
func StartPrometheus(t testing.TB, dir, config string) *Prometheus {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		Unavailable(t, "prometheus is not installed: run hack/prometheus.sh")
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "data"), 0o755))
	cfg := filepath.Join(dir, "prometheus.yml")
	require.NoError(t, os.WriteFile(cfg, []byte(config), 0o644))
	addr := fmt.Sprintf("127.0.0.1:%d", FreePort(t))
	p := &Prometheus{URL: "http://" + addr}
	p.Process = StartProcess(t, "prometheus", bin, []string{
		"--config.file=" + cfg, "--storage.tsdb.path=" + filepath.Join(dir, "data"),
		"--web.listen-address=" + addr, "--log.level=info",
	}, nil)
	Eventually(t, time.Minute, 500*time.Millisecond, func() (bool, error) {
		if p.Process.Exited() {
			return false, fmt.Errorf("prometheus exited; log %s", p.Process.LogPath)
		}
		code, _, err := HTTPGet(nil, p.URL+"/-/ready", "")
		return err == nil && code == http.StatusOK, nil
	}, "prometheus to be ready")
	return p
}

// Sample is one series of an instant query's result.
type Sample struct {
	Metric map[string]string
	Value  float64
}

// Query evaluates an instant query; a query Prometheus refuses is an error.
func (p *Prometheus) Query(query string) ([]Sample, error) {
	var out struct {
		Status, Error string
		Data          struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]interface{}    `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	code, body, err := HTTPGet(nil, p.URL+"/api/v1/query?query="+url.QueryEscape(query), "")
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(body, &out); err != nil || out.Status != "success" {
		return nil, fmt.Errorf("query %s: HTTP %d %s %v", query, code, out.Error, err)
	}
	samples := make([]Sample, len(out.Data.Result))
	for i, r := range out.Data.Result {
		s, _ := r.Value[1].(string)
		if samples[i].Value, err = strconv.ParseFloat(s, 64); err != nil {
			return nil, fmt.Errorf("query %s: %w", query, err)
		}
		samples[i].Metric = r.Metric
	}
	return samples, nil
}

// Scalar is the value of a query's first sample (0 for none).
func (p *Prometheus) Scalar(t testing.TB, query string) float64 {
	t.Helper()
	s, err := p.Query(query)
	require.NoError(t, err)
	if len(s) == 0 {
		return 0
	}
	return s[0].Value
}

// ScrapesSince counts job's scrapes since since and those that failed.
func (p *Prometheus) ScrapesSince(t testing.TB, job string, since time.Time) (scrapes, failed int) {
	t.Helper()
	window := fmt.Sprintf(`up{job=%q}[%ds]`, job, int(time.Since(since).Seconds())+1)
	n, good := p.Scalar(t, "sum(count_over_time("+window+"))"), p.Scalar(t, "sum(sum_over_time("+window+"))")
	return int(n), int(n - good)
}

// WaitCount waits until the value of query is n.
func (p *Prometheus) WaitCount(t testing.TB, query string, n int, timeout time.Duration) {
	t.Helper()
	Eventually(t, timeout, time.Second, func() (bool, error) {
		s, err := p.Query(query)
		return len(s) == 1 && int(s[0].Value) == n, err
	}, fmt.Sprintf("%s = %d in Prometheus", query, n))
}

// HTTPGet GETs url with client (nil: plain, 5 s) and token (when set).
func HTTPGet(client *http.Client, url, token string) (int, []byte, error) {
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Second}
	}
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// WaitTargetsUp waits until n targets are up.
func (p *Prometheus) WaitTargetsUp(t testing.TB, n int, timeout time.Duration) {
	t.Helper()
	p.WaitCount(t, "count(up == 1)", n, timeout)
}

// WaitListening waits until proc listens on addr, failing if it exits first.
func WaitListening(t testing.TB, proc *Process, addr, what string) {
	t.Helper()
	Eventually(t, time.Minute, 200*time.Millisecond, func() (bool, error) {
		if proc.Exited() {
			return false, fmt.Errorf("%s exited; log %s", what, proc.LogPath)
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil, nil
	}, fmt.Sprintf("%s listens on %s", what, addr))
}
