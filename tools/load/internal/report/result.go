// Package report turns measurements into the tool's result and prints it as
// text or JSON.
package report

import (
	"errors"
	"fmt"
	"time"

	"github.com/kubesplit/kubesplit/tools/load/internal/stats"
)

// MaxErrorRate is the share of failed requests above which a run fails.
const MaxErrorRate = 0.01

// Errors a run can fail with, for errors.Is.
var (
	// ErrTooManyErrors means more than MaxErrorRate of requests failed.
	ErrTooManyErrors = errors.New("error rate over 1%")
	// ErrLostEvents means some watcher did not receive every update.
	ErrLostEvents = errors.New("watch events lost")
	// ErrNoRequests means no request completed in the measured span.
	ErrNoRequests = errors.New("no request completed")
)

// Latency is a set of percentiles, in milliseconds so JSON stays readable.
type Latency struct {
	P50 float64 `json:"p50_ms"`
	P90 float64 `json:"p90_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

// Summary describes a set of requests.
type Summary struct {
	// Total counts every request, successful or not.
	Total uint64 `json:"total"`
	// Errors counts failed requests by HTTP status code ("transport" for
	// those that got no response); never nil, so JSON shows {}.
	Errors map[string]uint64 `json:"errors"`
	// ErrorRate is failures over Total.
	ErrorRate float64 `json:"error_rate"`
	// RequestsPerSecond is Total over the measured span.
	RequestsPerSecond float64 `json:"requests_per_second"`
	// Latency is over the successful requests.
	Latency
}

// Watch is the delivery side of a watch run.
type Watch struct {
	Watchers  int    `json:"watchers"`
	Updates   int    `json:"updates"`
	Expected  uint64 `json:"events_expected"`
	Delivered uint64 `json:"events_delivered"`
	// Latency is from just before an update was sent to its arrival.
	Latency
}

// Result is everything a run reports. Its JSON form is one flat object with
// the request summary's fields at the top level, which `make bench` reads.
type Result struct {
	Op          string `json:"op"`
	Concurrency int    `json:"concurrency"`
	// DurationSeconds is the measured span (watch: of the updates).
	DurationSeconds float64 `json:"duration_seconds"`
	Summary
	// ByOp splits a mixed run by request kind.
	ByOp map[string]Summary `json:"by_op,omitempty"`
	// Watch is set for a watch run.
	Watch *Watch `json:"watch,omitempty"`
}

// NewLatency reads the percentiles off h.
func NewLatency(h *stats.Histogram) Latency {
	return Latency{
		P50: ms(h.Quantile(0.50)),
		P90: ms(h.Quantile(0.90)),
		P99: ms(h.Quantile(0.99)),
		Max: ms(h.Max()),
	}
}

// Summarize describes the requests in s, sent over elapsed.
func Summarize(s stats.Snapshot, elapsed time.Duration) Summary {
	sum := Summary{Total: s.Total(), Errors: s.Errors, Latency: NewLatency(&s.Latency)}
	if sum.Errors == nil {
		sum.Errors = map[string]uint64{}
	}
	if sum.Total > 0 {
		sum.ErrorRate = float64(s.Failures()) / float64(sum.Total)
	}
	if elapsed > 0 {
		sum.RequestsPerSecond = float64(sum.Total) / elapsed.Seconds()
	}
	return sum
}

// Check reports why the run failed, or nil: too many errors, a lost watch
// event, or nothing measured at all.
func (r *Result) Check() error {
	var errs []error
	if r.Total == 0 {
		errs = append(errs, ErrNoRequests)
	}
	if r.ErrorRate > MaxErrorRate {
		errs = append(errs, fmt.Errorf("%w: %.2f%% of %d requests failed", ErrTooManyErrors, r.ErrorRate*100, r.Total))
	}
	if r.Watch != nil && r.Watch.Delivered < r.Watch.Expected {
		errs = append(errs, fmt.Errorf("%w: %d of %d delivered", ErrLostEvents, r.Watch.Delivered, r.Watch.Expected))
	}
	return errors.Join(errs...)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
