package blockio

import (
	"fmt"
	"io"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"vmbench/oltp"
	"vmbench/oltp/hist"
	"vmbench/report"
	"vmbench/vdbench/parmfile"
)

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
func writeStart(w io.Writer, run, label string, rate float64, rd parmfile.RD, interval time.Duration, arrival oltp.Arrival) error {
	what := "Uncontrolled MAX"
	if rate > 0 {
		what = fmt.Sprintf("%s (%s arrivals)", RateLabel(rate), arrival)
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
// so a point that ran keeps its printed text (the vdbench tool's WriteResults writes that).
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

func (p *intervalPrinter) start(run, label string, rate float64, rd parmfile.RD, interval time.Duration, arrival oltp.Arrival) {
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
