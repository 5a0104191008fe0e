package tpcc

import (
	"database/sql"
	"fmt"
	"testing"
)

// The subtests of TestTxn that run each of the five transactions once and
// check its effects in the database exactly.

// testNewOrder runs a New-Order of warehouse 1 with one line supplied by
// warehouse 2 and checks the district's next order id, the orders,
// new_order and order_line rows, the stock rows, the total and the
// counters; it leaves the order in e.lastOrder and e.lastOrderID.
func (e *txnEnv) testNewOrder(t *testing.T) {
	ctx := txnCtx(t)
	w, h := e.worker(t, nil)
	in := e.newOrderWithRemoteLine(e.r)
	nextQ := "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?"
	next := e.int1(t, nextQ, 1, in.d)
	// Expected stock rows, applying the lines in order (an item may
	// repeat).
	type key struct{ w, i int }
	want := map[key]stockRow{}
	before := map[key]stockRow{}
	for _, l := range in.lines {
		k := key{l.supplyW, l.item}
		if _, ok := want[k]; !ok {
			want[k] = e.stock(t, l.supplyW, l.item)
			before[k] = want[k]
		}
		s := want[k]
		if s.qty >= int64(l.qty)+10 {
			s.qty -= int64(l.qty)
		} else {
			s.qty += 91 - int64(l.qty)
		}
		s.ytd += int64(l.qty)
		s.orderCnt++
		if l.supplyW != 1 {
			s.remoteCnt++
		}
		want[k] = s
	}
	homeOfRemote := key{1, in.lines[0].item}
	if _, ok := before[homeOfRemote]; !ok {
		before[homeOfRemote] = e.stock(t, 1, in.lines[0].item)
		want[homeOfRemote] = before[homeOfRemote] // the remote line leaves the home stock alone
	}

	res, err := w.newOrder(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if res.rolledBack || res.oID != int(next) {
		t.Fatalf("result %+v, want o_id %d committed", res, next)
	}
	if got := e.int1(t, nextQ, 1, in.d); got != next+1 {
		t.Errorf("d_next_o_id %d, want %d", got, next+1)
	}
	var cID, olCnt, allLocal int
	var carrier sql.NullInt64
	if err := e.db.QueryRowContext(ctx, "SELECT o_c_id, o_ol_cnt, o_all_local, o_carrier_id FROM orders WHERE o_w_id = 1 AND o_d_id = ? AND o_id = ?",
		in.d, res.oID).Scan(&cID, &olCnt, &allLocal, &carrier); err != nil {
		t.Fatal(err)
	}
	if cID != in.c || olCnt != len(in.lines) || allLocal != 0 || carrier.Valid {
		t.Errorf("orders row: c %d ol_cnt %d all_local %d carrier %v; want %d %d 0 NULL", cID, olCnt, allLocal, carrier, in.c, len(in.lines))
	}
	if n := e.int1(t, "SELECT COUNT(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = ? AND no_o_id = ?", in.d, res.oID); n != 1 {
		t.Errorf("%d new_order rows", n)
	}
	var sum int64
	for i, l := range in.lines {
		var item, supplyW, qty int
		var amount int64
		var dist string
		var delivered any
		if err := e.db.QueryRowContext(ctx, "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info, ol_delivery_d FROM order_line "+
			"WHERE ol_w_id = 1 AND ol_d_id = ? AND ol_o_id = ? AND ol_number = ?", in.d, res.oID, i+1).
			Scan(&item, &supplyW, &qty, moneyScan(&amount), &dist, &delivered); err != nil {
			t.Fatalf("order line %d: %v", i+1, err)
		}
		price := e.cents1(t, "SELECT i_price FROM item WHERE i_id = ?", l.item)
		wantDist := e.str1(t, fmt.Sprintf("SELECT s_dist_%02d FROM stock WHERE s_w_id = ? AND s_i_id = ?", in.d), l.supplyW, l.item)
		if item != l.item || supplyW != l.supplyW || qty != l.qty || amount != int64(l.qty)*price || dist != wantDist || delivered != nil {
			t.Errorf("order line %d: %d %d %d %d %q %v; want %+v amount %d dist %q", i+1, item, supplyW, qty, amount, dist, delivered, l,
				int64(l.qty)*price, wantDist)
		}
		sum += amount
	}
	if n := e.int1(t, "SELECT COUNT(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = ? AND ol_o_id = ?", in.d, res.oID); n != int64(len(in.lines)) {
		t.Errorf("%d order lines, want %d", n, len(in.lines))
	}
	for k, s := range want {
		if got := e.stock(t, k.w, k.i); got != s {
			t.Errorf("stock of item %d at warehouse %d: %+v, want %+v (before %+v)", k.i, k.w, got, s, before[k])
		}
	}
	var disc, wTax, dTax int64
	if err := e.db.QueryRowContext(ctx, "SELECT c_discount, w_tax, d_tax FROM customer, warehouse, district WHERE c_w_id = 1 AND c_d_id = ? "+
		"AND c_id = ? AND w_id = 1 AND d_w_id = 1 AND d_id = ?", in.d, in.c, in.d).Scan(rateScan(&disc), rateScan(&wTax), rateScan(&dTax)); err != nil {
		t.Fatal(err)
	}
	total := float64(sum) * (1 - float64(disc)/1e4) * (1 + float64(wTax+dTax)/1e4)
	if d := float64(res.total) - total; d < -0.5 || d > 0.5 {
		t.Errorf("total %d cents, want %.2f", res.total, total)
	}
	wantCounters(t, h, map[int]int64{ctrOrderLines: int64(len(in.lines)), ctrRemoteLines: 1, ctrOlCnt5 + len(in.lines) - 5: 1})
	e.lastOrder, e.lastOrderID = in, res.oID
}

// testNewOrderRollback checks that a New-Order with an unused item rolls
// back and leaves no trace (next order id, orders, new orders, lines,
// stock), and that the counters count it as a rollback.
func (e *txnEnv) testNewOrderRollback(t *testing.T) {
	ctx := txnCtx(t)
	w, h := e.worker(t, nil)
	in := e.newOrderWithRemoteLine(e.r)
	in.rollback = true
	in.lines[len(in.lines)-1].item = Items + 1
	counts := func() [5]int64 {
		return [5]int64{
			e.int1(t, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = ?", in.d),
			e.int1(t, "SELECT COUNT(*) FROM orders WHERE o_w_id = 1 AND o_d_id = ?", in.d),
			e.int1(t, "SELECT COUNT(*) FROM new_order WHERE no_w_id = 1 AND no_d_id = ?", in.d),
			e.int1(t, "SELECT COUNT(*) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = ?", in.d),
			e.int1(t, "SELECT SUM(s_ytd) + SUM(s_order_cnt) + SUM(s_remote_cnt) + SUM(s_quantity) FROM stock"),
		}
	}
	before := counts()
	res, err := w.newOrder(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if !res.rolledBack {
		t.Fatalf("result %+v, want rolled back", res)
	}
	if after := counts(); after != before {
		t.Errorf("rollback left a trace: before %v, after %v (d_next_o_id, orders, new_order, order_line, stock sums)", before, after)
	}
	wantCounters(t, h, map[int]int64{ctrRollbacks: 1, ctrOrderLines: int64(len(in.lines)), ctrRemoteLines: 1, ctrOlCnt5 + len(in.lines) - 5: 1})
}

// testPayment runs a home payment by id to a "BC" customer and a remote
// one by last name, and checks the warehouse, district and customer rows
// (c_data of BC customers only), the history rows and the counters.
func (e *txnEnv) testPayment(t *testing.T) {
	ctx := txnCtx(t)
	w, h := e.worker(t, nil)
	// A home payment by id to a "BC" customer, then a remote one by
	// last name.
	var bc int
	if err := e.db.QueryRowContext(ctx, "SELECT MIN(c_id) FROM customer WHERE c_w_id = 1 AND c_d_id = 3 AND c_credit = 'BC'").Scan(&bc); err != nil {
		t.Fatal(err)
	}
	byID := paymentInput{w: 1, d: 3, cw: 1, cd: 3, c: bc, amount: 123456}
	// The name shared by most customers, an even number of them, so
	// that position ⌈n/2⌉ differs from n/2+1.
	last := e.str1(t, "SELECT c_last FROM customer WHERE c_w_id = 2 AND c_d_id = 5 GROUP BY c_last "+
		"ORDER BY COUNT(*) % 2 = 0 DESC, COUNT(*) DESC, c_last LIMIT 1")
	byName := paymentInput{w: 1, d: 4, cw: 2, cd: 5, byName: true, last: last, amount: 100}
	var ids []int
	rows, err := e.db.QueryContext(ctx, "SELECT c_id FROM customer WHERE c_w_id = 2 AND c_d_id = 5 AND c_last = ? ORDER BY c_first", last)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if len(ids) < 2 || len(ids)%2 != 0 {
		t.Fatalf("%d customers named %s, want an even number", len(ids), last)
	}
	wantByName := ids[(len(ids)+1)/2-1] // position ⌈n/2⌉, 1-based

	for _, in := range []paymentInput{byID, byName} {
		c := in.c
		if in.byName {
			c = wantByName
		}
		wYTD := e.cents1(t, "SELECT w_ytd FROM warehouse WHERE w_id = ?", in.w)
		dYTD := e.cents1(t, "SELECT d_ytd FROM district WHERE d_w_id = ? AND d_id = ?", in.w, in.d)
		custQ := "SELECT c_balance, c_ytd_payment, c_payment_cnt, c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
		var bal, ytd, cnt int64
		var data string
		if err := e.db.QueryRowContext(ctx, custQ, in.cw, in.cd, c).Scan(moneyScan(&bal), moneyScan(&ytd), &cnt, &data); err != nil {
			t.Fatal(err)
		}
		credit := e.str1(t, "SELECT c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?", in.cw, in.cd, c)
		hist := e.int1(t, "SELECT COUNT(*) FROM history")

		res, err := w.payment(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if res.c != c || res.balance != bal-int64(in.amount) || res.credit != credit {
			t.Errorf("%+v: result %+v, want customer %d balance %d credit %s", in, res, c, bal-int64(in.amount), credit)
		}
		if got := e.cents1(t, "SELECT w_ytd FROM warehouse WHERE w_id = ?", in.w); got != wYTD+int64(in.amount) {
			t.Errorf("w_ytd %d, want %d", got, wYTD+int64(in.amount))
		}
		if got := e.cents1(t, "SELECT d_ytd FROM district WHERE d_w_id = ? AND d_id = ?", in.w, in.d); got != dYTD+int64(in.amount) {
			t.Errorf("d_ytd %d, want %d", got, dYTD+int64(in.amount))
		}
		var bal2, ytd2, cnt2 int64
		var data2 string
		if err := e.db.QueryRowContext(ctx, custQ, in.cw, in.cd, c).Scan(moneyScan(&bal2), moneyScan(&ytd2), &cnt2, &data2); err != nil {
			t.Fatal(err)
		}
		if bal2 != bal-int64(in.amount) || ytd2 != ytd+int64(in.amount) || cnt2 != cnt+1 {
			t.Errorf("customer: balance %d ytd %d cnt %d, want %d %d %d", bal2, ytd2, cnt2, bal-int64(in.amount), ytd+int64(in.amount), cnt+1)
		}
		if credit == "BC" {
			prefix := fmt.Sprintf("%d %d %d %d %d %s|", c, in.cd, in.cw, in.d, in.w, cents(in.amount))
			want := (prefix + data)[:min(maxCData, len(prefix)+len(data))]
			if data2 != want {
				t.Errorf("BC c_data %q, want %q", data2, want)
			}
		} else if data2 != data {
			t.Errorf("GC customer's c_data changed")
		}
		if got := e.int1(t, "SELECT COUNT(*) FROM history"); got != hist+1 {
			t.Errorf("%d history rows, want %d", got, hist+1)
		}
		wName := e.str1(t, "SELECT w_name FROM warehouse WHERE w_id = ?", in.w)
		dName := e.str1(t, "SELECT d_name FROM district WHERE d_w_id = ? AND d_id = ?", in.w, in.d)
		n := e.int1(t, "SELECT COUNT(*) FROM history WHERE h_c_id = ? AND h_c_d_id = ? AND h_c_w_id = ? AND h_d_id = ? AND h_w_id = ? "+
			"AND h_amount = CAST(? AS DECIMAL(6,2)) AND h_data = ?", c, in.cd, in.cw, in.d, in.w, cents(in.amount), wName+"    "+dName)
		if n != 1 {
			t.Errorf("%d history rows of the payment %+v", n, in)
		}
	}
	if e.str1(t, "SELECT c_credit FROM customer WHERE c_w_id = 1 AND c_d_id = 3 AND c_id = ?", bc) != "BC" {
		t.Fatal("not a BC customer")
	}
	wantCounters(t, h, map[int]int64{ctrRemotePayments: 1, ctrPaymentsByName: 1})
}

// testOrderStatus checks Order-Status of the customer of e.lastOrder, by
// id (its latest order is that one), and of a customer of the load by
// last name.
func (e *txnEnv) testOrderStatus(t *testing.T) {
	ctx := txnCtx(t)
	w, h := e.worker(t, nil)
	// The customer of the New-Order above: its latest order is that one.
	res, err := w.orderStatus(ctx, orderStatusInput{w: 1, d: e.lastOrder.d, c: e.lastOrder.c})
	if err != nil {
		t.Fatal(err)
	}
	if res.c != e.lastOrder.c || res.oID != e.lastOrderID || res.carrier.Valid || res.lines != len(e.lastOrder.lines) || res.amount <= 0 {
		t.Errorf("order status %+v, want order %d with %d lines, no carrier", res, e.lastOrderID, len(e.lastOrder.lines))
	}
	bal := e.cents1(t, "SELECT c_balance FROM customer WHERE c_w_id = 1 AND c_d_id = ? AND c_id = ?", e.lastOrder.d, e.lastOrder.c)
	if res.balance != bal {
		t.Errorf("balance %d, want %d", res.balance, bal)
	}
	// By last name: a customer of the load, with one delivered order.
	last := e.str1(t, "SELECT c_last FROM customer WHERE c_w_id = 2 AND c_d_id = 2 AND c_id = 1")
	res, err = w.orderStatus(ctx, orderStatusInput{w: 2, d: 2, byName: true, last: last})
	if err != nil {
		t.Fatal(err)
	}
	wantO := e.int1(t, "SELECT MAX(o_id) FROM orders WHERE o_w_id = 2 AND o_d_id = 2 AND o_c_id = ?", res.c)
	wantLines := e.int1(t, "SELECT o_ol_cnt FROM orders WHERE o_w_id = 2 AND o_d_id = 2 AND o_id = ?", wantO)
	if e.str1(t, "SELECT c_last FROM customer WHERE c_w_id = 2 AND c_d_id = 2 AND c_id = ?", res.c) != last ||
		res.oID != int(wantO) || int64(res.lines) != wantLines || res.lines < 5 || res.lines > 15 {
		t.Errorf("order status by name %q: %+v, want order %d with %d lines", last, res, wantO, wantLines)
	}
	wantCounters(t, h, map[int]int64{ctrOrderStatusByName: 1})
}

// testDelivery runs Delivery of warehouse 2 and checks each district's
// oldest new order delivered (new_order, carrier, lines, customer balance
// and delivery count); then that a district without new orders is
// skipped and counted.
func (e *txnEnv) testDelivery(t *testing.T) {
	ctx := txnCtx(t)
	w, h := e.worker(t, nil)
	type district struct {
		o, c      int64
		sum, bal  int64
		deliverCn int64
	}
	var want [DistrictsPerWarehouse]district
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		x := &want[d-1]
		x.o = e.int1(t, "SELECT MIN(no_o_id) FROM new_order WHERE no_w_id = 2 AND no_d_id = ?", d)
		x.c = e.int1(t, "SELECT o_c_id FROM orders WHERE o_w_id = 2 AND o_d_id = ? AND o_id = ?", d, x.o)
		x.sum = e.cents1(t, "SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = 2 AND ol_d_id = ? AND ol_o_id = ?", d, x.o)
		x.bal = e.cents1(t, "SELECT c_balance FROM customer WHERE c_w_id = 2 AND c_d_id = ? AND c_id = ?", d, x.c)
		x.deliverCn = e.int1(t, "SELECT c_delivery_cnt FROM customer WHERE c_w_id = 2 AND c_d_id = ? AND c_id = ?", d, x.c)
	}
	newOrders := e.int1(t, "SELECT COUNT(*) FROM new_order WHERE no_w_id = 2")
	res, err := w.delivery(ctx, deliveryInput{w: 2, carrier: 7})
	if err != nil {
		t.Fatal(err)
	}
	if res.skipped != 0 {
		t.Errorf("%d districts skipped", res.skipped)
	}
	if got := e.int1(t, "SELECT COUNT(*) FROM new_order WHERE no_w_id = 2"); got != newOrders-10 {
		t.Errorf("%d new orders, want %d", got, newOrders-10)
	}
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		x := want[d-1]
		if res.delivered[d-1] != int(x.o) {
			t.Errorf("district %d: delivered %d, want %d", d, res.delivered[d-1], x.o)
		}
		if n := e.int1(t, "SELECT COUNT(*) FROM new_order WHERE no_w_id = 2 AND no_d_id = ? AND no_o_id = ?", d, x.o); n != 0 {
			t.Errorf("district %d: new order %d still there", d, x.o)
		}
		if c := e.int1(t, "SELECT o_carrier_id FROM orders WHERE o_w_id = 2 AND o_d_id = ? AND o_id = ?", d, x.o); c != 7 {
			t.Errorf("district %d: carrier %d", d, c)
		}
		if n := e.int1(t, "SELECT COUNT(*) FROM order_line WHERE ol_w_id = 2 AND ol_d_id = ? AND ol_o_id = ? AND ol_delivery_d IS NULL", d, x.o); n != 0 {
			t.Errorf("district %d: %d lines undelivered", d, n)
		}
		if b := e.cents1(t, "SELECT c_balance FROM customer WHERE c_w_id = 2 AND c_d_id = ? AND c_id = ?", d, x.c); b != x.bal+x.sum {
			t.Errorf("district %d customer %d: balance %d, want %d + %d", d, x.c, b, x.bal, x.sum)
		}
		if n := e.int1(t, "SELECT c_delivery_cnt FROM customer WHERE c_w_id = 2 AND c_d_id = ? AND c_id = ?", d, x.c); n != x.deliverCn+1 {
			t.Errorf("district %d: c_delivery_cnt %d, want %d", d, n, x.deliverCn+1)
		}
	}
	wantCounters(t, h, map[int]int64{ctrDeliveryDistricts: 10})

	// A district without new orders is skipped and counted. Its rows
	// are put back afterwards, as the skipping Delivery leaves the
	// district alone, so the data stays consistent.
	for _, q := range []string{
		"CREATE TABLE new_order_saved AS SELECT * FROM new_order WHERE no_w_id = 2 AND no_d_id = 10",
		"DELETE FROM new_order WHERE no_w_id = 2 AND no_d_id = 10",
	} {
		if _, err := e.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	res, err = w.delivery(ctx, deliveryInput{w: 2, carrier: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"INSERT INTO new_order SELECT * FROM new_order_saved", "DROP TABLE new_order_saved"} {
		if _, err := e.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if res.skipped != 1 || res.delivered[9] != 0 || res.delivered[0] != int(want[0].o)+1 {
		t.Errorf("delivery with district 10 empty: %+v", res)
	}
	wantCounters(t, h, map[int]int64{ctrDeliveryDistricts: 20, ctrDeliverySkipped: 1})
}

// testStockLevel checks Stock-Level of three districts against a count in
// SQL of the items of their last 20 orders below the threshold.
func (e *txnEnv) testStockLevel(t *testing.T) {
	ctx := txnCtx(t)
	w, h := e.worker(t, nil)
	for _, in := range []stockLevelInput{{w: 1, d: e.lastOrder.d, threshold: 20}, {w: 2, d: 3, threshold: 15}, {w: 1, d: 9, threshold: 10}} {
		res, err := w.stockLevel(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		next := e.int1(t, "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?", in.w, in.d)
		want := e.int1(t, "SELECT COUNT(*) FROM (SELECT DISTINCT ol_i_id FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? "+
			"AND ol_o_id BETWEEN ? AND ?) x WHERE ol_i_id IN (SELECT s_i_id FROM stock WHERE s_w_id = ? AND s_quantity < ?)",
			in.w, in.d, next-20, next-1, in.w, in.threshold)
		if res.nextOID != int(next) || int64(res.lowStock) != want {
			t.Errorf("%+v: %+v, want next %d low stock %d", in, res, next, want)
		}
		if in.threshold == 20 && res.lowStock == 0 {
			t.Errorf("%+v: no item below 20 in the last 20 orders (about one in nine should be)", in)
		}
	}
	wantCounters(t, h, nil)
}
