package review

import (
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"vmbench/oltp"
	"vmbench/oltp/hist"
)

// TestChartIntervals: a phase's last interval shorter than 90% of the
// report interval is left out of the TPS chart; a full last one, a single
// one and empty ones are handled.
func TestChartIntervals(t *testing.T) {
	s := time.Second
	iv := func(at, length, planned time.Duration) oltp.Interval {
		return oltp.Interval{At: at, Length: length, Planned: planned}
	}
	for _, c := range []struct {
		name string
		ivs  []oltp.Interval
		want []time.Duration // the At of each kept
	}{
		{"all full", []oltp.Interval{iv(10*s, 10*s, 10*s), iv(20*s, 10*s, 10*s), iv(30*s, 10*s, 10*s)}, []time.Duration{10 * s, 20 * s, 30 * s}},
		{"tpcc's remainder", []oltp.Interval{iv(10*s, 10*s, 10*s), iv(20*s, 10*s, 10*s), iv(21*s, s, s)}, []time.Duration{10 * s, 20 * s}},
		{"late edge kept", []oltp.Interval{iv(10*s, 10*s, 10*s), iv(20*s, 9500*time.Millisecond, 10*s)}, []time.Duration{10 * s, 20 * s}},
		{"one short interval kept", []oltp.Interval{iv(3*s, 3*s, 3*s)}, []time.Duration{3 * s}},
		{"zero length skipped", []oltp.Interval{iv(10*s, 10*s, 10*s), iv(10*s, 0, 0), iv(20*s, 10*s, 10*s)}, []time.Duration{10 * s, 20 * s}},
		{"none", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := chartIntervals(c.ivs)
			var at []time.Duration
			for _, g := range got {
				at = append(at, g.At)
			}
			if len(at) != len(c.want) {
				t.Fatalf("kept %v, want %v", at, c.want)
			}
			for i := range at {
				if at[i] != c.want[i] {
					t.Fatalf("kept %v, want %v", at, c.want)
				}
			}
		})
	}
}

// TestTPSPointsFromRunStart: the precondition's intervals come first,
// each drawn level from its start to its end, so that the line starts at
// the run's start (0) and fills the shaded precondition; the
// measurement's follow from the mark; neither phase's remainder is
// charted.
func TestTPSPointsFromRunStart(t *testing.T) {
	s := time.Second
	ops := func(n int64) []oltp.OpResult { return []oltp.OpResult{{Name: "tx", Latency: hist.Snapshot{Count: n}}} }
	r := &oltp.Result{
		Precondition: &oltp.Result{Elapsed: 12 * s, Intervals: []oltp.Interval{
			{At: 5 * s, Length: 5 * s, Ops: ops(500)}, {At: 10 * s, Length: 5 * s, Ops: ops(550)}, {At: 12 * s, Length: 2 * s, Ops: ops(20)}}},
		Intervals: []oltp.Interval{{At: 5 * s, Length: 5 * s, Ops: ops(600)}, {At: 10 * s, Length: 5 * s, Ops: ops(610)}, {At: 10500 * time.Millisecond, Length: 500 * time.Millisecond, Ops: ops(3)}},
	}
	steps, mark := tpsSteps(r)
	if mark != 12 {
		t.Errorf("measurement starts at %v s, want 12", mark)
	}
	pts := stepPoints(steps)
	want := [][2]float64{{0, 100}, {5, 100}, {5, 110}, {10, 110}, {12, 120}, {17, 120}, {17, 122}, {22, 122}}
	if len(pts) != len(want) {
		t.Fatalf("points %v, want %v", pts, want)
	}
	for i, w := range want {
		if pts[i].X != w[0] || pts[i].Y != w[1] {
			t.Errorf("point %d: %v, want %v", i, pts[i], w)
		}
	}
}

// svgLines are the stroked paths of an SVG chart: each path's vertices
// (the chart's own coordinates, y up) by its stroke colour.
func svgLines(svg []byte) map[string][][][2]float64 {
	paths := regexp.MustCompile(`<path d="(M[^"]*)" style="fill:none;stroke:(#[0-9A-F]{6})`).FindAllSubmatch(svg, -1)
	vertex := regexp.MustCompile(`([-0-9.]+),([-0-9.]+)`)
	out := map[string][][][2]float64{}
	for _, p := range paths {
		var pts [][2]float64
		for _, v := range vertex.FindAllSubmatch(p[1], -1) {
			x, _ := strconv.ParseFloat(string(v[1]), 64)
			y, _ := strconv.ParseFloat(string(v[2]), 64)
			pts = append(pts, [2]float64{x, y})
		}
		out[string(p[2])] = append(out[string(p[2])], pts)
	}
	return out
}

// TestTPSChartVMsOnTheirOwnAxis: on an 8-VM campaign's TPS chart each
// VM's line rises over half of the y axis it is drawn against (the sum's
// panel has its own), where on one axis with the sum, 8 times as high,
// they lay in its bottom eighth.
func TestTPSChartVMsOnTheirOwnAxis(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sysbench-8vm")
	writeManyVMs(t, dir, 8)
	rep, err := Render(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tpsChart(rep.Review)
	if err != nil {
		t.Fatal(err)
	}
	lines := svgLines(c.SVG)
	// The y axes: black vertical lines taller than any tick.
	var axes [][2]float64 // bottom, top
	for _, l := range lines["#000000"] {
		if len(l) == 2 && l[0][0] == l[1][0] && math.Abs(l[1][1]-l[0][1]) > 50 {
			axes = append(axes, [2]float64{min(l[0][1], l[1][1]), max(l[0][1], l[1][1])})
		}
	}
	vms := 0
	for colour, ls := range lines {
		if colour == "#000000" || colour == "#222222" {
			continue // axes and ticks, the sum
		}
		for _, l := range ls {
			if len(l) < 4 {
				continue // the legend's sample, a grid line, a mark
			}
			vms++
			top, bottom := l[0][1], l[0][1]
			for _, p := range l {
				top, bottom = max(top, p[1]), min(bottom, p[1])
			}
			for _, ax := range axes {
				if bottom >= ax[0] && top <= ax[1] && (top-ax[0])/(ax[1]-ax[0]) < 0.5 {
					t.Errorf("a VM's line (%s) rises to %.0f%% of its axis", colour, 100*(top-ax[0])/(ax[1]-ax[0]))
				}
			}
		}
	}
	if vms != 8 || len(axes) == 0 {
		t.Errorf("%d VM lines and %d y axes found in the chart", vms, len(axes))
	}
}
