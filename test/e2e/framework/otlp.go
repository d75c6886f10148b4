package framework

// A real OTLP trace receiver, hack/tools/cluster/otlp-receiver (docs/node-tracing-fixture.md).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// OTLPSpan is one span as otlp-receiver writes it (a JSON line; the fields tests read).
type OTLPSpan struct {
	Service string    `json:"service"` // the resource's service.name
	Host    string    `json:"host"`    // the resource's host.name
	Name    string    `json:"name"`
	Kind    string    `json:"kind"` // without SPAN_KIND_: SERVER, INTERNAL, ...
	TraceID string    `json:"traceId"`
	Start   time.Time `json:"start"`
}

// OTLPReceiver is an otlp-receiver process.
type OTLPReceiver struct {
	Addr      string // OTLP/gRPC host:port, what CRI-O's tracing_endpoint takes (no TLS)
	SpansPath string // the file it appends spans to, kept in _output/e2e-logs
}

// StartOTLPReceiver starts otlp-receiver on a free port of 127.0.0.1.
func StartOTLPReceiver(t testing.TB) *OTLPReceiver {
	t.Helper()
	return StartOTLPReceiverAt(t, "127.0.0.1:"+strconv.Itoa(FreePort(t)), "otlp-receiver")
}

// StartOTLPReceiverAt starts otlp-receiver name on addr until the test ends, once it listens.
func StartOTLPReceiverAt(t testing.TB, addr, name string) *OTLPReceiver {
	t.Helper()
	if err := EnsureTool(t, "otlp-receiver"); err != nil {
		t.Fatalf("building otlp-receiver: %v", err)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatalf("%s: something already listens on %s", name, addr)
	}
	r := &OTLPReceiver{Addr: addr, SpansPath: strings.TrimSuffix(e2eLogPath(t, name+"-spans"), ".log") + ".jsonl"}
	p := StartProcess(t, name, filepath.Join(RepoRoot(t), "_output", "bin", "otlp-receiver"), []string{"-listen", r.Addr, "-out", r.SpansPath}, nil)
	WaitListening(t, p, r.Addr, name)
	t.Logf("OTLP receiver %s on %s, spans in %s", name, r.Addr, r.SpansPath)
	return r
}

// ServiceSpans returns the spans received so far whose service.name is
// service and that started at or after since. A line the receiver is
// still writing is left for the next call.
func (r *OTLPReceiver) ServiceSpans(t testing.TB, service string, since time.Time) []OTLPSpan {
	t.Helper()
	raw, err := os.ReadFile(r.SpansPath)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	raw = raw[:bytes.LastIndexByte(raw, '\n')+1]
	var out []OTLPSpan
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var s OTLPSpan
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("%s: %v: %s", r.SpansPath, err, sc.Text())
		}
		if s.Service == service && !s.Start.Before(since) {
			out = append(out, s)
		}
	}
	return out
}
