package tpcc

import (
	"fmt"
	"strings"

	"vmbench/dialect"
)

// Cardinalities of TPC-C clause 4.3.3.1, per warehouse unless noted.
const (
	Items                 = 100000 // ITEM rows, for the whole database
	DistrictsPerWarehouse = 10
	CustomersPerDistrict  = 3000
	OrdersPerDistrict     = 3000
	// NewOrdersPerDistrict are the undelivered orders at load: o_id 2101..3000.
	NewOrdersPerDistrict = 900
	// FirstNewOrder is the first undelivered o_id at load.
	FirstNewOrder     = OrdersPerDistrict - NewOrdersPerDistrict + 1
	StockPerWarehouse = Items
)

// Table names. ORDER is a reserved word, so the table is "orders", as in
// every TPC-C kit.
const (
	Warehouse = "warehouse"
	District  = "district"
	Customer  = "customer"
	History   = "history"
	Orders    = "orders"
	NewOrder  = "new_order"
	OrderLine = "order_line"
	Item      = "item"
	Stock     = "stock"
	// metaTable holds what prepare decided (warehouses, seed, C-Load) and
	// counts runs; loadTable lists the warehouses fully loaded (0 = item).
	metaTable = "vmbench_tpcc"
	loadTable = "vmbench_tpcc_load"
)

// column is a column and its portable type: int, dec(p,s), char(n),
// varchar(n) or timestamp; "null" after the type allows NULL.
type column struct{ name, typ string }

// table is one table of the schema.
type table struct {
	name string
	cols []column
	pk   []string
	// wcol is the column holding the warehouse id, by which the loader
	// deletes a partial warehouse before loading it again ("" for item).
	wcol string
}

// cols parses "name type, name type, ..."; commas inside a type's
// parentheses (dec(4,4)) do not separate columns.
func cols(spec string) []column {
	var out []column
	depth, start := 0, 0
	for i := 0; i <= len(spec); i++ {
		if i < len(spec) {
			switch spec[i] {
			case '(':
				depth++
			case ')':
				depth--
			}
			if spec[i] != ',' || depth > 0 {
				continue
			}
		}
		name, typ, _ := strings.Cut(strings.TrimSpace(spec[start:i]), " ")
		out = append(out, column{name, typ})
		start = i + 1
	}
	return out
}

// schema is the nine tables of TPC-C clause 1.3 in load order, with the
// column names of the specification.
var schema = []table{
	{name: Item, pk: []string{"i_id"}, cols: cols("i_id int, i_im_id int, i_name varchar(24), i_price dec(5,2), i_data varchar(50)")},
	{name: Warehouse, wcol: "w_id", pk: []string{"w_id"}, cols: cols("w_id int, w_name varchar(10), w_street_1 varchar(20), w_street_2 varchar(20), " +
		"w_city varchar(20), w_state char(2), w_zip char(9), w_tax dec(4,4), w_ytd dec(12,2)")},
	{name: Stock, wcol: "s_w_id", pk: []string{"s_w_id", "s_i_id"}, cols: cols("s_i_id int, s_w_id int, s_quantity int, " +
		"s_dist_01 char(24), s_dist_02 char(24), s_dist_03 char(24), s_dist_04 char(24), s_dist_05 char(24), " +
		"s_dist_06 char(24), s_dist_07 char(24), s_dist_08 char(24), s_dist_09 char(24), s_dist_10 char(24), " +
		"s_ytd int, s_order_cnt int, s_remote_cnt int, s_data varchar(50)")},
	{name: District, wcol: "d_w_id", pk: []string{"d_w_id", "d_id"}, cols: cols("d_id int, d_w_id int, d_name varchar(10), " +
		"d_street_1 varchar(20), d_street_2 varchar(20), d_city varchar(20), d_state char(2), d_zip char(9), " +
		"d_tax dec(4,4), d_ytd dec(12,2), d_next_o_id int")},
	{name: Customer, wcol: "c_w_id", pk: []string{"c_w_id", "c_d_id", "c_id"}, cols: cols("c_id int, c_d_id int, c_w_id int, " +
		"c_first varchar(16), c_middle char(2), c_last varchar(16), c_street_1 varchar(20), c_street_2 varchar(20), " +
		"c_city varchar(20), c_state char(2), c_zip char(9), c_phone char(16), c_since timestamp, c_credit char(2), " +
		"c_credit_lim dec(12,2), c_discount dec(4,4), c_balance dec(12,2), c_ytd_payment dec(12,2), c_payment_cnt int, " +
		"c_delivery_cnt int, c_data varchar(500)")},
	{name: History, wcol: "h_c_w_id", cols: cols("h_c_id int, h_c_d_id int, h_c_w_id int, h_d_id int, h_w_id int, " +
		"h_date timestamp, h_amount dec(6,2), h_data varchar(24)")},
	{name: Orders, wcol: "o_w_id", pk: []string{"o_w_id", "o_d_id", "o_id"}, cols: cols("o_id int, o_d_id int, o_w_id int, o_c_id int, " +
		"o_entry_d timestamp, o_carrier_id int null, o_ol_cnt int, o_all_local int")},
	{name: NewOrder, wcol: "no_w_id", pk: []string{"no_w_id", "no_d_id", "no_o_id"}, cols: cols("no_o_id int, no_d_id int, no_w_id int")},
	{name: OrderLine, wcol: "ol_w_id", pk: []string{"ol_w_id", "ol_d_id", "ol_o_id", "ol_number"}, cols: cols("ol_o_id int, ol_d_id int, " +
		"ol_w_id int, ol_number int, ol_i_id int, ol_supply_w_id int, ol_delivery_d timestamp null, ol_quantity int, " +
		"ol_amount dec(6,2), ol_dist_info char(24)")},
}

// indexes are the secondary indexes TPC-C kits create: customers by last
// name (Payment and Order-Status by name), orders by customer
// (Order-Status's latest order); and history by customer and by
// district, which checks 3.3.2.8 to 3.3.2.10 read per warehouse (without
// them each check scans all of history once per warehouse) and the
// loader's redo of a partial warehouse deletes by (at load, h_w_id =
// h_c_w_id).
var indexes = []struct {
	table, name string
	cols        []string
}{
	{Customer, "idx_customer_name", []string{"c_w_id", "c_d_id", "c_last", "c_first"}},
	{Orders, "idx_orders_customer", []string{"o_w_id", "o_d_id", "o_c_id", "o_id"}},
	{History, "idx_history_customer", []string{"h_c_w_id", "h_c_d_id", "h_c_id"}},
	{History, "idx_history_district", []string{"h_w_id", "h_d_id"}},
}

// tableByName returns the schema entry of name.
func tableByName(name string) table {
	for _, t := range schema {
		if t.name == name {
			return t
		}
	}
	panic("tpcc: no table " + name)
}

// columnNames returns t's column names in order.
func (t table) columnNames() []string {
	names := make([]string, len(t.cols))
	for i, c := range t.cols {
		names[i] = c.name
	}
	return names
}

// columnType renders a portable column type in dialect d.
func columnType(d dialect.Dialect, typ string) string {
	base, null := strings.CutSuffix(typ, " null")
	var sql string
	switch {
	case base == "int":
		sql = "INT"
	case base == "timestamp":
		sql = d.Timestamp()
	case strings.HasPrefix(base, "dec"):
		sql = "DECIMAL" + strings.TrimPrefix(base, "dec")
	default: // char(n), varchar(n)
		sql = strings.ToUpper(base)
	}
	if null {
		return sql + " NULL"
	}
	return sql + " NOT NULL"
}

// createTable returns the CREATE TABLE statement of t in dialect d.
func createTable(d dialect.Dialect, t table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (", d.QuoteIdent(t.name))
	for i, c := range t.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", d.QuoteIdent(c.name), columnType(d, c.typ))
	}
	if len(t.pk) > 0 {
		b.WriteString(", PRIMARY KEY (" + dialect.QuoteIdents(d, t.pk...) + ")")
	}
	b.WriteString(")" + d.TableOptions())
	return b.String()
}

// SchemaStatements returns, in order, the statements that create the
// nine tables, vmbench's two bookkeeping tables and the secondary indexes
// in dialect d.
func SchemaStatements(d dialect.Dialect) []string {
	var out []string
	for _, t := range schema {
		out = append(out, createTable(d, t))
	}
	out = append(out,
		createTable(d, table{name: metaTable, pk: []string{"name"}, cols: cols("name varchar(32), value varchar(64)")}),
		createTable(d, table{name: loadTable, pk: []string{"w_id"}, cols: cols("w_id int")}))
	for _, ix := range indexes {
		out = append(out, d.CreateIndex(ix.table, ix.name, ix.cols...))
	}
	return out
}

// tableNames lists every table prepare creates, for cleanup.
func tableNames() []string {
	names := []string{metaTable, loadTable}
	for _, t := range schema {
		names = append(names, t.name)
	}
	return names
}
