package framework

// Stand-ins and helpers of TestRules (rules_test.go): CRI calls, a kubelet,
// a proxy that can answer 401, the operands of an alert's PromQL.

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
	"k8s.io/apimachinery/pkg/util/wait"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// CRI is a client of one CRI-O's CRI socket (k8s.io/cri-api over gRPC).
type CRI struct {
	runtimeapi.RuntimeServiceClient
	runtimeapi.ImageServiceClient
}

// DialCRI connects to a CRI socket (one connection, reconnecting as the kubelet's) until the test ends.
func DialCRI(t testing.TB, socket string) CRI {
	t.Helper()
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return CRI{runtimeapi.NewRuntimeServiceClient(conn), runtimeapi.NewImageServiceClient(conn)}
}

// CRICallsWithoutPod: the CRI calls needing no pod or image, by gRPC method name.
var CRICallsWithoutPod = map[string]func(context.Context, CRI) error{
	"runtime.v1.RuntimeService/Version": func(ctx context.Context, c CRI) error { return errOf(c.Version(ctx, &runtimeapi.VersionRequest{})) },
	"runtime.v1.RuntimeService/Status":  func(ctx context.Context, c CRI) error { return errOf(c.Status(ctx, &runtimeapi.StatusRequest{})) },
	"runtime.v1.RuntimeService/ListPodSandbox": func(ctx context.Context, c CRI) error {
		return errOf(c.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{}))
	},
	"runtime.v1.RuntimeService/ListContainers": func(ctx context.Context, c CRI) error {
		return errOf(c.ListContainers(ctx, &runtimeapi.ListContainersRequest{}))
	},
	"runtime.v1.ImageService/ListImages": func(ctx context.Context, c CRI) error {
		return errOf(c.ListImages(ctx, &runtimeapi.ListImagesRequest{}))
	},
	"runtime.v1.ImageService/ImageFsInfo": func(ctx context.Context, c CRI) error {
		return errOf(c.ImageFsInfo(ctx, &runtimeapi.ImageFsInfoRequest{}))
	},
}

func errOf[T any](_ T, err error) error { return err }

// Socket is the CRI socket of a CRI-O started with StartCRIO.
func (c *CRIO) Socket() string { return filepath.Join(c.Dir, "crio.sock") }

// StopCRIO stops a CRI-O started with StartCRIO (again at cleanup: harmless).
func StopCRIO(t testing.TB, c *CRIO) {
	t.Helper()
	require.NoError(t, crioScript(t, "stop", c.Dir, c.env...))
}

// FakeKubelet serves the kubelet's runtime operation counters of its own CRI calls every period and, on /kube-state-metrics, Ready False once none succeeded for runtimeDownAfter
// (the kubelet's 30 s, k8s.io/kubernetes v1.36 pkg/kubelet/runtime.go).
type FakeKubelet struct {
	Addr          string
	calls, errors atomic.Int64
	lastOK        atomic.Int64 // unix nanoseconds
}

// StartFakeKubelet starts the kubelet stand-in of node over socket until the test ends.
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
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait.UntilWithContext(ctx, func(ctx context.Context) {
			k.calls.Add(1)
			ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if _, err := cri.Version(ctx, &runtimeapi.VersionRequest{}); err != nil {
				k.errors.Add(1)
			} else {
				k.lastOK.Store(time.Now().UnixNano())
			}
		}, period)
	}()
	t.Cleanup(func() { cancel(); <-done; _ = srv.Close() })
	return k
}

// MetricsProxy forwards plain-HTTP scrapes to CRI-O's TLS endpoint, or
// answers 401 while Reject is set (as kube-rbac-proxy does to a client
// certificate of a CA it has not loaded).
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

// ValueOperands turns an alert expression into queries that return series
// whenever the data it looks at exists, firing or not: split (Prometheus'
// parser) at top-level set operators and parentheses, every comparison
// with the bool modifier.
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
