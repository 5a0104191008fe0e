package vdbench

import (
	"fmt"

	"vmbench/report"
	"vmbench/vdbench/blockio"
	"vmbench/workload"
)

// ReviewCurves returns the latency-vs-IOPS curves of a run read back
// (ReadResults): the mean service time of all targets together and, when
// the points have it, the mean latency from the intended start, each
// against the achieved IOPS in curve order. The report draws them with
// the 100 µs and 1 ms lines (report.LatencyChart), as WriteCharts does.
func (c *Config) ReviewCurves(o *workload.Output) []report.Curve {
	return recordCurves(recordOf(o))
}

// recordCurves are rec's curves: service time, and from the intended start
// when its points have it.
func recordCurves(rec *RunRecord) []report.Curve {
	service := report.Curve{Name: "service time (all targets)"}
	intended := report.Curve{Name: "from intended start"}
	for _, p := range rec.CurveOrder() {
		service.Points = append(service.Points, report.Point{IOPS: p.Achieved, Latency: p.Service.Mean, Label: p.Label, Saturated: p.Saturated})
		if p.Intended != nil {
			intended.Points = append(intended.Points, report.Point{IOPS: p.Achieved, Latency: p.Intended.Mean, Label: p.Label, Saturated: p.Saturated})
		}
	}
	if len(service.Points) == 0 {
		return nil
	}
	if len(intended.Points) == 0 {
		return []report.Curve{service}
	}
	return []report.Curve{service, intended}
}

// reviewFigures are the figures of the review row after the run's name,
// in column order, their labels the column headers: where the curve
// starts (IOPS and mean service time), the IOPS where its mean service
// time crosses 100 µs and 1 ms (interpolated between curve points), and
// the peak (IOPS, throughput in GB/s of 10⁹ bytes, mean service time).
// Latencies are in µs to a tenth, as the seed reviews publish them (and
// Reference rows hold them); Digits is the decimals every form shows.
var reviewFigures = []report.Figure{
	{Name: "start IOPS"},
	{Name: "start latency", Unit: "µs", Digits: 1},
	{Name: "IOPS at 100 µs"},
	{Name: "IOPS at 1 ms"},
	{Name: "peak IOPS"},
	{Name: "peak throughput", Unit: "GB/s", Digits: 2},
	{Name: "peak latency", Unit: "µs", Digits: 1},
}

// reviewCell is one figure of a run's review row: the figure with its
// value when the run has one, else the words shown in its place.
type reviewCell struct {
	fig   report.Figure
	ok    bool
	words string
}

// text is the cell as shown: the value grouped with the figure's digits,
// or the words.
func (c reviewCell) text() string {
	if !c.ok {
		return c.words
	}
	return report.Grouped(c.fig.Value, c.fig.Digits)
}

// reviewCells computes the review row's figures of s once, for
// ReviewRow and ReviewFigures: each reviewFigures entry with its value,
// or in words where the curve has none: a crossing "not reached (up to
// N IOPS)" (CrossingText: N the highest rate of the curve points), or
// "above at the start" (the start's IOPS, its own column). A run without
// a measured point has "–" throughout.
func reviewCells(s Summary) []reviewCell {
	cells := make([]reviewCell, len(reviewFigures))
	if s.PeakIOPS == 0 {
		for i, f := range reviewFigures {
			cells[i] = reviewCell{fig: f, words: "–"}
		}
		return cells
	}
	values := []float64{s.StartIOPS, micros(s.StartLatency.Seconds()), s.Cross100us.IOPS, s.Cross1ms.IOPS,
		s.PeakIOPS, s.PeakGBps, micros(s.PeakLatency.Seconds())}
	for i, f := range reviewFigures {
		f.Value = values[i]
		cells[i] = reviewCell{fig: f, ok: true}
	}
	for i, x := range []Crossing{s.Cross100us, s.Cross1ms} { // cells 2 and 3
		c := &cells[2+i]
		switch {
		case x.AboveAtStart: // at the start's IOPS, in the column before
			c.ok, c.words = false, "above at the start"
		case x.NotReached:
			c.ok, c.words = false, CrossingText(x)
		}
	}
	return cells
}

// ReviewColumns implements workload.RowReviewer: the profile, then
// reviewFigures' labels, numeric.
func (c *Config) ReviewColumns() []workload.RowColumn {
	cols := []workload.RowColumn{{Header: "profile"}}
	for _, f := range reviewFigures {
		cols = append(cols, workload.RowColumn{Header: f.Label(), Numeric: true})
	}
	return cols
}

// ReviewRow implements workload.RowReviewer: the title (marked † for an
// APPROXIMATION, and interrupted), then the figures of reviewCells, and a
// note when the start point achieved less than blockio.SaturationRatio of its
// request (its latency then is the saturated device's, not the device's
// at that rate).
func (c *Config) ReviewRow(o *workload.Output) workload.ReviewRow {
	rec := recordOf(o)
	s := Summarize(rec.curveResult())
	title := c.Title()
	if c.prof != nil && c.prof.Approximation {
		title += " †"
	}
	if rec.Error != "" {
		title += " (interrupted)"
	}
	row := workload.ReviewRow{Cells: []string{title}}
	for _, cell := range reviewCells(s) {
		row.Cells = append(row.Cells, cell.text())
	}
	if s.StartRequested > 0 && s.StartIOPS < blockio.SaturationRatio*s.StartRequested {
		row.Notes = append(row.Notes, fmt.Sprintf("%s: the start point achieved %.0f%% of the %s IOPS it requested (saturated): "+
			"its latency is not the device's at that rate (the curve table gives the latency from the intended start).",
			c.Title(), 100*s.StartIOPS/s.StartRequested, fmtIOPS(s.StartRequested)))
	}
	return row
}

// ReviewFigures returns the figures of the review row (ReviewRow) that
// have a value, as numbers, for comparisons and JSON: reviewFigures in
// order, labelled as the row's columns, a crossing the curve does not
// make left out; nil for a run without a measured point.
func (c *Config) ReviewFigures(o *workload.Output) []report.Figure {
	var figs []report.Figure
	for _, cell := range reviewCells(Summarize(recordOf(o).curveResult())) {
		if cell.ok {
			figs = append(figs, cell.fig)
		}
	}
	return figs
}

func micros(seconds float64) float64 { return seconds * 1e6 }
