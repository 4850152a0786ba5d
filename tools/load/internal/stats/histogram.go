// Package stats records request latencies and outcomes and answers percentile
// queries over them.
package stats

import (
	"math"
	"math/bits"
	"time"
)

// subBits sets the precision: each power-of-two range of values is split into
// 2^subBits buckets, so a bucket is at most 1/128 of its lower bound wide and
// its midpoint is within 0.4% of any value in it. Values below 2^(subBits+1)
// get a bucket each and are exact.
const subBits = 7

// numBuckets covers every non-negative int64: the largest shift is
// 63-(subBits+1), and a shift's buckets end at (shift+2)<<subBits.
const numBuckets = (64 - subBits) << subBits

// Histogram is an HDR-style log-linear histogram of durations. Keeping counts
// per bucket instead of every sample bounds memory whatever the run length,
// at a relative error under 1%. The zero value is empty and ready to use; it
// is not safe for concurrent use (see Recorder).
type Histogram struct {
	counts   [numBuckets]uint64
	count    uint64
	sum      time.Duration
	min, max time.Duration
}

// bucketOf maps a value to its bucket index. Dropping the low shift bits keeps
// the top subBits+1 significant bits, and the shift tells which
// power-of-two range those bits came from.
func bucketOf(v uint64) int {
	shift := max(bits.Len64(v)-(subBits+1), 0)
	return shift<<subBits + int(v>>uint(shift))
}

// bucketMid is the midpoint of the values bucketOf maps to index i.
func bucketMid(i int) uint64 {
	shift := max(i>>subBits-1, 0)
	lower := uint64(i-shift<<subBits) << uint(shift)
	return lower + (uint64(1)<<uint(shift))>>1
}

// Record adds one sample. Negative durations, which a wall clock stepping
// back can produce, count as zero.
func (h *Histogram) Record(d time.Duration) {
	d = max(d, 0)
	h.counts[bucketOf(uint64(d))]++
	if h.count == 0 || d < h.min {
		h.min = d
	}
	if d > h.max {
		h.max = d
	}
	h.count++
	h.sum += d
}

// Merge adds every sample of o to h.
func (h *Histogram) Merge(o *Histogram) {
	if o.count == 0 {
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.count == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.count += o.count
	h.sum += o.sum
}

// Count is the number of samples recorded.
func (h *Histogram) Count() uint64 { return h.count }

// Max is the largest sample, exactly; zero when empty.
func (h *Histogram) Max() time.Duration { return h.max }

// Min is the smallest sample, exactly; zero when empty.
func (h *Histogram) Min() time.Duration { return h.min }

// Mean is the average sample, exactly; zero when empty.
func (h *Histogram) Mean() time.Duration {
	if h.count == 0 {
		return 0
	}
	return h.sum / time.Duration(h.count)
}

// Quantile returns the nearest-rank q-quantile (q in [0, 1]): the smallest
// sample that at least q of all samples are less than or equal to. It is exact
// below 256ns and within 1% above; q <= 0 gives Min, q >= 1 gives Max, and an
// empty histogram gives zero.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.count == 0 {
		return 0
	}
	if q <= 0 {
		return h.min
	}
	if q >= 1 {
		return h.max
	}
	// The epsilon keeps products such as 0.29*100, which float arithmetic
	// makes 29.000000000000004, from rounding up a whole rank.
	rank := max(uint64(math.Ceil(q*float64(h.count)-1e-9)), 1)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			// The midpoint can fall outside the samples actually seen when
			// a bucket holds the extremes; the exact ones are better.
			return min(max(time.Duration(bucketMid(i)), h.min), h.max)
		}
	}
	return h.max
}
