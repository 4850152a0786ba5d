package tracing

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

func TestRoute(t *testing.T) {
	for path, want := range map[string]string{
		"/api/v1/namespaces/a/configmaps/c":               "/api/v1/namespaces/{namespace}/configmaps/{name}",
		"/api/v1/namespaces/a/configmaps":                 "/api/v1/namespaces/{namespace}/configmaps",
		"/apis/apps/v1/namespaces/a/deployments/d/scale":  "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale",
		"/api/v1/namespaces/a":                            "/api/v1/namespaces/{name}",
		"/apis/rbac.authorization.k8s.io/v1/clusterroles": "/apis/rbac.authorization.k8s.io/v1/clusterroles",
		"/healthz": "/healthz",
	} {
		if got := Route(requestinfo.Parse("GET", path, "")); got != want {
			t.Errorf("Route(%s) = %s, want %s", path, got, want)
		}
	}
}

// A client's sampled traceparent does not make the edge sample a request
// its own sampler would not; its own spans' children follow them.
func TestEdgeSamplerIgnoresClientsFlag(t *testing.T) {
	s := EdgeSampler(sdktrace.NeverSample())
	tid := trace.TraceID{1, 2, 3}
	client := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{4}, TraceFlags: trace.FlagsSampled, Remote: true})
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), client)
	if d := s.ShouldSample(sdktrace.SamplingParameters{ParentContext: ctx, TraceID: tid}).Decision; d != sdktrace.Drop {
		t.Errorf("a client's sampled flag forced %v", d)
	}
	own := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{5}, TraceFlags: trace.FlagsSampled})
	ctx = trace.ContextWithSpanContext(context.Background(), own)
	if d := s.ShouldSample(sdktrace.SamplingParameters{ParentContext: ctx, TraceID: tid}).Decision; d != sdktrace.RecordAndSample {
		t.Errorf("a child of a sampled local span: %v", d)
	}
	always := EdgeSampler(sdktrace.AlwaysSample())
	unsampled := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{4}, Remote: true})
	ctx = trace.ContextWithRemoteSpanContext(context.Background(), unsampled)
	if d := always.ShouldSample(sdktrace.SamplingParameters{ParentContext: ctx, TraceID: tid}).Decision; d != sdktrace.RecordAndSample {
		t.Errorf("a client's unsampled flag suppressed sampling: %v", d)
	}
}
