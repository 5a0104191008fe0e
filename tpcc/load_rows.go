package tpcc

import (
	"slices"
	"sync"
	"time"
)

// Row generation of the loader: the initial database of TPC-C clause
// 4.3.3.1, produced chunk by chunk into reusable buffers.
//
// Every value is a function of --seed and the row's place alone. ITEM
// comes from the stream NewRand(seed, streamItems, 0); warehouse w's rows
// from streams of their own per table group (loadStream): the WAREHOUSE
// row from NewRand(seed, streamLoad, w) itself, DISTRICT, STOCK, CUSTOMER
// and HISTORY each from a sibling stream, and ORDER with its ORDER-LINE and
// NEW-ORDER rows from one more (an order's lines depend on its o_ol_cnt).
// So a warehouse loads the same rows whichever process or thread loads it,
// in any order, alone or again after a failure, and the chunk size never
// changes a value. The C-Load constant of C_LAST and the load time are
// inputs: prepare stores both before the first row.
//
// Money is a decimal string ("300000.00", Rand.Money), rates have four
// fraction digits ("0.1234"): every database stores them exactly. Dates
// are time.Time; NULL is nil.

// Parts of a warehouse's random streams (loadStream).
const (
	partWarehouse = iota // the stream NewRand(seed, streamLoad, w) itself
	partDistrict
	partStock
	partCustomer
	partHistory
	partOrders // ORDER, ORDER-LINE and NEW-ORDER
)

// loadStream returns the random stream of part of warehouse w:
// NewRand(seed, streamLoad, part<<20 | w), so part 0 is the warehouse's own
// stream. Warehouse numbers stay below 2^20 (Validate allows 100,000), and
// w >= 1 keeps them apart from LoadConstants' NewRand(seed, streamLoad, 0).
func loadStream(seed int64, w, part int) *Rand {
	return NewRand(seed, streamLoad, part<<20|w)
}

// loadChunkValues bounds the values of one chunk (one BulkInsert call, one
// transaction): 16,000, which keeps a chunk of the widest rows (customer)
// under 1 MB and every chunk one statement under MySQL's 65,535
// placeholders. On MariaDB smaller chunks loaded as fast as larger ones
// (6,000 to 30,000 values within 15%), 60,000 half as fast.
const loadChunkValues = 16000

// Bounds of the rows per chunk, whatever the width of the table.
const (
	minChunkRows = 1000
	maxChunkRows = 5000
)

// chunkRows returns the rows per chunk of t: loadChunkValues / columns,
// within [minChunkRows, maxChunkRows] (customer and stock 1,000,
// order_line 1,600, orders and history 2,000, item 3,200, new_order
// 5,000).
func chunkRows(t table) int {
	return max(minChunkRows, min(maxChunkRows, loadChunkValues/len(t.cols)))
}

// rowBatch collects up to size rows of one table and hands them to emit
// when full. Its storage is allocated once and reused: emit must not keep
// the rows after it returns.
type rowBatch struct {
	table string
	cols  []string
	width int
	size  int
	n     int
	flat  []any
	rows  [][]any
	emit  func(*rowBatch) error
}

// newRowBatch returns an empty batch of table name with size rows per
// chunk (0: chunkRows).
func newRowBatch(name string, size int, emit func(*rowBatch) error) *rowBatch {
	t := tableByName(name)
	if size <= 0 {
		size = chunkRows(t)
	}
	b := &rowBatch{table: name, cols: t.columnNames(), width: len(t.cols), size: size, emit: emit}
	b.flat = make([]any, size*b.width)
	b.rows = make([][]any, size)
	for i := range b.rows {
		b.rows[i] = b.flat[i*b.width : (i+1)*b.width : (i+1)*b.width]
	}
	return b
}

// add appends one row, its values in the table's column order, and emits
// the batch when it is full.
func (b *rowBatch) add(vals ...any) error {
	if len(vals) != b.width {
		panic("tpcc: " + b.table + " row of the wrong width")
	}
	copy(b.rows[b.n], vals)
	b.n++
	if b.n == b.size {
		return b.flush()
	}
	return nil
}

// Rows returns the rows collected so far.
func (b *rowBatch) Rows() [][]any { return b.rows[:b.n] }

// flush emits the rows collected so far, if any, and empties the batch.
func (b *rowBatch) flush() error {
	if b.n == 0 {
		return nil
	}
	err := b.emit(b)
	clear(b.flat[:b.n*b.width]) // drop references for the collector
	b.n = 0
	return err
}

// loadRows generates the rows of one load unit into per-table batches.
type loadRows struct {
	seed  int64
	cLoad Constants // C-Load; only c_last matters to the load
	at    time.Time // the load time: c_since, h_date, o_entry_d
	// size is the rows per chunk; 0 chooses chunkRows per table, times
	// scale when that is above 1.
	size    int
	scale   int
	emit    func(*rowBatch) error
	batches map[string]*rowBatch

	// The strings of the row being generated: their bytes in buf, each
	// ending at the offset in ends (see rowStrings).
	buf  []byte
	ends []int
	strs []string
}

// batch returns the batch of table name, creating it on first use.
func (g *loadRows) batch(name string) *rowBatch {
	if b, ok := g.batches[name]; ok {
		return b
	}
	if g.batches == nil {
		g.batches = map[string]*rowBatch{}
	}
	size := g.size
	if size <= 0 && g.scale > 1 {
		size = chunkRows(tableByName(name)) * g.scale
	}
	b := newRowBatch(name, size, g.emit)
	g.batches[name] = b
	return b
}

// flush emits the partial chunks of names, in that order.
func (g *loadRows) flush(names ...string) error {
	for _, n := range names {
		if err := g.batch(n).flush(); err != nil {
			return err
		}
	}
	return nil
}

// The random strings of a row are built one after the other into one
// buffer and converted with a single allocation (rowStrings): a row costs one
// string allocation however many strings it has.

// aStr adds TPC-C 4.3.2.2's random a-string of lo to hi alphanumeric
// characters to the row's strings. Each 64-bit draw gives up to ten
// characters of six bits; 62 and 63 are drawn again, so every character
// stays uniform over the 62.
func (g *loadRows) aStr(r *Rand, lo, hi int) {
	g.appendAlnum(r, r.Int(lo, hi))
	g.ends = append(g.ends, len(g.buf))
}

func (g *loadRows) appendAlnum(r *Rand, n int) {
	start := len(g.buf)
	g.buf = slices.Grow(g.buf, n)[:start+n]
	dst := g.buf[start:]
	for i := 0; i < n; {
		u := r.r.Uint64()
		for k := 0; k < 10 && i < n; k++ {
			if c := u & 63; c < uint64(len(alnum)) {
				dst[i] = alnum[c]
				i++
			}
			u >>= 6
		}
	}
}

// nStr adds a random n-string of n digits (TPC-C 4.3.2.2) and then suffix.
func (g *loadRows) nStr(r *Rand, n int, suffix string) {
	for range n {
		g.buf = append(g.buf, byte('0'+r.r.IntN(10)))
	}
	g.buf = append(g.buf, suffix...)
	g.ends = append(g.ends, len(g.buf))
}

// dataStr adds an i_data or s_data value, as Rand.Data: an a-string of 26
// to 50 characters, in 10% of rows with "ORIGINAL" at a random position
// (TPC-C 4.3.3.1).
func (g *loadRows) dataStr(r *Rand) {
	start := len(g.buf)
	g.appendAlnum(r, r.Int(26, 50))
	if r.Percent(10) {
		copy(g.buf[start+r.Int(0, len(g.buf)-start-8):], "ORIGINAL")
	}
	g.ends = append(g.ends, len(g.buf))
}

// addressStr adds street 1, street 2 and city (a-strings of 10..20), state
// (an a-string of 2) and zip (4 random digits and "11111", as Rand.Zip) of
// TPC-C 4.3.3.1.
func (g *loadRows) addressStr(r *Rand) {
	g.aStr(r, 10, 20)
	g.aStr(r, 10, 20)
	g.aStr(r, 10, 20)
	g.aStr(r, 2, 2)
	g.nStr(r, 4, "11111")
}

// rowStrings returns the strings added since the last call, as substrings of
// one new string, and starts the next row's. The slice is reused.
func (g *loadRows) rowStrings() []string {
	all := string(g.buf)
	g.strs = g.strs[:0]
	from := 0
	for _, end := range g.ends {
		g.strs = append(g.strs, all[from:end])
		from = end
	}
	g.buf, g.ends = g.buf[:0], g.ends[:0]
	return g.strs
}

// boxedInts holds 0..Items as interface values, so that adding an integer
// column to a row does not allocate.
var boxedInts = sync.OnceValue(func() []any {
	b := make([]any, Items+1)
	for i := range b {
		b[i] = i
	}
	return b
})

// box returns n as an interface value, without allocating for 0..Items.
func box(n int) any {
	if n >= 0 && n <= Items {
		return boxedInts()[n]
	}
	return n
}

// Constant values of the initial database (TPC-C 4.3.3.1).
const (
	wYTD         = "300000.00"
	dYTD         = "30000.00"
	cCreditLim   = "50000.00"
	cBalance     = "-10.00"
	cYTDPayment  = "10.00"
	hAmount      = "10.00"
	olAmountZero = "0.00"
)

// items generates ITEM: i_id 1..100,000, i_im_id random 1..10,000, i_name
// an a-string of 14..24, i_price 1.00..100.00, i_data as Rand.Data (10%
// "ORIGINAL").
func (g *loadRows) items() error {
	r := NewRand(g.seed, streamItems, 0)
	b := g.batch(Item)
	for i := 1; i <= Items; i++ {
		imID := r.Int(1, 10000)
		g.aStr(r, 14, 24)
		price := r.Money(100, 10000)
		g.dataStr(r)
		s := g.rowStrings()
		if err := b.add(box(i), box(imID), s[0], price, s[1]); err != nil {
			return err
		}
	}
	return b.flush()
}

// warehouse generates every row of warehouse w, table by table in schema
// order: WAREHOUSE, STOCK, DISTRICT, CUSTOMER, HISTORY, then ORDER,
// NEW-ORDER and ORDER-LINE together.
func (g *loadRows) warehouse(w int) error {
	for _, step := range []func(int) error{g.warehouseRow, g.stock, g.districts, g.customers, g.history, g.orders} {
		if err := step(w); err != nil {
			return err
		}
	}
	return nil
}

// warehouseRow generates the WAREHOUSE row: w_name an a-string of 6..10,
// an address, w_tax 0.0000..0.2000, w_ytd 300,000.00.
func (g *loadRows) warehouseRow(w int) error {
	r := loadStream(g.seed, w, partWarehouse)
	b := g.batch(Warehouse)
	g.aStr(r, 6, 10)
	g.addressStr(r)
	s := g.rowStrings()
	if err := b.add(box(w), s[0], s[1], s[2], s[3], s[4], s[5], r.Tax(), wYTD); err != nil {
		return err
	}
	return b.flush()
}

// stock generates the 100,000 STOCK rows of w: s_quantity 10..100,
// s_dist_01..10 a-strings of 24, s_ytd, s_order_cnt and s_remote_cnt 0,
// s_data as Rand.Data (10% "ORIGINAL").
func (g *loadRows) stock(w int) error {
	r := loadStream(g.seed, w, partStock)
	b := g.batch(Stock)
	zero, bw := box(0), box(w)
	for i := 1; i <= StockPerWarehouse; i++ {
		q := r.Int(10, 100)
		for range DistrictsPerWarehouse {
			g.aStr(r, 24, 24)
		}
		g.dataStr(r)
		s := g.rowStrings()
		if err := b.add(box(i), bw, box(q), s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], zero, zero, zero, s[10]); err != nil {
			return err
		}
	}
	return b.flush()
}

// districts generates the 10 DISTRICT rows of w: d_name an a-string of
// 6..10, an address, d_tax 0.0000..0.2000, d_ytd 30,000.00, d_next_o_id
// 3,001.
func (g *loadRows) districts(w int) error {
	r := loadStream(g.seed, w, partDistrict)
	b := g.batch(District)
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		g.aStr(r, 6, 10)
		g.addressStr(r)
		s := g.rowStrings()
		if err := b.add(box(d), box(w), s[0], s[1], s[2], s[3], s[4], s[5], r.Tax(), dYTD, box(OrdersPerDistrict+1)); err != nil {
			return err
		}
	}
	return b.flush()
}

// customerLast returns the c_last number of customer c: c-1 for the first
// 1,000 customers of a district, else NURand(255, 0, 999) with C-Load
// (TPC-C 4.3.2.3).
func customerLast(r *Rand, c int, cLoad Constants) int {
	if c <= 1000 {
		return c - 1
	}
	return r.NURand(aLast, 0, 999, cLoad.CLast)
}

// lastNames holds LastName(0..999).
var lastNames = sync.OnceValue(func() []any {
	n := make([]any, 1000)
	for i := range n {
		n[i] = LastName(i)
	}
	return n
})

// customers generates the 30,000 CUSTOMER rows of w, 3,000 per district:
// c_first an a-string of 8..16, c_middle "OE", c_last by customerLast, an
// address, c_phone an n-string of 16, c_since the load time, c_credit
// "BC" for 10% and "GC" for the rest, c_credit_lim 50,000.00, c_discount
// 0.0000..0.5000, c_balance -10.00, c_ytd_payment 10.00, c_payment_cnt 1,
// c_delivery_cnt 0, c_data an a-string of 300..500.
func (g *loadRows) customers(w int) error {
	r := loadStream(g.seed, w, partCustomer)
	b := g.batch(Customer)
	names, at := lastNames(), any(g.at)
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		for c := 1; c <= CustomersPerDistrict; c++ {
			g.aStr(r, 8, 16)
			last := names[customerLast(r, c, g.cLoad)]
			g.addressStr(r)
			g.nStr(r, 16, "")
			credit := "GC"
			if r.Percent(10) {
				credit = "BC"
			}
			discount := fraction4(r.Int(0, 5000))
			g.aStr(r, 300, 500)
			s := g.rowStrings()
			err := b.add(box(c), box(d), box(w), s[0], "OE", last, s[1], s[2], s[3], s[4], s[5], s[6], at, credit,
				cCreditLim, discount, cBalance, cYTDPayment, box(1), box(0), s[7])
			if err != nil {
				return err
			}
		}
	}
	return b.flush()
}

// history generates the 30,000 HISTORY rows of w, one per customer:
// h_date the load time, h_amount 10.00, h_data an a-string of 12..24.
func (g *loadRows) history(w int) error {
	r := loadStream(g.seed, w, partHistory)
	b := g.batch(History)
	at := any(g.at)
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		for c := 1; c <= CustomersPerDistrict; c++ {
			g.aStr(r, 12, 24)
			if err := b.add(box(c), box(d), box(w), box(d), box(w), at, hAmount, g.rowStrings()[0]); err != nil {
				return err
			}
		}
	}
	return b.flush()
}

// orders generates the 30,000 ORDER rows of w with their ORDER-LINE rows
// and the 9,000 NEW-ORDER rows. Per district, o_c_id is a random
// permutation of 1..3,000; o_entry_d is the load time; o_carrier_id is
// random 1..10 for o_id < 2,101 and NULL after; o_ol_cnt is 5..15;
// o_all_local 1. Each order has o_ol_cnt lines: ol_i_id 1..100,000,
// ol_supply_w_id w, ol_quantity 5, ol_dist_info an a-string of 24, and
// for a delivered order (o_id < 2,101) ol_amount 0.00 and ol_delivery_d
// o_entry_d, else ol_amount 0.01..9,999.99 and NULL. Orders 2,101..3,000
// are in NEW-ORDER.
func (g *loadRows) orders(w int) error {
	r := loadStream(g.seed, w, partOrders)
	ob, nb, lb := g.batch(Orders), g.batch(NewOrder), g.batch(OrderLine)
	bw, at := box(w), any(g.at)
	var perm [CustomersPerDistrict]int
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		bd := box(d)
		for i := range perm {
			perm[i] = i + 1
		}
		for i := len(perm) - 1; i > 0; i-- {
			j := r.Int(0, i)
			perm[i], perm[j] = perm[j], perm[i]
		}
		for o := 1; o <= OrdersPerDistrict; o++ {
			delivered := o < FirstNewOrder
			var carrier any
			if delivered {
				carrier = box(r.Int(1, 10))
			}
			cnt := r.Int(5, 15)
			bo := box(o)
			if err := ob.add(bo, bd, bw, box(perm[o-1]), at, carrier, box(cnt), box(1)); err != nil {
				return err
			}
			if err := g.orderLines(r, lb, bo, bd, bw, at, cnt, delivered); err != nil {
				return err
			}
			if !delivered {
				if err := nb.add(bo, bd, bw); err != nil {
					return err
				}
			}
		}
	}
	return g.flush(Orders, NewOrder, OrderLine)
}

// orderLines adds to lb the cnt ORDER-LINE rows of order bo of district
// bd of warehouse bw, at the load time (see orders), drawing from r.
func (g *loadRows) orderLines(r *Rand, lb *rowBatch, bo, bd, bw, at any, cnt int, delivered bool) error {
	for l := 1; l <= cnt; l++ {
		item := r.Int(1, Items)
		var (
			deliveryD = at
			amount    = olAmountZero
		)
		if !delivered {
			deliveryD, amount = nil, r.Money(1, 999999)
		}
		g.aStr(r, 24, 24)
		if err := lb.add(bo, bd, bw, box(l), box(item), bw, deliveryD, box(5), amount, g.rowStrings()[0]); err != nil {
			return err
		}
	}
	return nil
}
