package tracing

import (
	"os"
	"strconv"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// samplerFromEnv is OTEL_TRACES_SAMPLER's sampler for traces that start
// here: the root part of a parentbased_* one.
func samplerFromEnv() sdktrace.Sampler {
	ratio := func() float64 {
		f, err := strconv.ParseFloat(os.Getenv("OTEL_TRACES_SAMPLER_ARG"), 64)
		if err != nil {
			return 1
		}
		return f
	}
	switch os.Getenv("OTEL_TRACES_SAMPLER") {
	case "always_off", "parentbased_always_off":
		return sdktrace.NeverSample()
	case "traceidratio", "parentbased_traceidratio":
		return sdktrace.TraceIDRatioBased(ratio())
	}
	return sdktrace.AlwaysSample()
}

// EdgeSampler decides with root alone for a request whose parent came from
// a client (a remote span context), keeping the client's trace id but not
// its sampled flag; spans this process starts under its own spans follow
// their parent.
func EdgeSampler(root sdktrace.Sampler) sdktrace.Sampler {
	return edgeSampler{root: root, local: sdktrace.ParentBased(root)}
}

type edgeSampler struct{ root, local sdktrace.Sampler }

func (s edgeSampler) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	parent := trace.SpanContextFromContext(p.ParentContext)
	if parent.IsValid() && parent.IsRemote() {
		res := s.root.ShouldSample(p)
		res.Tracestate = parent.TraceState()
		return res
	}
	return s.local.ShouldSample(p)
}

func (s edgeSampler) Description() string { return "EdgeSampler{" + s.root.Description() + "}" }
