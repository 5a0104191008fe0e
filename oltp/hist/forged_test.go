package hist

import (
	"fmt"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// forged is a Snapshot whose exact figures are those of values and whose
// HDR counts are encoded from a histogram of geometry lo..hi at sig
// digits holding counted (nil: values): another tool's, or an edited file.
func forged(t *testing.T, values []time.Duration, lo, hi int64, sig int, counted []int64) Snapshot {
	t.Helper()
	h := New()
	for _, v := range values {
		h.Record(v)
	}
	s := h.Snapshot()
	if counted == nil {
		for _, v := range values {
			counted = append(counted, int64(v))
		}
	}
	o := hdr.New(lo, hi, sig)
	for _, v := range counted {
		if err := o.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	b, err := o.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	s.HDR = string(b)
	return s
}

// TestSnapshotRefusesForgedCounts: HDR counts that are not the
// histogram's (another geometry, a smallest or largest value, a mean or a
// total that disagrees with the exact figures) are refused, saying what
// differs, rather than giving percentiles of another histogram beside the
// exact average; vmbench's own snapshots, clamped and negative values
// included, are accepted.
func TestSnapshotRefusesForgedCounts(t *testing.T) {
	const day = int64(24 * time.Hour)
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	// 8.24 ms on average, as in the report of issue 25.
	values := []time.Duration{ms(1), ms(1.02), ms(1.02), ms(2), ms(3), ms(5), ms(8), ms(13), ms(21), ms(27.33)}
	us := make([]int64, len(values)) // the same latencies counted in µs
	for i, v := range values {
		us[i] = v.Microseconds()
	}
	n := len(values)
	lower := make([]int64, n) // the largest value counted as the one below it
	for i, v := range values {
		lower[i] = int64(v)
	}
	lower[n-1] = lower[n-2]
	bulk := make([]int64, n) // smallest and largest kept, the rest counted as the smallest
	for i := range bulk {
		bulk[i] = int64(values[0])
	}
	bulk[n-1] = int64(values[n-1])
	var sum time.Duration
	for _, v := range values {
		sum += v
	}
	mean := sum / time.Duration(n)
	for _, tc := range []struct {
		name string
		s    Snapshot
		want string // "" when accepted
	}{
		{"vmbench's own", forged(t, values, 1, day, 3, nil), ""},
		{"clamped and negative values", forged(t, []time.Duration{-5, ms(3), 25 * time.Hour}, 1, day, 3, []int64{0, int64(ms(3)), day}), ""},
		{"counted in µs", forged(t, values, 1, day, 3, us),
			"hist: snapshot's HDR counts have their smallest value at 1µs, but min_ns is " + values[0].String()},
		{"lowest trackable value 1000", forged(t, values, 1000, day, 3, nil),
			fmt.Sprintf("hist: snapshot's HDR histogram tracks 1000 ns to %d ns at 3 significant digits, not 1 ns to %d ns (24h0m0s) at 3", day, day)},
		{"highest trackable value 1 h", forged(t, values, 1, int64(time.Hour), 3, nil),
			fmt.Sprintf("tracks 1 ns to %d ns at 3 significant digits", int64(time.Hour))},
		{"2 significant digits", forged(t, values, 1, day, 2, nil), fmt.Sprintf("tracks 1 ns to %d ns at 2 significant digits", day)},
		{"the largest value counted lower", forged(t, values, 1, day, 3, lower), "their largest value at " + strings.TrimSuffix(values[n-2].String(), "ms")},
		{"the largest value counted lower, max_ns named", forged(t, values, 1, day, 3, lower), ", but max_ns is " + values[n-1].String()},
		{"the bulk counted at the smallest", forged(t, values, 1, day, 3, bulk), "but sum_ns / count is " + mean.String()},
		{"one value fewer", forged(t, values, 1, day, 3, lower[:n-1]), fmt.Sprintf("hist: snapshot holds %d values but says count %d", n-1, n)},
	} {
		_, err := tc.s.Histogram()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}
