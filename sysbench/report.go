package sysbench

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"vmbench/oltp"
	"vmbench/oltp/hist"
	"vmbench/report"
)

// Counter names of a sysbench Spec, beside "errors.<name>" per error class
// name (dialect.Name).
const (
	// CounterRead counts statements that returned a result set (sysbench's
	// "read" queries).
	CounterRead = "queries.read"
	// CounterWrite counts statements without a result set that affected at
	// least one row ("write").
	CounterWrite = "queries.write"
	// CounterOther counts every other statement: BEGIN, COMMIT, ROLLBACK and
	// UPDATE/DELETE that matched no row ("other").
	CounterOther = "queries.other"
	// CounterRetries counts restarts of an event after an ignored error
	// (deadlock, lock wait timeout, lost connection): sysbench's "ignored
	// errors".
	CounterRetries = "retries"
	// CounterReconnects counts successful reconnections after a lost
	// connection.
	CounterReconnects = "reconnects"
	// ErrorCounterPrefix starts the per-class error counters.
	ErrorCounterPrefix = "errors."
)

// OpTransaction is the one operation of every sysbench Spec: an event is a
// transaction (or, for the single-statement workloads, one statement).
const OpTransaction = "transaction"

// WriteInterval writes rep as sysbench's interval line (sysbench 1.0
// --report-interval, src/db_driver.c), rates per second over this
// interval and the latency percentile of this interval's events only:
//
//	[ 10s ] thds: 32 tps: 1234.56 qps: 24691.20 (r/w/o: 17283.84/4938.24/2469.12) lat (ms,95%): 30.81 err/s: 0.00 reconn/s: 0.00
//
// In open loop (--rate) the latency is measured from each event's intended
// start, as sysbench adds the queueing time, and a second line gives the
// queue length (events due but not started). A warm-up interval is marked
// "(warm-up)". percentile 0 prints the average instead ("lat (ms,avg)").
func WriteInterval(w io.Writer, rep oltp.IntervalReport, percentile float64) error {
	secs := rep.Length.Seconds()
	rate := func(n int64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(n) / secs
	}
	var lat *hist.Histogram
	if len(rep.Intended) > 0 {
		lat = rep.Intended[0]
	} else if len(rep.Latency) > 0 {
		lat = rep.Latency[0]
	}
	var events int64
	if lat != nil {
		events = lat.Count()
	}
	r, wr, o := rep.Counters[CounterRead], rep.Counters[CounterWrite], rep.Counters[CounterOther]
	at := elapsedLabel(rep.At, rep.Length)
	mark := ""
	if rep.Phase == oltp.PhasePrecondition {
		mark = "(warm-up) "
	}
	latLabel, latMs := "avg", 0.0
	if lat != nil {
		latMs = report.Millis(lat.Mean())
		if percentile > 0 {
			latLabel, latMs = pctLabel(percentile)+"%", report.Millis(lat.Percentile(percentile))
		}
	}
	_, err := fmt.Fprintf(w, "[ %s ] %sthds: %d tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f) lat (ms,%s): %.2f err/s: %.2f reconn/s: %.2f\n",
		at, mark, rep.Threads, rate(events), rate(r+wr+o), rate(r), rate(wr), rate(o), latLabel, latMs,
		rate(rep.Counters[CounterRetries]), rate(rep.Counters[CounterReconnects]))
	if err == nil && len(rep.Intended) > 0 {
		_, err = fmt.Fprintf(w, "[ %s ] queue length: %d\n", at, rep.Backlog)
	}
	return err
}

// elapsedLabel prints the interval end in whole seconds, as sysbench does,
// unless the interval is shorter than a second.
func elapsedLabel(at, length time.Duration) string {
	if length >= 900*time.Millisecond {
		return strconv.FormatInt(int64(math.Round(at.Seconds())), 10) + "s"
	}
	return strconv.FormatFloat(at.Round(time.Millisecond).Seconds(), 'f', -1, 64) + "s"
}

func pctLabel(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

// WriteSummary writes res as sysbench 1.0.20's final report: SQL
// statistics (queries by read/write/other, transactions, queries, ignored
// errors and reconnects with their rates over the measured time), general
// statistics (total time: the time the run took, Result.TotalTime, as
// sysbench's; events) and latency in milliseconds (min, avg, max, the
// --percentile percentile, the 99th percentile, sum). Threads fairness is
// omitted: the Result keeps no per-thread figures. Then one line saying
// what was measured and, when a warm-up ran, that it is excluded; a stop
// that took 1% of the measured time or more is named. percentile 0 leaves out the
// --percentile line (the 99th stays: it is what reviews publish).
//
// In open loop the latency block is measured from each event's intended
// start (sysbench --rate includes the queueing time) and a line gives the
// service time beside it, then the backlog at the end (events due but not
// started) with the catch-up policy, and, after a warm-up, the backlog
// the warm-up left, which the measured phase did not inherit. A run that
// failed says so with its error; a phase or report interval that overran
// its planned length (a starved host) is named.
func WriteSummary(w io.Writer, res *oltp.Result, percentile float64) error {
	bw := bufio.NewWriter(w)
	op := res.Op(OpTransaction)
	lat, svc, err := summaryLatencies(op)
	if err != nil {
		return err
	}
	writeStatistics(bw, res, lat.Count())
	writeLatency(bw, lat, percentile)
	if op != nil && op.Intended != nil {
		fmt.Fprintf(bw, "Latency above is from each transaction's intended start (queueing included, as sysbench --rate);\nservice time: avg %.2f ms, 99th percentile %.2f ms.\n",
			report.Millis(svc.Mean()), report.Millis(svc.Percentile(99)))
	}
	writeNotes(bw, res)
	return bw.Flush()
}

// summaryLatencies returns the histograms of op (the transactions; nil
// when none ran, giving empty ones): lat, the latency reported, from each
// transaction's intended start in open loop, else the service time; and
// svc, the service time.
func summaryLatencies(op *oltp.OpResult) (lat, svc *hist.Histogram, err error) {
	if op == nil {
		return hist.New(), hist.New(), nil
	}
	if svc, err = op.Latency.Histogram(); err != nil {
		return nil, nil, err
	}
	lat = svc
	if op.Intended != nil {
		if lat, err = op.Intended.Histogram(); err != nil {
			return nil, nil, err
		}
	}
	return lat, svc, nil
}

// writeStatistics writes the summary's "SQL statistics" and "General
// statistics" blocks, events being the number of transactions.
func writeStatistics(bw *bufio.Writer, res *oltp.Result, events int64) {
	c := res.Counters
	r, wr, o := c[CounterRead], c[CounterWrite], c[CounterOther]
	line := func(label string, v any) { fmt.Fprintf(bw, "    %-37s%v\n", label, v) }
	withRate := func(label string, n int64) {
		line(label, fmt.Sprintf("%-6d (%.2f per sec.)", n, res.PerSecond(n)))
	}
	fmt.Fprintln(bw, "SQL statistics:")
	fmt.Fprintln(bw, "    queries performed:")
	for _, q := range []struct {
		name string
		n    int64
	}{{"read:", r}, {"write:", wr}, {"other:", o}, {"total:", r + wr + o}} {
		fmt.Fprintf(bw, "        %-33s%d\n", q.name, q.n)
	}
	withRate("transactions:", events)
	withRate("queries:", r+wr+o)
	withRate("ignored errors:", c[CounterRetries])
	withRate("reconnects:", c[CounterReconnects])
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, "General statistics:")
	line("total time:", fmt.Sprintf("%.4fs", res.TotalTime().Seconds()))
	line("total number of events:", events)
	fmt.Fprintln(bw)
}

// writeLatency writes the summary's "Latency (ms)" block of lat, with a
// line for percentile unless it is 0 or 99.
func writeLatency(bw *bufio.Writer, lat *hist.Histogram, percentile float64) {
	fmt.Fprintln(bw, "Latency (ms):")
	latLine := func(label string, d time.Duration) {
		fmt.Fprintf(bw, "         %-24s%16.2f\n", label, report.Millis(d))
	}
	latLine("min:", lat.Min())
	latLine("avg:", lat.Mean())
	latLine("max:", lat.Max())
	if percentile > 0 && percentile != 99 {
		latLine(pctLabel(percentile)+"th percentile:", lat.Percentile(percentile))
	}
	latLine("99th percentile:", lat.Percentile(99))
	latLine("sum:", lat.Sum())
	fmt.Fprintln(bw)
}

// writeNotes writes the lines after the summary's blocks: what was
// measured, the warm-up, the open-loop backlog and catch-up policy, the
// phases' overruns, and an interrupted or failed end.
func writeNotes(bw *bufio.Writer, res *oltp.Result) {
	fmt.Fprintf(bw, "Measured: %s.\n", strings.TrimSuffix(res.Measured, "."))
	if c := res.Client; c != nil {
		fmt.Fprintf(bw, "%s.\n", c.Summary(eventCount(res), "transaction"))
	}
	if p := res.Precondition; p != nil {
		fmt.Fprintf(bw, "Warm-up: a %.0fs precondition phase (%d transactions) ran first and is excluded from these figures.\n",
			p.Elapsed.Seconds(), eventCount(p))
	}
	if res.Loop == oltp.OpenLoop {
		fmt.Fprintf(bw, "Backlog at the end: %d transactions due but not started (queue length).\n", res.BacklogAtEnd)
		if res.CatchUp != "" {
			fmt.Fprintf(bw, "Catch-up (%s): %s.\n", res.CatchUp, oltp.CatchUpWords(res.CatchUp))
		}
		if p := res.Precondition; p != nil {
			fmt.Fprintf(bw, "Warm-up backlog: %d transactions were due but not started when the warm-up ended; they were dropped, and the measured phase started with an empty schedule.\n",
				p.BacklogDropped)
		}
	}
	for _, l := range oltp.OverrunNotes(res, "Warm-up") {
		fmt.Fprintln(bw, l)
	}
	if wait := res.TotalTime() - res.Elapsed; wait > 0 && wait >= res.Elapsed/stopNoteShare {
		fmt.Fprintf(bw, "Stop: the run ended %.1fs after the %.1fs measured, waiting for the transactions still running then (graceful stop, then cancelled); they are not counted, and the rates are over the %.1fs measured.\n",
			wait.Seconds(), res.Elapsed.Seconds(), res.Elapsed.Seconds())
	}
	switch res.State() {
	case oltp.StatusComplete: // nothing to say
	case oltp.StatusInterrupted:
		fmt.Fprintf(bw, "Interrupted: the run was stopped early; the figures cover the %.1fs measured.\n", res.Elapsed.Seconds())
	case oltp.StatusFailed:
		fmt.Fprintf(bw, "Failed: %s; the figures cover the %.1fs measured until then, and the result is marked failed.\n", res.Error, res.Elapsed.Seconds())
	}
}

// stopNoteShare: the summary says how long the stop took when the total
// time exceeds the measured time by 1/stopNoteShare (1%) or more, so
// that a rate worked out over the total time is never silently off by
// more than that.
const stopNoteShare = 100

func eventCount(r *oltp.Result) int64 {
	if op := r.Op(OpTransaction); op != nil {
		return op.Latency.Count
	}
	return 0
}
