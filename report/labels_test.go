package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// denseCurves are a simulated 64K sequential write's curves (vmbench
// campaign run with curve 10-120%): the 90% to 120% points and the max
// run within 15% of each other in IOPS and latency, next to the 100 µs
// line's name.
var denseCurves = []Curve{
	{Name: "service time (all targets)", Points: []Point{
		{IOPS: 23982, Latency: 333 * us, Label: "max"}, {IOPS: 2421, Latency: 342 * us, Label: "10%"},
		{IOPS: 12054, Latency: 397 * us, Label: "50%"}, {IOPS: 17964, Latency: 330 * us, Label: "80%", Saturated: true},
		{IOPS: 21544, Latency: 262 * us, Label: "90%"}, {IOPS: 23798, Latency: 334 * us, Label: "100%"},
		{IOPS: 24845, Latency: 317 * us, Label: "110%", Saturated: true}, {IOPS: 21839, Latency: 363 * us, Label: "120%", Saturated: true}}},
	{Name: "from intended start", Points: []Point{
		{IOPS: 2421, Latency: 1200 * us, Label: "10%"}, {IOPS: 12054, Latency: 10 * time.Millisecond, Label: "50%"},
		{IOPS: 21544, Latency: 1250 * us, Label: "90%"}, {IOPS: 23798, Latency: 50 * time.Millisecond, Label: "100%"},
		{IOPS: 24845, Latency: 15 * time.Millisecond, Label: "110%", Saturated: true}, {IOPS: 21839, Latency: 160 * time.Millisecond, Label: "120%", Saturated: true}}},
}

// svgText is a text of a chart with its box as a browser draws it.
type svgText struct {
	s                      string
	minX, minY, maxX, maxY float64
}

// browserTexts are the upright texts of an SVG drawn by gonum, each with
// its box in the chart's coordinates (y up) as a browser draws it in its
// own sans-serif: DejaVu Sans, a fifth wider than Liberation Sans, which
// gonum measures with, 0.93 of the size above the baseline and 0.24
// below. Rotated texts (the y axis' title) are left out.
func browserTexts(t *testing.T, svg []byte) []svgText {
	t.Helper()
	var out []svgText
	dec := xml.NewDecoder(bytes.NewReader(svg))
	rotated := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range el.Attr {
				attr[a.Name.Local] = a.Value
			}
			if el.Name.Local == "g" && strings.HasPrefix(attr["transform"], "rotate") {
				rotated++
			}
			if el.Name.Local != "text" || rotated > 0 {
				continue
			}
			var s string
			if err := dec.DecodeElement(&s, &el); err != nil {
				t.Fatal(err)
			}
			x, _ := strconv.ParseFloat(attr["x"], 64)
			y, _ := strconv.ParseFloat(attr["y"], 64)
			_, after, _ := strings.Cut(attr["style"], "font-size:")
			size, _ := strconv.ParseFloat(strings.TrimSuffix(strings.Split(after, ";")[0], "px"), 64)
			f := font.Font{Typeface: "Liberation", Variant: fontVariant, Size: vg.Length(size)}
			w := float64(text.Style{Font: f, Handler: text.Plain{Fonts: font.DefaultCache}}.Width(s)) * 1.2
			out = append(out, svgText{s: s, minX: x, maxX: x + w, minY: -y - 0.24*size, maxY: -y + 0.93*size})
		case xml.EndElement:
			if el.Name.Local == "g" && rotated > 0 {
				rotated--
			}
		}
	}
}

// overlaps lists the pairs of texts whose boxes overlap by more than
// half a point each way.
func overlaps(texts []svgText) []string {
	var out []string
	for i, a := range texts {
		for _, b := range texts[i+1:] {
			if min(a.maxX, b.maxX)-max(a.minX, b.minX) > 0.5 && min(a.maxY, b.maxY)-max(a.minY, b.minY) > 0.5 {
				out = append(out, strconv.Quote(a.s)+" and "+strconv.Quote(b.s))
			}
		}
	}
	return out
}

// TestChartTextsDoNotOverlap: on a latency chart whose last points crowd
// together by the 100 µs line, and on a stacked TPS chart, no two texts
// overlap as a browser draws them: point names move off each other, the
// legend's entries are a line apart, outside the plot.
func TestChartTextsDoNotOverlap(t *testing.T) {
	for name, cs := range map[string][]Curve{"dense": denseCurves, "4K random read": curves} {
		svg := chart(t, name, cs, ChartOptions{PointLabels: true, LogLatency: true})
		texts := browserTexts(t, svg)
		if len(texts) < 20 {
			t.Fatalf("%s: %d texts read from the chart", name, len(texts))
		}
		if o := overlaps(texts); len(o) > 0 {
			t.Errorf("%s: texts overlap: %s", name, strings.Join(o, "; "))
		}
	}
	var b bytes.Buffer
	vms := []Series{{Name: "vm-01", Points: []XY{{0, 100}, {20, 110}}}, {Name: "vm-02", Points: []XY{{0, 90}, {20, 120}}}}
	panels := []Panel{{YLabel: "TPS, all VMs", Series: []Series{{Name: "all VMs (sum)", Bold: true, Points: []XY{{0, 190}, {20, 230}}}}}, {YLabel: "TPS per VM", Series: vms}}
	opts := LineOptions{XLabel: "time (s)", FromZero: true, Spans: []Span{{From: 0, To: 2, Label: "precondition"}}, Marks: []Tick{{Value: 2, Label: "measure"}}}
	if err := StackedLineChart(&b, "TPS over time", panels, opts); err != nil {
		t.Fatal(err)
	}
	if o := overlaps(browserTexts(t, b.Bytes())); len(o) > 0 {
		t.Errorf("stacked TPS chart: texts overlap: %s", strings.Join(o, "; "))
	}
}
