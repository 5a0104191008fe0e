package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"vmbench/dialect"
	"vmbench/oltp/hist"
)

// txnEnv is a 2-warehouse load on the shared test server and a run state
// on it, shared by the subtests of TestTxn, which run one after the other
// and check the changes each transaction makes.
type txnEnv struct {
	cfg Config
	db  *dialect.DB // for the tests' own queries
	rs  *runState
}

func newTxnEnv(t *testing.T) *txnEnv {
	t.Helper()
	cfg := mariaCopy(t, 2)
	ctx := txnCtx(t)
	db := openTxnDB(t, cfg)
	m, err := readMeta(ctx, db, db.Dialect)
	if err != nil {
		t.Fatal(err)
	}
	if err := countRun(ctx, db, db.Dialect); err != nil {
		t.Fatal(err)
	}
	consts := RunConstants(m.Load, NewRand(cfg.Seed, streamRun, 0))
	return &txnEnv{cfg: cfg, db: db, rs: newRunState(db, cfg, consts)}
}

func txnCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func openTxnDB(t *testing.T, cfg Config) *dialect.DB {
	t.Helper()
	db, err := dialect.Open(txnCtx(t), cfg.DialectConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// worker returns a worker on its own pool (with extra DSN parameters
// params) and the handle its counters go to.
func (e *txnEnv) worker(t *testing.T, params map[string]string) (*worker, *hist.Handle) {
	t.Helper()
	cfg := e.cfg
	cfg.Conn.Params = params
	db := openTxnDB(t, cfg)
	h := hist.NewRegistry(OpNames, counterNames).NewHandle()
	w, err := newWorker(txnCtx(t), db, e.rs, 0, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, h
}

// int1 reads one integer.
func (e *txnEnv) int1(t *testing.T, q string, args ...any) int64 {
	t.Helper()
	var n sql.NullInt64
	if err := e.db.QueryRowContext(txnCtx(t), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s %v: %v", q, args, err)
	}
	return n.Int64
}

// cents1 reads one decimal as cents.
func (e *txnEnv) cents1(t *testing.T, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := e.db.QueryRowContext(txnCtx(t), q, args...).Scan(&decimalScan{p: &n, scale: 2, nullOK: true}); err != nil {
		t.Fatalf("%s %v: %v", q, args, err)
	}
	return n
}

func (e *txnEnv) str1(t *testing.T, q string, args ...any) string {
	t.Helper()
	var s string
	if err := e.db.QueryRowContext(txnCtx(t), q, args...).Scan(&s); err != nil {
		t.Fatalf("%s %v: %v", q, args, err)
	}
	return s
}

func wantCounters(t *testing.T, h *hist.Handle, want map[int]int64) {
	t.Helper()
	for c := range numCounters {
		if got := h.Counter(c); got != want[c] {
			t.Errorf("counter %s = %d, want %d", counterNames[c], got, want[c])
		}
	}
}

// stockRow is what New-Order changes in a stock row.
type stockRow struct{ qty, ytd, orderCnt, remoteCnt int64 }

func (e *txnEnv) stock(t *testing.T, w, i int) stockRow {
	t.Helper()
	var s stockRow
	if err := e.db.QueryRowContext(txnCtx(t), "SELECT s_quantity, s_ytd, s_order_cnt, s_remote_cnt FROM stock WHERE s_w_id = ? AND s_i_id = ?",
		w, i).Scan(&s.qty, &s.ytd, &s.orderCnt, &s.remoteCnt); err != nil {
		t.Fatal(err)
	}
	return s
}

// newOrderWithRemoteLine draws New-Orders of warehouse 1 until one does
// not roll back, and makes its first line supplied by warehouse 2.
func (e *txnEnv) newOrderWithRemoteLine(r *Rand) newOrderInput {
	for {
		in := genNewOrder(r, e.rs.consts, 1, 2)
		if in.rollback {
			continue
		}
		for i := range in.lines {
			in.lines[i].supplyW = 1
		}
		in.lines[0].supplyW = 2
		return in
	}
}

// TestTxn runs each transaction on a 2-warehouse load and checks its
// effects in the database exactly, then the retries and reconnects, then
// a mix through Event and the consistency conditions.
func TestTxn(t *testing.T) {
	t.Parallel()
	e := newTxnEnv(t)
	r := NewRand(99, streamRun, 1)
	var lastOrder newOrderInput
	var lastOrderID int

	t.Run("NewOrder", func(t *testing.T) {
		ctx := txnCtx(t)
		w, h := e.worker(t, nil)
		in := e.newOrderWithRemoteLine(r)
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
		lastOrder, lastOrderID = in, res.oID
	})

	t.Run("NewOrderRollback", func(t *testing.T) {
		ctx := txnCtx(t)
		w, h := e.worker(t, nil)
		in := e.newOrderWithRemoteLine(r)
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
	})

	t.Run("Payment", func(t *testing.T) {
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
	})

	t.Run("OrderStatus", func(t *testing.T) {
		ctx := txnCtx(t)
		w, h := e.worker(t, nil)
		// The customer of the New-Order above: its latest order is that one.
		res, err := w.orderStatus(ctx, orderStatusInput{w: 1, d: lastOrder.d, c: lastOrder.c})
		if err != nil {
			t.Fatal(err)
		}
		if res.c != lastOrder.c || res.oID != lastOrderID || res.carrier.Valid || res.lines != len(lastOrder.lines) || res.amount <= 0 {
			t.Errorf("order status %+v, want order %d with %d lines, no carrier", res, lastOrderID, len(lastOrder.lines))
		}
		bal := e.cents1(t, "SELECT c_balance FROM customer WHERE c_w_id = 1 AND c_d_id = ? AND c_id = ?", lastOrder.d, lastOrder.c)
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
	})

	t.Run("Delivery", func(t *testing.T) {
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
	})

	t.Run("StockLevel", func(t *testing.T) {
		ctx := txnCtx(t)
		w, h := e.worker(t, nil)
		for _, in := range []stockLevelInput{{w: 1, d: lastOrder.d, threshold: 20}, {w: 2, d: 3, threshold: 15}, {w: 1, d: 9, threshold: 10}} {
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
	})

	t.Run("LockTimeoutRetried", func(t *testing.T) {
		ctx := txnCtx(t)
		w, h := e.worker(t, map[string]string{"innodb_lock_wait_timeout": "1"})
		in := e.newOrderWithRemoteLine(r)
		locker := lockRow(t, e.db, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = ? FOR UPDATE", in.d)
		var restarts []error
		w.onRestart = func(err error) {
			restarts = append(restarts, err)
			if len(restarts) == 1 {
				locker.release()
			}
		}
		next := e.int1(t, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = ?", in.d)
		start := time.Now()
		res, err := w.newOrder(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if len(restarts) != 1 || dialect.Code(restarts[0]) != 1205 {
			t.Fatalf("restarts %v, want one after 1205", restarts)
		}
		if time.Since(start) < time.Second {
			t.Errorf("committed after %s: the lock wait did not happen", time.Since(start))
		}
		if res.oID != int(next) || e.int1(t, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = ?", in.d) != next+1 {
			t.Errorf("after the retry: o_id %d, d_next_o_id before %d: not committed once", res.oID, next)
		}
		if n := e.int1(t, "SELECT COUNT(*) FROM orders WHERE o_w_id = 1 AND o_d_id = ? AND o_id = ?", in.d, res.oID); n != 1 {
			t.Errorf("%d orders rows", n)
		}
		wantCounters(t, h, map[int]int64{ctrRetries: 1, ctrLockTimeouts: 1, ctrOrderLines: int64(len(in.lines)), ctrRemoteLines: 1,
			ctrOlCnt5 + len(in.lines) - 5: 1})
	})

	t.Run("DeadlockRetried", func(t *testing.T) {
		// The locker updates many rows of warehouse 2 and locks the stock
		// row of the order's first line; the New-Order locks its district,
		// then waits for that stock row; the locker then asks for the
		// district: a deadlock, whose victim InnoDB chooses as the smaller
		// transaction, the New-Order.
		ctx := txnCtx(t)
		w, h := e.worker(t, map[string]string{"innodb_lock_wait_timeout": "20"})
		in := e.newOrderWithRemoteLine(r)
		in.lines[0].supplyW = 1 // the first (smallest) item's stock is the home warehouse's
		if len(in.lines) > 1 {
			in.lines[1].supplyW = 2
		}
		locker := lockRow(t, e.db, "SELECT s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = ? FOR UPDATE", in.lines[0].item)
		// Real row changes weigh in InnoDB's choice of the victim.
		if _, err := locker.conn.ExecContext(ctx, "UPDATE stock SET s_remote_cnt = s_remote_cnt + 1 WHERE s_w_id = 2 AND s_i_id <= 500"); err != nil {
			t.Fatal(err)
		}
		var wid int64
		if err := w.conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&wid); err != nil {
			t.Fatal(err)
		}
		var restarts []error
		w.onRestart = func(err error) { restarts = append(restarts, err) }
		next := e.int1(t, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = ?", in.d)
		type outcome struct {
			res newOrderResult
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			res, err := w.newOrder(ctx, in)
			done <- outcome{res, err}
		}()
		// Wait until the New-Order waits for the stock row.
		// (information_schema.innodb_trx is a cache that InnoDB refreshes
		// only when it was not read for 100 ms: poll slower than that.)
		for {
			n := e.int1(t, "SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_mysql_thread_id = ? AND trx_state = 'LOCK WAIT'", wid)
			if n == 1 {
				break
			}
			select {
			case o := <-done:
				t.Fatalf("the New-Order ended without waiting: %+v", o)
			case <-time.After(150 * time.Millisecond):
			}
		}
		if _, err := locker.conn.ExecContext(ctx, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = ? FOR UPDATE", in.d); err != nil {
			t.Fatalf("the locker lost the deadlock: %v", err)
		}
		locker.release()
		o := <-done
		if o.err != nil {
			t.Fatal(o.err)
		}
		if len(restarts) != 1 || dialect.Code(restarts[0]) != 1213 {
			t.Fatalf("restarts %v, want one after 1213", restarts)
		}
		if o.res.oID != int(next) || e.int1(t, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = ?", in.d) != next+1 {
			t.Errorf("after the retry: o_id %d, d_next_o_id before %d: not committed once", o.res.oID, next)
		}
		remote := int64(in.remoteLines())
		wantCounters(t, h, map[int]int64{ctrRetries: 1, ctrDeadlocks: 1, ctrOrderLines: int64(len(in.lines)), ctrRemoteLines: remote,
			ctrOlCnt5 + len(in.lines) - 5: 1})
	})

	t.Run("RetriesExhausted", func(t *testing.T) {
		ctx := txnCtx(t)
		w, h := e.worker(t, map[string]string{"innodb_lock_wait_timeout": "1"})
		w.tx.Policy.MaxRestarts = 1 // --retries=1
		locker := lockRow(t, e.db, "SELECT w_ytd FROM warehouse WHERE w_id = 2 FOR UPDATE")
		defer locker.release()
		_, err := w.payment(ctx, paymentInput{w: 2, d: 1, cw: 2, cd: 1, c: 1, amount: 500})
		if err == nil || !strings.HasPrefix(err.Error(), "payment: gave up after 1 restarts") || dialect.Code(err) != 1205 {
			t.Fatalf("error %v, want payment giving up after 1 restart with the 1205", err)
		}
		wantCounters(t, h, map[int]int64{ctrRetries: 1, ctrLockTimeouts: 2})
	})

	t.Run("KilledConnectionReconnects", func(t *testing.T) {
		ctx := txnCtx(t)
		w, h := e.worker(t, nil)
		var id int64
		if err := w.conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
			t.Fatal(err)
		}
		if _, err := e.db.ExecContext(ctx, fmt.Sprintf("KILL %d", id)); err != nil {
			t.Fatal(err)
		}
		for e.int1(t, "SELECT COUNT(*) FROM information_schema.processlist WHERE id = ?", id) != 0 {
			time.Sleep(time.Millisecond)
		}
		var restarts []error
		w.onRestart = func(err error) { restarts = append(restarts, err) }
		wYTD := e.cents1(t, "SELECT w_ytd FROM warehouse WHERE w_id = 1")
		if _, err := w.payment(ctx, paymentInput{w: 1, d: 2, cw: 1, cd: 2, c: 17, amount: 2500}); err != nil {
			t.Fatal(err)
		}
		if len(restarts) != 1 || dialect.Classify(restarts[0]) != dialect.ConnLost {
			t.Errorf("restarts %v, want one after a lost connection", restarts)
		}
		if got := e.cents1(t, "SELECT w_ytd FROM warehouse WHERE w_id = 1"); got != wYTD+2500 {
			t.Errorf("w_ytd %d, want %d: the payment did not commit once", got, wYTD+2500)
		}
		var id2 int64
		if err := w.conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id2); err != nil || id2 == id {
			t.Errorf("connection %d after the reconnect (%v), was %d", id2, err, id)
		}
		wantCounters(t, h, map[int]int64{ctrReconnects: 1})

		// Killed in the middle of a transaction, waiting for a lock.
		locker := lockRow(t, e.db, "SELECT w_ytd FROM warehouse WHERE w_id = 1 FOR UPDATE")
		restarts = nil
		w.onRestart = func(err error) {
			restarts = append(restarts, err)
			locker.release()
		}
		done := make(chan error, 1)
		go func() {
			_, err := w.payment(ctx, paymentInput{w: 1, d: 2, cw: 1, cd: 2, c: 18, amount: 1})
			done <- err
		}()
		for e.int1(t, "SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_mysql_thread_id = ? AND trx_state = 'LOCK WAIT'", id2) == 0 {
			time.Sleep(150 * time.Millisecond) // see DeadlockRetried
		}
		if _, err := e.db.ExecContext(ctx, fmt.Sprintf("KILL %d", id2)); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if len(restarts) != 1 || dialect.Classify(restarts[0]) != dialect.ConnLost {
			t.Errorf("restarts %v, want one after a lost connection", restarts)
		}
		if got := e.cents1(t, "SELECT w_ytd FROM warehouse WHERE w_id = 1"); got != wYTD+2501 {
			t.Errorf("w_ytd %d, want %d", got, wYTD+2501)
		}
		wantCounters(t, h, map[int]int64{ctrReconnects: 2})
	})

	t.Run("EventMixConsistent", func(t *testing.T) {
		// Two workers run their terminals' decks without waits
		// concurrently; then every consistency condition still holds.
		ctx := txnCtx(t)
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		handles := make([]*hist.Handle, 2)
		var opsMu sync.Mutex
		ops := make([]int, numOps)
		for th := range 2 {
			cfg := e.cfg
			db := openTxnDB(t, cfg)
			h := hist.NewRegistry(OpNames, counterNames).NewHandle()
			handles[th] = h
			w, err := newWorker(ctx, db, e.rs, th, h)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 92 {
					op, err := w.Event(ctx)
					if err != nil {
						errs <- fmt.Errorf("thread %d: %w", th, err)
						return
					}
					opsMu.Lock()
					ops[op]++
					opsMu.Unlock()
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if want := []int{80, 80, 8, 8, 8}; fmt.Sprint(ops) != fmt.Sprint(want) {
			t.Errorf("ops %v, want %v (4 rounds of the deck per worker)", ops, want)
		}
		var lines int64
		for _, h := range handles {
			lines += h.Counter(ctrOrderLines)
		}
		if lines < 80*5 {
			t.Errorf("%d order lines for 80 New-Orders", lines)
		}
		var out strings.Builder
		if _, err := Check(ctx, e.cfg, &out); err != nil {
			t.Errorf("%v\n%s", err, out.String())
		}
	})
}

// rowLock is a transaction of another connection that holds row locks.
type rowLock struct {
	conn *sql.Conn
	once sync.Once
}

// lockRow opens a transaction on a connection of db and runs q (a
// SELECT ... FOR UPDATE) in it; release rolls it back.
func lockRow(t *testing.T, db *dialect.DB, q string, args ...any) *rowLock {
	t.Helper()
	ctx := txnCtx(t)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l := &rowLock{conn: conn}
	t.Cleanup(l.release)
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, q, args...); err != nil {
		t.Fatal(err)
	}
	return l
}

func (l *rowLock) release() {
	l.once.Do(func() {
		_, _ = l.conn.ExecContext(context.Background(), "ROLLBACK")
		_ = l.conn.Close()
	})
}
