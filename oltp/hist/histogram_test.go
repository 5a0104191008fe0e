package hist

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// exactPercentile is the reference: the smallest value v with at least p%
// of the values <= v (nearest-rank).
func exactPercentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(p/100*float64(len(sorted)) + 0.5)
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

func TestPercentileWithinOnePercent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lo, hi time.Duration
	}{
		{"1µs..10µs", time.Microsecond, 10 * time.Microsecond},
		{"100µs..50ms", 100 * time.Microsecond, 50 * time.Millisecond},
		{"1s..1h", time.Second, time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			h := New()
			var vals []time.Duration
			var sum time.Duration
			for range 20000 {
				v := tc.lo + time.Duration(rng.Int64N(int64(tc.hi-tc.lo)))
				vals = append(vals, v)
				sum += v
				h.Record(v)
			}
			slices.Sort(vals)
			for _, p := range []float64{50, 90, 95, 99, 99.9, 100} {
				want, got := exactPercentile(vals, p), h.Percentile(p)
				if rel := float64(got-want) / float64(want); rel < -0.01 || rel > 0.01 {
					t.Errorf("p%g = %v, exact %v (%.3f%% off, limit 1%%)", p, got, want, rel*100)
				}
			}
			if h.Sum() != sum || h.Min() != vals[0] || h.Max() != vals[len(vals)-1] || h.Count() != int64(len(vals)) {
				t.Errorf("exact stats: got sum %v min %v max %v count %d, want %v %v %v %d",
					h.Sum(), h.Min(), h.Max(), h.Count(), sum, vals[0], vals[len(vals)-1], len(vals))
			}
		})
	}
}

func TestClampedIsCounted(t *testing.T) {
	h := New()
	h.Record(25 * time.Hour)
	h.Record(time.Millisecond)
	if h.Clamped() != 1 || h.Count() != 2 || h.Max() != 25*time.Hour {
		t.Fatalf("clamped %d count %d max %v; want 1, 2, 25h", h.Clamped(), h.Count(), h.Max())
	}
	if p := h.Percentile(100); p < Highest || p > h.Max() {
		t.Fatalf("p100 = %v, want between %v (top of the range) and the exact max %v", p, Highest, h.Max())
	}
}

func TestMergeEqualsRecordingEverything(t *testing.T) {
	a, b, all := New(), New(), New()
	for i := range 1000 {
		d := time.Duration(i*i+1) * time.Microsecond
		if i%3 == 0 {
			a.Record(d)
		} else {
			b.Record(d)
		}
		all.Record(d)
	}
	a.Merge(b)
	for _, p := range []float64{1, 50, 99, 99.99} {
		if a.Percentile(p) != all.Percentile(p) {
			t.Errorf("p%g merged %v, direct %v", p, a.Percentile(p), all.Percentile(p))
		}
	}
	if a.Count() != all.Count() || a.Sum() != all.Sum() || a.Min() != all.Min() || a.Max() != all.Max() {
		t.Errorf("merged exact stats differ")
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	h := New()
	for i := range 500 {
		h.Record(time.Duration(i+1) * 37 * time.Microsecond)
	}
	got, err := h.Snapshot().Histogram()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []float64{0, 50, 95, 99, 100} {
		if got.Percentile(p) != h.Percentile(p) {
			t.Errorf("p%g after round trip %v, before %v", p, got.Percentile(p), h.Percentile(p))
		}
	}
	if got.Sum() != h.Sum() || got.Count() != h.Count() {
		t.Errorf("round trip lost exact stats")
	}
	bad := h.Snapshot()
	bad.Count++
	if _, err := bad.Histogram(); err == nil {
		t.Errorf("a snapshot whose count disagrees with its buckets was accepted")
	}
	empty, err := Snapshot{}.Histogram()
	if err != nil || empty.Count() != 0 || empty.Percentile(99) != 0 {
		t.Errorf("empty snapshot: %v %v", err, empty.Count())
	}
}
