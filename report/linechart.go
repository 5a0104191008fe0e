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
	// Marks are vertical dashed lines with a label at the top (where the
	// measurement starts).
	Marks []Tick
	// Width and Height are in points; 0 means 576 x 360.
	Width, Height float64
}

// LineChart writes an SVG chart of series as lines over a linear x axis
// starting at the smallest x and a y axis from 0, with a legend, the
// vertical marks and the style of LatencyChart. The output depends only on
// the arguments.
func LineChart(w io.Writer, title string, series []Series, opts LineOptions) error {
	p := basePlot(title, opts.XLabel, opts.YLabel)
	xMin, xMax, yMax, n := seriesRange(series)
	if n == 0 {
		return errors.New("report: line chart: no points to draw")
	}
	if math.IsNaN(xMin+xMax+yMax) || math.IsInf(xMin+xMax+yMax, 0) {
		return fmt.Errorf("report: line chart %q: a point is not a finite number", title)
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
	for _, m := range opts.Marks {
		if err := addMark(p, m, yMax); err != nil {
			return err
		}
	}
	for i, s := range series {
		if err := addSeries(p, s, palette[i%len(palette)]); err != nil {
			return fmt.Errorf("report: series %s: %w", s.Name, err)
		}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xMin, xMax, 0, yMax
	c := vgsvg.New(vg.Points(orPositive(opts.Width, 576)), vg.Points(orPositive(opts.Height, 360)))
	p.Draw(draw.New(c))
	_, err := c.WriteTo(w)
	return err
}

// addSeries draws s in colour col with its legend entry.
func addSeries(p *plot.Plot, s Series, col color.RGBA) error {
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
	if s.Dashed {
		line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	}
	p.Add(line)
	p.Legend.Add(s.Name, line)
	return nil
}

// addMark draws a dashed vertical line at m.Value from 0 to top, its
// label at the top.
func addMark(p *plot.Plot, m Tick, top float64) error {
	l, err := dashedGuide(p, plotter.XYs{{X: m.Value, Y: 0}, {X: m.Value, Y: top}}, plotter.XY{X: m.Value, Y: top}, m.Label)
	if err != nil {
		return err
	}
	l.TextStyle[0].YAlign = draw.YTop
	l.Offset = vg.Point{X: vg.Points(3), Y: vg.Points(-2)}
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
