package report

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

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

// Panel is one plot of a StackedLineChart: its series over the chart's
// shared x axis, on a y axis of its own from 0.
type Panel struct {
	// YLabel is the panel's y axis title with its unit ("TPS per VM").
	YLabel string
	Series []Series
}

// LineChart writes an SVG chart of series as lines over a linear x axis
// starting at the smallest x (or 0, LineOptions.FromZero) and a y axis
// from 0, with the shaded spans, the vertical marks, the style of
// LatencyChart and the legend outside the plot, at its right, so that it
// covers neither a line nor a mark. The output depends only on the
// arguments; an error says the chart has no point or a point that is not
// a finite number.
func LineChart(w io.Writer, title string, series []Series, opts LineOptions) error {
	return StackedLineChart(w, title, []Panel{{YLabel: opts.YLabel, Series: series}}, opts)
}

// StackedLineChart writes an SVG chart of panels one above the other, as
// LineChart draws one: one x axis (the same range and ticks in each
// panel, its title under the last), a y axis of each panel's own, the y
// axes aligned, so that series of very different sizes (a sum and its
// parts) each fill their panel. The spans and marks run through every
// panel, labelled in the first; one legend at the right lists every
// panel's series, the first panel's first. Series take the palette's
// colours in order over all panels, Bold ones apart. Height 0 means 360
// points for one panel and 200 more for each further one.
func StackedLineChart(w io.Writer, title string, panels []Panel, opts LineOptions) error {
	var all []Series
	for _, pn := range panels {
		all = append(all, pn.Series...)
	}
	xMin, xMax, yMax, n := seriesRange(all)
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
	if opts.XTicks != nil {
		xMax += (xMax - xMin) * 0.04 // room for the last tick's label
	}
	var legend plot.Legend
	plots := make([]*plot.Plot, len(panels))
	colour := 0
	for i, pn := range panels {
		t, xl := "", ""
		if i == 0 {
			t = title
		}
		if i == len(panels)-1 {
			xl = opts.XLabel
		}
		p := basePlot(t, xl, pn.YLabel)
		if i == 0 {
			legend = p.Legend // drawn beside the plots, not in them (theirs stay empty)
		}
		if err := fillPanel(p, &legend, pn, opts, i == 0, &colour); err != nil {
			return err
		}
		p.X.Min, p.X.Max = xMin, xMax
		plots[i] = p
	}
	height := orPositive(opts.Height, 360+200*float64(len(panels)-1))
	c := vgsvg.New(vg.Points(orPositive(opts.Width, 576)), vg.Points(height))
	drawLegendRight(plots, &legend, draw.New(c))
	_, err := c.WriteTo(w)
	return err
}

// fillPanel draws panel pn into p: its x ticks, its y axis from 0 to a
// tenth above its highest point, the spans and marks (labelled when
// first is set), and its series, each with its legend entry; colour is
// the palette index of the next series that is not Bold.
func fillPanel(p *plot.Plot, legend *plot.Legend, pn Panel, opts LineOptions, first bool, colour *int) error {
	_, _, yMax, _ := seriesRange(pn.Series)
	yMax = max(yMax*1.1, 1e-9)
	p.X.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick { return linearTicks(lo, hi, trimFloat) })
	if opts.XTicks != nil {
		fixed := make([]plot.Tick, len(opts.XTicks))
		for i, t := range opts.XTicks {
			fixed[i] = plot.Tick{Value: t.Value, Label: t.Label}
		}
		p.X.Tick.Marker = plot.ConstantTicks(fixed)
	}
	p.Y.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick { return linearTicks(lo, hi, FormatRate) })
	labels := &labelLayer{}
	for _, sp := range opts.Spans {
		if err := addSpan(p, labels, sp, yMax, first); err != nil {
			return err
		}
	}
	for _, m := range opts.Marks {
		if err := addMark(p, labels, m, yMax, first); err != nil {
			return err
		}
	}
	for _, s := range pn.Series {
		if err := addSeries(p, legend, s, *colour); err != nil {
			return fmt.Errorf("report: series %s: %w", s.Name, err)
		}
		if !s.Bold {
			*colour++
		}
	}
	p.Add(labels)
	p.Y.Min, p.Y.Max = 0, yMax
	return nil
}

// legendGap is the room between the plot and a legend drawn at its
// right: the last x tick's label, centred on the plot's right edge, runs
// into it without touching the legend.
const legendGap = 22

// legendSlack widens the legend's column over the width gonum measures
// with Liberation Sans: a browser without that font draws the SVG's text
// in its own sans-serif (DejaVu Sans is about a fifth wider).
const legendSlack = 1.25

// legendPadding is the room between two legend entries, in points: a
// 10-point entry is 8.7 points high in Liberation Sans and 11.7 in DejaVu
// Sans, which a browser may draw it in.
const legendPadding = 4

// drawLegendRight draws plots into dc one above the other, their y axes
// aligned, leaving a column at the right for legend, which it draws
// there, its top level with the top of the first plot's data area.
func drawLegendRight(plots []*plot.Plot, legend *plot.Legend, dc draw.Canvas) {
	legend.Top, legend.Left = true, true
	legend.XOffs, legend.YOffs = 0, 0
	legend.Padding = vg.Points(legendPadding)
	width := legend.Rectangle(dc).Size().X * legendSlack
	if width > 0 {
		width += vg.Points(legendGap)
	} else {
		width = vg.Points(legendGap / 2) // still room for the last tick's label
	}
	rows := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		rows[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Points(12)}
	for i, c := range plot.Align(rows, tiles, draw.Crop(dc, 0, -width, 0, 0)) {
		plots[i].Draw(c[0])
	}
	p := plots[0]
	top := p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
	legend.Draw(draw.Crop(dc, dc.Max.X-dc.Min.X-width+vg.Points(legendGap), 0, 0, -top))
}

// legendBelowGap is the room between a plot's x axis title and a legend
// drawn under it, in points.
const legendBelowGap = 6

// legendBelowHeight is the height a legend drawn under a plot adds to
// the chart (drawLegendBelow): 0 for a legend without entries.
func legendBelowHeight(l *plot.Legend) vg.Length {
	l.Padding = vg.Points(legendPadding)
	h := l.Rectangle(draw.Canvas{}).Size().Y
	if h == 0 {
		return 0
	}
	return h + vg.Points(legendBelowGap) + l.TextStyle.FontExtents().Descent
}

// drawLegendBelow draws p into dc but for a strip of height below at its
// bottom, where it draws legend, level with the left of p's data area: a
// legend there covers neither the lines nor the point labels however many
// entries it has.
func drawLegendBelow(p *plot.Plot, legend *plot.Legend, dc draw.Canvas, below vg.Length) {
	area := draw.Crop(dc, 0, 0, below, 0)
	p.Draw(area)
	if below == 0 {
		return
	}
	legend.Top, legend.Left = true, true
	legend.XOffs, legend.YOffs = 0, 0
	left := p.DataCanvas(area).Min.X - dc.Min.X
	legend.Draw(draw.Crop(dc, left, 0, 0, below-vg.Points(legendBelowGap)-(dc.Max.Y-dc.Min.Y)))
}

// addSpan shades span sp from 0 to top light grey, with its name at its
// top left in labels when named.
func addSpan(p *plot.Plot, labels *labelLayer, sp Span, top float64, named bool) error {
	poly, err := plotter.NewPolygon(plotter.XYs{{X: sp.From, Y: 0}, {X: sp.To, Y: 0}, {X: sp.To, Y: top}, {X: sp.From, Y: top}})
	if err != nil {
		return err
	}
	poly.Color = color.RGBA{R: 0xee, G: 0xee, B: 0xee, A: 0xff}
	poly.LineStyle.Width = 0
	p.Add(poly)
	if named {
		labels.add(topLabel(plotter.XY{X: sp.From, Y: top}, sp.Label))
	}
	return nil
}

// topLabel is a label hanging from the top of the plot right of at (a
// span's start, a mark).
func topLabel(at plotter.XY, name string) label {
	lb := label{at: at, text: name, style: smallText(darkGrey), dx: vg.Points(3), moves: topMoves}
	lb.dy = -vg.Points(2) - labelSize(lb).Y
	return lb
}

// addSeries draws s on p with its entry in legend: in palette's colour
// number i, dashed in the palette's second round (lines 9 to 16), or in
// aggregateColor when Bold.
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
	line.Color, line.Width = col, vg.Points(1.5)
	if s.Bold {
		line.Width = vg.Points(2.5)
	}
	switch {
	case s.Dashed:
		line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	case !s.Bold && (i/len(palette))%2 == 1:
		line.Dashes = []vg.Length{vg.Points(4), vg.Points(2)} // the palette's second round (lines 9-16)
	}
	p.Add(line)
	legend.Add(s.Name, line)
	return nil
}

// addMark draws a dashed vertical line at m.Value from 0 to top, with its
// name at its top right in labels when named.
func addMark(p *plot.Plot, labels *labelLayer, m Tick, top float64, named bool) error {
	if err := dashedGuide(p, plotter.XYs{{X: m.Value, Y: 0}, {X: m.Value, Y: top}}); err != nil {
		return err
	}
	if named {
		labels.add(topLabel(plotter.XY{X: m.Value, Y: top}, m.Label))
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
		label := strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(p, 'f', k, 64), "0"), ".") // 99.999, not 99.99900000000001
		ticks = append(ticks, Tick{Value: Nines(p), Label: label})
	}
	return ticks
}
