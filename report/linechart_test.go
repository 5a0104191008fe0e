package report

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pathXs are the x coordinates of the vertices of an SVG path's d.
func pathXs(d string) []float64 {
	var xs []float64
	for _, m := range regexp.MustCompile(`[ML]([-0-9.]+),`).FindAllStringSubmatch(d, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		xs = append(xs, x)
	}
	return xs
}

// textAt returns the x of text s in the chart, or -1.
func (d svgDoc) textAt(s string) float64 {
	for i, t := range d.texts {
		if t == s {
			return d.textX[i]
		}
	}
	return -1
}

// TestLineChartLegendOutside: a TPS chart's legend is right of every line,
// the shaded precondition and the measure mark, the x axis starts at 0
// and its last tick label ends inside the picture, left of the legend.
func TestLineChartLegendOutside(t *testing.T) {
	series := []Series{
		{Name: "vm-01", Points: []XY{{10, 100}, {20, 110}, {30, 105}, {40, 108}, {50, 111}, {60, 109}, {70, 110}, {80, 112}, {90, 111}, {100, 110}, {110, 112}, {120, 111}}},
		{Name: "all VMs (sum)", Bold: true, Points: []XY{{10, 200}, {20, 220}, {30, 210}, {40, 216}, {50, 222}, {60, 218}, {70, 220}, {80, 224}, {90, 222}, {100, 220}, {110, 224}, {120, 222}}},
	}
	var b bytes.Buffer
	opts := LineOptions{XLabel: "time (s)", YLabel: "TPS", FromZero: true,
		Spans: []Span{{From: 0, To: 20, Label: "precondition"}}, Marks: []Tick{{Value: 20, Label: "measure"}}}
	if err := LineChart(&b, "TPS over time", series, opts); err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, b.Bytes())
	legend := min(doc.textAt("vm-01"), doc.textAt("all VMs (sum)"))
	if legend < 0 {
		t.Fatalf("no legend entries in %q", doc.texts)
	}
	for _, s := range []string{"precondition", "measure", "0", "120"} {
		if doc.textAt(s) < 0 {
			t.Errorf("no text %q in %q", s, doc.texts)
		}
	}
	if x0, x120 := doc.textAt("0"), doc.textAt("120"); x0 >= x120 || x0 > 80 {
		t.Errorf("x axis: tick 0 at %v, tick 120 at %v: want 0 at the left", x0, x120)
	}
	// "120" at 10 px is at most 20 px wide; the legend's thumbnails start 20 px before its text.
	if end := doc.textAt("120") + 20; end > legend-20 || end > 576 {
		t.Errorf("last x tick label ends at %v: the legend's text is at %v, the picture 576 wide", end, legend)
	}
	for _, p := range doc.paths {
		xs := pathXs(p.d)
		if len(xs) <= 2 || strings.Contains(p.style, "fill:#FFFFFF") {
			continue // thumbnails, the background
		}
		for _, x := range xs {
			if x > legend-20 {
				t.Errorf("a path (%s) reaches x %v, under the legend at %v", p.style, x, legend)
				break
			}
		}
	}
	if doc.textAt("precondition") >= doc.textAt("measure") {
		t.Errorf("the precondition's label (%v) is not left of the measure mark's (%v)", doc.textAt("precondition"), doc.textAt("measure"))
	}
}

// TestLatencyChartLogLatency: with LogLatency, a service-time curve within
// one decade beside a from-intended-start curve far above it is drawn on a
// log axis that shows both reference lines.
func TestLatencyChartLogLatency(t *testing.T) {
	cs := []Curve{
		{Name: "service time", Points: []Point{{IOPS: 1000, Latency: 200 * us}, {IOPS: 5000, Latency: 300 * us}, {IOPS: 9000, Latency: 800 * us}}},
		{Name: "from intended start", Points: []Point{{IOPS: 1000, Latency: 2 * time.Millisecond}, {IOPS: 5000, Latency: 4 * time.Millisecond}, {IOPS: 9000, Latency: 12 * time.Millisecond}}},
	}
	linear := parseSVG(t, chart(t, "64K", cs, ChartOptions{}))
	if linear.hasText("0.1") {
		t.Fatal("without LogLatency these curves are drawn on a log axis already: pick curves that a linear axis flattens")
	}
	doc := parseSVG(t, chart(t, "64K", cs, ChartOptions{LogLatency: true}))
	for _, want := range []string{"latency (ms)", "100 µs", "1 ms", "0.1", "1", "10"} {
		if !doc.hasText(want) {
			t.Errorf("no text %q in %q", want, doc.texts)
		}
	}
	if doc.linePoints("#0072B2") != 3 || doc.linePoints("#D62728") != 3 {
		t.Errorf("lines: %d and %d points, want 3 and 3", doc.linePoints("#0072B2"), doc.linePoints("#D62728"))
	}
}

// TestSeriesStyles: the Bold (aggregate) series is drawn in
// aggregateColor, no VM's colour, and the palette's second round (VMs 9
// to 16) dotted, so that no two of 16 VMs and their sum look alike.
func TestSeriesStyles(t *testing.T) {
	var series []Series
	for i := range 16 {
		series = append(series, Series{Name: "vm-" + strconv.Itoa(i+1), Points: []XY{{0, float64(i)}, {10, float64(i + 1)}}})
	}
	series = append(series, Series{Name: "all VMs (sum)", Bold: true, Points: []XY{{0, 20}, {10, 30}}})
	var b bytes.Buffer
	if err := LineChart(&b, "TPS over time", series, LineOptions{XLabel: "s", YLabel: "TPS"}); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	// The sum's line and its legend thumbnail, each wide and near-black.
	if n := strings.Count(svg, "stroke:#222222;stroke-width:2.5"); n != 2 {
		t.Errorf("%d near-black wide lines, want the sum's line and its legend entry", n)
	}
	if n := strings.Count(svg, "stroke-dasharray:4,2"); n != 16 {
		t.Errorf("%d dashed lines, want 16 (VMs 9 to 16 and their legend entries)", n)
	}
}
