package tpcc

import (
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// testLoadTime is the load time of the generation tests.
var testLoadTime = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// genTable is what a generation test gathers of one table: its rows and
// a digest of every value, in order.
type genTable struct {
	rows   int
	digest hash.Hash64
}

// generateUnit runs gen (a loadRows method, such as warehouse(2)) on a
// generator of seed with chunks of size rows (0: chunkRows), calls visit
// for every row when not nil, and returns per-table row counts and
// digests.
func generateUnit(t testing.TB, seed int64, size int, gen func(*loadRows) error, visit func(table string, row []any)) map[string]*genTable {
	t.Helper()
	out := map[string]*genTable{}
	var buf []byte
	g := &loadRows{seed: seed, cLoad: LoadConstants(NewRand(seed, streamLoad, 0)), at: testLoadTime, size: size,
		emit: func(b *rowBatch) error {
			gt := out[b.table]
			if gt == nil {
				gt = &genTable{digest: fnv.New64a()}
				out[b.table] = gt
			}
			if size > 0 && b.n > size {
				return fmt.Errorf("%s: chunk of %d rows, want at most %d", b.table, b.n, size)
			}
			for _, row := range b.Rows() {
				gt.rows++
				buf = buf[:0]
				for _, v := range row {
					buf = appendValue(buf, v)
				}
				gt.digest.Write(buf)
				if visit != nil {
					visit(b.table, row)
				}
			}
			return nil
		}}
	if err := gen(g); err != nil {
		t.Fatal(err)
	}
	return out
}

// wholeWarehouse and items are generateUnit's gen of a warehouse and of
// ITEM.
func wholeWarehouse(w int) func(*loadRows) error {
	return func(g *loadRows) error { return g.warehouse(w) }
}
func items(g *loadRows) error { return g.items() }

// appendValue appends a typed, unambiguous rendering of a row value.
func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, 'n', 0)
	case int:
		return append(strconv.AppendInt(append(b, 'i'), int64(v), 10), 0)
	case string:
		return append(append(append(b, 's'), v...), 0)
	case time.Time:
		return append(strconv.AppendInt(append(b, 't'), v.UnixNano(), 10), 0)
	}
	panic(fmt.Sprintf("unexpected value %T", v))
}

func digests(m map[string]*genTable) map[string]uint64 {
	out := map[string]uint64{}
	for k, v := range m {
		out[k] = v.digest.Sum64()
	}
	return out
}

// colIdx returns the index of column name in table.
func colIdx(table, name string) int {
	i, ok := testColumns[table+"."+name]
	if !ok {
		panic("no column " + table + "." + name)
	}
	return i
}

// testColumns maps "table.column" to the column's index, for colIdx.
var testColumns = func() map[string]int {
	m := map[string]int{}
	for _, t := range schema {
		for i, c := range t.cols {
			m[t.name+"."+c.name] = i
		}
	}
	return m
}()

// TestGenerateDeterministic: the same seed and warehouse give the same
// rows whatever the chunk size, and a table generated alone the same rows
// as in the whole warehouse; another warehouse or seed gives other rows.
func TestGenerateDeterministic(t *testing.T) {
	a := digests(generateUnit(t, 7, 0, wholeWarehouse(2), nil))
	// Orders interleave three tables' chunks; customers have the widest rows.
	b := digests(generateUnit(t, 7, 997, func(g *loadRows) error {
		if err := g.customers(2); err != nil {
			return err
		}
		return g.orders(2)
	}, nil))
	for _, name := range []string{Customer, Orders, NewOrder, OrderLine} {
		if a[name] != b[name] {
			t.Errorf("%s of warehouse 2: chunks of 997 rows generate other rows than the default chunks", name)
		}
	}
	alone := digests(generateUnit(t, 7, 0, func(g *loadRows) error {
		for _, f := range []func(int) error{g.history, g.districts, g.customers} { // not the load order
			if err := f(2); err != nil {
				return err
			}
		}
		return nil
	}, nil))
	other := digests(generateUnit(t, 7, 0, func(g *loadRows) error {
		for _, f := range []func(int) error{g.warehouseRow, g.districts, g.customers, g.history} {
			if err := f(3); err != nil {
				return err
			}
		}
		return nil
	}, nil))
	for _, name := range []string{District, Customer, History} {
		if alone[name] != a[name] {
			t.Errorf("%s of warehouse 2 generated alone differs from the whole warehouse's", name)
		}
	}
	for _, name := range []string{Warehouse, District, Customer, History} {
		if a[name] == other[name] {
			t.Errorf("%s: warehouses 2 and 3 have the same rows", name)
		}
	}
	i1 := digests(generateUnit(t, 7, 0, items, nil))
	i2 := digests(generateUnit(t, 7, 1234, items, nil))
	i3 := digests(generateUnit(t, 8, 0, items, nil))
	if i1[Item] != i2[Item] || i1[Item] == i3[Item] {
		t.Errorf("item digests: seed 7 %x, seed 7 in other chunks %x, seed 8 %x", i1[Item], i2[Item], i3[Item])
	}
}

// shareWithin fails t unless got/total is want ± tol (fractions).
func shareWithin(t *testing.T, what string, got, total int, want, tol float64) {
	t.Helper()
	if f := float64(got) / float64(total); math.Abs(f-want) > tol {
		t.Errorf("%s: %d of %d (%.2f%%), want %.0f%% ± %.0f%%", what, got, total, 100*f, 100*want, 100*tol)
	}
}

// parseCents parses a two-digit decimal string into cents.
func parseCents(t *testing.T, v any) int {
	t.Helper()
	s, ok := v.(string)
	whole, frac, found := strings.Cut(s, ".")
	n, err1 := strconv.Atoi(whole)
	f, err2 := strconv.Atoi(frac)
	if !ok || !found || len(frac) != 2 || err1 != nil || err2 != nil {
		t.Fatalf("%v is not a money value", v)
	}
	if strings.HasPrefix(whole, "-") {
		return n*100 - f
	}
	return n*100 + f
}

func strLen(v any, lo, hi int) bool {
	s, ok := v.(string)
	return ok && len(s) >= lo && len(s) <= hi
}

// TestGenerateWarehouse checks the cardinalities and value rules of TPC-C
// 4.3.3.1 on a generated warehouse.
func TestGenerateWarehouse(t *testing.T) {
	const w = 3
	cLoad := LoadConstants(NewRand(11, streamLoad, 0))
	var (
		original, bc, olCnt, delivered, undelivered int
		lastNames                                   = map[string]int{}
		perm                                        = map[int]map[int]bool{}
		newOrders                                   = map[[2]int]bool{}
		orderCnt                                    = map[[2]int]int{}
		linesOf                                     = map[[2]int]int{} // (d, o) -> order lines seen
		bad                                         = map[string]int{}
	)
	check := func(ok bool, what string) {
		if !ok {
			bad[what]++
		}
	}
	got := generateUnit(t, 11, 0, wholeWarehouse(w), func(table string, r []any) {
		switch table {
		case Warehouse:
			check(r[0] == w && strLen(r[1], 6, 10) && strLen(r[5], 2, 2) && strLen(r[6], 9, 9) && r[8] == "300000.00", "warehouse")
			check(strings.HasSuffix(r[6].(string), "11111"), "w_zip")
			tax := r[colIdx(Warehouse, "w_tax")].(string)
			check(len(tax) == 6 && tax >= "0.0000" && tax <= "0.2000", "w_tax")
		case District:
			check(r[1] == w && r[colIdx(District, "d_ytd")] == "30000.00" && r[colIdx(District, "d_next_o_id")] == 3001, "district")
		case Stock:
			q := r[colIdx(Stock, "s_quantity")].(int)
			check(r[1] == w && q >= 10 && q <= 100, "s_quantity")
			for i := range 10 {
				check(strLen(r[colIdx(Stock, "s_dist_01")+i], 24, 24), "s_dist")
			}
			check(r[colIdx(Stock, "s_ytd")] == 0 && r[colIdx(Stock, "s_order_cnt")] == 0 && r[colIdx(Stock, "s_remote_cnt")] == 0, "stock counters")
			data := r[colIdx(Stock, "s_data")]
			check(strLen(data, 26, 50), "s_data")
			if strings.Contains(data.(string), "ORIGINAL") {
				original++
			}
		case Customer:
			c := r[colIdx(Customer, "c_id")].(int)
			last := r[colIdx(Customer, "c_last")].(string)
			if c <= 1000 {
				check(last == LastName(c-1), "c_last of c_id <= 1000")
			}
			lastNames[last]++
			check(r[colIdx(Customer, "c_middle")] == "OE" && strLen(r[colIdx(Customer, "c_first")], 8, 16), "c_first/c_middle")
			check(strLen(r[colIdx(Customer, "c_phone")], 16, 16) && r[colIdx(Customer, "c_since")] == testLoadTime, "c_phone/c_since")
			switch r[colIdx(Customer, "c_credit")] {
			case "BC":
				bc++
			case "GC":
			default:
				check(false, "c_credit")
			}
			disc := r[colIdx(Customer, "c_discount")].(string)
			check(len(disc) == 6 && disc >= "0.0000" && disc <= "0.5000", "c_discount")
			check(parseCents(t, r[colIdx(Customer, "c_balance")]) == -1000 && parseCents(t, r[colIdx(Customer, "c_ytd_payment")]) == 1000 &&
				parseCents(t, r[colIdx(Customer, "c_credit_lim")]) == 5000000, "customer money")
			check(r[colIdx(Customer, "c_payment_cnt")] == 1 && r[colIdx(Customer, "c_delivery_cnt")] == 0, "customer counts")
			check(strLen(r[colIdx(Customer, "c_data")], 300, 500), "c_data")
		case History:
			check(r[colIdx(History, "h_amount")] == "10.00" && strLen(r[colIdx(History, "h_data")], 12, 24) && r[colIdx(History, "h_date")] == testLoadTime, "history")
		case Orders:
			o, d := r[0].(int), r[1].(int)
			if perm[d] == nil {
				perm[d] = map[int]bool{}
			}
			perm[d][r[colIdx(Orders, "o_c_id")].(int)] = true
			cnt := r[colIdx(Orders, "o_ol_cnt")].(int)
			check(cnt >= 5 && cnt <= 15 && r[colIdx(Orders, "o_all_local")] == 1 && r[colIdx(Orders, "o_entry_d")] == testLoadTime, "orders")
			olCnt += cnt
			orderCnt[[2]int{d, o}] = cnt
			carrier := r[colIdx(Orders, "o_carrier_id")]
			if o < 2101 {
				c, ok := carrier.(int)
				check(ok && c >= 1 && c <= 10, "o_carrier_id of a delivered order")
			} else {
				check(carrier == nil, "o_carrier_id of an undelivered order")
			}
		case NewOrder:
			o := r[0].(int)
			check(o >= 2101 && o <= 3000 && r[2] == w, "new_order")
			newOrders[[2]int{r[1].(int), o}] = true
		case OrderLine:
			o, d := r[0].(int), r[1].(int)
			linesOf[[2]int{d, o}]++
			check(r[colIdx(OrderLine, "ol_number")] == linesOf[[2]int{d, o}], "ol_number")
			item := r[colIdx(OrderLine, "ol_i_id")].(int)
			check(item >= 1 && item <= Items && r[colIdx(OrderLine, "ol_supply_w_id")] == w && r[colIdx(OrderLine, "ol_quantity")] == 5, "order_line")
			check(strLen(r[colIdx(OrderLine, "ol_dist_info")], 24, 24), "ol_dist_info")
			amount := parseCents(t, r[colIdx(OrderLine, "ol_amount")])
			if o < 2101 {
				delivered++
				check(amount == 0 && r[colIdx(OrderLine, "ol_delivery_d")] == testLoadTime, "delivered order_line")
			} else {
				undelivered++
				check(amount >= 1 && amount <= 999999 && r[colIdx(OrderLine, "ol_delivery_d")] == nil, "undelivered order_line")
			}
		}
	})
	for what, n := range bad {
		t.Errorf("%s: %d rows break the rule", what, n)
	}
	want := map[string]int{Warehouse: 1, District: 10, Stock: 100000, Customer: 30000, History: 30000, Orders: 30000, NewOrder: 9000, OrderLine: olCnt}
	for name, n := range want {
		if got[name] == nil || got[name].rows != n {
			t.Errorf("%s: %v rows, want %d", name, got[name], n)
		}
	}
	if got[Item] != nil {
		t.Error("a warehouse generated item rows")
	}
	if olCnt < 290000 || olCnt > 310000 {
		t.Errorf("sum of o_ol_cnt %d, want about 300,000", olCnt)
	}
	shareWithin(t, "s_data with ORIGINAL", original, 100000, 0.10, 0.02)
	shareWithin(t, "c_credit BC", bc, 30000, 0.10, 0.02)
	shareWithin(t, "delivered order lines", delivered, olCnt, 0.70, 0.02)
	for d := 1; d <= 10; d++ {
		if len(perm[d]) != 3000 {
			t.Errorf("district %d: o_c_id takes %d distinct values, want a permutation of 1..3000", d, len(perm[d]))
		}
		for c := range perm[d] {
			if c < 1 || c > 3000 {
				t.Errorf("district %d: o_c_id %d", d, c)
			}
		}
	}
	if len(newOrders) != 9000 {
		t.Errorf("%d distinct new orders, want 9000", len(newOrders))
	}
	for k, n := range orderCnt {
		if linesOf[k] != n {
			t.Errorf("order %v: %d lines, o_ol_cnt %d", k, linesOf[k], n)
			break
		}
	}
	// Customers 1001..3000 draw their names with NURand and C-Load, so every
	// name appears; the first 1000 of each district give each name 10 times.
	if len(lastNames) != 1000 {
		t.Errorf("%d distinct last names, want 1000", len(lastNames))
	}
	if cLoad.CLast < 0 || cLoad.CLast > 255 {
		t.Errorf("C-Load c_last %d", cLoad.CLast)
	}
}

// TestGenerateItems checks ITEM: ids 1..100,000, i_im_id, i_name, i_price
// in 1.00..100.00, 10% ORIGINAL.
func TestGenerateItems(t *testing.T) {
	id, original, bad := 0, 0, 0
	got := generateUnit(t, 5, 0, items, func(_ string, r []any) {
		id++
		imID := r[1].(int)
		price := parseCents(t, r[3])
		if r[0] != id || imID < 1 || imID > 10000 || !strLen(r[2], 14, 24) || price < 100 || price > 10000 || !strLen(r[4], 26, 50) {
			bad++
		}
		if strings.Contains(r[4].(string), "ORIGINAL") {
			original++
		}
	})
	if got[Item].rows != Items || len(got) != 1 || bad > 0 {
		t.Errorf("%d item rows (%d tables), %d bad", got[Item].rows, len(got), bad)
	}
	shareWithin(t, "i_data with ORIGINAL", original, Items, 0.10, 0.02)
}

func TestChunkRows(t *testing.T) {
	for name, want := range map[string]int{Customer: 1000, Stock: 1000, OrderLine: 1600, Orders: 2000, Item: 3200, NewOrder: 5000, Warehouse: 1777} {
		if got := chunkRows(tableByName(name)); got != want {
			t.Errorf("chunkRows(%s) = %d, want %d", name, got, want)
		}
	}
}

func TestLoadProgressLine(t *testing.T) {
	p := newLoadProgress(nil, false, 10, 3)
	got := p.line(3, 1_234_567, 2*time.Second)
	want := "loading: 3/10 warehouses, 1,234,567 rows, 617,283 rows/s, 2.0s"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// BenchmarkGenerateWarehouse measures pure row generation of one
// warehouse (about 500,000 rows), reported as rows/s.
func BenchmarkGenerateWarehouse(b *testing.B) {
	var rows int64
	g := &loadRows{seed: 1, cLoad: LoadConstants(NewRand(1, streamLoad, 0)), at: testLoadTime,
		emit: func(rb *rowBatch) error { rows += int64(rb.n); return nil }}
	b.ReportAllocs()
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		if err := g.warehouse(i%100 + 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)/time.Since(start).Seconds(), "rows/s")
}
