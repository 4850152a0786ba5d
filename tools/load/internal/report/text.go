package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// WriteText prints r for a person: one field a line, aligned.
func WriteText(w io.Writer, r *Result) error {
	var b strings.Builder
	line := func(name, format string, args ...any) {
		fmt.Fprintf(&b, "%-13s %s\n", name+":", fmt.Sprintf(format, args...))
	}
	line("op", "%s", r.Op)
	line("concurrency", "%d", r.Concurrency)
	line("duration", "%.2fs", r.DurationSeconds)
	line("requests", "%d", r.Total)
	line("errors", "%s", errorText(r.Summary))
	line("requests/s", "%.1f", r.RequestsPerSecond)
	line("latency", "%s", latencyText(r.Latency))
	for _, op := range slices.Sorted(maps.Keys(r.ByOp)) {
		s := r.ByOp[op]
		line("  "+op, "%d requests, %.1f/s, errors %s, %s", s.Total, s.RequestsPerSecond, errorText(s), latencyText(s.Latency))
	}
	if wr := r.Watch; wr != nil {
		line("watchers", "%d", wr.Watchers)
		line("events", "%d of %d delivered (%d updates)", wr.Delivered, wr.Expected, wr.Updates)
		line("delivery", "%s", latencyText(wr.Latency))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// errorText is the failure count, its share, and the count by code.
func errorText(s Summary) string {
	var n uint64
	for _, c := range s.Errors {
		n += c
	}
	out := fmt.Sprintf("%d (%.2f%%)", n, s.ErrorRate*100)
	for _, code := range slices.Sorted(maps.Keys(s.Errors)) {
		out += fmt.Sprintf(" %s=%d", code, s.Errors[code])
	}
	return out
}

func latencyText(l Latency) string {
	return fmt.Sprintf("p50 %s  p90 %s  p99 %s  max %s", msText(l.P50), msText(l.P90), msText(l.P99), msText(l.Max))
}

// msText keeps three significant digits or so at every scale.
func msText(v float64) string {
	switch {
	case v < 1:
		return fmt.Sprintf("%.3fms", v)
	case v < 100:
		return fmt.Sprintf("%.2fms", v)
	default:
		return fmt.Sprintf("%.0fms", v)
	}
}
