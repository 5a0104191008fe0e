package tpcc

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"vmbench/oltp"
	"vmbench/oltp/hist"
	"vmbench/report"
)

// ResponseLimits are TPC-C 5.2.5.3's 90th-percentile response-time limits
// per transaction, by op index: 5 s, and 20 s for Stock-Level.
var ResponseLimits = [numOps]time.Duration{5 * time.Second, 5 * time.Second, 5 * time.Second, 5 * time.Second, 20 * time.Second}

// MaxTpmCPerWarehouse is the most New-Orders per minute one warehouse's
// ten terminals can submit with the specification's keying and think
// times: 10 x 60 s / 20.99 s mean cycle x 0.45 (TPC-C 5.2.5, 4.2).
const MaxTpmCPerWarehouse = 12.86

// Figures are the headline numbers of a TPC-C Result.
type Figures struct {
	// TPS is every transaction per second; TpmC New-Orders per minute, the
	// intended rollbacks included (as TPC-C 5.4.2 counts them).
	TPS, TpmC float64
	// NOPM is committed New-Orders per minute from the change of
	// sum(d_next_o_id) (HammerDB's NOPM); NOPMValid is false when the
	// database could not be read.
	NOPM      float64
	NOPMValid bool
	// ClientNOPM is committed New-Orders per minute as the client counted
	// them (New-Orders minus intended rollbacks).
	ClientNOPM float64
	// Efficiency is TpmC / (12.86 x warehouses), in percent; valid only
	// when the run used the specification's waits (--wait-scale 1).
	Efficiency      float64
	EfficiencyValid bool
}

// ComputeFigures returns the headline figures of res (a single run or a
// merge of runs on as many databases).
func ComputeFigures(res *oltp.Result) Figures {
	var f Figures
	mins := res.Elapsed.Minutes()
	if mins <= 0 {
		return f
	}
	var all int64
	for _, op := range res.Ops {
		all += op.Latency.Count
	}
	no := int64(0)
	if op := res.Op(OpNames[opNewOrder]); op != nil {
		no = op.Latency.Count
	}
	f.TPS = float64(all) / res.Elapsed.Seconds()
	f.TpmC = float64(no) / mins
	f.ClientNOPM = float64(no-res.Counters[counterNames[ctrRollbacks]]) / mins
	if d, ok := res.Counters[CounterNOPMDelta]; ok {
		f.NOPM, f.NOPMValid = float64(d)/mins, true
	}
	w, _ := strconv.Atoi(res.Flags["warehouses"])
	if res.Flags["wait-scale"] == "1" && res.Flags["threads"] == "0" && w > 0 {
		parts := max(res.Parts, 1) // a merge of N runs on N databases of w warehouses
		f.Efficiency, f.EfficiencyValid = 100*f.TpmC/(MaxTpmCPerWarehouse*float64(w*parts)), true
	}
	return f
}

// responseHist returns the histogram of TPC-C response times of op: from
// submission in a terminal-driven run, else the service time.
func responseHist(op *oltp.OpResult) (*hist.Histogram, error) {
	if op.Intended != nil {
		return op.Intended.Histogram()
	}
	return op.Latency.Histogram()
}

// WriteInterval writes one line per report interval, all transactions
// together, latencies in ms (response time when terminal-driven):
//
//	[ 10s ] tpmC: 742.8 tps: 41.20 lat (ms,avg/p90/p99): 5.21/9.80/20.10 queue: 0 retries/s: 0.00
func WriteInterval(w io.Writer, rep oltp.IntervalReport) error {
	all := hist.New()
	src := rep.Latency
	if len(rep.Intended) > 0 {
		src = rep.Intended
	}
	for _, h := range src {
		all.Merge(h)
	}
	secs := rep.Length.Seconds()
	if secs <= 0 {
		return nil
	}
	warm := ""
	if rep.Phase == oltp.PhasePrecondition {
		warm = " (precondition)"
	}
	_, err := fmt.Fprintf(w, "[ %ss ] tpmC: %.1f tps: %.2f lat (ms,avg/p90/p99): %.2f/%.2f/%.2f queue: %d retries/s: %.2f%s\n",
		strconv.FormatFloat(atRounded(rep).Seconds(), 'f', -1, 64),
		float64(src[opNewOrder].Count())/secs*60, float64(all.Count())/secs,
		report.Millis(all.Mean()), report.Millis(all.Percentile(90)), report.Millis(all.Percentile(99)), rep.Backlog,
		float64(rep.Counters[counterNames[ctrRetries]])/secs, warm)
	return err
}

// atRounded is the end of rep's interval, to the second when intervals
// are a second or longer (as sysbench prints them), else to the ms.
func atRounded(rep oltp.IntervalReport) time.Duration {
	if rep.Length >= 900*time.Millisecond {
		return rep.At.Round(time.Second)
	}
	return rep.At.Round(time.Millisecond)
}

// WriteReport writes the report of res: per transaction its count, TPM,
// average, p50, p90, p95, p99, p99.9 and max response time in ms and its
// 90th-percentile limit (TPC-C 5.2.5.3) as PASS or FAIL (TransactionTable);
// then TPS, tpmC, NOPM beside the client's count, efficiency, errors, what
// was measured and the audit of clause 9.2 (WriteSummary).
func WriteReport(w io.Writer, res *oltp.Result) error {
	t, err := TransactionTable(res, false)
	if err != nil {
		return err
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	return WriteSummary(w, res)
}

// transactionHeaders are the per-transaction table's columns after the
// first ("Transaction"): as the text report prints them, and with each
// latency's unit for HTML, Markdown and CSV.
var transactionHeaders = [2][]string{
	{"Count", "TPM", "Avg(ms)", "p50", "p90", "p95", "p99", "p99.9", "Max(ms)", "90th limit"},
	{"count", "TPM", "avg (ms)", "p50 (ms)", "p90 (ms)", "p95 (ms)", "p99 (ms)", "p99.9 (ms)", "max (ms)", "90th limit"},
}

// TransactionTable is res's per-transaction table: a row per transaction
// type measured with its count, transactions per minute, mean, p50, p90,
// p95, p99, p99.9 and max response time in ms (two decimals), and its
// 90th-percentile limit with PASS, FAIL or "-" (none ran). units puts
// each latency's unit in its header ("p90 (ms)", for HTML and CSV);
// without it the headers are the text report's. The numeric columns are
// marked Numeric. An error names a transaction whose histogram does not
// decode.
func TransactionTable(res *oltp.Result, units bool) (*report.Table, error) {
	headers := transactionHeaders[0]
	if units {
		headers = transactionHeaders[1]
	}
	t := &report.Table{Columns: []report.Column{{Header: "Transaction"}}}
	for i, h := range headers {
		t.Columns = append(t.Columns, report.Column{Header: h, Align: report.Right, Numeric: i < len(headers)-1})
	}
	mins := res.Elapsed.Minutes()
	for i, name := range OpNames {
		op := res.Op(name)
		if op == nil {
			continue
		}
		h, err := responseHist(op)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		verdict := "PASS"
		switch {
		case h.Count() == 0:
			verdict = "-"
		case h.Percentile(90) > ResponseLimits[i]:
			verdict = "FAIL"
		}
		tpm := 0.0
		if mins > 0 {
			tpm = float64(h.Count()) / mins
		}
		f := func(d time.Duration) string { return report.FormatMillis(d, 2) }
		t.Rows = append(t.Rows, []string{name, strconv.FormatInt(h.Count(), 10), strconv.FormatFloat(tpm, 'f', 1, 64),
			f(h.Mean()), f(h.Percentile(50)), f(h.Percentile(90)), f(h.Percentile(95)), f(h.Percentile(99)),
			f(h.Percentile(99.9)), f(h.Max()), limitWords(ResponseLimits[i]) + " " + verdict})
	}
	return t, nil
}

// WriteSummary writes what WriteReport prints after the per-transaction
// table: the service time beside the response times (terminal-driven
// runs), TPS, tpmC, NOPM, efficiency, errors, what was measured, the
// client's CPU, an interruption and the audit of clause 9.2.
func WriteSummary(w io.Writer, res *oltp.Result) error {
	service := hist.New()
	for _, name := range OpNames {
		op := res.Op(name)
		if op == nil || op.Intended == nil {
			continue
		}
		s, err := op.Latency.Histogram()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		service.Merge(s)
	}
	if service.Count() > 0 {
		fmt.Fprintf(w, "Response times above count from each submission; service time (a connection held): avg %.2f ms, p90 %.2f ms, p99 %.2f ms\n",
			report.Millis(service.Mean()), report.Millis(service.Percentile(90)), report.Millis(service.Percentile(99)))
	}
	f := ComputeFigures(res)
	c := func(i int) int64 { return res.Counters[counterNames[i]] }
	fmt.Fprintf(w, "\nTPS (all transactions): %.2f over %s\n", f.TPS, res.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "tpmC: %.1f (New-Orders per minute, intended rollbacks included: %d)\n", f.TpmC, c(ctrRollbacks))
	if f.NOPMValid {
		fmt.Fprintf(w, "NOPM: %.1f (sum(d_next_o_id) +%d over the measured window, read before it and after it with no transaction in flight%s; the client counted %.1f committed New-Orders per minute)\n",
			f.NOPM, res.Counters[CounterNOPMDelta], afterEndWords(res.Counters[CounterNOPMAfterEnd]), f.ClientNOPM)
	} else {
		fmt.Fprintf(w, "NOPM: n/a (sum(d_next_o_id) could not be read; the client counted %.1f committed New-Orders per minute)\n", f.ClientNOPM)
	}
	if f.EfficiencyValid {
		fmt.Fprintf(w, "Efficiency: %.1f%% of %.2f tpmC per warehouse\n", f.Efficiency, MaxTpmCPerWarehouse)
	} else {
		fmt.Fprintf(w, "Efficiency: n/a (only meaningful with the specification's waits, --wait-scale 1)\n")
	}
	serial := "" // said only where it can happen and did
	if n := c(ctrSerialization); n > 0 {
		serial = fmt.Sprintf(", %d serialization failures", n)
	}
	fmt.Fprintf(w, "Errors: %d deadlocks, %d lock timeouts%s, %d retries, %d reconnects; Delivery skipped %d of %d districts\n",
		c(ctrDeadlocks), c(ctrLockTimeouts), serial, c(ctrRetries), c(ctrReconnects), c(ctrDeliverySkipped), c(ctrDeliveryDistricts))
	fmt.Fprintf(w, "Latency: %s\n", res.Measured)
	if c := res.Client; c != nil {
		var n int64
		for _, op := range res.Ops {
			n += op.Latency.Count
		}
		fmt.Fprintf(w, "%s\n", c.Summary(n, "transaction"))
	}
	for _, l := range oltp.OverrunNotes(res, "Precondition") {
		fmt.Fprintln(w, l)
	}
	if res.Interrupted {
		fmt.Fprintln(w, "Interrupted: the figures cover the time measured before Ctrl-C.")
	}
	fmt.Fprintln(w)
	FormatAudit(w, Audit(res))
	return nil
}

// afterEndWords says how many New-Orders in flight at the window's end
// committed after it, which the end reading held and the delta leaves
// out; "" for none.
func afterEndWords(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", less the %d that transactions in flight at its end committed after it", n)
}

func limitWords(d time.Duration) string { return "<=" + strconv.Itoa(int(d.Seconds())) + "s" }
