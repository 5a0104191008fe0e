package vdbench

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"vmbench/oltp"
	"vmbench/report"
	"vmbench/vdbench/blockio"
)

// WriteCurve writes a run's table: one row per point with the requested
// and achieved rate, MB/s, the service time (mean, p50, p99, max), the
// latency from the intended start (mean, p99; open loop only) and the
// client's CPU time per I/O (the whole vmbench process, see
// oltp.ClientCost) and the point's flag (Point.Flag: saturated or above its request, with the share
// of the request achieved; a late runner), then the run's warnings.
func WriteCurve(w io.Writer, c *blockio.CurveResult) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s; intended counts from the scheduled start (open loop), queueing included; "+
		"client us/io is the vmbench process's CPU time per I/O (user+system, µs)\n", serviceWords(c))
	t := curveTable()
	for _, p := range c.Points {
		s, err := blockio.Latency(p.Result, false)
		if err != nil {
			return fmt.Errorf("point %s: %w", p.Label, err)
		}
		in, err := blockio.Latency(p.Result, true)
		if err != nil {
			return fmt.Errorf("point %s: %w", p.Label, err)
		}
		req, ia, ip, sat := "-", "-", "-", ""
		if p.Requested > 0 {
			req = blockio.RateLabel(p.Requested)
		}
		if in.Count() > 0 {
			ia, ip = report.FormatMillis(in.Mean(), 3), report.FormatMillis(in.Percentile(99), 3)
		}
		switch {
		case p.Flag != "":
			sat = p.Flag
		case p.Saturated: // a version 1 record
			sat = "saturated"
		}
		if p.Result != nil && p.Result.Client != nil && p.Result.Client.Bound() {
			sat = strings.TrimPrefix(sat+"; CLIENT-BOUND (the client used over 80% of its cores)", "; ")
		}
		t.Rows = append(t.Rows, []string{p.Label, req, fmt.Sprintf("%.2f", p.Achieved), fmt.Sprintf("%.2f", bytesPerSec(p.Result)/float64(report.MiB)),
			report.FormatMillis(s.Mean(), 3), report.FormatMillis(s.Percentile(50), 3),
			report.FormatMillis(s.Percentile(99), 3), report.FormatMillis(s.Max(), 3), ia, ip, clientPerIO(p.Result), sat})
	}
	if err := t.WriteText(&b); err != nil {
		return err
	}
	if err := writeVMSpread(&b, c); err != nil {
		return err
	}
	for _, warn := range c.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", warn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeVMSpread writes, for a curve merged across VMs (MergeVMRecords),
// each point's spread across the VMs: the VMs' own IOPS, mean and p99
// service times (min-max) and the mean of their p95s, HCIBench's figure.
func writeVMSpread(b *strings.Builder, c *blockio.CurveResult) error {
	if !slices.ContainsFunc(c.Points, func(p blockio.Point) bool { return p.VMRange != nil }) {
		return nil
	}
	fmt.Fprintf(b, "\nper VM (each VM's own point, all its targets): IOPS, avg and p99 ms as min-max over the VMs; "+
		"mean of VM p95s is the mean of each VM's 95th percentile, as HCIBench reports, not a percentile of the merged I/Os (the table above has those)\n")
	t := &report.Table{Gap: 1, Columns: []report.Column{{Header: "point", Width: 8}}}
	for _, h := range []string{"VMs", "VM IOPS", "VM avg ms", "VM p99 ms", "mean of VM p95s ms"} {
		t.Columns = append(t.Columns, report.Column{Header: h, Align: report.Right})
	}
	for _, p := range c.Points {
		r := p.VMRange
		if r == nil {
			continue
		}
		t.Rows = append(t.Rows, []string{p.Label, fmt.Sprint(r.VMs), fmt.Sprintf("%.2f-%.2f", r.IOPSMin, r.IOPSMax),
			report.FormatMillis(r.MeanMin, 3) + "-" + report.FormatMillis(r.MeanMax, 3),
			report.FormatMillis(r.P99Min, 3) + "-" + report.FormatMillis(r.P99Max, 3), report.FormatMillis(r.MeanOfP95, 3)})
	}
	return t.WriteText(b)
}

// curveTable is WriteCurve's table without rows: fixed columns one space
// apart (two before the flag), as vdbench's fixed-width reports print.
func curveTable() *report.Table {
	t := &report.Table{Gap: 1, Columns: []report.Column{{Header: "point", Width: 8}}}
	for _, c := range []struct {
		h string
		w int
	}{{"requested", 10}, {"IOPS", 11}, {"MB/sec", 9}, {"avg ms", 9}, {"p50 ms", 9}, {"p99 ms", 9}, {"max ms", 9},
		{"intended avg", 12}, {"intended p99", 12}, {"client us/io", 12}} {
		t.Columns = append(t.Columns, report.Column{Header: c.h, Align: report.Right, Width: c.w})
	}
	t.Columns = append(t.Columns, report.Column{Header: "flag", Gap: 2})
	return t
}

// serviceWords names the run and its I/O engine and says what its service
// time is.
func serviceWords(c *blockio.CurveResult) string {
	if len(c.Points) > 0 && c.Points[0].Result != nil && c.Points[0].Result.Flags["ioengine"] == blockio.EngineURing {
		return fmt.Sprintf("rd=%s, ioengine=%s: service time is each I/O's time from the io_uring_enter that submits it to its reaped completion", c.Run, blockio.EngineURing)
	}
	return fmt.Sprintf("rd=%s, ioengine=%s: service time is each pread/pwrite's own time (vdbench's response time)", c.Run, blockio.EnginePsync)
}

// clientPerIO is the client process's CPU time per I/O of a point, in µs
// (oltp.ClientCost), or "-" when the Result has none (files before
// Result version 3).
func clientPerIO(res *oltp.Result) string {
	if res == nil || res.Client == nil {
		return "-"
	}
	var n int64
	for _, op := range res.Ops {
		n += op.Latency.Count
	}
	cpu, _, _ := res.Client.PerEvent(n)
	return fmt.Sprintf("%.2f", float64(cpu)/float64(time.Microsecond))
}

func bytesPerSec(res *oltp.Result) float64 {
	if res == nil {
		return 0
	}
	return res.PerSecond(res.Counters[blockio.CounterBytesRead] + res.Counters[blockio.CounterBytesWritten])
}

// Crossing is where a curve's mean service latency crosses a threshold.
type Crossing struct {
	// Threshold is the latency crossed (100 µs, 1 ms).
	Threshold time.Duration
	// IOPS is the achieved rate at the crossing, interpolated linearly
	// between the two adjacent points that straddle it. With NotReached it
	// is the highest rate measured (all below the threshold); with
	// AboveAtStart the start's rate (already above it).
	IOPS         float64
	NotReached   bool
	AboveAtStart bool
}

// Summary is what a review states of one run (docs/methodology.md): where
// the curve starts, where its mean service latency crosses 100 µs and
// 1 ms, and its peak.
//
// The start and the crossings come from the curve points in order of
// requested rate, without the max run: the max run is the closed-loop
// ceiling that sets the curve, not a point on it. A run without curve
// points (iorate=max) uses its one point. The peak is the highest achieved
// rate over all points, the max run included: reviews publish the most
// the drive did, and points above 100% plateau at about the max run's rate.
type Summary struct {
	Run          string
	StartIOPS    float64
	StartLatency time.Duration
	// StartRequested is the start point's requested rate (0 for a max
	// point); the start is saturated when it achieved less than
	// blockio.SaturationRatio of it, and its latency then is not the device's
	// at that rate (see StartText).
	StartRequested float64
	// Saturated counts the rate points that achieved less than
	// blockio.SaturationRatio of their request, of RatePoints.
	Saturated, RatePoints int
	Cross100us            Crossing
	Cross1ms              Crossing
	// PeakIOPS is the highest achieved rate, PeakGBps its throughput in
	// 10⁹ bytes per second and PeakLatency its mean service time;
	// PeakLabel names the point.
	PeakIOPS    float64
	PeakGBps    float64
	PeakLatency time.Duration
	PeakLabel   string
}

// Summarize computes the Summary of c (zero when it has no points).
func Summarize(c *blockio.CurveResult) Summary {
	s := Summary{Run: c.Run}
	type pt struct {
		req, iops float64
		lat       time.Duration
	}
	var curve, all []pt
	for _, p := range c.Points {
		x := pt{req: p.Requested, iops: p.Achieved, lat: blockio.MeanService(p.Result)}
		all = append(all, x)
		if p.Requested > 0 {
			curve = append(curve, x)
			s.RatePoints++
			if p.Achieved < blockio.SaturationRatio*p.Requested {
				s.Saturated++
			}
		}
		if p.Achieved > s.PeakIOPS || s.PeakLabel == "" {
			s.PeakIOPS, s.PeakLatency, s.PeakLabel = p.Achieved, x.lat, p.Label
			s.PeakGBps = bytesPerSec(p.Result) / float64(report.GB)
		}
	}
	if len(curve) == 0 {
		curve = all
	}
	if len(curve) == 0 {
		return s
	}
	slices.SortStableFunc(curve, func(a, b pt) int { return cmp.Compare(a.req, b.req) })
	s.StartIOPS, s.StartLatency, s.StartRequested = curve[0].iops, curve[0].lat, curve[0].req
	cross := func(t time.Duration) Crossing {
		c := Crossing{Threshold: t}
		if curve[0].lat >= t {
			c.AboveAtStart, c.IOPS = true, curve[0].iops
			return c
		}
		for i := 1; i < len(curve); i++ {
			a, b := curve[i-1], curve[i]
			if b.lat >= t {
				c.IOPS = a.iops + float64(t-a.lat)/float64(b.lat-a.lat)*(b.iops-a.iops)
				return c
			}
		}
		c.NotReached = true
		for _, p := range curve {
			c.IOPS = math.Max(c.IOPS, p.iops)
		}
		return c
	}
	s.Cross100us, s.Cross1ms = cross(100*time.Microsecond), cross(time.Millisecond)
	return s
}

// WriteSummary writes s as a review states it.
func WriteSummary(w io.Writer, s Summary) error {
	var b strings.Builder
	fmt.Fprintf(&b, "rd=%s summary (mean service latency against achieved IOPS)\n", s.Run)
	fmt.Fprintf(&b, "  start:           %s\n", StartText(s))
	for _, c := range []Crossing{s.Cross100us, s.Cross1ms} {
		name := "crosses " + fmtThreshold(c.Threshold) + ":"
		switch {
		case c.AboveAtStart:
			fmt.Fprintf(&b, "  %-16s already above at the start (%s IOPS)\n", name, fmtIOPS(c.IOPS))
		case c.NotReached:
			fmt.Fprintf(&b, "  %-16s not reached: below up to %s IOPS\n", name, fmtIOPS(c.IOPS))
		default:
			fmt.Fprintf(&b, "  %-16s at %s IOPS (interpolated)\n", name, fmtIOPS(c.IOPS))
		}
	}
	fmt.Fprintf(&b, "  peak:            %s IOPS, %.3g GB/s @ %s (%s)\n", fmtIOPS(s.PeakIOPS), s.PeakGBps, fmtLatency(s.PeakLatency), s.PeakLabel)
	if s.Saturated > 0 {
		fmt.Fprintf(&b, "  saturated:       %d of %d rate points achieved less than %.0f%% of their request: their service time is not the device's at that rate (the curve table gives the latency from the intended start)\n",
			s.Saturated, s.RatePoints, 100*blockio.SaturationRatio)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// StartText is the start point as the summary shows it: "624 IOPS @
// 12.449 ms", with "(saturated: 18% of 3,400 requested)" when it achieved
// less than blockio.SaturationRatio of its request. The review row (ReviewRow)
// gives the IOPS and the latency a column each, and the saturation a
// note.
func StartText(s Summary) string {
	t := fmtIOPS(s.StartIOPS) + " IOPS @ " + fmtLatency(s.StartLatency)
	if s.StartRequested > 0 && s.StartIOPS < blockio.SaturationRatio*s.StartRequested {
		t += fmt.Sprintf(" (saturated: %.0f%% of %s requested)", 100*s.StartIOPS/s.StartRequested, fmtIOPS(s.StartRequested))
	}
	return t
}

// fmtIOPS writes a rate rounded to a whole number with thousands
// separators, as reviews print it: 2,358,609.
func fmtIOPS(v float64) string { return report.Grouped(v, 0) }

// fmtLatency writes a latency as reviews do: µs below 1 ms, else ms
// (report.Latency).
func fmtLatency(d time.Duration) string { return report.Latency(d) }

func fmtThreshold(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%d µs", d/time.Microsecond)
	}
	return fmt.Sprintf("%g ms", report.Millis(d))
}

// CrossingText says where a crossing is, briefly: "at 123,456 IOPS",
// "not reached (up to 98,765 IOPS)", "above at the start (1,201 IOPS)".
func CrossingText(c Crossing) string {
	switch {
	case c.AboveAtStart:
		return "above at the start (" + fmtIOPS(c.IOPS) + " IOPS)"
	case c.NotReached:
		return "not reached (up to " + fmtIOPS(c.IOPS) + " IOPS)"
	}
	return "at " + fmtIOPS(c.IOPS) + " IOPS"
}
