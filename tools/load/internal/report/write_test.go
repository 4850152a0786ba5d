package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func sample() *Result {
	return &Result{
		Op:              "mixed",
		Concurrency:     16,
		DurationSeconds: 20,
		Summary: Summary{
			Total: 2000, Errors: map[string]uint64{"409": 3, "transport": 1}, ErrorRate: 0.002,
			RequestsPerSecond: 100, Latency: Latency{P50: 1.5, P90: 3, P99: 12.25, Max: 250},
		},
		ByOp: map[string]Summary{
			"get":  {Total: 1400, Errors: map[string]uint64{}, RequestsPerSecond: 70, Latency: Latency{P50: 1}},
			"list": {Total: 200, Errors: map[string]uint64{}, RequestsPerSecond: 10, Latency: Latency{P50: 9}},
		},
	}
}

func TestWriteJSONFlatFields(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, sample(), "json"); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, buf.String())
	}
	// make bench reads these at the top level.
	want := map[string]any{
		"op": "mixed", "concurrency": 16.0, "duration_seconds": 20.0, "total": 2000.0,
		"error_rate": 0.002, "requests_per_second": 100.0,
		"p50_ms": 1.5, "p90_ms": 3.0, "p99_ms": 12.25, "max_ms": 250.0,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if errs, _ := got["errors"].(map[string]any); errs["409"] != 3.0 || errs["transport"] != 1.0 {
		t.Errorf("errors = %v, want 409:3 transport:1", got["errors"])
	}
	if byOp, _ := got["by_op"].(map[string]any); byOp["list"].(map[string]any)["p50_ms"] != 9.0 {
		t.Errorf("by_op.list.p50_ms = %v, want 9", byOp["list"])
	}
	if _, ok := got["watch"]; ok {
		t.Error("watch present for a mixed run, want it omitted")
	}
}

func TestWriteJSONWatch(t *testing.T) {
	r := &Result{Op: "watch", Summary: Summary{Total: 200, Errors: map[string]uint64{}},
		Watch: &Watch{Watchers: 50, Updates: 200, Expected: 10000, Delivered: 9999, Latency: Latency{P99: 4}}}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Watch map[string]float64 `json:"watch"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Watch["events_expected"] != 10000 || got.Watch["events_delivered"] != 9999 || got.Watch["p99_ms"] != 4 {
		t.Errorf("watch = %v, want expected 10000, delivered 9999, p99 4", got.Watch)
	}
}

func TestWriteText(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, sample(), "text"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"op:           mixed\n",
		"concurrency:  16\n",
		"duration:     20.00s\n",
		"requests:     2000\n",
		"errors:       4 (0.20%) 409=3 transport=1\n",
		"requests/s:   100.0\n",
		"latency:      p50 1.50ms  p90 3.00ms  p99 12.25ms  max 250ms\n",
		"  get:",
		"  list:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "  get:") > strings.Index(out, "  list:") {
		t.Errorf("per-op lines not sorted:\n%s", out)
	}
}

func TestWriteTextWatch(t *testing.T) {
	r := &Result{Op: "watch", Summary: Summary{Errors: map[string]uint64{}},
		Watch: &Watch{Watchers: 2, Updates: 3, Expected: 6, Delivered: 5, Latency: Latency{P50: 0.25}}}
	var buf bytes.Buffer
	if err := WriteText(&buf, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"watchers:     2\n", "events:       5 of 6 delivered (3 updates)\n", "delivery:     p50 0.250ms"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, buf.String())
		}
	}
}
