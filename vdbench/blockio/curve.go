package blockio

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"vmbench/oltp"
	"vmbench/oltp/hist"
	"vmbench/report"
	"vmbench/vdbench/parmfile"
)

// SaturationRatio is the fraction of its requested rate below which a
// point's achieved rate marks it saturated.
const SaturationRatio = 0.97

// OvershootRatio is the multiple of its requested rate above which a
// point's achieved rate flags it as above its request. An open loop cannot
// run faster than its schedule over a whole phase unless something else
// ran in it (arrivals carried from before the phase, I/Os counted without
// their time); with Poisson arrivals a phase of n I/Os strays about
// 1/sqrt(n) from the rate, well under 3% for any usable point.
const OvershootRatio = 1.03

// TooShortMax is the rate a curve assumes when its max run achieved none
// (vdbench's "Was run too short?" fallback).
const TooShortMax = 10000

// Point is one run of a curve: the max run, a curve point, or one
// iorate= value.
type Point struct {
	// Label is "max", a curve point ("10%", "120%") or a fixed rate ("2000").
	Label string
	// Requested is the total rate asked for in I/O per second (0 for max).
	Requested float64
	// Achieved is the total rate measured: I/Os completed in the measure
	// phase over its length, summed over the SDs.
	Achieved float64
	// Saturated is set when Achieved < SaturationRatio × Requested.
	Saturated bool
	// Overshot is set when Achieved > OvershootRatio × Requested.
	Overshot bool
	// Flag says in words why the point is flagged: saturated or above
	// its request (with the achieved share of the request), and a runner
	// that was late (the phase or an interval overran); empty when not.
	Flag string
	// Result is the measure phase merged over the SDs (exact histograms).
	Result *oltp.Result
	// PerSD holds each SD's own Result, in the run's SD order.
	PerSD []*oltp.Result
	// VMRange is the point's spread across VMs, for a point of a merged
	// record (vdbench.MergeVMRecords); nil otherwise.
	VMRange *VMRange
	// Scheduled is the point's planned start on the common grid of a run
	// with Options.StartAt (zero without one).
	Scheduled time.Time

	// Printed is the text the engine printed for the point while it ran
	// (its "Starting RD=" line, the interval lines and the avg line, in
	// vdbench's format), so that result files hold the lines the console
	// showed; empty for a point read back from a record.
	Printed string
}

// CurveResult is the outcome of one expanded run.
type CurveResult struct {
	Run    string
	Points []Point
	// Warnings says what a reader of the numbers must know: a max run that
	// achieved nothing, points skipped by stopcurve=, streams that reached
	// the end of their span.
	Warnings []string
}

// VMRange is how a merged point's figures spread across the VMs that
// measured it, each VM's own point (all its SDs merged).
type VMRange struct {
	// VMs is the number of VMs that measured the point.
	VMs int `json:"vms"`
	// IOPSMin and IOPSMax bound the VMs' achieved I/O per second.
	IOPSMin float64 `json:"iops_min"`
	IOPSMax float64 `json:"iops_max"`
	// MeanMin, MeanMax, P99Min and P99Max bound the VMs' mean and 99th
	// percentile service times.
	MeanMin time.Duration `json:"mean_min_ns"`
	MeanMax time.Duration `json:"mean_max_ns"`
	P99Min  time.Duration `json:"p99_min_ns"`
	P99Max  time.Duration `json:"p99_max_ns"`
	// MeanOfP95 is the arithmetic mean of the VMs' own 95th-percentile
	// service times: the figure HCIBench reports for a multi-VM run. It is
	// not a percentile of the merged I/Os (the merged point's p99 and
	// mean are), and a VM with few I/Os weighs as much as a busy one.
	MeanOfP95 time.Duration `json:"mean_of_vm_p95_ns"`
}

// CurveRate returns the rate a curve point of pct percent of peak (the
// max run's rate) asks for, as vdbench computes it: peak × pct / 100, rounded up to a multiple
// of 100 when above 1,000 I/O per second, else to a multiple of 10. A
// relative slack of 1e-9 absorbs floating-point error, so 20,000 × 10%
// asks for 2,000, not 2,100.
func CurveRate(peak, pct float64) float64 {
	r := peak * pct / 100
	step := 10.0
	if r > 1000 {
		step = 100
	}
	return math.Ceil(r/step*(1-1e-9)) * step
}

// curvePct formats a curve point's label: "10%", "12.5%".
func curvePct(pct float64) string { return strconv.FormatFloat(pct, 'f', -1, 64) + "%" }

// RateLabel formats an iorate= value, in I/Os per second, as a point
// label: "2000", "1500.5".
func RateLabel(rate float64) string { return strconv.FormatFloat(rate, 'f', -1, 64) }

// pointRunner runs one point: label, total requested rate (0 = max).
type pointRunner func(label string, rate float64) (Point, error)

// runPoints runs the points of rd through run: the max run, then each
// curve point (iorate=curve); each rate (iorate=N or a list); or the max
// run alone. Completed points are returned with the first error.
func runPoints(rd parmfile.RD, run pointRunner) ([]Point, []string, error) {
	ps := &pointSet{rd: rd, run: run}
	var err error
	switch {
	case rd.IORate.Curve:
		err = ps.curve()
	case len(rd.IORate.Rates) > 0:
		err = ps.rates()
	default:
		_, err = ps.add("max", 0)
	}
	return ps.points, ps.warnings, err
}

// pointSet is the points of one rd run so far (see runPoints).
type pointSet struct {
	rd       parmfile.RD
	run      pointRunner
	points   []Point
	warnings []string
}

// add runs one point and keeps it when it has a result, with its
// request, saturation and flag set (rate 0 = max).
func (ps *pointSet) add(label string, rate float64) (Point, error) {
	p, err := ps.run(label, rate)
	if err == nil || p.Result != nil {
		if rate > 0 {
			p.Requested = rate
			p.Saturated = p.Achieved < SaturationRatio*rate
			p.Overshot = p.Achieved > OvershootRatio*rate
			if p.Overshot {
				ps.warnings = append(ps.warnings, fmt.Sprintf("rd=%s: point %s achieved %s IOPS for a requested %s (%.1f%%): above its request, so its figures are not those of the rate asked",
					ps.rd.Name, label, report.Grouped(p.Achieved, 0), report.Grouped(rate, 0), 100*p.Achieved/rate))
			}
		}
		p.Flag = PointFlag(p)
		ps.points = append(ps.points, p)
	}
	return p, err
}

// curve runs the max run, then each curve point (iorate=curve), until
// stopcurve's response time is passed.
func (ps *pointSet) curve() error {
	rd := ps.rd
	maxPoint, err := ps.add("max", 0)
	if err != nil {
		return err
	}
	peak := maxPoint.Achieved
	if peak <= 0 {
		peak = TooShortMax
		ps.warnings = append(ps.warnings, fmt.Sprintf("rd=%s: the max run achieved no I/O; the curve assumes %d I/O per second. Was run too short?", rd.Name, TooShortMax))
	}
	pcts := rd.Curve
	if len(pcts) == 0 {
		pcts = parmfile.DefaultCurve()
	}
	for i, pct := range pcts {
		p, err := ps.add(curvePct(pct), CurveRate(peak, pct))
		if err != nil {
			return err
		}
		if rd.StopCurve > 0 && i+1 < len(pcts) {
			if mean := MeanService(p.Result); mean > rd.StopCurve {
				ps.warnings = append(ps.warnings, fmt.Sprintf("rd=%s: stopcurve=%s: the mean response time at %s was %s; the %d remaining points were skipped",
					rd.Name, fmtMs(rd.StopCurve), p.Label, fmtMs(mean), len(pcts)-i-1))
				break
			}
		}
	}
	return nil
}

// rates runs each rate of iorate=N or a list.
func (ps *pointSet) rates() error {
	for _, r := range ps.rd.IORate.Rates {
		if r <= 0 {
			return fmt.Errorf("rd=%s: iorate=%g is not a rate", ps.rd.Name, r)
		}
		if _, err := ps.add(RateLabel(r), r); err != nil {
			return err
		}
	}
	return nil
}

// PointFlag says why p is flagged, as Point.Flag holds it: saturated or
// above its request (from p's Saturated, Overshot and rates), and a late
// runner (an overrun in p.Result); "" when it is not flagged.
func PointFlag(p Point) string {
	var parts []string
	switch {
	case p.Saturated:
		parts = append(parts, fmt.Sprintf("saturated (%.1f%% of the request)", 100*p.Achieved/p.Requested))
	case p.Overshot:
		parts = append(parts, fmt.Sprintf("above the request (%.1f%% of it)", 100*p.Achieved/p.Requested))
	}
	if p.Result != nil && (len(p.Result.Overruns) > 0 || p.Result.Precondition != nil && len(p.Result.Precondition.Overruns) > 0) {
		parts = append(parts, "runner late (overran)")
	}
	return strings.Join(parts, "; ")
}

// MeanService is the mean service time of all I/O in res, reads and
// writes (0 when none, or res is nil).
func MeanService(res *oltp.Result) time.Duration {
	s, err := Latency(res, false)
	if err != nil {
		return 0
	}
	return s.Mean()
}

// fmtMs formats d in milliseconds with microsecond resolution.
func fmtMs(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64) + " ms"
}

// Latency merges the read and write histograms of res: the service
// time, or with intended the latency from the intended start (an empty
// histogram when res is nil or has none). An error is a histogram of res
// that does not decode.
func Latency(res *oltp.Result, intended bool) (*hist.Histogram, error) {
	h := hist.New()
	if res == nil {
		return h, nil
	}
	for _, o := range res.Ops {
		s := &o.Latency
		if intended {
			s = o.Intended
		}
		if s == nil {
			continue
		}
		oh, err := s.Histogram()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.Name, err)
		}
		h.Merge(oh)
	}
	return h, nil
}
