// Package tracing is kubesplit's OpenTelemetry tracing, configured only by
// the standard environment: OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), OTEL_EXPORTER_OTLP_PROTOCOL
// ("http/protobuf", the default, or "grpc"), OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER and
// OTEL_TRACES_SAMPLER_ARG. Without an endpoint nothing is set up and
// nothing is wrapped: tracing then costs nothing.
//
// Every service makes a server span for each request (Handler) and a
// client span for each call (Transport), propagating W3C traceparent and
// tracestate, so one request through the five services is one trace.
//
// Clients cannot force sampling: at the edge (the aggregator, see
// EdgeSampler) a client's traceparent is continued, so its trace id
// correlates, but whether the request is sampled is the configured
// sampler's decision alone, as if the request had no parent.
// kube-apiserver trusts only privileged callers' trace context; this keeps
// every client's trace id and none's sampling flag.
package tracing
