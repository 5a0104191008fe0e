// Package hist records operation latencies into HDR histograms.
//
// A Histogram keeps an HDR histogram (hdrhistogram-go) with 3 significant
// digits over 1 ns .. 24 h, so any percentile it reports is within 0.1% of
// the recorded value, together with the exact count, sum, minimum and
// maximum, which never come from buckets. Values above 24 h are recorded at
// 24 h and counted in Clamped, so nothing is dropped silently.
//
// Workers record through a per-worker Handle without locks; a Registry turns
// the handles into interval and cumulative views at each tick.
package hist

import (
	"encoding/base64"
	"fmt"
	"math"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

const (
	// Highest is the largest latency a histogram tracks exactly (24 h).
	Highest = 24 * time.Hour
	// SignificantDigits is the HDR precision: 3 digits means a reported
	// percentile is within 0.1% of the true recorded value.
	SignificantDigits = 3
)

// Histogram is a latency histogram with exact count, sum, min and max.
// The zero value is not usable; call New. A Histogram is not safe for
// concurrent use; Handle and Registry arrange that only one goroutine
// touches one at a time.
type Histogram struct {
	h       *hdr.Histogram
	sum     time.Duration
	min     time.Duration
	max     time.Duration
	clamped int64
}

// New returns an empty histogram covering 1 ns .. Highest.
func New() *Histogram {
	return &Histogram{h: hdr.New(1, int64(Highest), SignificantDigits), min: math.MaxInt64}
}

// Record adds one latency. Negative values count as 0; values above
// Highest are recorded as Highest and counted in Clamped.
func (h *Histogram) Record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	v := d
	if v > Highest {
		v = Highest
		h.clamped++
	}
	_ = h.h.RecordValue(int64(v)) // cannot fail: v is within range
	h.sum += d
	if d < h.min {
		h.min = d
	}
	if d > h.max {
		h.max = d
	}
}

// Merge adds every value of o into h exactly (counts, sum, min, max).
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || o.Count() == 0 {
		return
	}
	h.h.Merge(o.h)
	h.sum += o.sum
	h.clamped += o.clamped
	h.min = min(h.min, o.min)
	h.max = max(h.max, o.max)
}

// Reset empties h. An empty h costs nothing to reset (the HDR counts,
// hundreds of KiB, are cleared only when something was recorded), which
// matters to a Registry ticking many handles on a starved host.
func (h *Histogram) Reset() {
	if h.h.TotalCount() != 0 {
		h.h.Reset()
	}
	h.sum, h.max, h.clamped, h.min = 0, 0, 0, math.MaxInt64
}

// Clone returns a deep copy of h.
func (h *Histogram) Clone() *Histogram {
	c := *h
	c.h = hdr.Import(h.h.Export())
	return &c
}

// Count is the number of recorded values.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Sum is the exact sum of recorded values.
func (h *Histogram) Sum() time.Duration { return h.sum }

// Min is the exact smallest recorded value (0 when empty).
func (h *Histogram) Min() time.Duration {
	if h.Count() == 0 {
		return 0
	}
	return h.min
}

// Max is the exact largest recorded value (0 when empty).
func (h *Histogram) Max() time.Duration { return h.max }

// Clamped counts values above Highest that were recorded as Highest.
func (h *Histogram) Clamped() int64 { return h.clamped }

// Mean is the exact average, Sum / Count (0 when empty).
func (h *Histogram) Mean() time.Duration {
	n := h.Count()
	if n == 0 {
		return 0
	}
	return time.Duration(float64(h.sum) / float64(n))
}

// Percentile returns the value at percentile p (0..100): the smallest
// recorded value v such that p% of the values are <= v, within 0.1%. The
// result is clamped to the exact [Min, Max]. Empty histograms return 0.
func (h *Histogram) Percentile(p float64) time.Duration {
	if h.Count() == 0 {
		return 0
	}
	v := time.Duration(h.h.ValueAtPercentile(p))
	return min(max(v, h.Min()), h.max)
}

// Snapshot is the serialisable form of a Histogram, as stored in Results:
// exact figures in nanoseconds and the HDR counts in the standard V2
// compressed encoding (base64), which any HDR implementation can read.
type Snapshot struct {
	Count   int64  `json:"count"`
	SumNs   int64  `json:"sum_ns"`
	MinNs   int64  `json:"min_ns"`
	MaxNs   int64  `json:"max_ns"`
	Clamped int64  `json:"clamped,omitempty"`
	HDR     string `json:"hdr,omitempty"`
}

// Snapshot encodes h.
func (h *Histogram) Snapshot() Snapshot {
	s := Snapshot{Count: h.Count(), SumNs: int64(h.sum), MinNs: int64(h.Min()), MaxNs: int64(h.max), Clamped: h.clamped}
	if s.Count > 0 {
		b, err := h.h.Encode(hdr.V2CompressedEncodingCookieBase)
		if err != nil {
			panic(fmt.Sprintf("hist: encoding a histogram failed: %v", err)) // programmer error: fixed geometry
		}
		s.HDR = string(b)
	}
	return s
}

// Histogram decodes s. It returns an error when the encoding is corrupt
// or is not what Snapshot writes for s's figures (check): another
// geometry, another count, a smallest or largest value or a mean that
// disagrees with s's exact ones.
func (s Snapshot) Histogram() (*Histogram, error) {
	h := New()
	if s.Count == 0 {
		return h, nil
	}
	if _, err := base64.StdEncoding.DecodeString(s.HDR); err != nil {
		return nil, fmt.Errorf("hist: snapshot is not base64: %w", err)
	}
	d, err := hdr.Decode([]byte(s.HDR))
	if err != nil {
		return nil, fmt.Errorf("hist: decoding snapshot: %w", err)
	}
	if err := s.check(d); err != nil {
		return nil, err
	}
	h.h.Merge(d)
	h.sum, h.min, h.max, h.clamped = time.Duration(s.SumNs), time.Duration(s.MinNs), time.Duration(s.MaxNs), s.Clamped
	return h, nil
}

// check refuses d, the HDR counts decoded from s, when they are not what
// Snapshot writes for s's exact figures: a geometry other than New's (1
// ns to Highest at SignificantDigits: the counts' indexes would mean other
// values), a total other than Count, a smallest or largest recorded value
// that is not MinNs or MaxNs within the counts' resolution (0.1%; values
// above Highest are counted at Highest), or a mean over the counts more
// than the resolution from SumNs / Count. Percentiles come from the
// counts and the average from SumNs, so counts that do not match would
// put them side by side from two different histograms.
func (s Snapshot) check(d *hdr.Histogram) error {
	if lo, hi, sig := d.LowestTrackableValue(), d.HighestTrackableValue(), d.SignificantFigures(); lo != 1 || hi != int64(Highest) || sig != SignificantDigits {
		return fmt.Errorf("hist: snapshot's HDR histogram tracks %d ns to %d ns at %d significant digits, not 1 ns to %d ns (%s) at %d as vmbench writes it: its counts are not this histogram's",
			lo, hi, sig, int64(Highest), Highest, SignificantDigits)
	}
	if d.TotalCount() != s.Count {
		return fmt.Errorf("hist: snapshot holds %d values but says count %d", d.TotalCount(), s.Count)
	}
	inRange := func(v int64) int64 { return min(max(v, 0), int64(Highest)) }
	for _, e := range []struct {
		which, field string
		exact, hdrV  int64
	}{{"smallest", "min_ns", s.MinNs, d.Min()}, {"largest", "max_ns", s.MaxNs, d.Max()}} {
		if !d.ValuesAreEquivalent(inRange(e.exact), e.hdrV) {
			return fmt.Errorf("hist: snapshot's HDR counts have their %s value at %s, but %s is %s (beyond the counts' 0.1%% resolution): its counts are not this histogram's",
				e.which, time.Duration(e.hdrV), e.field, time.Duration(e.exact))
		}
	}
	if s.Clamped == 0 {
		exact := float64(s.SumNs) / float64(s.Count)
		// Each value is counted at most half a bucket (1/2048 of it) from
		// itself, so the mean over the counts is that close to the exact
		// mean; 0.1% and 1 ns leave room for float rounding.
		if mean := d.Mean(); math.Abs(mean-exact) > exact/1000+1 {
			return fmt.Errorf("hist: snapshot's HDR counts average %s, but sum_ns / count is %s (beyond the counts' 0.1%% resolution): its counts are not this histogram's",
				time.Duration(mean), time.Duration(exact))
		}
	}
	return nil
}
