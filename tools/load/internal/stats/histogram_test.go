package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestQuantileExactOnSmallSamples(t *testing.T) {
	var h Histogram
	// Record 1..100 in a shuffled order: the answer must not depend on it.
	for _, v := range rand.New(rand.NewPCG(1, 2)).Perm(100) {
		h.Record(time.Duration(v + 1))
	}
	cases := []struct {
		q    float64
		want time.Duration
	}{
		{0, 1}, {0.01, 1}, {0.29, 29}, {0.5, 50}, {0.9, 90}, {0.99, 99}, {0.999, 100}, {1, 100},
	}
	for _, c := range cases {
		if got := h.Quantile(c.q); got != c.want {
			t.Errorf("Quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if h.Count() != 100 || h.Min() != 1 || h.Max() != 100 {
		t.Errorf("count/min/max = %d/%v/%v, want 100/1ns/100ns", h.Count(), h.Min(), h.Max())
	}
	if got := h.Mean(); got != 50 { // 5050/100 in integer nanoseconds
		t.Errorf("Mean = %v, want 50ns", got)
	}
}

func TestQuantileWithinOnePercent(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	samples := make([]time.Duration, 20000)
	var h Histogram
	for i := range samples {
		// Log-uniform from 10µs to 10s: the range request latencies span.
		d := time.Duration(math.Exp(math.Log(1e4) + r.Float64()*math.Log(1e6)))
		samples[i] = d
		h.Record(d)
	}
	slices.Sort(samples)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		want := samples[int(math.Ceil(q*float64(len(samples))))-1]
		got := h.Quantile(q)
		if rel := math.Abs(float64(got-want)) / float64(want); rel > 0.01 {
			t.Errorf("Quantile(%v) = %v, exact %v: error %.3f%% > 1%%", q, got, want, rel*100)
		}
	}
	if h.Max() != samples[len(samples)-1] {
		t.Errorf("Max = %v, want exactly %v", h.Max(), samples[len(samples)-1])
	}
}

func TestQuantileEmpty(t *testing.T) {
	var h Histogram
	if got := h.Quantile(0.5); got != 0 {
		t.Errorf("empty Quantile = %v, want 0", got)
	}
	if h.Mean() != 0 || h.Max() != 0 {
		t.Errorf("empty Mean/Max = %v/%v, want 0", h.Mean(), h.Max())
	}
}

func TestQuantileSingleLargeSample(t *testing.T) {
	var h Histogram
	h.Record(1234567 * time.Microsecond)
	// Clamping to min/max makes a lone sample exact despite its wide bucket.
	if got := h.Quantile(0.5); got != 1234567*time.Microsecond {
		t.Errorf("Quantile(0.5) = %v, want 1.234567s", got)
	}
}

func TestMerge(t *testing.T) {
	var a, b Histogram
	for i := 1; i <= 50; i++ {
		a.Record(time.Duration(i))
		b.Record(time.Duration(i + 50))
	}
	var empty Histogram
	a.Merge(&empty)
	a.Merge(&b)
	if a.Count() != 100 || a.Min() != 1 || a.Max() != 100 {
		t.Fatalf("merged count/min/max = %d/%v/%v, want 100/1ns/100ns", a.Count(), a.Min(), a.Max())
	}
	if got := a.Quantile(0.75); got != 75 {
		t.Errorf("merged Quantile(0.75) = %v, want 75ns", got)
	}
	empty.Merge(&b)
	if empty.Min() != 51 {
		t.Errorf("merge into empty: Min = %v, want 51ns", empty.Min())
	}
}

func TestBucketsCoverEveryDuration(t *testing.T) {
	for _, v := range []uint64{0, 1, 255, 256, 257, 1 << 20, math.MaxInt64} {
		i := bucketOf(v)
		if i < 0 || i >= numBuckets {
			t.Fatalf("bucketOf(%d) = %d, outside [0, %d)", v, i, numBuckets)
		}
		mid := bucketMid(i)
		if rel := math.Abs(float64(mid)-float64(v)) / math.Max(float64(v), 1); rel > 0.005 {
			t.Errorf("bucketMid(bucketOf(%d)) = %d: error %.4f > 0.5%%", v, mid, rel)
		}
	}
	var h Histogram
	h.Record(-time.Second)
	if h.Max() != 0 || h.Count() != 1 {
		t.Errorf("negative sample: max/count = %v/%d, want 0/1", h.Max(), h.Count())
	}
}
