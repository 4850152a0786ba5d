package stats

import (
	"sync"
	"testing"
	"time"
)

func TestRecorderSeparatesFailures(t *testing.T) {
	var r Recorder
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				r.Observe(time.Millisecond, "")
			}
			r.Observe(time.Nanosecond, "409")
			r.Observe(time.Nanosecond, "transport")
		})
	}
	wg.Wait()
	s := r.Snapshot()
	if s.Total() != 408 || s.Failures() != 8 || s.Latency.Count() != 400 {
		t.Fatalf("total/failures/ok = %d/%d/%d, want 408/8/400", s.Total(), s.Failures(), s.Latency.Count())
	}
	if s.Errors["409"] != 4 || s.Errors["transport"] != 4 {
		t.Errorf("errors = %v, want 409:4 transport:4", s.Errors)
	}
	// A failure's 1ns must not drag the percentiles down.
	if s.Latency.Min() != time.Millisecond {
		t.Errorf("min latency = %v, want 1ms (failures excluded)", s.Latency.Min())
	}
}

func TestRecorderMerge(t *testing.T) {
	var a, b Recorder
	a.Observe(time.Millisecond, "")
	b.Observe(2*time.Millisecond, "")
	b.Observe(0, "500")
	a.Merge(&b)
	s := a.Snapshot()
	if s.Total() != 3 || s.Errors["500"] != 1 || s.Latency.Max() != 2*time.Millisecond {
		t.Errorf("merged total/500s/max = %d/%d/%v, want 3/1/2ms", s.Total(), s.Errors["500"], s.Latency.Max())
	}
	var empty Recorder
	if e := empty.Snapshot().Errors; e == nil {
		t.Error("empty snapshot Errors is nil, want an empty map")
	}
}
