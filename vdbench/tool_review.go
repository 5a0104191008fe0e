package vdbench

import (
	"strings"

	"vmbench/report"
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

// ReviewFigures returns the figures of the review row (ReviewRow) as
// numbers, for comparisons and JSON: the start's IOPS and latency, the
// IOPS where the curve crosses 100 µs and 1 ms (absent when it does not
// cross it within the curve), the peak IOPS, its GB/s (10⁹ bytes per
// second, for the 64K profiles) and its latency. Latencies are in µs.
func (c *Config) ReviewFigures(o *workload.Output) []report.Figure {
	s := Summarize(recordOf(o).curveResult())
	if s.PeakIOPS == 0 {
		return nil
	}
	f := []report.Figure{
		{Name: "start IOPS", Value: s.StartIOPS, Digits: 0},
		{Name: "start latency", Unit: "µs", Value: micros(s.StartLatency.Seconds()), Digits: 1},
	}
	for _, x := range []Crossing{s.Cross100us, s.Cross1ms} {
		if !x.NotReached && !x.AboveAtStart {
			f = append(f, report.Figure{Name: "IOPS at " + fmtLatency(x.Threshold), Value: x.IOPS, Digits: 0})
		}
	}
	f = append(f, report.Figure{Name: "peak IOPS", Value: s.PeakIOPS, Digits: 0})
	if strings.HasPrefix(c.name(), "64k-") {
		f = append(f, report.Figure{Name: "peak throughput", Unit: "GB/s", Value: s.PeakGBps, Digits: 2})
	}
	return append(f, report.Figure{Name: "peak latency", Unit: "µs", Value: micros(s.PeakLatency.Seconds()), Digits: 1})
}

func micros(seconds float64) float64 { return seconds * 1e6 }
