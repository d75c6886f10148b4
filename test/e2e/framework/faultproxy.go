package framework

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// FaultProxy stands between a client and the local API server, with the
// admin's credentials, and answers requests for chosen paths with a chosen
// status: 403 as a proxy that refuses a path, 429 as API Priority and
// Fairness under load, 503 as an API server that restarts. The rest it
// forwards, watches included.
type FaultProxy struct {
	// Kubeconfig is a kubeconfig file naming the proxy (plain HTTP on loopback).
	Kubeconfig string

	mu        sync.Mutex
	code      int
	paths     map[string]bool
	refused   map[string]int
	forwarded map[string]int
}

// StartFaultProxy starts a proxy in front of admin's API server, stopped when the test ends.
func StartFaultProxy(t testing.TB, admin *rest.Config) *FaultProxy {
	t.Helper()
	transport, err := rest.TransportFor(admin)
	if err != nil {
		t.Fatal(err)
	}
	upstream, err := url.Parse(admin.Host)
	if err != nil {
		t.Fatal(err)
	}
	p := &FaultProxy{paths: map[string]bool{}, refused: map[string]int{}, forwarded: map[string]int{}}
	forward := httputil.NewSingleHostReverseProxy(upstream)
	forward.Transport = transport
	forward.FlushInterval = -1 // watches stream
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		code := 0
		if p.paths[r.URL.Path] {
			code = p.code
			p.refused[r.URL.Path]++
		} else {
			p.forwarded[r.URL.Path]++
		}
		p.mu.Unlock()
		if code != 0 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, http.StatusText(code), code)
			return
		}
		forward.ServeHTTP(w, r)
	})}
	go func() { _ = server.Serve(l) }()
	t.Cleanup(func() { _ = server.Close() })

	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["proxy"] = &clientcmdapi.Cluster{Server: "http://" + l.Addr().String()}
	cfg.AuthInfos["proxy"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "proxy"}
	cfg.CurrentContext = "proxy"
	p.Kubeconfig = filepath.Join(t.TempDir(), "fault-proxy.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, p.Kubeconfig); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p.Kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Fail answers every request for exactly these paths with code from now on;
// Fail(0) forwards everything again.
func (p *FaultProxy) Fail(code int, paths ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.code, p.paths = code, map[string]bool{}
	for _, path := range paths {
		p.paths[path] = true
	}
}

// Counts returns how many requests for path were refused and forwarded so far.
func (p *FaultProxy) Counts(path string) (refused, forwarded int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused[path], p.forwarded[path]
}

// String names the fault in force, for messages.
func (p *FaultProxy) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("HTTP %d for %d paths", p.code, len(p.paths))
}
