package vdbench

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"vmbench/oltp"
	"vmbench/oltp/hist"
	"vmbench/report"
)

// latencyOf merges the read and write histograms of res: the service
// time, or with intended the latency from the intended start (an empty
// histogram when res has none).
func latencyOf(res *oltp.Result, intended bool) (*hist.Histogram, error) {
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

// stdDev is the standard deviation of h's values, from its HDR buckets
// (within their 0.1% precision).
func stdDev(h *hist.Histogram) time.Duration {
	if h.Count() < 2 {
		return 0
	}
	d, err := hdr.Decode([]byte(h.Snapshot().HDR))
	if err != nil {
		return 0
	}
	return time.Duration(d.StdDev())
}

// figures are the numbers behind one interval line.
type figures struct {
	read, write *hist.Histogram
	bytes       int64
	length      time.Duration
}

func newFigures() *figures { return &figures{read: hist.New(), write: hist.New()} }

// addOps adds a Result's (or an interval's) ops and byte counters.
func (f *figures) addOps(ops []oltp.OpResult, counters map[string]int64) error {
	for _, o := range ops {
		h, err := o.Latency.Histogram()
		if err != nil {
			return fmt.Errorf("%s: %w", o.Name, err)
		}
		if o.Name == ioOps[OpWrite] {
			f.write.Merge(h)
		} else {
			f.read.Merge(h)
		}
	}
	f.bytes += counters[CounterBytesRead] + counters[CounterBytesWritten]
	return nil
}

const (
	ivHeader = "%-12s %8s %10s %8s %8s %6s %8s %8s %8s %8s %8s %6s\n"
	ivLine   = "%-12s %8s %10.2f %8.2f %8.0f %6.2f %8.3f %8.3f %8.3f %8.3f %8.3f %6.1f\n"
)

// writeIntervalHeader writes vdbench's two header lines, dated at.
func writeIntervalHeader(w io.Writer, at time.Time) error {
	_, err := fmt.Fprintf(w, ivHeader+ivHeader, at.Format("Jan 02, 2006"),
		"interval", "i/o", "MB/sec", "bytes", "read", "resp", "read", "write", "resp", "resp", "queue",
		"", "", "rate", "1024**2", "i/o", "pct", "time", "resp", "resp", "max", "stddev", "depth")
	return err
}

// writeIntervalLine writes one line: rate, MB/s (1024² bytes), bytes per
// I/O, read percentage, mean, read, write and maximum response time and
// its standard deviation in ms with µs resolution, and the queue depth by
// Little's law (rate × mean response time).
func writeIntervalLine(w io.Writer, at time.Time, label string, f *figures) error {
	n := f.read.Count() + f.write.Count()
	var rate, mbs, perIO, readPct, qd float64
	var resp time.Duration
	all := hist.New()
	all.Merge(f.read)
	all.Merge(f.write)
	if n > 0 && f.length > 0 {
		secs := f.length.Seconds()
		rate = float64(n) / secs
		mbs = float64(f.bytes) / secs / float64(report.MiB)
		perIO = float64(f.bytes) / float64(n)
		readPct = 100 * float64(f.read.Count()) / float64(n)
		resp = all.Mean()
		qd = rate * resp.Seconds()
	}
	_, err := fmt.Fprintf(w, ivLine, at.Format("15:04:05.000"), label, rate, mbs, perIO, readPct,
		report.Millis(resp), report.Millis(f.read.Mean()), report.Millis(f.write.Mean()), report.Millis(all.Max()), report.Millis(stdDev(all)), qd)
	return err
}

// writeStart writes the line that opens a point, as vdbench's "Starting
// RD=" line.
func writeStart(w io.Writer, run, label string, rate float64, rd RD, interval time.Duration, arrival oltp.Arrival) error {
	what := "Uncontrolled MAX"
	if rate > 0 {
		what = fmt.Sprintf("%s (%s arrivals)", rateLabel(rate), arrival)
	}
	_, err := fmt.Fprintf(w, "\nStarting RD=%s (%s); I/O rate: %s; elapsed=%s warmup=%s interval=%s\n\n",
		run, label, what, rd.Elapsed, rd.Warmup, interval)
	return err
}

// WriteIntervals writes the interval lines of a point from its merged
// Result: the precondition intervals (warmup=, or the first interval that
// vdbench leaves out of the averages), the measure intervals, and the
// "avg_first-last" line over the measure phase. The figures are those of
// the lines printed while the point ran: an interval of several SDs is as
// long as its longest SD's (oltp.MergeConcurrent keeps that one, and the
// merged Elapsed is the longest SD's), so an avg line over one interval
// equals that interval. Only the time stamps can differ: a merged
// interval keeps its longest SD's end, the printed line the latest end,
// so a point that ran keeps its printed text (WriteResults writes that).
func WriteIntervals(w io.Writer, p Point) error {
	res := p.Result
	if res == nil {
		return nil
	}
	start := res.Start
	if res.Precondition != nil {
		start = res.Precondition.Start
	}
	if err := writeIntervalHeader(w, start); err != nil {
		return err
	}
	k, first := 0, 0
	for _, r := range []*oltp.Result{res.Precondition, res} {
		if r == nil {
			continue
		}
		first = k + 1
		for _, iv := range r.Intervals {
			f := newFigures()
			if err := f.addOps(iv.Ops, iv.Counters); err != nil {
				return err
			}
			f.length = iv.Length
			k++
			if err := writeIntervalLine(w, r.Start.Add(iv.At), fmt.Sprint(k), f); err != nil {
				return err
			}
		}
	}
	return writeAverage(w, res, first, k)
}

// writeAverage writes the "avg_first-last" line of a measure Result.
func writeAverage(w io.Writer, res *oltp.Result, first, last int) error {
	f := newFigures()
	if err := f.addOps(res.Ops, res.Counters); err != nil {
		return err
	}
	f.length = res.Elapsed
	return writeIntervalLine(w, res.End, fmt.Sprintf("avg_%d-%d", first, last), f)
}

// intervalPrinter prints a point's interval lines while it runs: each SD's
// runner reports its own intervals, and a line is printed once every SD
// has reported that interval (they share a start and an interval length).
// A nil printer prints nothing.
type intervalPrinter struct {
	mu    sync.Mutex
	w     io.Writer
	seq   []int // per SD: intervals reported
	acc   map[int]*ivAcc
	next  int // next interval to print, 1-based
	first int // first measure interval printed
}

type ivAcc struct {
	end     time.Time // the latest end of the SDs' intervals
	f       *figures
	n       int
	measure bool
}

func newIntervalPrinter(w io.Writer, sds int) *intervalPrinter {
	if w == nil {
		return nil
	}
	return &intervalPrinter{w: w, seq: make([]int, sds), acc: map[int]*ivAcc{}, next: 1}
}

func (p *intervalPrinter) start(run, label string, rate float64, rd RD, interval time.Duration, arrival oltp.Arrival) {
	if p == nil {
		return
	}
	_ = writeStart(p.w, run, label, rate, rd, interval, arrival)
	_ = writeIntervalHeader(p.w, time.Now())
}

// add takes SD sd's report; the histograms are copied, as the runner owns
// them.
func (p *intervalPrinter) add(sd int, r oltp.IntervalReport) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seq[sd]++
	k := p.seq[sd]
	a := p.acc[k]
	if a == nil {
		a = &ivAcc{f: newFigures()}
		p.acc[k] = a
	}
	a.f.read.Merge(r.Latency[OpRead])
	a.f.write.Merge(r.Latency[OpWrite])
	a.f.bytes += r.Counters[CounterBytesRead] + r.Counters[CounterBytesWritten]
	a.f.length = max(a.f.length, r.Length) // the longest SD's, as the merged Result's interval and Elapsed
	if r.End.After(a.end) {
		a.end = r.End
	}
	a.n++
	a.measure = r.Phase == oltp.PhaseMeasure
	for a := p.acc[p.next]; a != nil && a.n == len(p.seq); a = p.acc[p.next] {
		p.print(a)
	}
}

func (p *intervalPrinter) print(a *ivAcc) {
	if a.measure && p.first == 0 {
		p.first = p.next
	}
	_ = writeIntervalLine(p.w, a.end, fmt.Sprint(p.next), a.f) // stamped with the interval's end, as vdbench does
	delete(p.acc, p.next)
	p.next++
}

// flush prints the intervals some SD never reported (it stopped early).
func (p *intervalPrinter) flush() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.acc) > 0 {
		if a := p.acc[p.next]; a != nil {
			p.print(a)
		} else {
			p.next++
		}
	}
}

// average prints the avg line of the merged measure phase.
func (p *intervalPrinter) average(merged *oltp.Result) {
	if p == nil || p.first == 0 {
		return
	}
	_ = writeAverage(p.w, merged, p.first, p.next-1)
}

// WriteCurve writes a run's table: one row per point with the requested
// and achieved rate, MB/s, the service time (mean, p50, p99, max), the
// latency from the intended start (mean, p99; open loop only) and the
// client's CPU time per I/O (the whole vmbench process, see
// oltp.ClientCost) and the point's flag (Point.Flag: saturated or above its request, with the share
// of the request achieved; a late runner), then the run's warnings.
func WriteCurve(w io.Writer, c *CurveResult) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s; intended counts from the scheduled start (open loop), queueing included; "+
		"client us/io is the vmbench process's CPU time per I/O (user+system, µs)\n", serviceWords(c))
	t := curveTable()
	for _, p := range c.Points {
		s, err := latencyOf(p.Result, false)
		if err != nil {
			return fmt.Errorf("point %s: %w", p.Label, err)
		}
		in, err := latencyOf(p.Result, true)
		if err != nil {
			return fmt.Errorf("point %s: %w", p.Label, err)
		}
		req, ia, ip, sat := "-", "-", "-", ""
		if p.Requested > 0 {
			req = rateLabel(p.Requested)
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
func writeVMSpread(b *strings.Builder, c *CurveResult) error {
	if !slices.ContainsFunc(c.Points, func(p Point) bool { return p.VMRange != nil }) {
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
func serviceWords(c *CurveResult) string {
	if len(c.Points) > 0 && c.Points[0].Result != nil && c.Points[0].Result.Flags["ioengine"] == EngineURing {
		return fmt.Sprintf("rd=%s, ioengine=%s: service time is each I/O's time from the io_uring_enter that submits it to its reaped completion", c.Run, EngineURing)
	}
	return fmt.Sprintf("rd=%s, ioengine=%s: service time is each pread/pwrite's own time (vdbench's response time)", c.Run, EnginePsync)
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
	return res.PerSecond(res.Counters[CounterBytesRead] + res.Counters[CounterBytesWritten])
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
	// SaturationRatio of it, and its latency then is not the device's
	// at that rate (see StartText).
	StartRequested float64
	// Saturated counts the rate points that achieved less than
	// SaturationRatio of their request, of RatePoints.
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
func Summarize(c *CurveResult) Summary {
	s := Summary{Run: c.Run}
	type pt struct {
		req, iops float64
		lat       time.Duration
	}
	var curve, all []pt
	for _, p := range c.Points {
		x := pt{req: p.Requested, iops: p.Achieved, lat: meanService(p.Result)}
		all = append(all, x)
		if p.Requested > 0 {
			curve = append(curve, x)
			s.RatePoints++
			if p.Achieved < SaturationRatio*p.Requested {
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
			s.Saturated, s.RatePoints, 100*SaturationRatio)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// StartText is the start point as the summary shows it: "624 IOPS @
// 12.449 ms", with "(saturated: 18% of 3,400 requested)" when it achieved
// less than SaturationRatio of its request. The review row (ReviewRow)
// gives the IOPS and the latency a column each, and the saturation a
// note.
func StartText(s Summary) string {
	t := fmtIOPS(s.StartIOPS) + " IOPS @ " + fmtLatency(s.StartLatency)
	if s.StartRequested > 0 && s.StartIOPS < SaturationRatio*s.StartRequested {
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
