package tracing

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

type okHandler struct{}

func (okHandler) ServeHTTP(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }

// Without an endpoint, whatever else the environment says (the default
// sampler named outright, a service name), Setup installs nothing and
// Handler and Transport return what they are given: tracing off costs
// nothing on the request path.
func TestNoEndpointWrapsNothing(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	t.Setenv("OTEL_TRACES_SAMPLER", "parentbased_always_on")
	t.Setenv("OTEL_SERVICE_NAME", "test")
	flush, err := Setup(t.Context(), "kubesplit-test", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer flush(t.Context())
	if Enabled() {
		t.Fatal("Setup installed a provider without an endpoint")
	}
	var h http.Handler = okHandler{}
	if Handler(h) != h {
		t.Error("Handler wrapped a handler with tracing off")
	}
	if Transport(http.DefaultTransport) != http.DefaultTransport {
		t.Error("Transport wrapped a transport with tracing off")
	}
}

// BenchmarkServerSpan is the cost of one server span per request: off
// (what runs without an endpoint), and sampled by the default sampler into
// a provider that exports nowhere (the span's own cost, no export).
func BenchmarkServerSpan(b *testing.B) {
	serve := func(b *testing.B, h http.Handler) {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/a/configmaps/c", nil)
		b.ReportAllocs()
		for b.Loop() {
			h.ServeHTTP(httptest.NewRecorder(), r)
		}
	}
	b.Run("off", func(b *testing.B) { serve(b, Handler(okHandler{})) })
	b.Run("sampled-no-exporter", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider()
		defer tp.Shutdown(b.Context())
		prev := otel.GetTracerProvider()
		otel.SetTracerProvider(tp)
		enabled = true
		defer func() { otel.SetTracerProvider(prev); enabled = false }()
		serve(b, Handler(okHandler{}))
	})
}
