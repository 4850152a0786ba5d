package report

import (
	"errors"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/tools/load/internal/stats"
)

func TestSummarize(t *testing.T) {
	var rec stats.Recorder
	for i := 1; i <= 99; i++ {
		rec.Observe(time.Duration(i)*time.Millisecond, "")
	}
	rec.Observe(time.Millisecond, "503")
	s := Summarize(rec.Snapshot(), 2*time.Second)
	if s.Total != 100 || s.Errors["503"] != 1 {
		t.Fatalf("total/503s = %d/%d, want 100/1", s.Total, s.Errors["503"])
	}
	if s.ErrorRate != 0.01 || s.RequestsPerSecond != 50 {
		t.Errorf("error rate/rps = %v/%v, want 0.01/50", s.ErrorRate, s.RequestsPerSecond)
	}
	// 99 successes of 1..99ms: nearest rank 50 is 50ms, rank 90 is 90ms, rank 99 is 99ms.
	want := Latency{P50: 50, P90: 90, P99: 99, Max: 99}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"p50", s.P50, want.P50}, {"p90", s.P90, want.P90}, {"p99", s.P99, want.P99}, {"max", s.Max, want.Max}} {
		if c.got < c.want*0.99 || c.got > c.want*1.01 {
			t.Errorf("%s = %vms, want %vms within 1%%", c.name, c.got, c.want)
		}
	}
}

func TestSummarizeEmpty(t *testing.T) {
	s := Summarize(stats.Snapshot{}, 0)
	if s.Errors == nil || s.Total != 0 || s.ErrorRate != 0 || s.RequestsPerSecond != 0 {
		t.Errorf("empty summary = %+v, want zeros and a non-nil Errors", s)
	}
}

func TestCheck(t *testing.T) {
	ok := Summary{Total: 1000, Errors: map[string]uint64{"409": 10}, ErrorRate: 0.01}
	cases := []struct {
		name string
		r    Result
		want []error
	}{
		{"exactly 1% passes", Result{Summary: ok}, nil},
		{"over 1% fails", Result{Summary: Summary{Total: 1000, ErrorRate: 0.011}}, []error{ErrTooManyErrors}},
		{"nothing measured fails", Result{}, []error{ErrNoRequests}},
		{"all events pass", Result{Summary: ok, Watch: &Watch{Expected: 10, Delivered: 10}}, nil},
		{"a lost event fails", Result{Summary: ok, Watch: &Watch{Expected: 10, Delivered: 9}}, []error{ErrLostEvents}},
	}
	for _, c := range cases {
		err := c.r.Check()
		if (err == nil) != (c.want == nil) {
			t.Errorf("%s: Check() = %v, want errors %v", c.name, err, c.want)
		}
		for _, w := range c.want {
			if !errors.Is(err, w) {
				t.Errorf("%s: Check() = %v, want it to wrap %v", c.name, err, w)
			}
		}
	}
}
