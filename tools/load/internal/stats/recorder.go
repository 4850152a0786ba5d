package stats

import (
	"maps"
	"sync"
	"time"
)

// Recorder collects the outcome of requests: the latency of each success and
// a count of failures by code. Workers share one, so it is safe for concurrent
// use; a lock costs far less than the request it guards.
type Recorder struct {
	mu      sync.Mutex
	latency Histogram
	errors  map[string]uint64
}

// Observe records one request that took d. An empty code is a success and
// goes into the latency histogram; any other code is a failure counted under
// that code. Failures stay out of the percentiles, because a fast rejection
// would otherwise look like a fast request.
func (r *Recorder) Observe(d time.Duration, code string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if code == "" {
		r.latency.Record(d)
		return
	}
	if r.errors == nil {
		r.errors = make(map[string]uint64)
	}
	r.errors[code]++
}

// Merge adds everything o recorded to r.
func (r *Recorder) Merge(o *Recorder) {
	snap := o.Snapshot()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.latency.Merge(&snap.Latency)
	for code, n := range snap.Errors {
		if r.errors == nil {
			r.errors = make(map[string]uint64)
		}
		r.errors[code] += n
	}
}

// Snapshot is a copy of what a Recorder has seen at one moment.
type Snapshot struct {
	// Latency holds the latency of every successful request.
	Latency Histogram
	// Errors counts failed requests by code; never nil.
	Errors map[string]uint64
}

// Snapshot copies the recorder's state, so it can be read while workers go on.
func (r *Recorder) Snapshot() Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	errs := maps.Clone(r.errors)
	if errs == nil {
		errs = make(map[string]uint64)
	}
	return Snapshot{Latency: r.latency, Errors: errs}
}

// Failures is the number of failed requests.
func (s Snapshot) Failures() uint64 {
	var n uint64
	for _, c := range s.Errors {
		n += c
	}
	return n
}

// Total is the number of requests, successful or not.
func (s Snapshot) Total() uint64 { return s.Latency.Count() + s.Failures() }
