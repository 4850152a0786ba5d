package tracing

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
)

// enabled records whether Setup installed a provider, so that Handler and
// Transport wrap nothing otherwise.
var enabled bool

// Enabled reports whether tracing was set up.
func Enabled() bool { return enabled }

// Options adjust Setup.
type Options struct {
	// Edge makes the service the edge of the system: clients' sampling
	// decisions are not trusted (see EdgeSampler).
	Edge bool
}

// Setup installs a tracer provider exporting over OTLP when the
// environment names an endpoint, with service as the default
// service.name. It returns the function that flushes and stops it (a no-op
// when nothing was installed).
func Setup(ctx context.Context, service string, opts Options) (func(context.Context) error, error) {
	if !configured() {
		return func(context.Context) error { return nil }, nil
	}
	exp, err := exporter(ctx)
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName(service)),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
	)
	if err != nil {
		return nil, fmt.Errorf("tracing: resource: %w", err)
	}
	tpOpts := []sdktrace.TracerProviderOption{sdktrace.WithBatcher(exp), sdktrace.WithResource(res)}
	if opts.Edge {
		tpOpts = append(tpOpts, sdktrace.WithSampler(EdgeSampler(samplerFromEnv())))
	}
	tp := sdktrace.NewTracerProvider(tpOpts...)
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	enabled = true
	return tp.Shutdown, nil
}

// configured reports whether the environment asks for traces to be sent.
func configured() bool {
	if os.Getenv("OTEL_TRACES_EXPORTER") == "none" || os.Getenv("OTEL_SDK_DISABLED") == "true" {
		return false
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// exporter is the OTLP exporter of the configured protocol; both read
// their endpoint, headers and TLS settings from the environment.
func exporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	proto := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if proto == "" {
		proto = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch strings.TrimSpace(proto) {
	case "", "http/protobuf":
		return otlptracehttp.New(ctx)
	case "grpc":
		return otlptracegrpc.New(ctx)
	}
	return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL %q is not supported (http/protobuf or grpc)", proto)
}
