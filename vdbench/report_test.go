package vdbench

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vmbench/internal/golden"
	"vmbench/oltp"
	"vmbench/oltp/hist"
	"vmbench/vdbench/blockio"
	"vmbench/vdbench/internal/blocktest"
)

var reportStart = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// testCurve is a curve of a device that does 4,000 IOPS, with mean
// service times that rise with the rate.
func testCurve() *blockio.CurveResult {
	type pt struct {
		label          string
		req, got       float64
		lat, intended  time.Duration
		spread, writes int
	}
	c := &blockio.CurveResult{Run: "rd1_xfer=4k", Warnings: []string{"rd=rd1: stopcurve=2.000 ms: the mean response time at 120% was 2.100 ms; the 1 remaining points were skipped"}}
	for _, p := range []pt{
		{"max", 0, 4000, 1000 * time.Microsecond, 0, 200, 1000},
		{"10%", 400, 400, 60 * time.Microsecond, 62 * time.Microsecond, 10, 100},
		{"50%", 2000, 2000, 90 * time.Microsecond, 95 * time.Microsecond, 20, 500},
		{"70%", 2800, 2800, 150 * time.Microsecond, 170 * time.Microsecond, 30, 700},
		{"100%", 4000, 3990, 800 * time.Microsecond, 1500 * time.Microsecond, 100, 1000},
		{"120%", 4800, 4000, 1200 * time.Microsecond, 900 * time.Millisecond, 200, 1000},
	} {
		n := int(p.got)
		lats := make([]time.Duration, n)
		for i := range lats {
			// A spread around the mean: lat - spread µs .. lat + spread µs.
			lats[i] = p.lat + time.Duration((i%21)-10)*time.Duration(p.spread)*time.Microsecond/10
		}
		res := blocktest.Result(reportStart, time.Second, lats[p.writes:], lats[:p.writes], false)
		if p.req > 0 {
			res.Loop = oltp.OpenLoop
			for i := range res.Ops {
				h := hist.New()
				shift := p.intended - p.lat
				hs, _ := res.Ops[i].Latency.Histogram()
				for k := int64(0); k < hs.Count(); k++ {
					h.Record(hs.Mean() + shift + time.Duration(k%7)*time.Microsecond)
				}
				s := h.Snapshot()
				res.Ops[i].Intended = &s
			}
		}
		if p.label != "120%" { // a point without a client cost prints "-"
			res.Client = &oltp.ClientCost{Processes: 1, Cores: 2, UserCPU: time.Duration(n) * 9 * time.Microsecond,
				SystemCPU: time.Duration(n) * 3 * time.Microsecond, Start: reportStart, End: reportStart.Add(time.Second)}
		}
		pt := blockio.Point{Label: p.label, Requested: p.req, Achieved: p.got,
			Saturated: p.req > 0 && p.got < blockio.SaturationRatio*p.req, Result: res}
		pt.Flag = blockio.PointFlag(pt)
		c.Points = append(c.Points, pt)
	}
	return c
}

func TestWriteCurveGolden(t *testing.T) {
	var b strings.Builder
	if err := WriteCurve(&b, testCurve()); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "report_curve.golden"), []byte(b.String()))
}

func TestWriteSummaryGolden(t *testing.T) {
	var b strings.Builder
	if err := WriteSummary(&b, Summarize(testCurve())); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "report_summary.golden"), []byte(b.String()))
}

func TestSummarize(t *testing.T) {
	s := Summarize(testCurve())
	near := func(a, b float64) bool { return math.Abs(a-b) < 1 }
	nearLat := func(a, b time.Duration) bool { return (a - b).Abs() < time.Microsecond }
	// Start: the 10% point. 100 µs is crossed between 50% (2000 @ 90 µs)
	// and 70% (2800 @ 150 µs): 2000 + 10/60 × 800. 1 ms between 100%
	// (3990 @ 800 µs) and 120% (4000 @ 1.2 ms): 3990 + 200/400 × 10. The
	// peak is the max run (4000, first of the two at 4000).
	if s.StartIOPS != 400 || !nearLat(s.StartLatency, 60*time.Microsecond) ||
		!near(s.Cross100us.IOPS, 2000+800.0/6) || s.Cross100us.NotReached || s.Cross100us.AboveAtStart ||
		!near(s.Cross1ms.IOPS, 3995) || s.PeakIOPS != 4000 || s.PeakLabel != "max" || !nearLat(s.PeakLatency, time.Millisecond) ||
		!near(s.PeakGBps*1e9, 4000*4096) {
		t.Errorf("summary %+v", s)
	}
	c := testCurve()
	c.Points = c.Points[:3] // max, 10%, 50%: 1 ms is never reached
	s = Summarize(c)
	if !s.Cross1ms.NotReached || s.Cross1ms.IOPS != 2000 {
		t.Errorf("1 ms crossing %+v, want not reached below 2000 IOPS", s.Cross1ms)
	}
	c.Points = []blockio.Point{c.Points[0]} // iorate=max alone: start and peak are the max run (at 999.7 µs)
	s = Summarize(c)
	if s.StartIOPS != 4000 || s.PeakIOPS != 4000 || !s.Cross100us.AboveAtStart || !s.Cross1ms.NotReached {
		t.Errorf("max-only summary %+v", s)
	}
	if s := Summarize(&blockio.CurveResult{Run: "x"}); s.PeakIOPS != 0 || s.StartIOPS != 0 {
		t.Errorf("empty summary %+v", s)
	}
}

// TestWriteCurveNamesTheEngine: the caption says which engine issued the
// I/O and what its service time is.
func TestWriteCurveNamesTheEngine(t *testing.T) {
	c := testCurve()
	for _, p := range c.Points {
		p.Result.Flags = map[string]string{"ioengine": blockio.EngineURing}
	}
	var b strings.Builder
	if err := WriteCurve(&b, c); err != nil {
		t.Fatal(err)
	}
	want := "rd=rd1_xfer=4k, ioengine=io_uring: service time is each I/O's time from the io_uring_enter that submits it to its reaped completion;"
	if !strings.HasPrefix(b.String(), want) {
		t.Errorf("caption:\n%s\nwant it to start with\n%s", b.String(), want)
	}
}

// TestWriteCurveMarksClientBound: a point whose client used more than
// 80% of its cores (oltp.ClientCost.Bound) says CLIENT-BOUND in its flag;
// one at 50% does not.
func TestWriteCurveMarksClientBound(t *testing.T) {
	c := testCurve()
	start := c.Points[0].Result.Start
	for i, p := range c.Points {
		share := 0.5
		if i == 1 {
			share = 0.9
		}
		p.Result.Client = &oltp.ClientCost{Cores: 2, UserCPU: time.Duration(share * 2 * float64(10*time.Second)),
			Start: start, End: start.Add(10 * time.Second)}
	}
	var b strings.Builder
	if err := WriteCurve(&b, c); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	var marked []string
	for _, l := range lines {
		if strings.Contains(l, "CLIENT-BOUND") {
			marked = append(marked, strings.Fields(l)[0])
		}
	}
	if len(marked) != 1 || marked[0] != c.Points[1].Label {
		t.Errorf("points marked CLIENT-BOUND: %v, want only %s\n%s", marked, c.Points[1].Label, b.String())
	}
}

// TestStartText: a start point that fell short of its request says so,
// with its share; one that kept up, or a max-rate start, does not.
func TestStartText(t *testing.T) {
	for _, c := range []struct {
		s    Summary
		want string
	}{
		{Summary{StartIOPS: 624, StartLatency: 12449 * time.Microsecond, StartRequested: 3400}, "624 IOPS @ 12.449 ms (saturated: 18% of 3,400 requested)"},
		{Summary{StartIOPS: 3350, StartLatency: 90 * time.Microsecond, StartRequested: 3400}, "3,350 IOPS @ 90.0 µs"},
		{Summary{StartIOPS: 9000, StartLatency: time.Millisecond}, "9,000 IOPS @ 1.000 ms"},
	} {
		if got := StartText(c.s); got != c.want {
			t.Errorf("StartText(%+v) = %q, want %q", c.s, got, c.want)
		}
	}
}

// TestWriteCurveShowsTheFlag: issue 8's point that ran at 32,363 IOPS for
// a requested 29,900 shows its flag in the curve table.
func TestWriteCurveShowsTheFlag(t *testing.T) {
	p := blockio.Point{Label: "29900", Requested: 29900, Achieved: 32363, Overshot: true,
		Result: blocktest.Result(reportStart, time.Second, blocktest.Repeat(time.Millisecond, 10), nil, true)}
	p.Flag = blockio.PointFlag(p)
	var b strings.Builder
	if err := WriteCurve(&b, &blockio.CurveResult{Run: "rd1", Points: []blockio.Point{p}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "above the request (108.2% of it)") {
		t.Errorf("curve table does not flag the point:\n%s", b.String())
	}
}
