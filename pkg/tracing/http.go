package tracing

import (
	"context"
	"net/http"
	"strings"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Handler makes a server span for every request h serves, named by the
// HTTP semantic conventions ("GET", "POST", ...); h itself when tracing is
// off.
func Handler(h http.Handler) http.Handler {
	if !enabled {
		return h
	}
	return otelhttp.NewHandler(h, "", otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string {
		// The semantic conventions' name until the request's route is
		// known (see Describe): the method alone.
		return r.Method
	}), otelhttp.WithFilter(notHealthCheck))
}

// Transport makes a client span for every call rt carries, and propagates
// the trace to the callee; rt itself when tracing is off.
func Transport(rt http.RoundTripper) http.RoundTripper {
	if !enabled {
		return rt
	}
	return otelhttp.NewTransport(rt)
}

// Event records a named event on the current span of ctx, such as a
// cache hit, which shows in a trace why a call was not made.
func Event(ctx context.Context, name string, attrs ...attribute.KeyValue) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.AddEvent(name, trace.WithAttributes(attrs...))
	}
}

// notHealthCheck keeps probes out of the traces: each would be a trace of
// its own, every few seconds, from every service.
func notHealthCheck(r *http.Request) bool {
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		if r.URL.Path == p || strings.HasPrefix(r.URL.Path, p+"/") {
			return false
		}
	}
	return true
}

// Response is the W3C traceresponse header value for the span of ctx,
// "00-<trace id>-<span id>-<flags>"; empty when there is no span.
func Response(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return ""
	}
	return "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
}

// TraceID is the trace id of ctx's span, empty when there is none.
func TraceID(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return ""
	}
	return sc.TraceID().String()
}
