// Package report renders results for reviews: one table model (Table,
// written as aligned text, Markdown or CSV), one number formatter
// (Grouped for separators, over internal/textfmt's Group and Thousands;
// Millis, FormatMillis and Latency for latencies; BinaryBytes and
// DecimalBytes for sizes; FormatRate), and SVG latency charts.
//
// It takes plain values (cells, Curves of points), never a workload's
// types, so any workload can be rendered: report imports only the driver
// core (docs/architecture.md), and the workloads import it for their
// numbers while keeping their peers' exact line formats.
package report

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Point is one measurement of a latency curve.
type Point struct {
	// IOPS is the achieved rate (x).
	IOPS float64
	// Latency is the latency plotted (y), e.g. the mean service time.
	Latency time.Duration
	// Label names the point ("max", "50%"); drawn when
	// ChartOptions.PointLabels is set.
	Label string
	// Saturated marks a point that achieved less than it was asked for:
	// drawn as a cross instead of a dot.
	Saturated bool
}

// Curve is one line of a chart: its points are joined in the order given.
type Curve struct {
	Name   string
	Points []Point
}

// ChartOptions change a chart's look. The zero value is a usable default.
type ChartOptions struct {
	// Width and Height are in points (1/72 inch); 0 means 576 x 360
	// (8 x 5 inches).
	Width, Height float64
	// XLabel is the x axis' title; default "IOPS (achieved)".
	XLabel string
	// YLabel is the y axis' title, to which the unit is appended; default
	// "latency".
	YLabel string
	// PointLabels writes each point's Label beside it.
	PointLabels bool
	// LogLatency makes the y axis logarithmic whatever the latencies'
	// span, reaching from under 100 µs to over 1 ms at least, so that a
	// service-time curve stays readable beside a from-intended-start one
	// decades above it, with both reference lines drawn.
	LogLatency bool
}

// Reference latencies drawn as horizontal lines when the y axis covers
// them: the thresholds a review states crossings of.
var referenceLines = []time.Duration{100 * time.Microsecond, time.Millisecond}

// logDecades is the span of the latency range above which the y axis is
// logarithmic: more than two decades (max/min > 100).
const logDecades = 2

// aggregateColor is the colour of a Bold series (the sum of the VMs, the
// merged histograms): near-black, none of palette's.
var aggregateColor = color.RGBA{R: 0x22, G: 0x22, B: 0x22, A: 0xff}

// palette holds the curves' colours, in order; they repeat after the
// last (a LineChart dashes its second round). They are the 8 of the
// Tableau, Okabe-Ito, Paul Tol and Kelly palettes, none lighter than L*
// 72 (readable on white) nor near aggregateColor, that lie furthest
// apart: any two differ by a CIEDE2000 distance of 28 or more (Tableau's
// first 8 come within 16: red and brown, blue and purple look alike as
// thin lines). The first four, for the commonest 2 to 4 lines, differ by
// 39 or more.
var palette = []color.RGBA{
	{R: 0x00, G: 0x72, B: 0xb2, A: 0xff}, // blue
	{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, // red
	{R: 0x11, G: 0x77, B: 0x33, A: 0xff}, // green
	{R: 0xe6, G: 0x9f, B: 0x00, A: 0xff}, // amber
	{R: 0x33, G: 0x22, B: 0x88, A: 0xff}, // indigo
	{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff}, // cyan
	{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff}, // pink
	{R: 0x8d, G: 0xb6, B: 0x00, A: 0xff}, // lime
}

// fontVariant is the Liberation variant of every text: Sans, which SVG
// viewers without Liberation fonts replace with their own sans-serif.
const fontVariant = "Sans"

var (
	grey     = color.RGBA{R: 0x80, G: 0x80, B: 0x80, A: 0xff}
	darkGrey = color.RGBA{R: 0x50, G: 0x50, B: 0x50, A: 0xff} // text on a shaded span
)

// LatencyChart writes an SVG chart of latency (y) against IOPS (x): one
// line with a dot per point for each curve, saturated points drawn as
// crosses, a legend, and dashed reference lines at 100 µs and 1 ms when
// the y axis covers them. Latency is in µs when every point is under
// 1 ms, else in ms; the y axis is logarithmic when the latencies span
// more than two decades or ChartOptions.LogLatency is set (points of
// zero latency are then left out). The output depends only on the
// arguments.
func LatencyChart(w io.Writer, title string, curves []Curve, opts ChartOptions) error {
	p, legend, err := latencyPlot(title, curves, opts)
	if err != nil {
		return err
	}
	width, height := vg.Points(orPositive(opts.Width, 576)), vg.Points(orPositive(opts.Height, 360))
	below := legendBelowHeight(&legend)
	c := vgsvg.New(width, height+below)
	drawLegendBelow(p, &legend, draw.New(c), below)
	_, err = c.WriteTo(w)
	return err
}

// latencyPlot builds LatencyChart's plot and its legend, which is drawn
// outside the plot (drawLegendBelow).
func latencyPlot(title string, curves []Curve, opts ChartOptions) (*plot.Plot, plot.Legend, error) {
	legend := plot.NewLegend()
	lo, hi, maxIOPS, n := dataRange(curves)
	if n == 0 {
		return nil, legend, errors.New("report: latency chart: no points to draw")
	}
	if math.IsNaN(maxIOPS) || math.IsInf(maxIOPS, 0) || maxIOPS < 0 {
		return nil, legend, fmt.Errorf("report: latency chart: IOPS %v is not a rate", maxIOPS)
	}
	ax := newLatencyAxis(curves, lo, hi, opts.LogLatency)
	p := newStyledPlot(title, opts, ax.unitName)
	legend = p.Legend // its style; p's own stays empty

	xMin, xMax := 0.0, maxIOPS*1.08
	if xMax <= 0 {
		xMax = 1
	}
	if ax.log {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.TickerFunc(logTicks)
	}
	labels := &labelLayer{}
	for _, ref := range referenceLines {
		v := ax.value(ref)
		if v <= ax.min || v >= ax.max {
			continue
		}
		if err := addReference(p, labels, ref, v, xMin, xMax); err != nil {
			return nil, legend, err
		}
	}
	saturated := false
	for i, c := range curves {
		sat, err := addCurve(p, &legend, labels, c, palette[i%len(palette)], ax, opts.PointLabels)
		if err != nil {
			return nil, legend, fmt.Errorf("report: curve %s: %w", c.Name, err)
		}
		saturated = saturated || sat
	}
	p.Add(labels)
	if saturated {
		key, err := plotter.NewScatter(plotter.XYs{{X: xMin, Y: ax.max}})
		if err != nil {
			return nil, legend, err
		}
		key.GlyphStyle = draw.GlyphStyle{Color: grey, Radius: vg.Points(4), Shape: draw.CrossGlyph{}}
		legend.Add("saturated (achieved < requested)", key)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xMin, xMax, ax.min, ax.max
	return p, legend, nil
}

// latencyAxis is a latency chart's y axis.
type latencyAxis struct {
	unit     time.Duration // µs or ms
	unitName string        // "µs" or "ms"
	log      bool          // a logarithmic scale
	min, max float64       // the range shown, in unit
}

// newLatencyAxis chooses the y axis of curves, whose latencies range from
// lo to hi: µs when hi is under 1 ms, else ms; logarithmic when the
// latencies span more than logDecades decades, or when forceLog is set
// (the range then covers both reference lines too).
func newLatencyAxis(curves []Curve, lo, hi time.Duration, forceLog bool) latencyAxis {
	if forceLog && hi > 0 {
		lo = min(max(minPositive(curves), 1), referenceLines[0])
		hi = max(hi, referenceLines[len(referenceLines)-1])
		ax := latencyAxis{unit: time.Millisecond, unitName: "ms", log: true}
		ax.min, ax.max = ax.value(lo)/1.3, ax.value(hi)*1.3
		return ax
	}
	ax := latencyAxis{unit: time.Microsecond, unitName: "µs"}
	if hi >= time.Millisecond {
		ax.unit, ax.unitName = time.Millisecond, "ms"
	}
	ax.log = lo > 0 && float64(hi)/float64(lo) > math.Pow10(logDecades)
	if !ax.log && lo <= 0 && hi > 0 && positiveSpan(curves) > math.Pow10(logDecades) {
		// A zero among wide-ranging latencies: plot the rest on a log scale.
		ax.log, lo = true, minPositive(curves)
	}
	ax.min, ax.max = 0.0, ax.value(hi)*1.1
	if ax.max <= 0 {
		ax.max = 1
	}
	if ax.log {
		ax.min, ax.max = ax.value(lo)/1.3, ax.value(hi)*1.3
	}
	return ax
}

// value is d in the axis' unit.
func (ax latencyAxis) value(d time.Duration) float64 { return float64(d) / float64(ax.unit) }

// newStyledPlot is an empty latency plot with its title, axis labels (the
// y label ending in unitName), ticks, legend, fonts and grid.
func newStyledPlot(title string, opts ChartOptions, unitName string) *plot.Plot {
	p := basePlot(title, orDefault(opts.XLabel, "IOPS (achieved)"), orDefault(opts.YLabel, "latency")+" ("+unitName+")")
	p.X.Tick.Marker = plot.TickerFunc(rateTicks)
	p.Y.Tick.Marker = plot.TickerFunc(latencyTicks)
	return p
}

// basePlot is an empty plot in the report's style: its title and axis
// labels, the legend at the top left, the fonts and a grid.
func basePlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(6), vg.Points(-4)
	p.Legend.Padding = vg.Points(legendPadding)
	p.Title.Padding = vg.Points(6)
	// Room between the axes' titles and their tick labels, which a
	// browser's sans-serif draws taller and wider than gonum measures.
	p.X.Label.Padding, p.Y.Label.Padding = vg.Points(3), vg.Points(6)
	for _, st := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		st.Font.Variant = fontVariant
	}
	p.Add(plotter.NewGrid())
	return p
}

// addCurve draws curve c in colour col on p: a line through its points,
// a dot on each unsaturated one and a cross on each saturated one, its
// points and, when labels is set, their names in labels, and its legend
// entry. Points of zero latency are left out on a log axis; a curve with
// no point left draws nothing. It reports whether c has a saturated point
// drawn.
func addCurve(p *plot.Plot, legend *plot.Legend, labels *labelLayer, c Curve, col color.RGBA, ax latencyAxis, named bool) (saturated bool, err error) {
	var all, plain, sat plotter.XYs
	for _, pt := range c.Points {
		if ax.log && pt.Latency <= 0 {
			continue
		}
		xy := plotter.XY{X: pt.IOPS, Y: ax.value(pt.Latency)}
		all = append(all, xy)
		if pt.Saturated {
			sat = append(sat, xy)
		} else {
			plain = append(plain, xy)
		}
		if named && pt.Label != "" {
			labels.add(label{at: xy, text: pt.Label, style: smallText(col), dx: vg.Points(4), dy: vg.Points(1), moves: pointMoves})
		}
	}
	if len(all) == 0 {
		return false, nil
	}
	labels.points = append(labels.points, all...)
	line, err := plotter.NewLine(all)
	if err != nil {
		return false, err
	}
	line.Color, line.Width = col, vg.Points(1.5)
	// The dots are the unsaturated points; with none, the scatter only
	// draws the legend's thumbnail.
	dots, err := plotter.NewScatter(all)
	if err != nil {
		return false, err
	}
	dots.XYs = plain
	dots.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
	p.Add(line, dots)
	legend.Add(c.Name, line, dots)
	if len(sat) > 0 {
		crosses, err := plotter.NewScatter(sat)
		if err != nil {
			return false, err
		}
		crosses.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(4), Shape: draw.CrossGlyph{}}
		p.Add(crosses)
	}
	return len(sat) > 0, nil
}

// addReference draws a dashed grey line at latency v across the chart,
// its name at its right end in labels.
func addReference(p *plot.Plot, labels *labelLayer, ref time.Duration, v, xMin, xMax float64) error {
	name := "100 µs"
	if ref == time.Millisecond {
		name = "1 ms"
	}
	if err := dashedGuide(p, plotter.XYs{{X: xMin, Y: v}, {X: xMax, Y: v}}); err != nil {
		return err
	}
	labels.add(label{at: plotter.XY{X: xMax, Y: v}, text: name, style: smallText(darkGrey), dx: vg.Points(2), dy: vg.Points(1.5), left: true, moves: guideMoves})
	return nil
}

// dashedGuide adds to p a dashed grey line through line.
func dashedGuide(p *plot.Plot, line plotter.XYs) error {
	l, err := plotter.NewLine(line)
	if err != nil {
		return err
	}
	l.Color, l.Width = grey, vg.Points(1)
	l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(l)
	return nil
}

// dataRange returns the smallest and largest latency, the largest IOPS
// and the number of points.
func dataRange(curves []Curve) (lo, hi time.Duration, maxIOPS float64, n int) {
	for _, c := range curves {
		for _, pt := range c.Points {
			if n == 0 || pt.Latency < lo {
				lo = pt.Latency
			}
			if n == 0 || pt.Latency > hi {
				hi = pt.Latency
			}
			if n == 0 || pt.IOPS > maxIOPS || math.IsNaN(pt.IOPS) {
				maxIOPS = pt.IOPS
			}
			n++
		}
	}
	return lo, hi, maxIOPS, n
}

func minPositive(curves []Curve) time.Duration {
	var m time.Duration
	for _, c := range curves {
		for _, pt := range c.Points {
			if pt.Latency > 0 && (m == 0 || pt.Latency < m) {
				m = pt.Latency
			}
		}
	}
	return m
}

// positiveSpan is max/min over the positive latencies (0 when none).
func positiveSpan(curves []Curve) float64 {
	lo := minPositive(curves)
	if lo <= 0 {
		return 0
	}
	_, hi, _, _ := dataRange(curves)
	return float64(hi) / float64(lo)
}

// rateTicks are linear ticks labelled as reviews write rates: 500K, 1.5M.
func rateTicks(lo, hi float64) []plot.Tick { return linearTicks(lo, hi, FormatRate) }

// latencyTicks are linear ticks labelled with plain numbers.
func latencyTicks(lo, hi float64) []plot.Tick { return linearTicks(lo, hi, trimFloat) }

// linearTicks labels multiples of a round step (1, 2, 2.5 or 5 times a
// power of ten) giving about six labels, with a minor tick between each.
func linearTicks(lo, hi float64, label func(float64) string) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	raw := (hi - lo) / 6
	mag := math.Pow10(int(math.Floor(math.Log10(raw))))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	for k := math.Ceil(lo / step * 2); k/2*step <= hi*(1+1e-9); k++ {
		v := k / 2 * step
		t := plot.Tick{Value: v}
		if math.Mod(k, 2) == 0 {
			t.Label = label(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// logTicks marks 1, 2 and 5 of each decade with labels and the other
// digits as minor ticks; over more than four decades only the powers of
// ten are labelled.
func logTicks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	first, last := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	wide := last-first > 4
	var ticks []plot.Tick
	for e := first; e <= last; e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow10(e)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || (!wide && (m == 2 || m == 5)) {
				t.Label = strconv.FormatFloat(v, 'g', 6, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func orPositive(v, d float64) float64 {
	if v <= 0 {
		return d
	}
	return v
}
