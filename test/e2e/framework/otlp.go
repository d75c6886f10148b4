package framework

// A real OTLP trace receiver for tests of node tracing: hack/tools/otlp-receiver
// (our own small main serving the OTLP/gRPC TraceService of
// go.opentelemetry.io/proto/otlp) run as a process, and the spans it wrote
// read back (docs/node-tracing-fixture.md).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// OTLPSpan is one span as otlp-receiver writes it (one JSON object a line).
type OTLPSpan struct {
	// Service and Host are the resource's service.name and host.name.
	Service string `json:"service"`
	Host    string `json:"host"`
	// Scope is the instrumentation scope's name.
	Scope string `json:"scope"`
	Name  string `json:"name"`
	// Kind is the span kind without its SPAN_KIND_ prefix (SERVER, INTERNAL, ...).
	Kind    string    `json:"kind"`
	TraceID string    `json:"traceId"`
	SpanID  string    `json:"spanId"`
	Start   time.Time `json:"start"`
	// Attributes are the span's attributes, values as text.
	Attributes map[string]string `json:"attributes"`
}

// OTLPReceiver is an otlp-receiver process listening on a loopback port of
// its own.
type OTLPReceiver struct {
	// Addr is the OTLP/gRPC endpoint, host:port without a scheme (what
	// CRI-O's tracing_endpoint takes; it dials it without TLS).
	Addr string
	// SpansPath is the file the receiver appends spans to.
	SpansPath string
	// Process is the receiver's process (its log: Process.LogPath).
	Process *Process
}

// StartOTLPReceiver builds otlp-receiver when _output/bin lacks it
// (hack/build-tools.sh otlp-receiver), starts it on a free port of
// 127.0.0.1 and waits until it listens. It stops when the test ends; the
// spans file stays in _output/e2e-logs.
func StartOTLPReceiver(t testing.TB) *OTLPReceiver {
	t.Helper()
	return StartOTLPReceiverAt(t, "127.0.0.1:"+strconv.Itoa(FreePort(t)), "otlp-receiver")
}

// StartOTLPReceiverAt starts an otlp-receiver named name (its log and
// spans file) on addr.
func StartOTLPReceiverAt(t testing.TB, addr, name string) *OTLPReceiver {
	t.Helper()
	if err := EnsureTool(t, "otlp-receiver"); err != nil {
		t.Fatalf("building otlp-receiver: %v", err)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatalf("%s: something already listens on %s", name, addr)
	}
	r := &OTLPReceiver{
		Addr:      addr,
		SpansPath: strings.TrimSuffix(e2eLogPath(t, name+"-spans"), ".log") + ".jsonl",
	}
	bin := filepath.Join(RepoRoot(t), "_output", "bin", "otlp-receiver")
	r.Process = StartProcess(t, name, bin, []string{"-listen", r.Addr, "-out", r.SpansPath}, nil)
	WaitListening(t, r.Process, r.Addr, name)
	t.Logf("OTLP receiver %s on %s, spans in %s", name, r.Addr, r.SpansPath)
	return r
}

// Spans returns every span received so far, in arrival order. A line the
// receiver is still writing is left for the next call.
func (r *OTLPReceiver) Spans(t testing.TB) []OTLPSpan {
	t.Helper()
	raw, err := os.ReadFile(r.SpansPath)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.LastIndexByte(raw, '\n'); i >= 0 {
		raw = raw[:i+1]
	} else {
		raw = nil
	}
	var out []OTLPSpan
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var s OTLPSpan
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("%s: %v: %s", r.SpansPath, err, sc.Text())
		}
		out = append(out, s)
	}
	return out
}

// ServiceSpans returns the spans received so far whose resource has
// service.name service and that started at or after since (zero: all).
func (r *OTLPReceiver) ServiceSpans(t testing.TB, service string, since time.Time) []OTLPSpan {
	t.Helper()
	var out []OTLPSpan
	for _, s := range r.Spans(t) {
		if s.Service == service && !s.Start.Before(since) {
			out = append(out, s)
		}
	}
	return out
}

// WaitForSpans waits until at least n spans of service that started at or
// after since have arrived, and returns them; it fails the test after
// timeout.
func (r *OTLPReceiver) WaitForSpans(t testing.TB, service string, since time.Time, n int, timeout time.Duration) []OTLPSpan {
	t.Helper()
	var got []OTLPSpan
	Eventually(t, timeout, 250*time.Millisecond, func() (bool, error) {
		if r.Process.Exited() {
			return false, fmt.Errorf("otlp-receiver exited; log %s", r.Process.LogPath)
		}
		got = r.ServiceSpans(t, service, since)
		return len(got) >= n, nil
	}, fmt.Sprintf("%d spans of service.name=%q since %s at the OTLP receiver %s (spans: %s)",
		n, service, since.Format(time.RFC3339Nano), r.Addr, r.SpansPath))
	return got
}
