// Command otlp-receiver is a minimal OTLP trace receiver for the e2e tests: it
// serves the OTLP/gRPC TraceService (plain text, as CRI-O's exporter dials it
// with WithInsecure) on -listen and writes one JSON line per received span to
// -out, so that a test can read which spans a real CRI-O exported. It keeps
// nothing in memory and forwards nothing.
package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonv1 "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/grpc"
)

// Span is one output line. Attributes holds the span's attributes with
// their values in text form.
type Span struct {
	Service    string            `json:"service"`
	Host       string            `json:"host,omitempty"`
	Scope      string            `json:"scope,omitempty"`
	Name       string            `json:"name"`
	Kind       string            `json:"kind"`
	TraceID    string            `json:"traceId"`
	SpanID     string            `json:"spanId"`
	Start      time.Time         `json:"start"`
	Attributes map[string]string `json:"attributes,omitempty"`
}

type receiver struct {
	collectortrace.UnimplementedTraceServiceServer
	mu  sync.Mutex
	enc *json.Encoder
}

func (r *receiver) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		res := attributes(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				line := Span{
					Service: res["service.name"], Host: res["host.name"], Scope: ss.GetScope().GetName(),
					Name: s.GetName(), Kind: strings.TrimPrefix(s.GetKind().String(), "SPAN_KIND_"), TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					Start:      time.Unix(0, int64(s.GetStartTimeUnixNano())).UTC(),
					Attributes: attributes(s.GetAttributes()),
				}
				if err := r.enc.Encode(line); err != nil {
					return nil, err
				}
			}
		}
	}
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

// attributes renders key-value pairs with their values as text: scalars as
// Go formats them, anything else (arrays, maps, bytes) in protobuf text form.
func attributes(kvs []*commonv1.KeyValue) map[string]string {
	if len(kvs) == 0 {
		return nil
	}
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		var text string
		switch v := kv.GetValue().GetValue().(type) {
		case *commonv1.AnyValue_StringValue:
			text = v.StringValue
		case *commonv1.AnyValue_IntValue:
			text = fmt.Sprint(v.IntValue)
		case *commonv1.AnyValue_BoolValue:
			text = fmt.Sprint(v.BoolValue)
		case *commonv1.AnyValue_DoubleValue:
			text = fmt.Sprint(v.DoubleValue)
		default:
			text = kv.GetValue().String()
		}
		out[kv.GetKey()] = text
	}
	return out
}

func main() {
	listen := flag.String("listen", "127.0.0.1:4317", "address of the OTLP/gRPC endpoint")
	outPath := flag.String("out", "-", "file the spans are appended to, one JSON object a line (- for stdout)")
	flag.Parse()

	var out io.Writer = os.Stdout
	if *outPath != "-" {
		f, err := os.OpenFile(*outPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		out = f
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	srv := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(srv, &receiver{enc: json.NewEncoder(out)})
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
		<-sig
		srv.GracefulStop()
	}()
	log.Printf("otlp-receiver: OTLP/gRPC traces on %s, spans to %s", l.Addr(), *outPath)
	if err := srv.Serve(l); err != nil {
		log.Fatal(err)
	}
}
