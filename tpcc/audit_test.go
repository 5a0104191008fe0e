package tpcc

import (
	"bytes"
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

// TestAuditBounds moves one figure to each bound and just past it.
func TestAuditBounds(t *testing.T) {
	type set map[string]int64
	tests := []struct {
		item string
		ops  set // overrides of goodOps
		ctrs set // overrides of goodCounters
		pass bool
		val  string
	}{
		// rollbacks / 11,000 New-Orders: 0.9% is 99, 1.1% is 121.
		{"New-Order rollbacks", nil, set{"new_order.rollbacks": 99}, true, "0.900%"},
		{"New-Order rollbacks", nil, set{"new_order.rollbacks": 98}, false, "0.891%"},
		{"New-Order rollbacks", nil, set{"new_order.rollbacks": 121}, true, "1.100%"},
		{"New-Order rollbacks", nil, set{"new_order.rollbacks": 122}, false, "1.109%"},
		// lines / 11,000 New-Orders: 9.5 is 104,500, 10.5 is 115,500.
		{"order lines per New-Order", nil, set{"new_order.lines": 104500, "new_order.remote_lines": 1045}, true, "9.50"},
		{"order lines per New-Order", nil, set{"new_order.lines": 104499, "new_order.remote_lines": 1045}, false, "9.50"},
		{"order lines per New-Order", nil, set{"new_order.lines": 115500}, true, "10.50"},
		{"order lines per New-Order", nil, set{"new_order.lines": 115501}, false, "10.50"},
		// share of 11,000 counted orders: 1/11 - 1 point is 890, + 1 point 1,110.
		{"New-Orders of 5 lines", nil, set{"new_order.ol_cnt_5": 890, "new_order.ol_cnt_6": 1110}, true, "8.091%"},
		{"New-Orders of 6 lines", nil, set{"new_order.ol_cnt_5": 890, "new_order.ol_cnt_6": 1110}, true, "10.091%"},
		{"New-Orders of 5 lines", nil, set{"new_order.ol_cnt_5": 889, "new_order.ol_cnt_6": 1111}, false, "8.082%"},
		{"New-Orders of 6 lines", nil, set{"new_order.ol_cnt_5": 889, "new_order.ol_cnt_6": 1111}, false, "10.100%"},
		{"New-Orders of 15 lines", nil, set{"new_order.ol_cnt_15": 1111, "new_order.ol_cnt_14": 889}, false, "10.100%"},
		// remote lines / 110,000 lines: 0.95% is 1,045, 1.05% is 1,155.
		{"remote order lines", nil, set{"new_order.remote_lines": 1045}, true, "0.950%"},
		{"remote order lines", nil, set{"new_order.remote_lines": 1044}, false, "0.949%"},
		{"remote order lines", nil, set{"new_order.remote_lines": 1155}, true, "1.050%"},
		{"remote order lines", nil, set{"new_order.remote_lines": 1156}, false, "1.051%"},
		// of 10,000 Payments.
		{"remote Payments", nil, set{"payment.remote": 1400}, true, "14.000%"},
		{"remote Payments", nil, set{"payment.remote": 1399}, false, "13.990%"},
		{"remote Payments", nil, set{"payment.remote": 1600}, true, "16.000%"},
		{"remote Payments", nil, set{"payment.remote": 1601}, false, "16.010%"},
		{"Payments by last name", nil, set{"payment.by_last_name": 5700}, true, "57.000%"},
		{"Payments by last name", nil, set{"payment.by_last_name": 5699}, false, "56.990%"},
		{"Payments by last name", nil, set{"payment.by_last_name": 6300}, true, "63.000%"},
		{"Payments by last name", nil, set{"payment.by_last_name": 6301}, false, "63.010%"},
		// of 1,000 Order-Status.
		{"Order-Status by last name", nil, set{"order_status.by_last_name": 570}, true, "57.000%"},
		{"Order-Status by last name", nil, set{"order_status.by_last_name": 569}, false, "56.900%"},
		{"Order-Status by last name", nil, set{"order_status.by_last_name": 630}, true, "63.000%"},
		{"Order-Status by last name", nil, set{"order_status.by_last_name": 631}, false, "63.100%"},
		// of 1,000 districts.
		{"skipped deliveries", nil, set{"delivery.skipped": 10}, true, "1.000%"},
		{"skipped deliveries", nil, set{"delivery.skipped": 11}, false, "1.100%"},
		// the denominators move too: 10,000 Payments -> 12,000.
		{"Payments by last name", set{"payment": 12000}, set{"payment.remote": 1800}, false, "50.000%"},
		{"New-Order rollbacks", set{"new_order": 10000}, set{"new_order.lines": 100000, "new_order.remote_lines": 1000, "new_order.rollbacks": 111}, false, "1.110%"},
		{"New-Order rollbacks", set{"new_order": 10000}, set{"new_order.lines": 100000, "new_order.remote_lines": 1000, "new_order.rollbacks": 90}, true, "0.900%"},
	}
	for _, tc := range tests {
		ops, ctrs := goodOps(), goodCounters()
		for k, v := range tc.ops {
			ops[k] = v
		}
		for k, v := range tc.ctrs {
			ctrs[k] = v
		}
		items := auditByName(t, auditResult("2", ops, ctrs))
		it := items[tc.item]
		if it.Pass != tc.pass || it.Skipped != "" || it.Value != tc.val {
			t.Errorf("%s with %v %v: %+v, want pass=%v value %s", tc.item, tc.ops, tc.ctrs, it, tc.pass, tc.val)
		}
		// Nothing else moves out of bounds, except a neighbouring line
		// count whose share was moved to keep the total.
		moved := map[string]bool{tc.item: true}
		for k := range tc.ctrs {
			if n, ok := strings.CutPrefix(k, "new_order.ol_cnt_"); ok {
				moved["New-Orders of "+n+" lines"] = true
			}
		}
		for name, o := range items {
			if !moved[name] && !o.Pass {
				t.Errorf("%s with %v %v: %s failed too: %+v", tc.item, tc.ops, tc.ctrs, name, o)
			}
		}
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
	ctrs["new_order.rollbacks"] = 131
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
