package tpcc

import (
	"context"
	"database/sql"
	"fmt"
)

// The statements of the consistency conditions. Each checks one warehouse,
// whose id every "?" stands for (bindWarehouse). They are portable across
// MySQL/MariaDB, SQL Server and SQLite: derived tables with aliases,
// COALESCE, ABS, no LIMIT/TOP, no dialect functions. Money is compared
// within moneyTolerance, in Go or in SQL; counts and ids exactly.
//
// The per-order and per-customer conditions (5, 6, 7, 10, 12) return only
// the failing rows, one grouped statement per warehouse, so that a large
// database costs a few scans per warehouse and no round trip per order.

// conditions are the twelve conditions of TPC-C clause 3.3.2, in order.
var conditions = []condition{
	{clause: "3.3.2.1", name: "W_YTD = sum(D_YTD)", unit: "warehouse", check: checkWarehouseYTD},
	{clause: "3.3.2.2", name: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", unit: "district", check: checkNextOrderID},
	{clause: "3.3.2.3", name: "NEW-ORDER ids contiguous", unit: "district", check: checkNewOrderRange},
	{clause: "3.3.2.4", name: "sum(O_OL_CNT) = count(ORDER-LINE)", unit: "district", check: checkDistrictLines},
	{clause: "3.3.2.5", name: "O_CARRIER_ID null iff NEW-ORDER row", unit: "order", check: checkCarrierNewOrder},
	{clause: "3.3.2.6", name: "O_OL_CNT = lines of the order", unit: "order", check: checkOrderLines},
	{clause: "3.3.2.7", name: "OL_DELIVERY_D null iff O_CARRIER_ID null", unit: "order", check: checkDeliveryDates},
	{clause: "3.3.2.8", name: "W_YTD = sum(H_AMOUNT)", unit: "warehouse", check: checkWarehouseHistory},
	{clause: "3.3.2.9", name: "D_YTD = sum(H_AMOUNT)", unit: "district", check: checkDistrictHistory},
	{clause: "3.3.2.10", name: "C_BALANCE = delivered OL_AMOUNT - H_AMOUNT", unit: "customer", check: checkCustomerBalance},
	{clause: "3.3.2.11", name: "count(ORDER) - count(NEW-ORDER) = 2100", unit: "district", loadOnly: true, check: checkUndelivered},
	{clause: "3.3.2.12", name: "C_BALANCE + C_YTD_PAYMENT = delivered OL_AMOUNT", unit: "customer", check: checkCustomerPayments},
}

// warehouseVsSum compares W_YTD with the sum stmt computes beside it, and
// reports a missing WAREHOUSE row.
func (k *checker) warehouseVsSum(ctx context.Context, stmt string, w int, what string, fail func(string, ...any)) error {
	var ytd, sum float64
	found := false
	if err := k.query(ctx, stmt, w, []any{&ytd, &sum}, func() { found = true }); err != nil {
		return err
	}
	switch {
	case !found:
		fail("warehouse %d: no WAREHOUSE row", w)
	case !moneyEqual(ytd, sum):
		fail("warehouse %d: w_ytd = %.2f, %s = %.2f", w, ytd, what, sum)
	}
	return nil
}

// 3.3.2.1: W_YTD = sum(D_YTD) of the warehouse's districts.
func checkWarehouseYTD(ctx context.Context, k *checker, w int, fail func(string, ...any)) error {
	return k.warehouseVsSum(ctx, `SELECT w_ytd, (SELECT COALESCE(SUM(d_ytd), 0) FROM district WHERE d_w_id = ?)
		FROM warehouse WHERE w_id = ?`, w, "sum(d_ytd)", fail)
}

// 3.3.2.8: W_YTD = sum(H_AMOUNT) of the payments made at the warehouse.
func checkWarehouseHistory(ctx context.Context, k *checker, w int, fail func(string, ...any)) error {
	return k.warehouseVsSum(ctx, `SELECT w_ytd, (SELECT COALESCE(SUM(h_amount), 0) FROM history WHERE h_w_id = ?)
		FROM warehouse WHERE w_id = ?`, w, "sum(h_amount)", fail)
}

// 3.3.2.2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) per district; the
// NEW-ORDER part only where the district has NEW-ORDER rows.
func checkNextOrderID(ctx context.Context, k *checker, w int, fail func(string, ...any)) error {
	var d, next int64
	var maxO, maxNO sql.NullInt64
	return k.query(ctx, `SELECT d.d_id, d.d_next_o_id, o.m, n.m FROM district d
		LEFT JOIN (SELECT o_d_id AS d_id, MAX(o_id) AS m FROM orders WHERE o_w_id = ? GROUP BY o_d_id) o ON o.d_id = d.d_id
		LEFT JOIN (SELECT no_d_id AS d_id, MAX(no_o_id) AS m FROM new_order WHERE no_w_id = ? GROUP BY no_d_id) n ON n.d_id = d.d_id
		WHERE d.d_w_id = ? ORDER BY d.d_id`, w, []any{&d, &next, &maxO, &maxNO}, func() {
		okO := maxO.Valid && maxO.Int64 == next-1
		okNO := !maxNO.Valid || maxNO.Int64 == next-1
		if okO && okNO {
			return
		}
		msg := fmt.Sprintf("warehouse %d district %d: d_next_o_id-1 = %d, max(o_id) = %s", w, d, next-1, nullInt(maxO))
		if maxNO.Valid {
			msg += fmt.Sprintf(", max(no_o_id) = %d", maxNO.Int64)
		}
		fail("%s", msg)
	})
}

// 3.3.2.3: max(NO_O_ID) - min(NO_O_ID) + 1 = count of NEW-ORDER rows per
// district; districts without NEW-ORDER rows are not checked.
func checkNewOrderRange(ctx context.Context, k *checker, w int, fail func(string, ...any)) error {
	var d, lo, hi, n int64
	return k.query(ctx, `SELECT no_d_id, MIN(no_o_id), MAX(no_o_id), COUNT(*) FROM new_order
		WHERE no_w_id = ? GROUP BY no_d_id ORDER BY no_d_id`, w, []any{&d, &lo, &hi, &n}, func() {
		if hi-lo+1 != n {
			fail("warehouse %d district %d: max(no_o_id)-min(no_o_id)+1 = %d, NEW-ORDER rows = %d", w, d, hi-lo+1, n)
		}
	})
}

// 3.3.2.4: sum(O_OL_CNT) = count of ORDER-LINE rows per district.
func checkDistrictLines(ctx context.Context, k *checker, w int, fail func(string, ...any)) error {
	var d, cnt, lines int64
	return k.query(ctx, `SELECT d.d_id, COALESCE(o.s, 0), COALESCE(l.n, 0) FROM district d
		LEFT JOIN (SELECT o_d_id AS d_id, SUM(o_ol_cnt) AS s FROM orders WHERE o_w_id = ? GROUP BY o_d_id) o ON o.d_id = d.d_id
		LEFT JOIN (SELECT ol_d_id AS d_id, COUNT(*) AS n FROM order_line WHERE ol_w_id = ? GROUP BY ol_d_id) l ON l.d_id = d.d_id
		WHERE d.d_w_id = ? ORDER BY d.d_id`, w, []any{&d, &cnt, &lines}, func() {
		if cnt != lines {
			fail("warehouse %d district %d: sum(o_ol_cnt) = %d, ORDER-LINE rows = %d", w, d, cnt, lines)
		}
	})
}

// 3.3.2.5: an order's O_CARRIER_ID is null if and only if the order has
// a NEW-ORDER row. Only failing orders come back.
func checkCarrierNewOrder(ctx context.Context, k *checker, w int, fail func(string, ...any)) error {
	var d, o int64
	var carrier sql.NullInt64
	return k.query(ctx, `SELECT o.o_d_id, o.o_id, o.o_carrier_id FROM orders o
		LEFT JOIN new_order n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id
		WHERE o.o_w_id = ? AND ((o.o_carrier_id IS NULL AND n.no_o_id IS NULL) OR (o.o_carrier_id IS NOT NULL AND n.no_o_id IS NOT NULL))
		ORDER BY o.o_d_id, o.o_id`, w, []any{&d, &o, &carrier}, func() {
		if carrier.Valid {
			fail("warehouse %d district %d order %d: o_carrier_id = %d and a NEW-ORDER row exists", w, d, o, carrier.Int64)
		} else {
			fail("warehouse %d district %d order %d: o_carrier_id NULL and no NEW-ORDER row", w, d, o)
		}
	})
}

// 3.3.2.6: each order's O_OL_CNT = the number of its ORDER-LINE rows. One
// grouped statement per warehouse; only failing orders come back.
func checkOrderLines(ctx context.Context, k *checker, w int, fail func(string, ...any)) error {
	var d, o, cnt, lines int64
	return k.query(ctx, `SELECT o.o_d_id, o.o_id, o.o_ol_cnt, COUNT(l.ol_number) FROM orders o
		LEFT JOIN order_line l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
		WHERE o.o_w_id = ? GROUP BY o.o_d_id, o.o_id, o.o_ol_cnt HAVING o.o_ol_cnt <> COUNT(l.ol_number)
		ORDER BY o.o_d_id, o.o_id`, w, []any{&d, &o, &cnt, &lines}, func() {
		fail("warehouse %d district %d order %d: o_ol_cnt = %d, ORDER-LINE rows = %d", w, d, o, cnt, lines)
	})
}

// 3.3.2.7: OL_DELIVERY_D is null if and only if the order's O_CARRIER_ID
// is null. Counted per order; only failing orders come back.
func checkDeliveryDates(ctx context.Context, k *checker, w int, fail func(string, ...any)) error {
	var d, o, n int64
	var carrier sql.NullInt64
	return k.query(ctx, `SELECT o.o_d_id, o.o_id, o.o_carrier_id, COUNT(*) FROM orders o
		JOIN order_line l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
		WHERE o.o_w_id = ? AND ((o.o_carrier_id IS NULL AND l.ol_delivery_d IS NOT NULL) OR (o.o_carrier_id IS NOT NULL AND l.ol_delivery_d IS NULL))
		GROUP BY o.o_d_id, o.o_id, o.o_carrier_id ORDER BY o.o_d_id, o.o_id`, w, []any{&d, &o, &carrier, &n}, func() {
		if carrier.Valid {
			fail("warehouse %d district %d order %d: o_carrier_id = %d, %s with ol_delivery_d NULL", w, d, o, carrier.Int64, plural(int(n), "line"))
		} else {
			fail("warehouse %d district %d order %d: o_carrier_id NULL, %s with ol_delivery_d set", w, d, o, plural(int(n), "line"))
		}
	})
}

// 3.3.2.9: D_YTD = sum(H_AMOUNT) of the payments made at the district.
func checkDistrictHistory(ctx context.Context, k *checker, w int, fail func(string, ...any)) error {
	var d int64
	var ytd, sum float64
	return k.query(ctx, `SELECT d.d_id, d.d_ytd, COALESCE(h.s, 0) FROM district d
		LEFT JOIN (SELECT h_d_id AS d_id, SUM(h_amount) AS s FROM history WHERE h_w_id = ? GROUP BY h_d_id) h ON h.d_id = d.d_id
		WHERE d.d_w_id = ? ORDER BY d.d_id`, w, []any{&d, &ytd, &sum}, func() {
		if !moneyEqual(ytd, sum) {
			fail("warehouse %d district %d: d_ytd = %.2f, sum(h_amount) = %.2f", w, d, ytd, sum)
		}
	})
}

// deliveredByCustomer is a derived table of the sum of OL_AMOUNT of the
// delivered order lines of each customer of the warehouse (d_id, c_id, s).
// The lines are summed per order first, in primary-key order, and only
// those sums joined with ORDER: SQLite takes half the time it needs to
// join every line with its order.
const deliveredByCustomer = `(SELECT o.o_d_id AS d_id, o.o_c_id AS c_id, SUM(x.s) AS s FROM orders o
		JOIN (SELECT ol_d_id, ol_o_id, SUM(ol_amount) AS s FROM order_line WHERE ol_w_id = ? AND ol_delivery_d IS NOT NULL
			GROUP BY ol_d_id, ol_o_id) x ON x.ol_d_id = o.o_d_id AND x.ol_o_id = o.o_id
		WHERE o.o_w_id = ? GROUP BY o.o_d_id, o.o_c_id)`

// 3.3.2.10: C_BALANCE = sum(OL_AMOUNT) of the customer's delivered order
// lines - sum(H_AMOUNT) of the customer's payments. History has no index
// on the customer's warehouse (h_c_w_id), so this scans it once per
// warehouse. Only failing customers come back.
func checkCustomerBalance(ctx context.Context, k *checker, w int, fail func(string, ...any)) error {
	var d, c int64
	var bal, del, paid float64
	return k.query(ctx, `SELECT c.c_d_id, c.c_id, c.c_balance, COALESCE(ol.s, 0), COALESCE(h.s, 0) FROM customer c
		LEFT JOIN `+deliveredByCustomer+` ol ON ol.d_id = c.c_d_id AND ol.c_id = c.c_id
		LEFT JOIN (SELECT h_c_d_id AS d_id, h_c_id AS c_id, SUM(h_amount) AS s FROM history WHERE h_c_w_id = ?
			GROUP BY h_c_d_id, h_c_id) h ON h.d_id = c.c_d_id AND h.c_id = c.c_id
		WHERE c.c_w_id = ? AND ABS(c.c_balance - (COALESCE(ol.s, 0) - COALESCE(h.s, 0))) >= 0.005
		ORDER BY c.c_d_id, c.c_id`, w, []any{&d, &c, &bal, &del, &paid}, func() {
		fail("warehouse %d district %d customer %d: c_balance = %.2f, delivered ol_amount - h_amount = %.2f - %.2f = %.2f",
			w, d, c, bal, del, paid, del-paid)
	})
}

// 3.3.2.12: C_BALANCE + C_YTD_PAYMENT = sum(OL_AMOUNT) of the customer's
// delivered order lines. Only failing customers come back.
func checkCustomerPayments(ctx context.Context, k *checker, w int, fail func(string, ...any)) error {
	var d, c int64
	var bal, ytd, del float64
	return k.query(ctx, `SELECT c.c_d_id, c.c_id, c.c_balance, c.c_ytd_payment, COALESCE(ol.s, 0) FROM customer c
		LEFT JOIN `+deliveredByCustomer+` ol ON ol.d_id = c.c_d_id AND ol.c_id = c.c_id
		WHERE c.c_w_id = ? AND ABS(c.c_balance + c.c_ytd_payment - COALESCE(ol.s, 0)) >= 0.005
		ORDER BY c.c_d_id, c.c_id`, w, []any{&d, &c, &bal, &ytd, &del}, func() {
		fail("warehouse %d district %d customer %d: c_balance + c_ytd_payment = %.2f, delivered ol_amount = %.2f", w, d, c, bal+ytd, del)
	})
}

// 3.3.2.11: count(ORDER) - count(NEW-ORDER) = 2100 per district, the
// delivered orders of the load; only true before Delivery runs.
func checkUndelivered(ctx context.Context, k *checker, w int, fail func(string, ...any)) error {
	var d, orders, newOrders int64
	const want = FirstNewOrder - 1
	return k.query(ctx, `SELECT d.d_id, COALESCE(o.n, 0), COALESCE(n.n, 0) FROM district d
		LEFT JOIN (SELECT o_d_id AS d_id, COUNT(*) AS n FROM orders WHERE o_w_id = ? GROUP BY o_d_id) o ON o.d_id = d.d_id
		LEFT JOIN (SELECT no_d_id AS d_id, COUNT(*) AS n FROM new_order WHERE no_w_id = ? GROUP BY no_d_id) n ON n.d_id = d.d_id
		WHERE d.d_w_id = ? ORDER BY d.d_id`, w, []any{&d, &orders, &newOrders}, func() {
		if orders-newOrders != want {
			fail("warehouse %d district %d: ORDER rows - NEW-ORDER rows = %d - %d = %d, not %d", w, d, orders, newOrders, orders-newOrders, want)
		}
	})
}

// nullInt formats a nullable integer ("none" for NULL).
func nullInt(n sql.NullInt64) string {
	if !n.Valid {
		return "none"
	}
	return fmt.Sprint(n.Int64)
}
