package blockio

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"vmbench/oltp"
	"vmbench/oltp/hist"
	"vmbench/vdbench/internal/blocktest"
	"vmbench/vdbench/parmfile"
)

// intervalReport is the IntervalReport the runner gave for iv, an interval of
// the measure phase of r.
func intervalReport(t *testing.T, r *oltp.Result, iv oltp.Interval) oltp.IntervalReport {
	t.Helper()
	lat := make([]*hist.Histogram, len(iv.Ops))
	for k, o := range iv.Ops {
		h, err := o.Latency.Histogram()
		if err != nil {
			t.Fatal(err)
		}
		lat[k] = h
	}
	return oltp.IntervalReport{Phase: oltp.PhaseMeasure, At: iv.At, End: r.Start.Add(iv.At), Length: iv.Length,
		Latency: lat, Counters: iv.Counters}
}

// figuresOf returns the figures of the line labelled label (all fields
// after the time and the label).
func figuresOf(t *testing.T, text, label string) []string {
	t.Helper()
	for l := range strings.SplitSeq(text, "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[1] == label {
			return f[2:]
		}
	}
	t.Fatalf("no line %s in:\n%s", label, text)
	return nil
}

// TestAverageOfOneIntervalIsThatInterval: the avg line over one measure
// interval has that interval's figures exactly, also when the targets'
// timers ended their interval apart (skew), as on a loaded host; and
// the lines rendered from the merged Result (WriteIntervals, as a record
// is read back) are the printed ones. The per-target Results come from a
// run of two fake devices; the skew is then added to the second's
// interval and measured time, as a late timer makes them.
func TestAverageOfOneIntervalIsThatInterval(t *testing.T) {
	var perSD []*oltp.Result
	synctest.Test(t, func(t *testing.T) {
		const service = time.Millisecond + 300*time.Nanosecond
		devs := map[string]*blocktest.FakeDevice{
			"sd1": {Service: service, Block: 512, Size: gib},
			"sd2": {Service: 3 * service, Block: 512, Size: gib},
		}
		run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Max: true}, Elapsed: 2 * time.Second, Interval: time.Second},
			parmfile.WD{RdPct: 70, Seek: parmfile.Seek{Pct: 100}}, parmfile.SD{Name: "sd1", Lun: "fake0", Threads: 4}, parmfile.SD{Name: "sd2", Lun: "fake1", Threads: 4})
		cr, err := Execute(t.Context(), run, fakeOpts(devs))
		if err != nil {
			t.Fatal(err)
		}
		perSD = cr.Points[0].PerSD
	})
	for _, r := range perSD {
		if len(r.Intervals) != 1 || r.Intervals[0].Length != r.Elapsed {
			t.Fatalf("sd %s: %d measure intervals, the first %v long over %v measured; want one, as long as the phase",
				r.Labels["sd"], len(r.Intervals), r.Intervals[0].Length, r.Elapsed)
		}
	}
	for _, skew := range []time.Duration{0, 70 * time.Microsecond, 3 * time.Millisecond} {
		c := *perSD[1]
		late := &c
		parts := []*oltp.Result{perSD[0], late}
		late.Intervals = slices.Clone(late.Intervals)
		late.Intervals[0].Length += skew
		late.Intervals[0].At += skew
		late.Elapsed += skew
		late.End = late.End.Add(skew)
		merged, err := oltp.MergeConcurrent(parts...)
		if err != nil {
			t.Fatal(err)
		}
		var printed strings.Builder
		p := newIntervalPrinter(&printed, len(parts))
		for i, r := range parts {
			p.add(i, intervalReport(t, r, r.Intervals[0]))
		}
		p.average(merged)
		var rendered strings.Builder
		merged.Precondition = nil // the measure phase alone: its interval is 1
		if err := WriteIntervals(&rendered, Point{Result: merged}); err != nil {
			t.Fatal(err)
		}
		iv, avg := figuresOf(t, printed.String(), "1"), figuresOf(t, printed.String(), "avg_1-1")
		if !slices.Equal(iv, avg) {
			t.Errorf("skew %v: avg_1-1 %v differs from its interval %v", skew, avg, iv)
		}
		if r := figuresOf(t, rendered.String(), "1"); !slices.Equal(r, iv) || !slices.Equal(figuresOf(t, rendered.String(), "avg_1-1"), avg) {
			t.Errorf("skew %v: lines rendered from the Result %v differ from those printed %v", skew, r, iv)
		}
	}
}
