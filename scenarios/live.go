package scenarios

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"vmbench/oltp"
	"vmbench/report"
)

// liveView prints one line per report interval for the whole campaign:
// TPS summed over VMs, the average latency over all their events, the
// slowest VM's p95, and retries and errors per second (apart, as in the
// review table).
//
// Rows are keyed by phase and interval number (a VM's k-th report of a
// phase), not by tick time: VMs tick a few ms apart, and a boundary
// between two of their ticks must not split one interval into two rows
// that each miss VMs. A row is printed when every VM still running has
// reported it. A VM that stops reporting (failed, or hung) does not hold
// the view back: a row that misses VMs is printed, marked with the VMs
// it misses, as soon as a later row is printed, two later rows have
// started (the missing VM is a whole interval behind), or the run ends.
// Rows are always printed in order.
type liveView struct {
	w     io.Writer
	names []string // VM names, by index

	mu    sync.Mutex
	rows  map[liveKey]*liveRow
	order []liveKey // rows not printed yet, oldest first
	phase []string  // each VM's current phase
	seq   []int     // each VM's reports in its current phase
	ended []bool    // each VM's run has returned
}

type liveKey struct {
	phase string
	n     int // 1 for a phase's first interval
}

type liveRow struct {
	at      time.Duration // the first report's end of interval, from the phase start
	from    []bool        // which VMs reported
	vms     int
	events  int64
	sum     time.Duration
	p95     time.Duration
	length  time.Duration
	retries int64
	errs    int64
}

func newLiveView(w io.Writer, names []string) *liveView {
	n := len(names)
	return &liveView{w: w, names: names, rows: map[liveKey]*liveRow{},
		phase: make([]string, n), seq: make([]int, n), ended: make([]bool, n)}
}

// add records VM vm's report r.
func (l *liveView) add(vm int, r oltp.IntervalReport) {
	var events int64
	var sum, p95 time.Duration
	lat := r.Latency
	if len(r.Intended) > 0 {
		lat = r.Intended // as the review table: from the intended start or submission
	}
	for _, h := range lat {
		events += h.Count()
		sum += h.Sum()
		p95 = max(p95, h.Percentile(95))
	}
	retries, errs := retriesAndErrors(r.Counters)

	l.mu.Lock()
	defer l.mu.Unlock()
	if l.phase[vm] != r.Phase {
		l.phase[vm], l.seq[vm] = r.Phase, 0
	}
	l.seq[vm]++
	key := liveKey{r.Phase, l.seq[vm]}
	row := l.rows[key]
	if row == nil {
		row = &liveRow{at: r.At, from: make([]bool, len(l.names))}
		l.rows[key] = row
		l.order = append(l.order, key)
	}
	if row.from[vm] {
		return // cannot happen: a VM reports each interval once
	}
	row.from[vm] = true
	row.vms++
	row.events += events
	row.sum += sum
	row.p95 = max(row.p95, p95)
	row.length = max(row.length, r.Length)
	row.retries += retries
	row.errs += errs
	l.flush(false)
}

// done records that VM vm's run has returned: rows no longer wait for it.
func (l *liveView) done(vm int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ended[vm] = true
	l.flush(false)
}

// close prints the rows still held, marked with the VMs they miss.
func (l *liveView) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flush(true)
}

// complete reports whether every VM still running has reported row.
func (l *liveView) complete(row *liveRow) bool {
	for i, ok := range row.from {
		if !ok && !l.ended[i] {
			return false
		}
	}
	return true
}

// flush prints, in order, every row up to the last one that is due (see
// liveView); all of them when final.
func (l *liveView) flush(final bool) {
	last := -1
	for i, k := range l.order {
		if final || l.complete(l.rows[k]) || len(l.order)-i > 2 {
			last = i
		}
	}
	for _, k := range l.order[:last+1] {
		l.print(k, l.rows[k])
		delete(l.rows, k)
	}
	l.order = l.order[last+1:]
}

func (l *liveView) print(k liveKey, row *liveRow) {
	secs := row.length.Seconds()
	rate := func(n int64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(n) / secs
	}
	avg := 0.0
	if row.events > 0 {
		avg = report.Millis(row.sum) / float64(row.events)
	}
	var missing []string
	for i, ok := range row.from {
		if !ok {
			missing = append(missing, l.names[i])
		}
	}
	mark := ""
	if len(missing) > 0 {
		mark = fmt.Sprintf(" (%d of %d VMs; no report from %s)", row.vms, len(l.names), strings.Join(missing, ", "))
	}
	fmt.Fprintf(l.w, "    [ %4.0fs %-12s] vms: %d tps: %.2f lat avg (ms): %.2f max p95 (ms): %.2f retries/s: %.2f err/s: %.2f%s\n",
		row.at.Seconds(), k.phase, row.vms, rate(row.events), avg, report.Millis(row.p95), rate(row.retries), rate(row.errs), mark)
}
