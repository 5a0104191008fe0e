package report

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// XY is one point of a Series, in the chart's units.
type XY struct{ X, Y float64 }

// Series is one line of a LineChart, its points joined in the order
// given.
type Series struct {
	Name   string
	Points []XY
	// Bold draws the line thicker (the aggregate among per-VM lines).
	Bold bool
	// Dashed draws the line dashed (a published reference).
	Dashed bool
}

// Tick is a labelled position on an axis, in the axis' units.
type Tick struct {
	Value float64
	Label string
}

// LineOptions describe a LineChart's axes. XLabel and YLabel are the
// axes' titles with their units ("time (s)", "TPS").
type LineOptions struct {
	XLabel, YLabel string
	// XTicks, when set, are the x axis' only ticks (a percentile axis);
	// otherwise ticks are round numbers.
	XTicks []Tick
	// Marks are vertical dashed lines with a label near the top (where the
	// measurement starts).
	Marks []Tick
	// Spans are x ranges shaded light grey behind the lines, each labelled
	// at its top left (the precondition).
	Spans []Span
	// FromZero starts the x axis at 0 (the run's start) rather than at
	// the smallest x.
	FromZero bool
	// Width and Height are in points; 0 means 576 x 360.
	Width, Height float64
}

// Span is a shaded x range of a LineChart, in the x axis' units, and its
// label.
type Span struct {
	From, To float64
	Label    string
}

// LineChart writes an SVG chart of series as lines over a linear x axis
// starting at the smallest x (or 0, LineOptions.FromZero) and a y axis
// from 0, with the shaded spans, the vertical marks, the style of
// LatencyChart and the legend outside the plot, at its right, so that it
// covers neither a line nor a mark. The output depends only on the
// arguments; an error says the chart has no point or a point that is not
// a finite number.
func LineChart(w io.Writer, title string, series []Series, opts LineOptions) error {
	p := basePlot(title, opts.XLabel, opts.YLabel)
	xMin, xMax, yMax, n := seriesRange(series)
	if n == 0 {
		return errors.New("report: line chart: no points to draw")
	}
	if math.IsNaN(xMin+xMax+yMax) || math.IsInf(xMin+xMax+yMax, 0) {
		return fmt.Errorf("report: line chart %q: a point is not a finite number", title)
	}
	if opts.FromZero {
		xMin = min(xMin, 0)
	}
	if xMax <= xMin {
		xMax = xMin + 1
	}
	yMax = max(yMax*1.1, 1e-9)
	p.X.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick { return linearTicks(lo, hi, trimFloat) })
	if opts.XTicks != nil {
		fixed := make([]plot.Tick, len(opts.XTicks))
		for i, t := range opts.XTicks {
			fixed[i] = plot.Tick{Value: t.Value, Label: t.Label}
		}
		p.X.Tick.Marker = plot.ConstantTicks(fixed)
		xMax += (xMax - xMin) * 0.04 // room for the last tick's label
	}
	p.Y.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick { return linearTicks(lo, hi, FormatRate) })
	for _, sp := range opts.Spans {
		if err := addSpan(p, sp, yMax); err != nil {
			return err
		}
	}
	for _, m := range opts.Marks {
		if err := addMark(p, m, yMax, len(opts.Spans) > 0); err != nil {
			return err
		}
	}
	legend := p.Legend // drawn beside the plot, not in it (p's stays empty)
	for i, s := range series {
		if err := addSeries(p, &legend, s, i); err != nil {
			return fmt.Errorf("report: series %s: %w", s.Name, err)
		}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xMin, xMax, 0, yMax
	c := vgsvg.New(vg.Points(orPositive(opts.Width, 576)), vg.Points(orPositive(opts.Height, 360)))
	drawLegendRight(p, &legend, draw.New(c))
	_, err := c.WriteTo(w)
	return err
}

// legendGap is the room between the plot and a legend drawn at its
// right: the last x tick's label, centred on the plot's right edge, runs
// into it without touching the legend.
const legendGap = 22

// legendSlack widens the legend's column over the width gonum measures
// with Liberation Sans: a browser without that font draws the SVG's text
// in its own sans-serif (DejaVu Sans is about a fifth wider).
const legendSlack = 1.25

// drawLegendRight draws p into dc, leaving a column at the right for
// legend, which it draws there, its top level with the top of the data
// area.
func drawLegendRight(p *plot.Plot, legend *plot.Legend, dc draw.Canvas) {
	legend.Top, legend.Left = true, true
	legend.XOffs, legend.YOffs = 0, 0
	legend.Padding = vg.Points(3)
	width := legend.Rectangle(dc).Size().X * legendSlack
	if width > 0 {
		width += vg.Points(legendGap)
	} else {
		width = vg.Points(legendGap / 2) // still room for the last tick's label
	}
	p.Draw(draw.Crop(dc, 0, -width, 0, 0))
	top := p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
	legend.Draw(draw.Crop(dc, dc.Max.X-dc.Min.X-width+vg.Points(legendGap), 0, 0, -top))
}

// addSpan shades span sp from 0 to top light grey, its label at its top
// left.
func addSpan(p *plot.Plot, sp Span, top float64) error {
	poly, err := plotter.NewPolygon(plotter.XYs{{X: sp.From, Y: 0}, {X: sp.To, Y: 0}, {X: sp.To, Y: top}, {X: sp.From, Y: top}})
	if err != nil {
		return err
	}
	poly.Color = color.RGBA{R: 0xee, G: 0xee, B: 0xee, A: 0xff}
	poly.LineStyle.Width = 0
	label, err := guideLabel(plotter.XY{X: sp.From, Y: top}, sp.Label)
	if err != nil {
		return err
	}
	label.TextStyle[0].YAlign = draw.YTop
	label.Offset = vg.Point{X: vg.Points(3), Y: vg.Points(-2)}
	p.Add(poly, label)
	return nil
}

// addSeries draws s, the i-th series, on p with its entry in legend: in
// palette's i-th colour (dotted in its second round), or aggregateColor
// when Bold.
func addSeries(p *plot.Plot, legend *plot.Legend, s Series, i int) error {
	col := palette[i%len(palette)]
	if s.Bold {
		col = aggregateColor // the sum or the merged line, apart from every VM's
	}
	if len(s.Points) == 0 {
		return nil
	}
	xys := make(plotter.XYs, len(s.Points))
	for i, pt := range s.Points {
		xys[i] = plotter.XY{X: pt.X, Y: pt.Y}
	}
	line, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	line.Color, line.Width = col, vg.Points(1.2)
	if s.Bold {
		line.Width = vg.Points(2.5)
	}
	switch {
	case s.Dashed:
		line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	case !s.Bold && (i/len(palette))%2 == 1:
		line.Dashes = []vg.Length{vg.Points(2), vg.Points(2)} // the palette's second round (VMs 9-16): dotted
	}
	p.Add(line)
	legend.Add(s.Name, line)
	return nil
}

// addMark draws a dashed vertical line at m.Value from 0 to top, its
// label at the top right of it, a line lower when lower is set (under a
// span's label).
func addMark(p *plot.Plot, m Tick, top float64, lower bool) error {
	l, err := dashedGuide(p, plotter.XYs{{X: m.Value, Y: 0}, {X: m.Value, Y: top}}, plotter.XY{X: m.Value, Y: top}, m.Label)
	if err != nil {
		return err
	}
	l.TextStyle[0].YAlign = draw.YTop
	l.Offset = vg.Point{X: vg.Points(3), Y: vg.Points(-2)}
	if lower {
		l.Offset.Y -= vg.Points(11)
	}
	return nil
}

// seriesRange returns the x range, the largest y and the number of
// points of series.
func seriesRange(series []Series) (xMin, xMax, yMax float64, n int) {
	for _, s := range series {
		for _, pt := range s.Points {
			if n == 0 || pt.X < xMin {
				xMin = pt.X
			}
			if n == 0 || pt.X > xMax {
				xMax = pt.X
			}
			if n == 0 || pt.Y > yMax {
				yMax = pt.Y
			}
			n++
		}
	}
	return xMin, xMax, yMax, n
}

// Nines maps a percentile p (0 to 100) to the x of a percentile chart,
// -log10(1 - p/100): 50 is 0.3, 90 is 1, 99 is 2, 99.9 is 3, so that the
// tail gets as much room as the body, as HdrHistogram's plots do. 100
// is clamped to 99.999.
func Nines(p float64) float64 { return -math.Log10(1 - min(p, 99.999)/100) }

// NinesTicks are the ticks of a percentile chart up to maxNines nines:
// 0, 50, 90, 99, 99.9, ...
func NinesTicks(maxNines int) []Tick {
	ticks := []Tick{{Value: 0, Label: "0"}, {Value: Nines(50), Label: "50"}}
	for k := 1; k <= maxNines; k++ {
		p := 100 * (1 - math.Pow10(-k))
		ticks = append(ticks, Tick{Value: Nines(p), Label: strconv.FormatFloat(p, 'f', -1, 64)})
	}
	return ticks
}
