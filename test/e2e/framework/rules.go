package framework

// Helpers of the rule and dashboard e2e test (rules_test.go): CRI calls to a
// real CRI-O, a kubelet stand-in whose runtime error counter behaves like
// the kubelet's, a proxy that can answer 401 as kube-rbac-proxy-crio does
// after a client CA rotation, the operands of an alert's PromQL.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// CRI is a client of one CRI-O's CRI socket (k8s.io/cri-api over gRPC).
type CRI struct {
	runtimeapi.RuntimeServiceClient
	runtimeapi.ImageServiceClient
}

// DialCRI connects to a CRI socket until the test ends. Like the kubelet's
// client it keeps one connection and reconnects after a CRI-O restart.
func DialCRI(t testing.TB, socket string) CRI {
	t.Helper()
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return CRI{runtimeapi.NewRuntimeServiceClient(conn), runtimeapi.NewImageServiceClient(conn)}
}

// CRICallsWithoutPod are the CRI calls that need no pod or image, by their
// gRPC method name (what CRI-O names its spans and per-operation series
// after).
var CRICallsWithoutPod = map[string]func(context.Context, CRI) error{
	"runtime.v1.RuntimeService/Version": func(ctx context.Context, c CRI) error {
		_, err := c.Version(ctx, &runtimeapi.VersionRequest{})
		return err
	},
	"runtime.v1.RuntimeService/Status": func(ctx context.Context, c CRI) error {
		_, err := c.Status(ctx, &runtimeapi.StatusRequest{})
		return err
	},
	"runtime.v1.RuntimeService/ListPodSandbox": func(ctx context.Context, c CRI) error {
		_, err := c.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{})
		return err
	},
	"runtime.v1.RuntimeService/ListContainers": func(ctx context.Context, c CRI) error {
		_, err := c.ListContainers(ctx, &runtimeapi.ListContainersRequest{})
		return err
	},
	"runtime.v1.ImageService/ListImages": func(ctx context.Context, c CRI) error {
		_, err := c.ListImages(ctx, &runtimeapi.ListImagesRequest{})
		return err
	},
	"runtime.v1.ImageService/ImageFsInfo": func(ctx context.Context, c CRI) error {
		_, err := c.ImageFsInfo(ctx, &runtimeapi.ImageFsInfoRequest{})
		return err
	},
}

// Socket is the CRI socket of a CRI-O started with StartCRIO.
func (c *CRIO) Socket() string { return filepath.Join(c.Dir, "crio.sock") }

// StopCRIO stops a CRI-O started with StartCRIO (hack/crio.sh stop; the
// test's cleanup stopping it again is harmless).
func StopCRIO(t testing.TB, c *CRIO) {
	t.Helper()
	require.NoError(t, crioScript(t, "stop", c.Dir, c.env...))
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
	require.NoError(t, err)
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
	cri := DialCRI(t, socket)
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
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if _, err := cri.Version(ctx, &runtimeapi.VersionRequest{}); err != nil {
				k.errors.Add(1)
			} else {
				k.lastOK.Store(time.Now().UnixNano())
			}
			cancel()
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
	require.NoError(t, err)
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
	require.NoError(t, err)
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
// expression, parsed by Prometheus' own PromQL parser, is split at its
// top-level set operators (and, unless, or; their on/ignoring dropped),
// parentheses around an operand are split again, and every comparison gets
// the bool modifier (`x > 0.2` becomes `x > bool 0.2`, 0 or 1 instead of a
// filter).
func ValueOperands(expr string) ([]string, error) {
	e, err := parser.ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	var out []string
	var split func(parser.Expr)
	split = func(e parser.Expr) {
		switch n := e.(type) {
		case *parser.ParenExpr:
			split(n.Expr)
			return
		case *parser.BinaryExpr:
			if n.Op.IsSetOperator() {
				split(n.LHS)
				split(n.RHS)
				return
			}
		}
		parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
			if b, ok := node.(*parser.BinaryExpr); ok && b.Op.IsComparisonOperator() {
				b.ReturnBool = true
			}
			return nil
		})
		out = append(out, e.String())
	}
	split(e)
	return out, nil
}
