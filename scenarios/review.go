package scenarios

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"vmbench/oltp"
	"vmbench/oltp/hist"
	"vmbench/workload"
)

// VMRow is one VM's line of the review table. Latencies are in ms; TPS is
// events (transactions) per second over the VM's measured time.
type VMRow struct {
	VM        string
	Datastore string
	Threads   int
	Events    int64
	TPS       float64
	AvgMs     float64
	P95Ms     float64
	P99Ms     float64
	// Retries counts events restarted after a retryable error (deadlock,
	// lock wait timeout, busy database, lost connection): the Result's
	// counter "retries" (retryCounter).
	Retries int64
	// Errors counts errors no retry absorbed: the Result's errors.<class>
	// counters beyond Retries. The workloads count every error they
	// survive by class and then restart the event, so a run whose errors
	// were all retried shows 0 here and its retries apart.
	Errors     int64
	Reconnects int64
	// Extra are the cells of the tool's own columns (Review.Columns),
	// such as tpcc's tpmC and NOPM.
	Extra []string
}

const (
	// retryCounter and errorPrefix are the Result counters of retried
	// events and of errors by class (sysbench and tpcc alike).
	retryCounter = "retries"
	errorPrefix  = "errors."
)

// retriesAndErrors splits a Result's (or interval's) counters into the
// retried events and the errors no retry absorbed (see VMRow).
func retriesAndErrors(counters map[string]int64) (retries, errs int64) {
	retries = counters[retryCounter]
	return retries, max(0, sumPrefix(counters, errorPrefix)-retries)
}

// Review is the table a server review publishes for one OLTP test: a row
// per VM and the aggregate row. Two kinds of aggregate latency are given:
//
//   - Published: the mean of the per-VM averages and the mean of the
//     per-VM p99s, which is how the reviews in METHODOLOGY.md compute
//     their "aggregate" figures (R7415: per-VM averages 16.3-17.6 ms,
//     aggregate 16.9 ms).
//   - Exact: the average over every event of every VM (pooled: total time
//     / total events) and the true p99 of the merged histograms.
//
// They differ when VMs differ; both are labelled wherever printed.
type Review struct {
	Campaign string
	Workload string
	Measured string
	Elapsed  time.Duration // mean measured time per VM
	VMs      []VMRow

	TPSSum, TPSMin, TPSMax float64
	AvgPublishedMs         float64
	AvgExactMs             float64
	P95PublishedMs         float64
	P95ExactMs             float64
	P99PublishedMs         float64
	P99ExactMs             float64
	Retries, Errors        int64
	Reconnects             int64
	// Columns are the tool's own columns (workload.Reviewer), after the
	// common ones; Extra are their cells of the merged Result, the
	// published aggregate row.
	Columns []workload.Column
	Extra   []string
	// FromIntended is set when the latency columns are measured from the
	// intended start (open loop) or the submission (terminal-driven)
	// rather than as service time.
	FromIntended bool
	// Simulated, when set, says how a --simulate campaign ran; the tables
	// print it first, so a simulated report is never taken for a real one.
	Simulated string
	// LittleMs is Little's law's prediction of the average latency of a
	// closed loop: mean over VMs of threads / TPS, in ms.
	LittleMs float64
}

// NewReview builds the review table from one measure-phase Result per VM
// (labelled vm and datastore) and their Merge, with the tool's own
// columns cols (may be nil). Latency merges every op of a result (all
// transaction types).
func NewReview(campaign string, perVM []*oltp.Result, merged *oltp.Result, cols []workload.Column) (*Review, error) {
	if len(perVM) == 0 {
		return nil, fmt.Errorf("review: no results")
	}
	rv := &Review{Campaign: campaign, Workload: merged.Workload, Measured: perVM[0].Measured + ", in each VM", Elapsed: merged.Elapsed,
		Columns: cols}
	for _, c := range cols {
		rv.Extra = append(rv.Extra, c.Cell(merged, true))
	}
	closed := merged.Loop == oltp.ClosedLoop
	rv.FromIntended = len(merged.Ops) > 0 && merged.Ops[0].Intended != nil
	for i, r := range perVM {
		h, err := allOps(r)
		if err != nil {
			return nil, err
		}
		row := VMRow{VM: r.Labels["vm"], Datastore: r.Labels["datastore"], Threads: r.Threads, Events: h.Count(),
			TPS: r.PerSecond(h.Count()), AvgMs: ms(h.Mean()), P95Ms: ms(h.Percentile(95)), P99Ms: ms(h.Percentile(99)),
			Reconnects: r.Counters["reconnects"]}
		row.Retries, row.Errors = retriesAndErrors(r.Counters)
		for _, c := range cols {
			row.Extra = append(row.Extra, c.Cell(r, false))
		}
		rv.VMs = append(rv.VMs, row)
		rv.TPSSum += row.TPS
		if i == 0 || row.TPS < rv.TPSMin {
			rv.TPSMin = row.TPS
		}
		rv.TPSMax = max(rv.TPSMax, row.TPS)
		rv.AvgPublishedMs += row.AvgMs / float64(len(perVM))
		rv.P95PublishedMs += row.P95Ms / float64(len(perVM))
		rv.P99PublishedMs += row.P99Ms / float64(len(perVM))
		rv.Retries += row.Retries
		rv.Errors += row.Errors
		rv.Reconnects += row.Reconnects
		if closed && row.TPS > 0 {
			rv.LittleMs += float64(row.Threads) / row.TPS * 1000 / float64(len(perVM))
		}
	}
	h, err := allOps(merged)
	if err != nil {
		return nil, err
	}
	rv.AvgExactMs, rv.P95ExactMs, rv.P99ExactMs = ms(h.Mean()), ms(h.Percentile(95)), ms(h.Percentile(99))
	return rv, nil
}

// allOps merges the latency of every op of r: the latency from the
// intended start (open loop) or the response time from submission
// (terminal-driven) where the Result has it, else the service time.
func allOps(r *oltp.Result) (*hist.Histogram, error) {
	all := hist.New()
	for _, o := range r.Ops {
		snap := o.Latency
		if o.Intended != nil {
			snap = *o.Intended
		}
		h, err := snap.Histogram()
		if err != nil {
			return nil, fmt.Errorf("result of %s: op %s: %w", r.Labels["vm"], o.Name, err)
		}
		all.Merge(h)
	}
	return all, nil
}

func sumPrefix(m map[string]int64, prefix string) int64 {
	var n int64
	for k, v := range m {
		if strings.HasPrefix(k, prefix) {
			n += v
		}
	}
	return n
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// WriteText prints the review as fixed-width columns.
func (rv *Review) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: %s, %d VMs, %s measured per VM\n", rv.Campaign, rv.Workload, len(rv.VMs), rv.Elapsed.Round(time.Millisecond))
	if rv.Simulated != "" {
		fmt.Fprintf(w, "%s\n", strings.ToUpper(rv.Simulated[:1])+rv.Simulated[1:])
	}
	fmt.Fprintf(w, "measured: %s\n\n", rv.Measured)
	rows := [][]string{append([]string{"VM", "datastore", "TPS", "avg (ms)", "p95 (ms)", "p99 (ms)", "retries", "errors", "reconn"}, rv.headers()...)}
	for _, r := range rv.VMs {
		rows = append(rows, append([]string{r.VM, r.Datastore, num(r.TPS), f2(r.AvgMs), f2(r.P95Ms), f2(r.P99Ms), itoa64(r.Retries), itoa64(r.Errors), itoa64(r.Reconnects)},
			r.Extra...))
	}
	rows = append(rows,
		append([]string{"aggregate, published", "", num(rv.TPSSum), f2(rv.AvgPublishedMs), f2(rv.P95PublishedMs), f2(rv.P99PublishedMs), itoa64(rv.Retries), itoa64(rv.Errors), itoa64(rv.Reconnects)},
			rv.Extra...),
		append([]string{"aggregate, exact", "", num(rv.TPSSum), f2(rv.AvgExactMs), f2(rv.P95ExactMs), f2(rv.P99ExactMs), "", "", ""}, rv.cells(func(workload.Column) string { return "" })...))
	writeColumns(w, rows, 2) // the first two columns are text, left-aligned
	for _, l := range rv.summaryLines() {
		fmt.Fprintln(w, l)
	}
	return nil
}

// writeColumns prints rows as columns two spaces apart: the first left
// columns left-aligned, the others right-aligned. Widths count runes.
func writeColumns(w io.Writer, rows [][]string, left int) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if i < left {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// headers are the tool's column headers.
func (rv *Review) headers() []string {
	return rv.cells(func(c workload.Column) string { return c.Header })
}

// cells returns f of each of the tool's columns.
func (rv *Review) cells(f func(workload.Column) string) []string {
	out := make([]string, len(rv.Columns))
	for i, c := range rv.Columns {
		out[i] = f(c)
	}
	return out
}

// notes are the tool's columns' notes, printed under the table.
func (rv *Review) notes() []string {
	var n []string
	for _, c := range rv.Columns {
		if c.Note != "" {
			n = append(n, c.Note)
		}
	}
	return n
}

func f2(v float64) string { return fmt.Sprintf("%.2f", v) }

func itoa64(v int64) string { return fmt.Sprintf("%d", v) }

func (rv *Review) summaryLines() []string {
	l := []string{
		"",
		fmt.Sprintf("TPS is summed over VMs (per VM %s - %s).", num(rv.TPSMin), num(rv.TPSMax)),
		"published: latencies are the mean of the per-VM values, as the reviews compute their aggregate.",
		"exact: the average over all events of all VMs, percentiles of the merged histograms.",
		"retries: events restarted after a deadlock, lock wait, busy database or lost connection; errors: errors no retry absorbed.",
	}
	if rv.FromIntended {
		l = append(l, "Latencies are measured from each intended start or submission (queueing included), not as service time.")
	}
	l = append(l, rv.notes()...)
	if rv.LittleMs > 0 {
		l = append(l, fmt.Sprintf("Little's law check: threads / TPS per VM gives %.2f ms expected average latency.", rv.LittleMs))
	}
	return l
}

// WriteMarkdown writes the review as a Markdown table (report.md).
func (rv *Review) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "# %s\n\n", rv.Campaign)
	fmt.Fprintf(w, "Workload `%s`, %d VMs, %s measured per VM.\n\n", rv.Workload, len(rv.VMs), rv.Elapsed.Round(time.Millisecond))
	if rv.Simulated != "" {
		fmt.Fprintf(w, "**%s**.\n\n", strings.ToUpper(rv.Simulated[:1])+rv.Simulated[1:])
	}
	fmt.Fprintf(w, "Measured: %s.\n\n", rv.Measured)
	mdRow := func(cells []string) { fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |") }
	mdRow(append([]string{"VM", "datastore", "TPS", "avg (ms)", "p95 (ms)", "p99 (ms)", "retries", "errors", "reconnects"}, rv.headers()...))
	fmt.Fprintln(w, "|"+strings.Join(append([]string{"---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"},
		rv.cells(func(workload.Column) string { return "---:" })...), "|")+"|")
	for _, r := range rv.VMs {
		mdRow(append([]string{r.VM, r.Datastore, num(r.TPS), f2(r.AvgMs), f2(r.P95Ms), f2(r.P99Ms), itoa64(r.Retries), itoa64(r.Errors), itoa64(r.Reconnects)},
			r.Extra...))
	}
	bold := func(s string) string { return "**" + s + "**" }
	agg := []string{bold("aggregate, published"), "", bold(num(rv.TPSSum)), bold(f2(rv.AvgPublishedMs)), bold(f2(rv.P95PublishedMs)),
		bold(f2(rv.P99PublishedMs)), itoa64(rv.Retries), itoa64(rv.Errors), itoa64(rv.Reconnects)}
	for _, c := range rv.Extra {
		agg = append(agg, bold(c))
	}
	mdRow(agg)
	mdRow(append([]string{"aggregate, exact", "", num(rv.TPSSum), f2(rv.AvgExactMs), f2(rv.P95ExactMs), f2(rv.P99ExactMs), "", "", ""},
		rv.cells(func(workload.Column) string { return "" })...))
	fmt.Fprintln(w)
	fmt.Fprintf(w, "- TPS is summed over VMs (per VM %s – %s).\n", num(rv.TPSMin), num(rv.TPSMax))
	fmt.Fprintln(w, "- *published*: latencies are the mean of the per-VM values, as the reviews compute their aggregate.")
	fmt.Fprintln(w, "- *exact*: the average over all events of all VMs, percentiles of the merged histograms.")
	fmt.Fprintln(w, "- *retries*: events restarted after a deadlock, lock wait, busy database or lost connection; *errors*: errors no retry absorbed.")
	if rv.FromIntended {
		fmt.Fprintln(w, "- Latencies are measured from each intended start or submission (queueing included), not as service time.")
	}
	for _, n := range rv.notes() {
		fmt.Fprintln(w, "- "+n)
	}
	if rv.LittleMs > 0 {
		fmt.Fprintf(w, "- Little's law check: threads / TPS per VM gives %.2f ms expected average latency.\n", rv.LittleMs)
	}
	return nil
}

// num formats a rate with thousands separators and one decimal.
func num(v float64) string {
	s := fmt.Sprintf("%.1f", v)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 && intPart[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String() + "." + frac
}
