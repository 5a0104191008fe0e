// Package live prints the live view of a campaign's run: while the VMs'
// workloads run, one line per report interval across all of them (TPS,
// latency, retries and errors), as their interval reports arrive (View).
package live

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"vmbench/oltp"
	"vmbench/report"
	"vmbench/scenarios/review"
)

// View prints one line per report interval for the whole campaign:
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
// Rows are always printed in order, each as one Write of a line,
// indented by four spaces, of the form
//
//	[    5s measure     ] vms: 2 tps: 4.00 lat avg (ms): 2.00 max p95 (ms): 2.00 retries/s: 0.00 err/s: 0.00
//
// (seconds from the phase start; a row that misses VMs ends with "(N of
// M VMs; no report from NAMES)"); write errors are ignored. A View is
// safe for concurrent use by the VMs' goroutines.
type View struct {
	w     io.Writer
	names []string // VM names, by index

	mu    sync.Mutex
	rows  map[rowKey]*viewRow
	order []rowKey     // rows not printed yet, oldest first
	phase []oltp.Phase // each VM's current phase
	seq   []int        // each VM's reports in its current phase
	ended []bool       // each VM's run has returned
	// free holds printed rows for reuse, and line the bytes of the last
	// line printed, so that a row costs no allocation once the view runs.
	free []*viewRow
	line []byte
}

type rowKey struct {
	phase oltp.Phase
	n     int // 1 for a phase's first interval
}

type viewRow struct {
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

// New returns a View writing to w for the VMs names, which Add and Done
// name by index into it.
func New(w io.Writer, names []string) *View {
	n := len(names)
	return &View{w: w, names: names, rows: map[rowKey]*viewRow{},
		phase: make([]oltp.Phase, n), seq: make([]int, n), ended: make([]bool, n)}
}

// Add records the report r of VM vm (an index into New's names; each VM
// reports an interval once, in order) and prints the rows it makes due.
func (l *View) Add(vm int, r oltp.IntervalReport) {
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
	retries, errs := review.RetriesAndErrors(r.Counters)

	l.mu.Lock()
	defer l.mu.Unlock()
	if l.phase[vm] != r.Phase {
		l.phase[vm], l.seq[vm] = r.Phase, 0
	}
	l.seq[vm]++
	key := rowKey{r.Phase, l.seq[vm]}
	row := l.rows[key]
	if row == nil {
		row = l.newRow(r.At)
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

// newRow is an empty row at at: a printed one reused, or a new one.
func (l *View) newRow(at time.Duration) *viewRow {
	n := len(l.free)
	if n == 0 {
		return &viewRow{at: at, from: make([]bool, len(l.names))}
	}
	row := l.free[n-1]
	l.free = l.free[:n-1]
	from := row.from
	clear(from)
	*row = viewRow{at: at, from: from}
	return row
}

// Done records that VM vm's run has returned: rows no longer wait for it.
func (l *View) Done(vm int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ended[vm] = true
	l.flush(false)
}

// Close prints the rows still held, marked with the VMs they miss: call
// it once the VMs' runs have returned.
func (l *View) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flush(true)
}

// complete reports whether every VM still running has reported row.
func (l *View) complete(row *viewRow) bool {
	for i, ok := range row.from {
		if !ok && !l.ended[i] {
			return false
		}
	}
	return true
}

// flush prints, in order, every row up to the last one that is due (see
// View); all of them when final.
func (l *View) flush(final bool) {
	last := -1
	for i, k := range l.order {
		if final || l.complete(l.rows[k]) || len(l.order)-i > 2 {
			last = i
		}
	}
	for _, k := range l.order[:last+1] {
		row := l.rows[k]
		l.print(k, row)
		delete(l.rows, k)
		l.free = append(l.free, row)
	}
	n := copy(l.order, l.order[last+1:]) // in place: the slice is reused
	l.order = l.order[:n]
}

// print writes row k as one line (one Write), formatted as
//
//	"    [ %4.0fs %-12s] vms: %d tps: %.2f lat avg (ms): %.2f max p95 (ms): %.2f retries/s: %.2f err/s: %.2f%s\n"
//
// would, appended into a reused buffer.
func (l *View) print(k rowKey, row *viewRow) {
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
	var num [32]byte
	b := append(l.line[:0], "    [ "...)
	b = appendPadded(b, strconv.AppendFloat(num[:0], row.at.Seconds(), 'f', 0, 64), 4)
	b = append(b, "s "...)
	b = append(b, k.phase...)
	for i := utf8.RuneCountInString(string(k.phase)); i < 12; i++ {
		b = append(b, ' ')
	}
	b = append(b, "] vms: "...)
	b = strconv.AppendInt(b, int64(row.vms), 10)
	for _, f := range [...]struct {
		label string
		v     float64
	}{{" tps: ", rate(row.events)}, {" lat avg (ms): ", avg}, {" max p95 (ms): ", report.Millis(row.p95)},
		{" retries/s: ", rate(row.retries)}, {" err/s: ", rate(row.errs)}} {
		b = append(b, f.label...)
		b = strconv.AppendFloat(b, f.v, 'f', 2, 64)
	}
	if row.vms < len(l.names) {
		var missing []string
		for i, ok := range row.from {
			if !ok {
				missing = append(missing, l.names[i])
			}
		}
		b = fmt.Appendf(b, " (%d of %d VMs; no report from %s)", row.vms, len(l.names), strings.Join(missing, ", "))
	}
	b = append(b, '\n')
	l.line = b
	_, _ = l.w.Write(b)
}

// appendPadded appends s right-aligned in width bytes (as %4s would).
func appendPadded(b, s []byte, width int) []byte {
	for i := len(s); i < width; i++ {
		b = append(b, ' ')
	}
	return append(b, s...)
}
