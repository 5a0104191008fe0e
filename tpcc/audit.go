package tpcc

import (
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"

	"vmbench/oltp"
	"vmbench/report"
)

// AuditItem is one input distribution of TPC-C clause 9.2 measured over
// a run, against the bounds an audited run must meet.
type AuditItem struct {
	// Name says what is measured ("New-Order rollbacks").
	Name string
	// Value is the measured figure ("1.02%", "10.01"); "" when there was
	// nothing to measure.
	Value string
	// Bounds are the accepted values ("0.9–1.1%"), inclusive.
	Bounds string
	// Pass reports whether the item passes: Value is within Bounds, or,
	// for a share drawn at random, outside them by no more than sampling
	// explains (WithinError); false when skipped.
	Pass bool
	// WithinError is set when Value is outside Bounds but within sampling
	// error of them (see auditZ); Pass is then set too.
	WithinError bool
	// Skipped says why the item was not judged ("" when it was).
	Skipped string
}

// auditMinTransactions is the fewest transactions (of all types) a run
// needs for its distributions to be judged.
const auditMinTransactions = 10000

// auditZ is how many standard errors outside its bounds a share drawn at
// random must lie to FAIL: 3.29, a two-sided binomial test at the nearest
// bound (normal approximation) at p < 0.001. With about 5,500 New-Orders
// the standard error of a 1% share is 0.13 points, so an exact ±0.1 point
// check would fail about half of the correct runs.
const auditZ = 3.29

// auditNote is FormatAudit's note under a table with a judged item.
const auditNote = "Shares drawn at random FAIL only more than 3.29 standard errors outside their bounds (binomial at the nearest bound, " +
	"two-sided p < 0.001); closer they PASS (within sampling error). Lines per New-Order and skipped deliveries are compared exactly.\n"

// rat is n/d as an exact rational.
func rat(n, d int64) *big.Rat { return big.NewRat(n, d) }

// auditSpec is one item: num/den measured against [lo, hi] (nil: open).
type auditSpec struct {
	name     string
	num, den int64
	percent  bool
	lo, hi   *big.Rat
	bounds   string
	// sampled: num counts den independent random draws of a share the
	// clause prescribes (judged with its sampling error, see auditZ); else
	// the figure is compared exactly.
	sampled bool
	// noDen is why the item is skipped when den is 0.
	noDen string
	// skip, when set, is why the item is skipped anyway.
	skip string
}

// Audit measures the input distributions of TPC-C clause 9.2 in a run's
// Result: New-Order rollbacks (0.9–1.1%), order lines per New-Order
// (9.5–10.5) and the share of each line count 5..15 (1/11 ± 1 point),
// remote order lines (0.95–1.05%) and remote Payments (14–16%) when the
// run had more than one warehouse, customers selected by last name in
// Payment and Order-Status (57–63%), and skipped deliveries (at most 1% of
// districts). It reads the operation counts (New-Order's includes its
// intended rollbacks) and the counters the transactions keep. A run of
// fewer than 10,000 transactions in all is too short to judge: every
// item is then skipped. Bounds are inclusive and compared exactly; a
// share drawn at random (rollbacks, line counts, remote lines and
// Payments, by last name) outside them FAILs only beyond sampling error
// (auditZ standard errors), and within it PASSes with WithinError set.
func Audit(res *oltp.Result) []AuditItem {
	count := func(op int) int64 {
		if o := res.Op(OpNames[op]); o != nil {
			return o.Latency.Count
		}
		return 0
	}
	ctr := func(c int) int64 { return res.Counters[counterNames[c]] }
	var all int64
	for op := range OpNames {
		all += count(op)
	}
	newOrders, payments, orderStatus := count(opNewOrder), count(opPayment), count(opOrderStatus)

	// Remote lines and payments exist only with more than one warehouse.
	remoteLines, remotePayments := "", ""
	switch w, err := strconv.Atoi(res.Flags["warehouses"]); {
	case err != nil:
		remoteLines = "the result does not say how many warehouses"
		remotePayments = remoteLines
	case w <= 1:
		remoteLines, remotePayments = "1 warehouse: no remote lines", "1 warehouse: no remote payments"
	}

	var olCnt int64
	for n := 0; n <= 10; n++ {
		olCnt += ctr(ctrOlCnt5 + n)
	}
	noNewOrder := "no New-Order transactions"
	specs := []auditSpec{
		{name: "New-Order rollbacks", num: ctr(ctrRollbacks), den: newOrders, percent: true, sampled: true,
			lo: rat(9, 1000), hi: rat(11, 1000), bounds: "0.9–1.1%", noDen: noNewOrder},
		{name: "order lines per New-Order", num: ctr(ctrOrderLines), den: newOrders,
			lo: rat(19, 2), hi: rat(21, 2), bounds: "9.5–10.5", noDen: noNewOrder},
	}
	for n := 5; n <= 15; n++ {
		specs = append(specs, auditSpec{name: fmt.Sprintf("New-Orders of %d lines", n), num: ctr(ctrOlCnt5 + n - 5), den: olCnt,
			percent: true, sampled: true, lo: rat(89, 1100), hi: rat(111, 1100), bounds: "8.09–10.09%", noDen: "no line counts in the result"})
	}
	specs = append(specs,
		auditSpec{name: "remote order lines", num: ctr(ctrRemoteLines), den: ctr(ctrOrderLines), percent: true, sampled: true,
			lo: rat(95, 10000), hi: rat(105, 10000), bounds: "0.95–1.05%", noDen: "no order lines", skip: remoteLines},
		auditSpec{name: "remote Payments", num: ctr(ctrRemotePayments), den: payments, percent: true, sampled: true,
			lo: rat(14, 100), hi: rat(16, 100), bounds: "14–16%", noDen: "no Payment transactions", skip: remotePayments},
		auditSpec{name: "Payments by last name", num: ctr(ctrPaymentsByName), den: payments, percent: true, sampled: true,
			lo: rat(57, 100), hi: rat(63, 100), bounds: "57–63%", noDen: "no Payment transactions"},
		auditSpec{name: "Order-Status by last name", num: ctr(ctrOrderStatusByName), den: orderStatus, percent: true, sampled: true,
			lo: rat(57, 100), hi: rat(63, 100), bounds: "57–63%", noDen: "no Order-Status transactions"},
		auditSpec{name: "skipped deliveries", num: ctr(ctrDeliverySkipped), den: ctr(ctrDeliveryDistricts), percent: true,
			hi: rat(1, 100), bounds: "≤ 1%", noDen: "no Delivery transactions"},
	)

	items := make([]AuditItem, len(specs))
	for i, s := range specs {
		items[i] = s.judge(all)
	}
	return items
}

// judge measures the item in a run of all transactions.
func (s auditSpec) judge(all int64) AuditItem {
	it := AuditItem{Name: s.name, Bounds: s.bounds}
	if s.den > 0 {
		v := float64(s.num) / float64(s.den)
		if s.percent {
			it.Value = fmt.Sprintf("%.3f%%", 100*v) // three places: 0.898% must not read as 0.90%
		} else {
			it.Value = fmt.Sprintf("%.2f", v)
		}
	}
	switch {
	case all < auditMinTransactions:
		it.Skipped = "fewer than 10,000 transactions"
	case s.skip != "":
		it.Skipped = s.skip
	case s.den <= 0:
		it.Skipped = s.noDen
	default:
		r := rat(s.num, s.den)
		switch {
		case s.lo != nil && r.Cmp(s.lo) < 0:
			it.WithinError = s.sampled && withinError(s.num, s.den, s.lo)
		case s.hi != nil && r.Cmp(s.hi) > 0:
			it.WithinError = s.sampled && withinError(s.num, s.den, s.hi)
		default:
			it.Pass = true
		}
		it.Pass = it.Pass || it.WithinError
	}
	return it
}

// withinError reports whether num of den draws lie within auditZ
// standard errors of the share edge: the binomial standard error of den
// draws of that share, sqrt(edge × (1 - edge) / den).
func withinError(num, den int64, edge *big.Rat) bool {
	e, _ := edge.Float64()
	se := math.Sqrt(e * (1 - e) / float64(den))
	return math.Abs(float64(num)/float64(den)-e) <= auditZ*se
}

// Verdict is the item's result in words: PASS, "PASS (within sampling
// error)", FAIL or "skipped: why".
func (it AuditItem) Verdict() string {
	switch {
	case it.Skipped != "":
		return "skipped: " + it.Skipped
	case it.WithinError:
		return "PASS (within sampling error)"
	case it.Pass:
		return "PASS"
	}
	return "FAIL"
}

// FormatAudit prints items as an aligned table: name, value, bounds and
// Verdict; when an item was judged, a note line under it says how.
func FormatAudit(w io.Writer, items []AuditItem) {
	t := &report.Table{Columns: []report.Column{{Header: "Audit of the inputs (TPC-C 9.2)"}, {Header: "value"}, {Header: "bounds"}, {Header: "result"}}}
	judged := false
	for _, it := range items {
		v := it.Value
		if v == "" {
			v = "-"
		}
		judged = judged || it.Skipped == ""
		t.Rows = append(t.Rows, []string{"  " + it.Name, v, it.Bounds, it.Verdict()})
	}
	_ = t.WriteText(w) // FormatAudit returns no error; a failed write is dropped, as tabwriter's Flush error was
	if judged {
		_, _ = io.WriteString(w, auditNote)
	}
}
