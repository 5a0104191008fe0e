package tpcc

import (
	"bytes"
	"maps"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"vmbench/internal/golden"
	"vmbench/oltp"
	"vmbench/oltp/hist"
)

// snapshots caches one histogram snapshot per count: recording tens of
// thousands of values for every table row would be slow for nothing.
var snapshots = map[int64]hist.Snapshot{}

func snapshotOf(n int64) hist.Snapshot {
	if s, ok := snapshots[n]; ok {
		return s
	}
	h := hist.New()
	for i := int64(0); i < n; i++ {
		h.Record(time.Duration(1+i%1000) * time.Millisecond)
	}
	s := h.Snapshot()
	snapshots[n] = s
	return s
}

// auditResult builds a Result of a run of w warehouses with the given
// transaction counts (by op name) and counters.
func auditResult(w string, ops map[string]int64, ctrs map[string]int64) *oltp.Result {
	r := &oltp.Result{Version: oltp.ResultVersion, Workload: "tpcc", Flags: map[string]string{}, Counters: ctrs, Parts: 1}
	if w != "" {
		r.Flags["warehouses"] = w
	}
	for _, name := range OpNames {
		r.Ops = append(r.Ops, oltp.OpResult{Name: name, Latency: snapshotOf(ops[name])})
	}
	return r
}

// goodOps and goodCounters are a run of 23,100 transactions that meets
// every bound with room to spare.
func goodOps() map[string]int64 {
	return map[string]int64{"new_order": 11000, "payment": 10000, "order_status": 1000, "delivery": 100, "stock_level": 1000}
}

func goodCounters() map[string]int64 {
	c := map[string]int64{
		"new_order.rollbacks": 110, "new_order.lines": 110000, "new_order.remote_lines": 1100,
		"payment.remote": 1500, "payment.by_last_name": 6000, "order_status.by_last_name": 600,
		"delivery.skipped": 0, "delivery.districts": 1000,
	}
	for n := 5; n <= 15; n++ {
		c["new_order.ol_cnt_"+strconv.Itoa(n)] = 1000
	}
	return c
}

// auditByName returns Audit's items by name.
func auditByName(t *testing.T, r *oltp.Result) map[string]AuditItem {
	t.Helper()
	m := map[string]AuditItem{}
	for _, it := range Audit(r) {
		m[it.Name] = it
	}
	if len(m) != 18 {
		t.Fatalf("Audit returned %d distinct items, want 18", len(m))
	}
	return m
}

func TestAuditAllPass(t *testing.T) {
	for name, it := range auditByName(t, auditResult("4", goodOps(), goodCounters())) {
		if !it.Pass || it.Skipped != "" {
			t.Errorf("%s: %+v, want PASS", name, it)
		}
	}
}

// Verdicts of TestAuditBounds and TestAuditSamplingError.
const (
	pass = "PASS"
	near = "PASS (within sampling error)"
	fail = "FAIL"
)

type set map[string]int64

// auditCase is one figure of an audit moved: the item judged, overrides
// of goodOps and goodCounters, and the verdict and value wanted.
type auditCase struct {
	item    string
	ops     set
	ctrs    set
	verdict string
	val     string
}

// TestAuditBounds moves one figure to each bound and just past it: a
// share drawn at random just past its bound is within sampling error,
// lines per New-Order and skipped deliveries FAIL.
func TestAuditBounds(t *testing.T) {
	tests := []auditCase{
		// rollbacks / 11,000 New-Orders: 0.9% is 99, 1.1% is 121.
		{"New-Order rollbacks", nil, set{"new_order.rollbacks": 99}, pass, "0.900%"},
		{"New-Order rollbacks", nil, set{"new_order.rollbacks": 98}, near, "0.891%"},
		{"New-Order rollbacks", nil, set{"new_order.rollbacks": 121}, pass, "1.100%"},
		{"New-Order rollbacks", nil, set{"new_order.rollbacks": 122}, near, "1.109%"},
		// lines / 11,000 New-Orders: 9.5 is 104,500, 10.5 is 115,500.
		{"order lines per New-Order", nil, set{"new_order.lines": 104500, "new_order.remote_lines": 1045}, pass, "9.50"},
		{"order lines per New-Order", nil, set{"new_order.lines": 104499, "new_order.remote_lines": 1045}, fail, "9.50"},
		{"order lines per New-Order", nil, set{"new_order.lines": 115500}, pass, "10.50"},
		{"order lines per New-Order", nil, set{"new_order.lines": 115501}, fail, "10.50"},
		// share of 11,000 counted orders: 1/11 - 1 point is 890, + 1 point 1,110.
		{"New-Orders of 5 lines", nil, set{"new_order.ol_cnt_5": 890, "new_order.ol_cnt_6": 1110}, pass, "8.091%"},
		{"New-Orders of 6 lines", nil, set{"new_order.ol_cnt_5": 890, "new_order.ol_cnt_6": 1110}, pass, "10.091%"},
		{"New-Orders of 5 lines", nil, set{"new_order.ol_cnt_5": 889, "new_order.ol_cnt_6": 1111}, near, "8.082%"},
		{"New-Orders of 6 lines", nil, set{"new_order.ol_cnt_5": 889, "new_order.ol_cnt_6": 1111}, near, "10.100%"},
		{"New-Orders of 15 lines", nil, set{"new_order.ol_cnt_15": 1111, "new_order.ol_cnt_14": 889}, near, "10.100%"},
		// remote lines / 110,000 lines: 0.95% is 1,045, 1.05% is 1,155.
		{"remote order lines", nil, set{"new_order.remote_lines": 1045}, pass, "0.950%"},
		{"remote order lines", nil, set{"new_order.remote_lines": 1044}, near, "0.949%"},
		{"remote order lines", nil, set{"new_order.remote_lines": 1155}, pass, "1.050%"},
		{"remote order lines", nil, set{"new_order.remote_lines": 1156}, near, "1.051%"},
		// of 10,000 Payments.
		{"remote Payments", nil, set{"payment.remote": 1400}, pass, "14.000%"},
		{"remote Payments", nil, set{"payment.remote": 1399}, near, "13.990%"},
		{"remote Payments", nil, set{"payment.remote": 1600}, pass, "16.000%"},
		{"remote Payments", nil, set{"payment.remote": 1601}, near, "16.010%"},
		{"Payments by last name", nil, set{"payment.by_last_name": 5700}, pass, "57.000%"},
		{"Payments by last name", nil, set{"payment.by_last_name": 5699}, near, "56.990%"},
		{"Payments by last name", nil, set{"payment.by_last_name": 6300}, pass, "63.000%"},
		{"Payments by last name", nil, set{"payment.by_last_name": 6301}, near, "63.010%"},
		// of 1,000 Order-Status.
		{"Order-Status by last name", nil, set{"order_status.by_last_name": 570}, pass, "57.000%"},
		{"Order-Status by last name", nil, set{"order_status.by_last_name": 569}, near, "56.900%"},
		{"Order-Status by last name", nil, set{"order_status.by_last_name": 630}, pass, "63.000%"},
		{"Order-Status by last name", nil, set{"order_status.by_last_name": 631}, near, "63.100%"},
		// of 1,000 districts.
		{"skipped deliveries", nil, set{"delivery.skipped": 10}, pass, "1.000%"},
		{"skipped deliveries", nil, set{"delivery.skipped": 11}, fail, "1.100%"},
		// the denominators move too: 10,000 Payments -> 12,000.
		{"Payments by last name", set{"payment": 12000}, set{"payment.remote": 1800}, fail, "50.000%"},
		{"New-Order rollbacks", set{"new_order": 10000}, set{"new_order.lines": 100000, "new_order.remote_lines": 1000, "new_order.rollbacks": 111}, near, "1.110%"},
		{"New-Order rollbacks", set{"new_order": 10000}, set{"new_order.lines": 100000, "new_order.remote_lines": 1000, "new_order.rollbacks": 90}, pass, "0.900%"},
	}
	for _, tc := range tests {
		items := tc.check(t)
		// Nothing else moves out of bounds, except a neighbouring line
		// count whose share was moved to keep the total.
		moved := map[string]bool{tc.item: true}
		for k := range tc.ctrs {
			if n, ok := strings.CutPrefix(k, "new_order.ol_cnt_"); ok {
				moved["New-Orders of "+n+" lines"] = true
			}
		}
		for name, o := range items {
			if !moved[name] && o.Verdict() != pass {
				t.Errorf("%s with %v %v: %s moved too: %+v", tc.item, tc.ops, tc.ctrs, name, o)
			}
		}
	}
}

// check audits goodOps and goodCounters of a 2-warehouse run with tc's
// overrides, checks tc's item and returns every item by name.
func (tc auditCase) check(t *testing.T) map[string]AuditItem {
	t.Helper()
	ops, ctrs := goodOps(), goodCounters()
	maps.Copy(ops, tc.ops)
	maps.Copy(ctrs, tc.ctrs)
	items := auditByName(t, auditResult("2", ops, ctrs))
	it := items[tc.item]
	if it.Verdict() != tc.verdict || it.Pass != (tc.verdict != fail) || it.Value != tc.val {
		t.Errorf("%s with %v %v: %+v, want %s, value %s", tc.item, tc.ops, tc.ctrs, it, tc.verdict, tc.val)
	}
	return items
}

// TestAuditSamplingError: a share drawn at random FAILs only more than
// 3.29 standard errors (binomial, at the nearest bound) outside its
// bounds. The trial's run of 49 rollbacks in 5,555 New-Orders (0.882%,
// 0.14 standard errors below 0.9%) is within sampling error.
func TestAuditSamplingError(t *testing.T) {
	newOrders := func(n int64) set { return set{"new_order": n} }
	for _, tc := range []auditCase{
		// exactly at the band, and inside it
		{"New-Order rollbacks", newOrders(5555), set{"new_order.rollbacks": 50}, pass, "0.900%"},
		{"New-Order rollbacks", newOrders(100000), set{"new_order.rollbacks": 1100}, pass, "1.100%"},
		{"New-Order rollbacks", newOrders(100000), set{"new_order.rollbacks": 1000}, pass, "1.000%"},
		// outside by a little with small n
		{"New-Order rollbacks", newOrders(5555), set{"new_order.rollbacks": 49}, near, "0.882%"},
		{"New-Order rollbacks", newOrders(5555), set{"new_order.rollbacks": 29}, near, "0.522%"}, // 2.98 SE
		{"Order-Status by last name", set{"order_status": 400}, set{"order_status.by_last_name": 200}, near, "50.000%"},
		// outside by a lot
		{"New-Order rollbacks", newOrders(5555), set{"new_order.rollbacks": 25}, fail, "0.450%"}, // 3.55 SE
		{"New-Order rollbacks", newOrders(100000), set{"new_order.rollbacks": 700}, fail, "0.700%"},
		{"Payments by last name", set{"payment": 100000}, set{"payment.by_last_name": 55000}, fail, "55.000%"},
		// either side of 3.29 SE above 1.1% of 100,000 (1,208.5)
		{"New-Order rollbacks", newOrders(100000), set{"new_order.rollbacks": 1208}, near, "1.208%"},
		{"New-Order rollbacks", newOrders(100000), set{"new_order.rollbacks": 1210}, fail, "1.210%"},
		// a line count's share of 11,000 New-Orders: 8.09% less 3.29 SE is 7.23%
		{"New-Orders of 9 lines", nil, set{"new_order.ol_cnt_9": 800, "new_order.ol_cnt_10": 1200}, near, "7.273%"},
		{"New-Orders of 9 lines", nil, set{"new_order.ol_cnt_9": 790, "new_order.ol_cnt_10": 1210}, fail, "7.182%"},
		// compared exactly: no sampling error
		{"skipped deliveries", nil, set{"delivery.skipped": 11}, fail, "1.100%"},
	} {
		tc.check(t)
	}
}

func TestAuditSkips(t *testing.T) {
	t.Run("fewer than 10,000 transactions", func(t *testing.T) {
		ops := map[string]int64{"new_order": 4000, "payment": 4000, "order_status": 700, "delivery": 599, "stock_level": 700}
		for name, it := range auditByName(t, auditResult("2", ops, goodCounters())) {
			if it.Pass || it.Skipped != "fewer than 10,000 transactions" {
				t.Errorf("9,999 transactions: %s = %+v, want skipped", name, it)
			}
		}
		ops["delivery"]++ // 10,000: judged
		if it := auditByName(t, auditResult("2", ops, goodCounters()))["Payments by last name"]; it.Skipped != "" {
			t.Errorf("10,000 transactions: %+v, want judged", it)
		}
	})
	t.Run("one warehouse", func(t *testing.T) {
		ctrs := goodCounters()
		ctrs["new_order.remote_lines"], ctrs["payment.remote"] = 0, 0
		items := auditByName(t, auditResult("1", goodOps(), ctrs))
		if it := items["remote order lines"]; it.Pass || it.Skipped != "1 warehouse: no remote lines" {
			t.Errorf("remote order lines: %+v", it)
		}
		if it := items["remote Payments"]; it.Pass || it.Skipped != "1 warehouse: no remote payments" {
			t.Errorf("remote Payments: %+v", it)
		}
		if it := items["Payments by last name"]; !it.Pass {
			t.Errorf("Payments by last name: %+v, want PASS", it)
		}
	})
	t.Run("no warehouses flag", func(t *testing.T) {
		if it := auditByName(t, auditResult("", goodOps(), goodCounters()))["remote order lines"]; it.Skipped == "" {
			t.Errorf("remote order lines without the warehouses flag: %+v, want skipped", it)
		}
	})
	t.Run("no Order-Status", func(t *testing.T) {
		ops := goodOps()
		ops["order_status"] = 0
		it := auditByName(t, auditResult("2", ops, goodCounters()))["Order-Status by last name"]
		if it.Pass || it.Skipped != "no Order-Status transactions" || it.Value != "" {
			t.Errorf("%+v", it)
		}
	})
}

// TestFormatAuditGolden compares FormatAudit's table with
// testdata/audit.golden (go test ./tpcc/ -run FormatAudit -update
// rewrites it).
func TestFormatAuditGolden(t *testing.T) {
	ctrs := goodCounters()
	ctrs["new_order.rollbacks"] = 131   // 1.191%: 0.91 standard errors above 1.1%, within sampling error
	ctrs["payment.by_last_name"] = 5400 // 54%: 6.1 standard errors below 57%, FAIL
	ctrs["new_order.lines"] = 109890
	ctrs["new_order.remote_lines"], ctrs["payment.remote"] = 0, 0
	ctrs["new_order.ol_cnt_7"], ctrs["new_order.ol_cnt_8"] = 937, 1063
	ctrs["delivery.skipped"] = 3
	var b bytes.Buffer
	FormatAudit(&b, Audit(auditResult("1", goodOps(), ctrs)))
	b.WriteString("\n")
	// A run of 100 transactions: figures shown, nothing judged.
	short := map[string]int64{"new_order.rollbacks": 1, "new_order.lines": 452, "payment.by_last_name": 25,
		"order_status.by_last_name": 3, "delivery.districts": 40}
	for n := 5; n <= 15; n++ {
		short["new_order.ol_cnt_"+strconv.Itoa(n)] = 4 + int64(n/15)
	}
	FormatAudit(&b, Audit(auditResult("2", map[string]int64{"new_order": 45, "payment": 43, "order_status": 4, "delivery": 4, "stock_level": 4}, short)))

	golden.Check(t, filepath.Join("testdata", "audit.golden"), b.Bytes())
}
