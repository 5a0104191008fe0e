package tpcc

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"vmbench/dialect"
)

// stmtID indexes the statements of the five transactions.
type stmtID int

// The statements, in the order of each transaction's profile (TPC-C
// 2.4.2.2, 2.5.2.2, 2.6.2.2, 2.7.4.2, 2.8.2.2). New-Order reads the items
// and the stock rows of all its lines with one query each (padded to
// MaxOrderLines keys, so one statement serves every order) and inserts its
// lines with one multi-row INSERT per line count, which come last, from
// stNOInsertOrderLines on: a New-Order is 10 + lines round trips (BEGIN and
// COMMIT included) instead of 8 + 4 · lines (go-tpc reads and inserts the
// same way).
const (
	// New-Order.
	stNOCustomer stmtID = iota // with the warehouse's w_tax
	stNODistrict
	stNODistrictUpdate
	stNOInsertOrder
	stNOInsertNewOrder
	stNOItems  // every line's item in one query
	stNOStocks // every line's stock row in one query, locked
	stNOStockUpdate
	// Payment.
	stPayWarehouse
	stPayWarehouseUpdate
	stPayDistrict
	stPayDistrictUpdate
	stCustomerByName // Payment and Order-Status
	stPayCustomer
	stPayCustomerUpdate
	stPayCustomerUpdateBC
	stPayInsertHistory
	// Order-Status.
	stOSCustomer
	stOSLastOrder
	stOSOrder
	stOSOrderLines
	// Delivery.
	stDLOldestNewOrder
	stDLDeleteNewOrder
	stDLOrderCustomer
	stDLOrderUpdate
	stDLOrderLineUpdate
	stDLOrderLineSum
	stDLCustomerUpdate
	// Stock-Level.
	stSLNextOrder
	stSLLowStock
	// New-Order's order lines, all in one INSERT: the one of n lines
	// (MinOrderLines..MaxOrderLines) is stNOInsertOrderLines+n-MinOrderLines.
	stNOInsertOrderLines
	numStmts = stNOInsertOrderLines + MaxOrderLines - MinOrderLines + 1
)

// The line counts of a New-Order (TPC-C 2.4.1.3).
const (
	MinOrderLines = 5
	MaxOrderLines = 15
)

// stmtTemplate is a statement in a dialect-neutral form: "?" marks each
// parameter in order, {lock} stands after a table name whose rows are
// read to be updated (Dialect.UpdateLockHint) and {for_update} ends such
// a SELECT (Dialect.ForUpdate). {last_name} is a parameter compared with
// c_last: SQL Server receives Go strings as NVARCHAR, and a VARCHAR column
// compared with an NVARCHAR value is converted row by row (under the SQL_
// collations, the default, the index on c_last is then scanned, not
// sought), so there the parameter is cast to VARCHAR(16); elsewhere it is
// a plain parameter (MySQL's CAST has no VARCHAR, and its parameters take
// the column's collation anyway). Table and column names are the
// specification's, lower case and unquoted: none is a reserved word in
// any supported database.
type stmtTemplate struct{ name, sql string }

// Money is bound as a decimal string ("12.34") and cast to DECIMAL in the
// statement, so that MySQL and SQL Server compute in exact decimal
// arithmetic instead of converting a string operand to a float.
const (
	amount6  = "CAST(? AS DECIMAL(6,2))"  // h_amount, ol_amount
	amount12 = "CAST(? AS DECIMAL(12,2))" // balances and year-to-date sums
)

var stmtTemplates = func() [numStmts]stmtTemplate {
	var t [numStmts]stmtTemplate
	set := func(id stmtID, name, sql string) { t[id] = stmtTemplate{name, sql} }

	set(stNOCustomer, "new_order.customer",
		"SELECT c_discount, c_last, c_credit, w_tax FROM customer JOIN warehouse ON w_id = c_w_id "+
			"WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	set(stNODistrict, "new_order.district",
		"SELECT d_tax, d_next_o_id FROM district{lock} WHERE d_w_id = ? AND d_id = ?{for_update}")
	set(stNODistrictUpdate, "new_order.district_update",
		"UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?")
	set(stNOInsertOrder, "new_order.insert_orders",
		"INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) "+
			"VALUES (?, ?, ?, ?, ?, NULL, ?, ?)")
	set(stNOInsertNewOrder, "new_order.insert_new_order", "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)")
	set(stNOItems, "new_order.items",
		"SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN ("+repeatJoin("?", MaxOrderLines, ", ")+")")
	set(stNOStocks, "new_order.stocks", "SELECT s_w_id, s_i_id, s_quantity, s_data, "+stockDist+
		" FROM stock{lock} WHERE "+repeatJoin("(s_w_id = ? AND s_i_id = ?)", MaxOrderLines, " OR ")+"{for_update}")
	set(stNOStockUpdate, "new_order.stock_update",
		"UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? "+
			"WHERE s_w_id = ? AND s_i_id = ?")
	for n := MinOrderLines; n <= MaxOrderLines; n++ {
		set(orderLinesStmt(n), fmt.Sprintf("new_order.insert_order_line_%02d", n),
			"INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, "+
				"ol_amount, ol_dist_info) VALUES "+repeatJoin("(?, ?, ?, ?, ?, ?, NULL, ?, "+amount6+", ?)", n, ", "))
	}

	set(stPayWarehouse, "payment.warehouse",
		"SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse{lock} WHERE w_id = ?{for_update}")
	set(stPayWarehouseUpdate, "payment.warehouse_update", "UPDATE warehouse SET w_ytd = w_ytd + "+amount6+" WHERE w_id = ?")
	set(stPayDistrict, "payment.district",
		"SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district{lock} WHERE d_w_id = ? AND d_id = ?{for_update}")
	set(stPayDistrictUpdate, "payment.district_update",
		"UPDATE district SET d_ytd = d_ytd + "+amount6+" WHERE d_w_id = ? AND d_id = ?")
	set(stCustomerByName, "customer_by_name",
		"SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = {last_name} ORDER BY c_first")
	set(stPayCustomer, "payment.customer",
		"SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, "+
			"c_credit_lim, c_discount, c_balance, c_data FROM customer{lock} WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?{for_update}")
	const payCustomer = "UPDATE customer SET c_balance = c_balance - " + amount12 + ", c_ytd_payment = c_ytd_payment + " + amount12 +
		", c_payment_cnt = c_payment_cnt + 1"
	set(stPayCustomerUpdate, "payment.customer_update", payCustomer+" WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	set(stPayCustomerUpdateBC, "payment.customer_update_bc", payCustomer+", c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	set(stPayInsertHistory, "payment.insert_history",
		"INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, "+amount6+", ?)")

	set(stOSCustomer, "order_status.customer",
		"SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	set(stOSLastOrder, "order_status.last_order", "SELECT MAX(o_id) FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ?")
	set(stOSOrder, "order_status.order", "SELECT o_entry_d, o_carrier_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?")
	set(stOSOrderLines, "order_status.order_lines",
		"SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line "+
			"WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ? ORDER BY ol_number")

	set(stDLOldestNewOrder, "delivery.oldest_new_order",
		"SELECT MIN(no_o_id) FROM new_order{lock} WHERE no_w_id = ? AND no_d_id = ?{for_update}")
	set(stDLDeleteNewOrder, "delivery.delete_new_order", "DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?")
	// Locked: a plain read would take MySQL's REPEATABLE READ snapshot of
	// the first district and miss an order committed since, whose
	// new_order row the locking read above does see.
	set(stDLOrderCustomer, "delivery.order_customer",
		"SELECT o_c_id FROM orders{lock} WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?{for_update}")
	set(stDLOrderUpdate, "delivery.order_update", "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?")
	set(stDLOrderLineUpdate, "delivery.order_line_update",
		"UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")
	set(stDLOrderLineSum, "delivery.order_line_sum",
		"SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")
	set(stDLCustomerUpdate, "delivery.customer_update",
		"UPDATE customer SET c_balance = c_balance + "+amount12+", c_delivery_cnt = c_delivery_cnt + 1 "+
			"WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")

	set(stSLNextOrder, "stock_level.next_order", "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?")
	set(stSLLowStock, "stock_level.low_stock",
		"SELECT COUNT(DISTINCT s_i_id) FROM order_line JOIN stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id "+
			"WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id >= ? AND ol_o_id < ? AND s_quantity < ?")
	return t
}()

// stockDist is the s_dist_NN column of the district given as the stock
// query's first parameter (TPC-C 2.4.2.2: S_DIST_xx, xx the district);
// {district} is that parameter, typed where the server cannot infer it.
var stockDist = func() string {
	var b strings.Builder
	b.WriteString("CASE {district}")
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		fmt.Fprintf(&b, " WHEN %d THEN s_dist_%02d", d, d)
	}
	b.WriteString(" END")
	return b.String()
}()

// orderLinesStmt returns the id of New-Order's INSERT of n order lines
// (MinOrderLines <= n <= MaxOrderLines).
func orderLinesStmt(n int) stmtID { return stNOInsertOrderLines + stmtID(n-MinOrderLines) }

// repeatJoin returns n copies of s separated by sep.
func repeatJoin(s string, n int, sep string) string {
	return strings.Repeat(s+sep, n-1) + s
}

// String returns the statement's name, e.g. "payment.customer".
func (id stmtID) String() string { return stmtTemplates[id].name }

// statements holds the text of every statement in one dialect, built once
// per run and prepared on each worker's connection.
type statements struct {
	d    dialect.Dialect
	text [numStmts]string
}

// newStatements renders every statement in dialect d.
func newStatements(d dialect.Dialect) *statements {
	s := &statements{d: d}
	lastName, district := "?", "?"
	switch d.Driver() {
	case dialect.SQLServer:
		lastName = "CAST(? AS VARCHAR(16))"
	case dialect.Postgres:
		// PostgreSQL types a parameter from its context, and CASE $1 WHEN 1
		// would make it text (42883, text = integer).
		district = "CAST(? AS INTEGER)"
	default:
		// MySQL, SQLite: plain placeholders
	}
	hints := strings.NewReplacer("{lock}", d.UpdateLockHint(), "{for_update}", d.ForUpdate(), "{last_name}", lastName, "{district}", district)
	for i, t := range stmtTemplates {
		s.text[i] = bindParams(d, hints.Replace(t.sql))
	}
	if d.Driver() == dialect.Postgres {
		// PostgreSQL refuses FOR UPDATE with an aggregate (0A000): the
		// oldest new order is locked in a scalar sub-SELECT, which still
		// answers one row, NULL for an empty district, as MIN does. A row
		// that a concurrent Delivery deletes while this one waits for its
		// lock is skipped and the sub-SELECT answers NULL: the district
		// counts as skipped, as when the DELETE finds the row gone.
		s.text[stDLOldestNewOrder] = bindParams(d,
			"SELECT (SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1 FOR UPDATE)")
	}
	return s
}

// bindParams replaces each "?" of q, in order, with d's placeholder of
// that position ("?" for MySQL and SQLite, "@p1", "@p2"... for SQL Server).
func bindParams(d dialect.Dialect, q string) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteString(d.Placeholder(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// Decimal values are read exactly as integers of their smallest unit:
// money in cents (scale 2), tax and discount rates in ten-thousandths
// (scale 4). MySQL and SQL Server return DECIMAL as text; SQLite, which has
// no decimal type, returns a REAL or an INTEGER, which is rounded to the
// unit.
const (
	scaleMoney = 2
	scaleRate  = 4
)

// decimalScan is a sql.Scanner that stores a decimal column into *p as an
// integer count of 10^-scale units. A NULL is 0 when nullOK is set (a SUM
// over no rows) and an error otherwise.
type decimalScan struct {
	p      *int64
	scale  int
	nullOK bool
}

func moneyScan(p *int64) *decimalScan { return &decimalScan{p: p, scale: scaleMoney} }
func rateScan(p *int64) *decimalScan  { return &decimalScan{p: p, scale: scaleRate} }

func (s *decimalScan) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		if !s.nullOK {
			return fmt.Errorf("decimal column is NULL")
		}
		*s.p = 0
		return nil
	case []byte:
		return s.parse(string(v))
	case string:
		return s.parse(v)
	case float64:
		*s.p = int64(math.Round(v * math.Pow10(s.scale)))
		return nil
	case int64:
		*s.p = v * int64(math.Pow10(s.scale))
		return nil
	}
	return fmt.Errorf("decimal column: unexpected %T", src)
}

// parse reads a decimal literal such as "-12.3400" exactly; further
// fraction digits than the scale are rounded half away from zero. Other
// forms (an exponent) go through a float.
func (s *decimalScan) parse(str string) error {
	str = strings.TrimSpace(str)
	neg := strings.HasPrefix(str, "-")
	digits := strings.TrimLeft(str, "+-")
	whole, frac, _ := strings.Cut(digits, ".")
	if whole == "" {
		whole = "0"
	}
	ok := len(digits) > 0 && allDigits(whole) && allDigits(frac)
	if !ok {
		f, err := strconv.ParseFloat(str, 64)
		if err != nil {
			return fmt.Errorf("decimal column: %q is not a number", str)
		}
		return s.Scan(f)
	}
	round := len(frac) > s.scale && frac[s.scale] >= '5'
	if len(frac) > s.scale {
		frac = frac[:s.scale]
	}
	frac += strings.Repeat("0", s.scale-len(frac))
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return fmt.Errorf("decimal column: %q: %w", str, err)
	}
	if round {
		n++
	}
	if neg {
		n = -n
	}
	*s.p = n
	return nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
