package review

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"vmbench/internal/textfmt"
	"vmbench/oltp"
	"vmbench/oltp/hist"
	"vmbench/report"
	"vmbench/scenarios/spec"
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
	// Figures are the values of the tool's review columns
	// (Review.Columns) for this VM's Result, 0 for a column without a
	// Value (printed as an empty cell).
	Figures []float64
	// ClientBound is set when the VM's client used more than
	// oltp.ClientBoundShare of the CPU available to it over the measured
	// phase (its Result's Client.Bound): its figures may be the client's
	// limit, not the server's.
	ClientBound bool
}

// retryCounter and errorPrefix are the Result counters of retried events
// and of errors by class (sysbench and tpcc alike).
const (
	retryCounter = "retries"
	errorPrefix  = "errors."
)

// RetriesAndErrors splits a Result's (or a report interval's) counters
// into the events retried (the counter "retries") and the errors no retry
// absorbed (the errors.<class> counters beyond the retries), as the
// review table's retries and errors columns count them (VMRow).
func RetriesAndErrors(counters map[string]int64) (retries, errs int64) {
	retries = counters[retryCounter]
	return retries, max(0, sumPrefix(counters, errorPrefix)-retries)
}

// Review is the table a server review publishes for one OLTP test: a row
// per VM and the aggregate row. Two kinds of aggregate latency are given:
//
//   - Published: the mean of the per-VM averages and the mean of the
//     per-VM p99s, which is how the reviews (docs/methodology.md) compute
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
	// Columns are the tool's own review columns (workload.Reviewer:
	// tpcc's tpmC and NOPM), printed after the common ones; the review
	// never names a tool's ops or counters. Figures are their sums over
	// the VMs, shown in the published aggregate row (as TPS is summed);
	// MergedFigures are their values of the merged Result (all VMs over
	// their merged window, as the tool's own report of it gives them),
	// shown in the exact row. The two differ a little (tpmC by about 1%):
	// each is labelled (publishedLabel, mergedLabel).
	Columns       []workload.Column
	Figures       []float64
	MergedFigures []float64
	// FromIntended is set when the latency columns are measured from the
	// intended start (open loop) or the submission (terminal-driven)
	// rather than as service time.
	FromIntended bool
	// Simulated, when set, says how a --simulate campaign ran; the tables
	// print it first, so a simulated report is never taken for a real one.
	Simulated string
	// Incomplete, when set, says the results are partial (a campaign
	// that stopped before the end, re-rendered by Render); printed after
	// Simulated.
	Incomplete string
	// Layout, when set, describes the VMs as vSphere reported them once
	// provisioned (layoutWords): configuration, vDisks, VMs per host.
	Layout string
	// Data, when set, says the VMs' data was restored from a pre-built
	// data set (its id and key), not loaded.
	Data string
	// Checks sums up the workload's consistency checks after the run
	// (run.json's Checks), "" when none ran.
	Checks string
	// Platform summarises what vSphere measured on the hosts and VMs over
	// the measured window (PlatformLines), one fact per line; empty when
	// the Results carry no counters.
	Platform []string
	// Client is the client processes' own cost over the measured phase
	// (oltp.ClientCost.Summary per transaction), "" when the Results carry
	// none (files before Result version 3).
	Client string
	// LittleMs is Little's law's prediction of the average latency of a
	// closed loop: mean over VMs of threads / TPS, in ms.
	LittleMs float64
	// LittleTPS is Little's law's prediction of the TPS per VM of a
	// terminal-driven run (TPC-C), whose terminals each spend a
	// transaction's response time and then its keying and think time:
	// mean over VMs of terminals / (mean response time + WaitMs), 0 when
	// a Result does not record its waits (oltp.CounterTerminalWait, from
	// before it). WaitMs is the mean keying and think time per
	// transaction over the VMs, in ms.
	LittleTPS, WaitMs float64
	// ClientBound is the merged Result's Client.Bound: the clients
	// together used more than oltp.ClientBoundShare of the cores of their
	// machines; the aggregate rows are marked.
	ClientBound bool

	// perVM and merged are the Results the review was computed from, for
	// the HTML report's charts (Report.Document).
	perVM  []*oltp.Result
	merged *oltp.Result
}

// driverNote says where the VMs' workload drivers ran, from their Results'
// "driver" labels: "" when no Result has one (results from before the
// label).
func driverNote(perVM []*oltp.Result) string {
	n := map[spec.Driver]int{}
	for _, r := range perVM {
		if d := r.Labels["driver"]; d != "" {
			n[spec.Driver(d)]++
		}
	}
	switch {
	case len(n) == 0:
		return ""
	case n[spec.DriverGuest] == len(perVM):
		return ", driven inside each VM's guest by the vmbench agent"
	case n[spec.DriverHarness] == len(perVM):
		return ", driven from the harness host over the network"
	}
	return fmt.Sprintf(", driven from the harness for %d VMs and inside the guest for %d (see each Result's driver label)", n[spec.DriverHarness], n[spec.DriverGuest])
}

// newReview builds the review table from one measure-phase Result per VM
// (labelled vm and datastore) and their Merge, with the tool's review
// columns cols (nil for none; see toolColumns). Latency merges every op
// of a result (all transaction types).
func newReview(campaign string, perVM []*oltp.Result, merged *oltp.Result, cols []workload.Column) (*Review, error) {
	if len(perVM) == 0 {
		return nil, fmt.Errorf("review: no results")
	}
	rv := &Review{Campaign: campaign, Workload: merged.Workload, Measured: perVM[0].Measured + ", in each VM" + driverNote(perVM), Elapsed: merged.Elapsed,
		Columns: cols, perVM: perVM, merged: merged}
	rv.Figures = make([]float64, len(cols))
	rv.MergedFigures = figures(cols, merged)
	if c := merged.Client; c != nil {
		var n int64
		for _, op := range merged.Ops {
			n += op.Latency.Count
		}
		rv.Client = c.Summary(n, "transaction")
		rv.ClientBound = c.Bound()
	}
	closed := merged.Loop == oltp.ClosedLoop
	rv.FromIntended = len(merged.Ops) > 0 && merged.Ops[0].Intended != nil
	for i, r := range perVM {
		h, err := allOps(r)
		if err != nil {
			return nil, err
		}
		row := VMRow{VM: r.Labels["vm"], Datastore: r.Labels["datastore"], Threads: r.Threads, Events: h.Count(),
			TPS: r.PerSecond(h.Count()), AvgMs: report.Millis(h.Mean()), P95Ms: report.Millis(h.Percentile(95)), P99Ms: report.Millis(h.Percentile(99)),
			Reconnects: r.Counters["reconnects"], Figures: figures(cols, r)}
		row.Retries, row.Errors = RetriesAndErrors(r.Counters)
		row.ClientBound = r.Client != nil && r.Client.Bound()
		rv.VMs = append(rv.VMs, row)
		rv.TPSSum += row.TPS
		for j, v := range row.Figures {
			rv.Figures[j] += v
		}
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
	rv.LittleTPS, rv.WaitMs = littleTerminals(perVM, rv.VMs)
	h, err := allOps(merged)
	if err != nil {
		return nil, err
	}
	rv.AvgExactMs, rv.P95ExactMs, rv.P99ExactMs = report.Millis(h.Mean()), report.Millis(h.Percentile(95)), report.Millis(h.Percentile(99))
	return rv, nil
}

// littleTerminals returns Little's law's TPS per VM of terminal-driven
// Results and their mean keying and think time per transaction in ms
// (Review.LittleTPS, WaitMs), rows their review rows; zeros unless every
// Result is terminal-driven and records its waits.
func littleTerminals(perVM []*oltp.Result, rows []VMRow) (tps, waitMs float64) {
	for i, r := range perVM {
		wait, ok := r.Counters[oltp.CounterTerminalWait]
		row := rows[i]
		if r.Loop != oltp.TerminalLoop || !ok || row.Events == 0 {
			return 0, 0
		}
		w := float64(wait) / float64(row.Events) / 1e6
		tps += float64(r.Terminals) / ((row.AvgMs + w) / 1000) / float64(len(perVM))
		waitMs += w / float64(len(perVM))
	}
	return tps, waitMs
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

// figures returns the values of cols for r, one VM's Result: 0 for a
// column without a Value.
func figures(cols []workload.Column, r *oltp.Result) []float64 {
	v := make([]float64, len(cols))
	for i, col := range cols {
		if col.Value != nil {
			v[i] = col.Value(r)
		}
	}
	return v
}

// form is a rendering of the review: the text table printed at the end of
// a campaign, report.md's Markdown or CSV.
type form int

const (
	textForm form = iota
	markdownForm
	csvForm
)

// num formats a figure with digits decimals: with thousands separators
// in the text and Markdown tables, plain in CSV (a file for programs: no
// grouping, '.' as the decimal point).
func (f form) num(v float64, digits int) string {
	if f == csvForm {
		return strconv.FormatFloat(v, 'f', digits, 64)
	}
	return report.Grouped(v, digits)
}

// cells formats figures, the values of rv's review columns, in form f; a
// column without a Value gets an empty cell.
func (rv *Review) cells(f form, figures []float64) []string {
	c := make([]string, len(rv.Columns))
	for i, col := range rv.Columns {
		if col.Value != nil {
			c[i] = f.num(figures[i], col.Digits)
		}
	}
	return c
}

// table is the review as a report.Table in form f: per VM a row, then the
// published and the exact aggregate rows; Markdown bolds the published
// figures. The notes explain the aggregates (none in CSV).
func (rv *Review) table(f form) *report.Table {
	reconn := "reconnects"
	if f == textForm {
		reconn = "reconn" // the terminal table stays narrow
	}
	t := &report.Table{Columns: []report.Column{{Header: "VM"}, {Header: "datastore"}}}
	for _, h := range []string{"TPS", "avg (ms)", "p95 (ms)", "p99 (ms)", "retries", "errors", reconn} {
		t.Columns = append(t.Columns, report.Column{Header: h, Align: report.Right, Numeric: true})
	}
	for _, c := range rv.Columns {
		t.Columns = append(t.Columns, report.Column{Header: c.Header, Align: report.Right, Numeric: true})
	}
	bound := rv.anyClientBound()
	if bound {
		t.Columns = append(t.Columns, report.Column{Header: "client"})
	}
	for _, r := range rv.VMs {
		row := append([]string{r.VM, r.Datastore, f.num(r.TPS, 1), f2(r.AvgMs), f2(r.P95Ms), f2(r.P99Ms),
			itoa64(r.Retries), itoa64(r.Errors), itoa64(r.Reconnects)}, rv.cells(f, r.Figures)...)
		if bound {
			row = append(row, clientMark(r.ClientBound))
		}
		t.Rows = append(t.Rows, row)
	}
	bold := func(s string) string {
		if f != markdownForm || s == "" {
			return s
		}
		return "**" + s + "**"
	}
	published := []string{bold("aggregate, published"), "", bold(f.num(rv.TPSSum, 1)), bold(f2(rv.AvgPublishedMs)), bold(f2(rv.P95PublishedMs)),
		bold(f2(rv.P99PublishedMs)), itoa64(rv.Retries), itoa64(rv.Errors), itoa64(rv.Reconnects)}
	for _, c := range rv.cells(f, rv.Figures) {
		published = append(published, bold(c))
	}
	exact := []string{"aggregate, exact", "", f.num(rv.TPSSum, 1), f2(rv.AvgExactMs), f2(rv.P95ExactMs), f2(rv.P99ExactMs), "", "", ""}
	exact = append(exact, rv.cells(f, rv.MergedFigures)...)
	if bound {
		published = append(published, clientMark(rv.ClientBound))
		exact = append(exact, clientMark(rv.ClientBound))
	}
	t.Rows = append(t.Rows, published, exact)
	t.Strong = []int{len(t.Rows) - 2} // the published row, set apart in HTML as report.md's bold sets it apart
	if f != csvForm {
		t.Notes = rv.notes(f)
	}
	return t
}

// notes are the lines under the table in text or Markdown, which
// emphasises the terms it defines.
func (rv *Review) notes(f form) []string {
	em, dash := func(s string) string { return s }, "-"
	if f == markdownForm {
		em, dash = func(s string) string { return "*" + s + "*" }, "–"
	}
	l := []string{
		fmt.Sprintf("TPS is summed over VMs (per VM %s %s %s).", num(rv.TPSMin), dash, num(rv.TPSMax)),
		em("published") + ": latencies are the mean of the per-VM values, as the reviews compute their aggregate.",
		em("exact") + ": the average over all events of all VMs, percentiles of the merged histograms.",
		em("retries") + ": events restarted after a deadlock, lock wait, busy database or lost connection; " + em("errors") + ": errors no retry absorbed.",
	}
	if rv.FromIntended {
		l = append(l, "Latencies are measured from each intended start or submission (queueing included), not as service time.")
	}
	var tool []string
	for _, c := range rv.Columns {
		if c.Note != "" {
			l = append(l, c.Note)
		}
		if c.Value != nil {
			tool = append(tool, c.Header)
		}
	}
	if len(tool) > 0 {
		l = append(l, fmt.Sprintf("%s: the published row is the sum of the VMs' figures (the reviews' aggregation: %q); the exact row is the figure of all VMs' merged window (%q, as the tool's report of the merged Result gives it).",
			strings.Join(tool, ", "), publishedLabel(tool[0]), mergedLabel(tool[0])))
	}
	if rv.anyClientBound() {
		l = append(l, fmt.Sprintf("%s: the client (on the aggregate rows, the clients together) used more than %.0f%% of the CPU available to it over the measured phase, so that row's figures may be the client's limit, not the server's.",
			em(clientBoundMark), 100*oltp.ClientBoundShare))
	}
	if rv.LittleMs > 0 {
		l = append(l, fmt.Sprintf("Little's law check: threads / TPS per VM gives %.2f ms expected average latency.", rv.LittleMs))
	}
	if rv.LittleTPS > 0 {
		l = append(l, fmt.Sprintf("Little's law check: terminals / (average response time + keying and think time per transaction, %s ms) per VM gives %s TPS expected per VM; measured %s.",
			num(rv.WaitMs), num(rv.LittleTPS), num(rv.TPSSum/float64(len(rv.VMs)))))
	}
	return l
}

// publishedLabel names a tool figure as the review's published row gives
// it: "tpmC (sum of VMs, as published)".
func publishedLabel(header string) string { return header + " (sum of VMs, as published)" }

// mergedLabel names a tool figure as the review's exact row gives it, of
// the merged Result: "tpmC (merged window)".
func mergedLabel(header string) string { return header + " (merged window)" }

// clientBoundMark is the review's client cell of a client-bound row.
const clientBoundMark = "CLIENT-BOUND"

// clientMark is the client cell of a row: clientBoundMark or empty.
func clientMark(bound bool) string {
	if bound {
		return clientBoundMark
	}
	return ""
}

// anyClientBound reports whether a row of the table is client-bound: the
// client column and its note are shown only then.
func (rv *Review) anyClientBound() bool {
	if rv.ClientBound {
		return true
	}
	for _, r := range rv.VMs {
		if r.ClientBound {
			return true
		}
	}
	return false
}

// simulated is the Simulated sentence, capitalised.
func (rv *Review) simulated() string { return textfmt.Capitalize(rv.Simulated) }

// WriteText prints the review as fixed-width columns under a heading
// (campaign, workload, VMs, measured time, what was measured), with the
// notes under them.
func (rv *Review) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: %s, %d VMs, %s measured per VM\n", rv.Campaign, rv.Workload, len(rv.VMs), rv.Elapsed.Round(time.Millisecond))
	if rv.Simulated != "" {
		fmt.Fprintf(w, "%s\n", rv.simulated())
	}
	if rv.Incomplete != "" {
		fmt.Fprintf(w, "%s\n", textfmt.Capitalize(rv.Incomplete))
	}
	fmt.Fprintf(w, "measured: %s\n", rv.Measured)
	if rv.Layout != "" {
		fmt.Fprintf(w, "VMs: %s\n", rv.Layout)
	}
	if rv.Data != "" {
		fmt.Fprintf(w, "data: %s\n", rv.Data)
	}
	if rv.Checks != "" {
		fmt.Fprintf(w, "checks: %s\n", rv.Checks)
	}
	if rv.Client != "" {
		fmt.Fprintf(w, "%s\n", rv.Client)
	}
	fmt.Fprintln(w)
	if err := rv.table(textForm).WriteText(w); err != nil {
		return err
	}
	if len(rv.Platform) > 0 {
		fmt.Fprintf(w, "\n%s:\n", platformHeading)
		for _, l := range rv.Platform {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	return nil
}

// platformHeading introduces Review.Platform.
const platformHeading = "what vSphere measured over the measured window (PerformanceManager, 20 s samples)"

// WriteMarkdown writes the review as a Markdown document (report.md): a
// title, the same heading as WriteText, the table and its notes.
func (rv *Review) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "# %s\n\n", rv.Campaign)
	fmt.Fprintf(w, "Workload `%s`, %d VMs, %s measured per VM.\n\n", rv.Workload, len(rv.VMs), rv.Elapsed.Round(time.Millisecond))
	if rv.Simulated != "" {
		fmt.Fprintf(w, "**%s**.\n\n", rv.simulated())
	}
	if rv.Incomplete != "" {
		fmt.Fprintf(w, "**%s**.\n\n", textfmt.Capitalize(rv.Incomplete))
	}
	fmt.Fprintf(w, "Measured: %s.\n\n", rv.Measured)
	if rv.Layout != "" {
		fmt.Fprintf(w, "VMs: %s.\n\n", rv.Layout)
	}
	if rv.Data != "" {
		fmt.Fprintf(w, "Data: %s.\n\n", rv.Data)
	}
	if rv.Checks != "" {
		fmt.Fprintf(w, "Checks: %s.\n\n", rv.Checks)
	}
	if rv.Client != "" {
		fmt.Fprintf(w, "%s.\n\n", rv.Client)
	}
	if err := rv.table(markdownForm).WriteMarkdown(w); err != nil {
		return err
	}
	if len(rv.Platform) > 0 {
		fmt.Fprintf(w, "\n## What the hosts did\n\n%s:\n\n", textfmt.Capitalize(platformHeading))
		for _, l := range rv.Platform {
			fmt.Fprintf(w, "- %s\n", l)
		}
	}
	return nil
}

// WriteCSV writes the review table alone as CSV (RFC 4180): a header
// row, a row per VM, then "aggregate, published" and "aggregate, exact".
// Numbers are plain, for programs to read: no thousands separators, '.'
// as the decimal point (TPS and the tool's columns to their digits,
// latencies in ms to two decimals).
func (rv *Review) WriteCSV(w io.Writer) error { return rv.table(csvForm).WriteCSV(w) }

// num formats a rate with thousands separators and one decimal.
func num(v float64) string { return report.Grouped(v, 1) }

func f2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

func itoa64(v int64) string { return strconv.FormatInt(v, 10) }
