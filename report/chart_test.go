package report

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const us = time.Microsecond

// curves is a 4K-random-read-like curve, service time and from the
// intended start, that spans more than two decades (log scale) and has a
// saturated point.
var curves = []Curve{
	{Name: "service time", Points: []Point{
		{IOPS: 20000, Latency: 60 * us, Label: "10%"}, {IOPS: 100000, Latency: 75 * us, Label: "50%"},
		{IOPS: 180000, Latency: 140 * us, Label: "90%"}, {IOPS: 196000, Latency: 2100 * us, Label: "100%", Saturated: true},
		{IOPS: 197000, Latency: 9 * time.Millisecond, Label: "max"}}},
	{Name: "from intended start", Points: []Point{
		{IOPS: 20000, Latency: 70 * us, Label: "10%"}, {IOPS: 100000, Latency: 90 * us, Label: "50%"},
		{IOPS: 180000, Latency: 200 * us, Label: "90%"}, {IOPS: 196000, Latency: 7 * time.Millisecond, Label: "100%", Saturated: true}}},
}

func chart(t *testing.T, title string, cs []Curve, opts ChartOptions) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := LatencyChart(&b, title, cs, opts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestLatencyChartGolden: gonum's SVG is byte-stable (fonts are compiled
// in, no time stamps), so the chart is compared whole.
func TestLatencyChartGolden(t *testing.T) {
	got := chart(t, "4K random read", curves, ChartOptions{PointLabels: true})
	if again := chart(t, "4K random read", curves, ChartOptions{PointLabels: true}); !bytes.Equal(got, again) {
		t.Fatal("two renderings of the same chart differ")
	}
	path := filepath.Join("testdata", "latency_chart.golden.svg")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("chart differs from %s (run go test -update after checking the change)", path)
	}
}

// svgDoc is what the structural checks read from a chart.
type svgDoc struct {
	texts []string
	// textX is each text's x (its left end: gonum aligns before writing).
	textX []float64
	paths []svgPath
}

type svgPath struct{ d, style string }

func parseSVG(t *testing.T, b []byte) svgDoc {
	t.Helper()
	var doc svgDoc
	dec := xml.NewDecoder(bytes.NewReader(b))
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			switch el.Name.Local {
			case "text":
				inText = true
				doc.texts = append(doc.texts, "")
				x := 0.0
				for _, a := range el.Attr {
					if a.Name.Local == "x" {
						x, _ = strconv.ParseFloat(a.Value, 64)
					}
				}
				doc.textX = append(doc.textX, x)
			case "path":
				var p svgPath
				for _, a := range el.Attr {
					switch a.Name.Local {
					case "d":
						p.d = a.Value
					case "style":
						p.style = a.Value
					}
				}
				doc.paths = append(doc.paths, p)
			}
		case xml.EndElement:
			if el.Name.Local == "text" {
				inText = false
			}
		case xml.CharData:
			if inText {
				doc.texts[len(doc.texts)-1] += string(el)
			}
		}
	}
	return doc
}

// linePoints returns the vertex count of the longest line stroked in
// colour at width 1.5 (a curve; its legend thumbnail has two).
func (d svgDoc) linePoints(colour string) int {
	n := 0
	for _, p := range d.paths {
		if strings.Contains(p.style, "stroke:"+colour) && strings.Contains(p.style, "stroke-width:1.5") {
			n = max(n, strings.Count(p.d, "L")+1)
		}
	}
	return n
}

func (d svgDoc) hasText(s string) bool { return slices.Contains(d.texts, s) }

func TestLatencyChartStructure(t *testing.T) {
	doc := parseSVG(t, chart(t, "4K random read", curves, ChartOptions{}))
	if got := doc.linePoints("#0072B2"); got != 5 {
		t.Errorf("service time line has %d points, want 5", got)
	}
	if got := doc.linePoints("#D62728"); got != 4 {
		t.Errorf("intended line has %d points, want 4", got)
	}
	for _, want := range []string{"4K random read", "IOPS (achieved)", "latency (ms)", "service time", "from intended start",
		"saturated (achieved < requested)", "100 µs", "1 ms", "0.1", "1", "10", "100K"} {
		if !doc.hasText(want) {
			t.Errorf("no text %q in %q", want, doc.texts)
		}
	}
	if doc.hasText("10%") {
		t.Error("point labels drawn without PointLabels")
	}

	// Under 1 ms and within two decades: µs, linear, no 1 ms line, no
	// saturated key; custom labels.
	small := []Curve{{Name: "nvme0n1", Points: []Point{{IOPS: 1e6, Latency: 40 * us}, {IOPS: 2e6, Latency: 90 * us}, {IOPS: 2.5e6, Latency: 180 * us}}},
		{Name: "nvme1n1", Points: []Point{{IOPS: 1e6, Latency: 45 * us}, {IOPS: 2.4e6, Latency: 170 * us}}}}
	doc = parseSVG(t, chart(t, "", small, ChartOptions{YLabel: "mean service time", XLabel: "IOPS", PointLabels: true}))
	for _, want := range []string{"mean service time (µs)", "IOPS", "nvme0n1", "nvme1n1", "100 µs", "1M", "2M", "0", "100"} {
		if !doc.hasText(want) {
			t.Errorf("small chart: no text %q in %q", want, doc.texts)
		}
	}
	for _, absent := range []string{"1 ms", "saturated (achieved < requested)"} {
		if doc.hasText(absent) {
			t.Errorf("small chart has %q", absent)
		}
	}
	if doc.linePoints("#0072B2") != 3 || doc.linePoints("#D62728") != 2 {
		t.Errorf("per-target lines: %d and %d points", doc.linePoints("#0072B2"), doc.linePoints("#D62728"))
	}
}

func TestLatencyChartEdgeCases(t *testing.T) {
	var b bytes.Buffer
	if err := LatencyChart(&b, "x", nil, ChartOptions{}); err == nil || !strings.Contains(err.Error(), "no points") {
		t.Errorf("no curves: %v", err)
	}
	if err := LatencyChart(&b, "x", []Curve{{Name: "empty"}}, ChartOptions{}); err == nil {
		t.Error("a curve without points was drawn")
	}
	// A zero latency among values spanning decades: log scale without it.
	doc := parseSVG(t, chart(t, "zero", []Curve{{Name: "c", Points: []Point{{IOPS: 0, Latency: 0},
		{IOPS: 10, Latency: 10 * us}, {IOPS: 20, Latency: 5 * time.Millisecond}}}}, ChartOptions{}))
	if doc.linePoints("#0072B2") != 2 {
		t.Errorf("zero-latency point on a log scale: line has %d points, want 2", doc.linePoints("#0072B2"))
	}
	// All-saturated curve and a single point.
	parseSVG(t, chart(t, "one", []Curve{{Name: "c", Points: []Point{{IOPS: 5, Latency: us, Saturated: true}}}}, ChartOptions{}))
}

func TestFormatRate(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 950: "950", 1500: "1.5K", 2e6: "2M", 2.5e6: "2.5M", 3.2e9: "3.2G", 12345: "12.345K"} {
		if got := FormatRate(v); got != want {
			t.Errorf("FormatRate(%v) = %q, want %q", v, got, want)
		}
	}
}
