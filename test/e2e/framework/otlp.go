package framework

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Span is what a test reads of one exported span.
type Span struct {
	Service         string
	Name            string
	Kind            tracepb.Span_SpanKind
	TraceID, SpanID string
	ParentSpanID    string
	Attributes      map[string]string
	Events          []string
}

// OTLPReceiver is an OTLP/HTTP trace receiver (protobuf), in the test, for
// services started with OTEL_EXPORTER_OTLP_ENDPOINT at its URL.
type OTLPReceiver struct {
	URL   string
	mu    sync.Mutex
	spans []Span
}

// StartOTLPReceiver starts a receiver that lives as long as the test.
func StartOTLPReceiver(t testing.TB) *OTLPReceiver {
	t.Helper()
	r := &OTLPReceiver{}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

func (r *OTLPReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 64<<20))
	var msg collectortrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &msg)
	}
	if req.URL.Path != "/v1/traces" || err != nil {
		http.Error(w, "bad export", http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	for _, rs := range msg.ResourceSpans {
		service := attributes(rs.GetResource().GetAttributes())["service.name"]
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				r.spans = append(r.spans, spanOf(service, s))
			}
		}
	}
	r.mu.Unlock()
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func spanOf(service string, s *tracepb.Span) Span {
	out := Span{Service: service, Name: s.Name, Kind: s.Kind, TraceID: hex.EncodeToString(s.TraceId),
		SpanID: hex.EncodeToString(s.SpanId), ParentSpanID: hex.EncodeToString(s.ParentSpanId), Attributes: attributes(s.Attributes)}
	for _, e := range s.Events {
		out.Events = append(out.Events, e.Name)
	}
	return out
}

func attributes(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		out[kv.Key] = kv.GetValue().GetStringValue()
	}
	return out
}

// Spans are the spans received so far.
func (r *OTLPReceiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}
