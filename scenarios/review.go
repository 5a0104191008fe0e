package scenarios

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"vmbench/oltp"
	"vmbench/oltp/hist"
)

// VMRow is one VM's line of the review table. Latencies are in ms; TPS is
// events (transactions) per second over the VM's measured time.
type VMRow struct {
	VM         string
	Datastore  string
	Threads    int
	Events     int64
	TPS        float64
	AvgMs      float64
	P95Ms      float64
	P99Ms      float64
	Errors     int64 // retried errors (deadlocks, lock waits...)
	Reconnects int64
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
	Errors, Reconnects     int64
	// LittleMs is Little's law's prediction of the average latency of a
	// closed loop: mean over VMs of threads / TPS, in ms.
	LittleMs float64
}

// NewReview builds the review table from one measure-phase Result per VM
// (labelled vm and datastore) and their Merge. Latency merges every op of
// a result (all transaction types).
func NewReview(campaign string, perVM []*oltp.Result, merged *oltp.Result) (*Review, error) {
	if len(perVM) == 0 {
		return nil, fmt.Errorf("review: no results")
	}
	rv := &Review{Campaign: campaign, Workload: merged.Workload, Measured: perVM[0].Measured + ", in each VM", Elapsed: merged.Elapsed}
	closed := merged.Loop == oltp.ClosedLoop
	for i, r := range perVM {
		h, err := allOps(r)
		if err != nil {
			return nil, err
		}
		row := VMRow{VM: r.Labels["vm"], Datastore: r.Labels["datastore"], Threads: r.Threads, Events: h.Count(),
			TPS: r.PerSecond(h.Count()), AvgMs: ms(h.Mean()), P95Ms: ms(h.Percentile(95)), P99Ms: ms(h.Percentile(99)),
			Errors: sumPrefix(r.Counters, "errors."), Reconnects: r.Counters["reconnects"]}
		rv.VMs = append(rv.VMs, row)
		rv.TPSSum += row.TPS
		if i == 0 || row.TPS < rv.TPSMin {
			rv.TPSMin = row.TPS
		}
		rv.TPSMax = max(rv.TPSMax, row.TPS)
		rv.AvgPublishedMs += row.AvgMs / float64(len(perVM))
		rv.P95PublishedMs += row.P95Ms / float64(len(perVM))
		rv.P99PublishedMs += row.P99Ms / float64(len(perVM))
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

func allOps(r *oltp.Result) (*hist.Histogram, error) {
	all := hist.New()
	for _, o := range r.Ops {
		h, err := o.Latency.Histogram()
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
	fmt.Fprintf(w, "measured: %s\n\n", rv.Measured)
	rows := [][]string{{"VM", "datastore", "TPS", "avg (ms)", "p95 (ms)", "p99 (ms)", "errors", "reconn"}}
	for _, r := range rv.VMs {
		rows = append(rows, []string{r.VM, r.Datastore, num(r.TPS), f2(r.AvgMs), f2(r.P95Ms), f2(r.P99Ms), itoa64(r.Errors), itoa64(r.Reconnects)})
	}
	rows = append(rows,
		[]string{"aggregate, published", "", num(rv.TPSSum), f2(rv.AvgPublishedMs), f2(rv.P95PublishedMs), f2(rv.P99PublishedMs), itoa64(rv.Errors), itoa64(rv.Reconnects)},
		[]string{"aggregate, exact", "", num(rv.TPSSum), f2(rv.AvgExactMs), f2(rv.P95ExactMs), f2(rv.P99ExactMs), "", ""})
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

func f2(v float64) string { return fmt.Sprintf("%.2f", v) }

func itoa64(v int64) string { return fmt.Sprintf("%d", v) }

func (rv *Review) summaryLines() []string {
	l := []string{
		"",
		fmt.Sprintf("TPS is summed over VMs (per VM %s - %s).", num(rv.TPSMin), num(rv.TPSMax)),
		"published: latencies are the mean of the per-VM values, as the reviews compute their aggregate.",
		"exact: the average over all events of all VMs, percentiles of the merged histograms.",
	}
	if rv.LittleMs > 0 {
		l = append(l, fmt.Sprintf("Little's law check: threads / TPS per VM gives %.2f ms expected average latency.", rv.LittleMs))
	}
	return l
}

// WriteMarkdown writes the review as a Markdown table (report.md).
func (rv *Review) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "# %s\n\n", rv.Campaign)
	fmt.Fprintf(w, "Workload `%s`, %d VMs, %s measured per VM.\n\n", rv.Workload, len(rv.VMs), rv.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "Measured: %s.\n\n", rv.Measured)
	fmt.Fprintln(w, "| VM | datastore | TPS | avg (ms) | p95 (ms) | p99 (ms) | errors | reconnects |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|")
	for _, r := range rv.VMs {
		fmt.Fprintf(w, "| %s | %s | %s | %.2f | %.2f | %.2f | %d | %d |\n", r.VM, r.Datastore, num(r.TPS), r.AvgMs, r.P95Ms, r.P99Ms, r.Errors, r.Reconnects)
	}
	fmt.Fprintf(w, "| **aggregate, published** | | **%s** | **%.2f** | **%.2f** | **%.2f** | %d | %d |\n", num(rv.TPSSum), rv.AvgPublishedMs, rv.P95PublishedMs, rv.P99PublishedMs, rv.Errors, rv.Reconnects)
	fmt.Fprintf(w, "| aggregate, exact | | %s | %.2f | %.2f | %.2f | | |\n\n", num(rv.TPSSum), rv.AvgExactMs, rv.P95ExactMs, rv.P99ExactMs)
	fmt.Fprintf(w, "- TPS is summed over VMs (per VM %s – %s).\n", num(rv.TPSMin), num(rv.TPSMax))
	fmt.Fprintln(w, "- *published*: latencies are the mean of the per-VM values, as the reviews compute their aggregate.")
	fmt.Fprintln(w, "- *exact*: the average over all events of all VMs, percentiles of the merged histograms.")
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
