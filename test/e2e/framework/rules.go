package framework

// Helpers of the rule and dashboard e2e test (rules_test.go): CRI calls to a
// real CRI-O without a CRI client library, a kubelet stand-in whose runtime
// error counter behaves like the kubelet's, a proxy that can answer 401 as
// kube-rbac-proxy-crio does after a client CA rotation, PromQL helpers.

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// CRICall makes one unary gRPC call (e.g. "runtime.v1.RuntimeService/Version")
// with a protobuf-encoded request to CRI-O's socket, over HTTP/2 without TLS
// as gRPC does on a unix socket. It returns the gRPC status as an error.
func CRICall(socket, method string, req []byte) error {
	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		Protocols: &protos,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", socket)
		},
	}}
	defer client.CloseIdleConnections()
	frame := make([]byte, 5, 5+len(req)) // uncompressed flag and length
	binary.BigEndian.PutUint32(frame[1:], uint32(len(req)))
	frame = append(frame, req...)
	r, err := http.NewRequest(http.MethodPost, "http://crio/"+method, bytes.NewReader(frame))
	if err != nil {
		return err
	}
	r.Header.Set("Content-Type", "application/grpc")
	r.Header.Set("TE", "trailers")
	resp, err := client.Do(r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	status, msg := resp.Trailer.Get("Grpc-Status"), resp.Trailer.Get("Grpc-Message")
	if status == "" { // a trailers-only response carries it in the headers
		status, msg = resp.Header.Get("Grpc-Status"), resp.Header.Get("Grpc-Message")
	}
	if status != "0" {
		return fmt.Errorf("%s: HTTP %d, grpc-status %q: %s", method, resp.StatusCode, status, msg)
	}
	return nil
}

// PullImageRequest encodes runtime.v1.PullImageRequest{image: {image: ref}}
// (field 1, a message whose field 1 is the reference).
func PullImageRequest(ref string) []byte {
	spec := append([]byte{0x0a}, binary.AppendUvarint(nil, uint64(len(ref)))...)
	spec = append(spec, ref...)
	out := append([]byte{0x0a}, binary.AppendUvarint(nil, uint64(len(spec)))...)
	return append(out, spec...)
}

// Socket is the CRI socket of a CRI-O started with StartCRIO.
func (c *CRIO) Socket() string { return filepath.Join(c.Dir, "crio.sock") }

// StopCRIO stops a CRI-O started with StartCRIO (hack/crio.sh stop; the
// test's cleanup stopping it again is harmless).
func StopCRIO(t testing.TB, c *CRIO) {
	t.Helper()
	cmd := exec.Command(filepath.Join(RepoRoot(t), "hack", "crio.sh"), "stop")
	cmd.Env = c.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/crio.sh stop: %v\n%s", err, out)
	}
}

// FakeKubelet serves, on 127.0.0.1, the kubelet metrics the rules read
// besides up: kubelet_runtime_operations_total and
// kubelet_runtime_operations_errors_total. Like the kubelet's PLEG it calls
// CRI-O every Period and counts the calls and those that fail. On
// /kube-state-metrics it serves what kube-state-metrics reports of its
// node's Ready condition, which the kubelet sets to False ("container
// runtime is down", k8s.io/kubernetes v1.36 pkg/kubelet/runtime.go) once no
// runtime call has succeeded for 30 s; runtimeDownAfter stands for those
// 30 s, shortened as the test's "for" durations are.
type FakeKubelet struct {
	Addr          string
	calls, errors atomic.Int64
	lastOK        atomic.Int64 // unix nanoseconds
}

// StartFakeKubelet starts the stand-in for the kubelet of node, whose
// CRI-O listens on socket, until the test ends.
func StartFakeKubelet(t testing.TB, node, socket string, period, runtimeDownAfter time.Duration) *FakeKubelet {
	t.Helper()
	k := &FakeKubelet{Addr: fmt.Sprintf("127.0.0.1:%d", FreePort(t))}
	k.lastOK.Store(time.Now().UnixNano())
	l, err := net.Listen("tcp", k.Addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/kube-state-metrics" {
			ready := 0
			if time.Since(time.Unix(0, k.lastOK.Load())) < runtimeDownAfter {
				ready = 1
			}
			fmt.Fprintf(w, "# TYPE kube_node_status_condition gauge\n"+
				"kube_node_status_condition{node=%q,condition=\"Ready\",status=\"true\"} %d\n", node, ready)
			return
		}
		fmt.Fprintf(w, "# TYPE kubelet_runtime_operations_total counter\n"+
			"kubelet_runtime_operations_total{operation_type=\"version\"} %d\n"+
			"# TYPE kubelet_runtime_operations_errors_total counter\n"+
			"kubelet_runtime_operations_errors_total{operation_type=\"version\"} %d\n", k.calls.Load(), k.errors.Load())
	})}
	go func() { _ = srv.Serve(l) }()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(period):
			}
			k.calls.Add(1)
			if err := CRICall(socket, "runtime.v1.RuntimeService/Version", nil); err != nil {
				k.errors.Add(1)
			} else {
				k.lastOK.Store(time.Now().UnixNano())
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		<-done
		_ = srv.Close()
	})
	return k
}

// MetricsProxy stands for the proxy in front of CRI-O's metrics: it
// forwards plain-HTTP scrapes to CRI-O's TLS endpoint, or answers 401 while
// Reject is set, as kube-rbac-proxy-crio does to a client certificate of a
// CA it has not loaded.
type MetricsProxy struct {
	Addr   string
	Reject atomic.Bool
}

// StartMetricsProxy forwards to https://127.0.0.1:port, trusting caFile.
func StartMetricsProxy(t testing.TB, port int, caFile string) *MetricsProxy {
	t.Helper()
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("no certificate in %s", caFile)
	}
	upstream := &url.URL{Scheme: "https", Host: fmt.Sprintf("127.0.0.1:%d", port)}
	rp := httputil.NewSingleHostReverseProxy(upstream)
	rp.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "localhost", MinVersion: tls.VersionTLS12}}
	// A stopped CRI-O is an expected 502 here, not a log line per scrape.
	rp.ErrorHandler = func(w http.ResponseWriter, _ *http.Request, err error) {
		http.Error(w, err.Error(), http.StatusBadGateway)
	}
	p := &MetricsProxy{Addr: fmt.Sprintf("127.0.0.1:%d", FreePort(t))}
	l, err := net.Listen("tcp", p.Addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.Reject.Load() {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		rp.ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return p
}

// QuerySeries evaluates an instant query and returns the label sets of its
// result (an error for a query Prometheus refuses).
func (p *Prometheus) QuerySeries(query string) ([]map[string]string, error) {
	var out struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := p.get("/api/v1/query?query="+url.QueryEscape(query), &out); err != nil {
		return nil, err
	}
	if out.Status != "success" {
		return nil, fmt.Errorf("query %s: %s", query, out.Error)
	}
	var series []map[string]string
	for _, r := range out.Data.Result {
		series = append(series, r.Metric)
	}
	return series, nil
}

// ValueOperands turns an alert expression into queries that return series
// whenever the data the alert looks at exists, firing or not: the
// expression is split at its top-level set operators (and, unless, or; the
// on/ignoring of the right operand dropped), a fully parenthesized operand
// is split again, and every comparison of an operand gets the bool modifier
// (`x > 0.2` becomes `x > bool 0.2`, 0 or 1 instead of a filter). Label
// matchers and strings are left alone.
func ValueOperands(expr string) []string {
	var out []string
	for _, op := range splitSetOperators(expr) {
		op = strings.TrimSpace(op)
		for _, kw := range []string{"on", "ignoring"} {
			if rest, ok := strings.CutPrefix(op, kw); ok && strings.HasPrefix(strings.TrimSpace(rest), "(") {
				rest = strings.TrimSpace(rest)
				if i := strings.Index(rest, ")"); i >= 0 {
					op = strings.TrimSpace(rest[i+1:])
				}
			}
		}
		if inner, ok := enclosed(op); ok {
			out = append(out, ValueOperands(inner)...)
			continue
		}
		out = append(out, boolComparisons(op))
	}
	return out
}

// scan calls visit for each byte of expr outside label matchers ({...})
// and strings, with the parenthesis depth.
func scan(expr string, visit func(i, depth int)) {
	depth, braces := 0, 0
	var quote byte
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		case c == '"' || c == '\'' || c == '`':
			quote = c
			continue
		case c == '{':
			braces++
			continue
		case c == '}':
			braces--
			continue
		case braces > 0:
			continue
		case c == '(':
			depth++
		case c == ')':
			depth--
		}
		visit(i, depth)
	}
}

func splitSetOperators(expr string) []string {
	var parts []string
	start := 0
	isWord := func(b byte) bool {
		return b == '_' || b == ':' || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
	}
	scan(expr, func(i, depth int) {
		if depth != 0 || i < start || (i > 0 && isWord(expr[i-1])) {
			return
		}
		for _, kw := range []string{"and", "unless", "or"} {
			end := i + len(kw)
			if strings.HasPrefix(expr[i:], kw) && (end == len(expr) || !isWord(expr[end])) {
				parts = append(parts, expr[start:i])
				start = end
				return
			}
		}
	})
	return append(parts, expr[start:])
}

// enclosed reports whether s is one parenthesized expression and returns
// its inside.
func enclosed(s string) (string, bool) {
	if !strings.HasPrefix(s, "(") || !strings.HasSuffix(s, ")") {
		return "", false
	}
	closedEarly := false
	scan(s, func(i, depth int) {
		if depth == 0 && i < len(s)-1 {
			closedEarly = true
		}
	})
	return s[1 : len(s)-1], !closedEarly
}

func boolComparisons(expr string) string {
	var b strings.Builder
	last := 0
	scan(expr, func(i, _ int) {
		if i < last {
			return
		}
		for _, op := range []string{"==", "!=", ">=", "<=", ">", "<"} {
			if strings.HasPrefix(expr[i:], op) {
				end := i + len(op)
				if strings.HasPrefix(strings.TrimSpace(expr[end:]), "bool") {
					return
				}
				b.WriteString(expr[last:end])
				b.WriteString(" bool")
				last = end
				return
			}
		}
	})
	b.WriteString(expr[last:])
	return b.String()
}
