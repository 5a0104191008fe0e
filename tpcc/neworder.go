package tpcc

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
)

// orderLine is one line of a New-Order's input.
type orderLine struct {
	item    int // ol_i_id; Items+1 on the last line of a rollback
	supplyW int // ol_supply_w_id
	qty     int // ol_quantity
}

// newOrderInput is what a terminal keys for a New-Order (TPC-C 2.4.1).
type newOrderInput struct {
	w, d, c  int
	lines    []orderLine
	rollback bool // the last line's item is unused: the transaction rolls back
}

// genNewOrder draws a New-Order of home warehouse w out of warehouses
// (TPC-C 2.4.1): district U[1,10]; customer NURand(1023); 5 to 15 lines;
// in 1 % of orders the last line's item is unused (Items+1), which rolls
// the transaction back; each line's item NURand(8191) (an order may name
// an item twice), its supply warehouse the home one in 99 % of lines, else
// another one chosen uniformly (only when warehouses > 1), its quantity
// U[1,10].
//
// The lines are then ordered by item (and supply warehouse): the order a
// terminal enters its lines in is free, and in this order every New-Order
// locks stock rows in one global order, so two New-Orders never deadlock
// on stock. The unused item, the largest id, stays the last line.
func genNewOrder(r *Rand, k Constants, w, warehouses int) newOrderInput {
	in := newOrderInput{w: w, d: r.Int(1, DistrictsPerWarehouse), c: r.CustomerID(k)}
	n := r.Int(MinOrderLines, MaxOrderLines)
	in.rollback = r.Int(1, 100) == 1
	in.lines = make([]orderLine, n)
	for i := range in.lines {
		l := orderLine{item: r.ItemID(k), supplyW: w}
		if in.rollback && i == n-1 {
			l.item = Items + 1
		}
		if warehouses > 1 && r.Int(1, 100) == 1 {
			l.supplyW = otherWarehouse(r, w, warehouses)
		}
		l.qty = r.Int(1, 10)
		in.lines[i] = l
	}
	slices.SortStableFunc(in.lines, func(a, b orderLine) int {
		return cmp.Or(cmp.Compare(a.item, b.item), cmp.Compare(a.supplyW, b.supplyW))
	})
	return in
}

// otherWarehouse draws a warehouse other than w, uniformly over the
// warehouses-1 others (warehouses > 1).
func otherWarehouse(r *Rand, w, warehouses int) int {
	o := r.Int(1, warehouses-1)
	if o >= w {
		o++
	}
	return o
}

// remoteLines counts the lines supplied by another warehouse.
func (in newOrderInput) remoteLines() int {
	n := 0
	for _, l := range in.lines {
		if l.supplyW != in.w {
			n++
		}
	}
	return n
}

// newOrderResult is what a New-Order returns to its terminal.
type newOrderResult struct {
	oID        int
	total      int64 // cents: Σ ol_amount · (1 − c_discount) · (1 + w_tax + d_tax), rounded
	rolledBack bool
}

// newOrder runs a New-Order (TPC-C 2.4.2) and counts it with the
// transaction (counted if the Runner counts it): lines, remote lines and
// the order's line count always (a rolled-back order was entered too,
// TPC-C 5.4.2 counts it as completed), and the rollback; a commit also
// counts in the run's committed New-Orders.
func (w *worker) newOrder(ctx context.Context, in newOrderInput) (newOrderResult, error) {
	res, err := transactResult(ctx, w, "new_order", w.d.BeginWrite(), w.newOrderBody, in)
	if err != nil {
		return res, err
	}
	w.h.AddToEvent(ctrOrderLines, int64(len(in.lines)))
	w.h.AddToEvent(ctrRemoteLines, int64(in.remoteLines()))
	if n := len(in.lines); n >= 5 && n <= 15 {
		w.h.AddToEvent(ctrOlCnt5+n-5, 1)
	}
	if res.rolledBack {
		w.h.AddToEvent(ctrRollbacks, 1)
	} else {
		w.r.committed.Add(1)
	}
	return res, nil
}

// errItemNotValid is the rollback of TPC-C 2.4.2.3: "Item number is not
// valid".
var errItemNotValid = fmt.Errorf("item number is not valid: %w", errRollback)

// newOrderBody is one attempt's statements: the customer with the
// warehouse's tax, the district (locked) and its next order id, the order
// rows, then the items of all lines in one query and, if every one is
// valid, their stock rows in one locked query, one stock update per line
// and the lines in one INSERT.
func (w *worker) newOrderBody(ctx context.Context, in newOrderInput) (newOrderResult, error) {
	var res newOrderResult
	var disc, wTax, dTax int64
	var cLast, credit string
	if err := w.row(ctx, stNOCustomer, args(in.w, in.d, in.c), rateScan(&disc), &cLast, &credit, rateScan(&wTax)); err != nil {
		return res, err
	}
	if err := w.row(ctx, stNODistrict, args(in.w, in.d), rateScan(&dTax), &res.oID); err != nil {
		return res, err
	}
	if err := w.execOne(ctx, stNODistrictUpdate, in.w, in.d); err != nil {
		return res, err
	}
	allLocal := 1
	if in.remoteLines() > 0 {
		allLocal = 0
	}
	if err := w.execOne(ctx, stNOInsertOrder, res.oID, in.d, in.w, in.c, w.r.now(), len(in.lines), allLocal); err != nil {
		return res, err
	}
	if err := w.execOne(ctx, stNOInsertNewOrder, res.oID, in.d, in.w); err != nil {
		return res, err
	}
	lines := w.noLines[:len(in.lines)]
	if err := w.readItems(ctx, in, lines); err != nil {
		res.rolledBack = errors.Is(err, errItemNotValid)
		return res, err
	}
	if err := w.readStocks(ctx, in, lines); err != nil {
		return res, err
	}
	sum, err := w.writeLines(ctx, in, res.oID, lines)
	if err != nil {
		return res, err
	}
	res.total = roundDiv(sum*(10000-disc)*(10000+wTax+dTax), 100000000)
	return res, nil
}

// lineState is what a New-Order reads for one of its lines.
type lineState struct {
	price int64  // i_price, cents
	qty   int    // s_quantity as read
	dist  string // s_dist_NN of the order's district
	found bool   // the query returned the line's row
}

// readItems reads the items of all lines of in with one query (the key
// list padded to MaxOrderLines with the last item) into lines. An item
// that is not in the table rolls back (errItemNotValid) when in is the
// order with an unused item, and fails otherwise.
func (w *worker) readItems(ctx context.Context, in newOrderInput, lines []lineState) error {
	p := w.params[:MaxOrderLines]
	for k := range p {
		p[k] = in.lines[min(k, len(in.lines)-1)].item
	}
	clear(lines)
	err := w.rows(ctx, stNOItems, p, func(rs rowScanner) error {
		var id int
		var price int64
		if err := rs.Scan(&id, moneyScan(&price), &w.raw[0], &w.raw[1]); err != nil {
			return err
		}
		for k, l := range in.lines {
			if l.item == id {
				lines[k].price, lines[k].found = price, true
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for k, l := range in.lines {
		if lines[k].found {
			continue
		}
		if !in.rollback {
			return fmt.Errorf("%s: %w (item %d is not in the item table: is the load complete?)", stNOItems, sql.ErrNoRows, l.item)
		}
		return errItemNotValid
	}
	return nil
}

// readStocks reads and locks the stock rows of all lines with one query
// (the key list padded to MaxOrderLines with the last line's) into lines.
// A line without its stock row is an error wrapping sql.ErrNoRows.
func (w *worker) readStocks(ctx context.Context, in newOrderInput, lines []lineState) error {
	p := w.params[:1+2*MaxOrderLines]
	p[0] = in.d
	for k := range MaxOrderLines {
		l := in.lines[min(k, len(in.lines)-1)]
		p[1+2*k], p[2+2*k] = l.supplyW, l.item
	}
	for k := range lines {
		lines[k].found = false
	}
	err := w.rows(ctx, stNOStocks, p, func(rs rowScanner) error {
		var sw, id, qty int
		var dist string
		if err := rs.Scan(&sw, &id, &qty, &w.raw[0], &dist); err != nil {
			return err
		}
		for k, l := range in.lines {
			if l.item == id && l.supplyW == sw {
				lines[k].qty, lines[k].dist, lines[k].found = qty, dist, true
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for k, l := range in.lines {
		if !lines[k].found {
			return fmt.Errorf("%s: %w (no stock row for warehouse %d, item %d)", stNOStocks, sql.ErrNoRows, l.supplyW, l.item)
		}
	}
	return nil
}

// writeLines updates each line's stock row (TPC-C 2.4.2.2: s_quantity
// less the ordered quantity, plus 91 when fewer than 10 would remain; a
// row that two lines order is updated twice, the second from the first's
// result) and inserts the lines with one INSERT. It returns Σ ol_amount in
// cents.
func (w *worker) writeLines(ctx context.Context, in newOrderInput, oID int, lines []lineState) (int64, error) {
	var sum int64
	p := w.params[:9*len(in.lines)]
	for k, l := range in.lines {
		sQty := lines[k].qty
		if k > 0 && in.lines[k-1].item == l.item && in.lines[k-1].supplyW == l.supplyW {
			sQty = lines[k-1].qty // the row as the previous line left it
		}
		if sQty >= l.qty+10 {
			sQty -= l.qty
		} else {
			sQty += 91 - l.qty
		}
		lines[k].qty = sQty
		remote := 0
		if l.supplyW != in.w {
			remote = 1
		}
		if err := w.execOne(ctx, stNOStockUpdate, sQty, l.qty, remote, l.supplyW, l.item); err != nil {
			return 0, err
		}
		amount := int64(l.qty) * lines[k].price
		sum += amount
		copy(p[9*k:], []any{oID, in.d, in.w, k + 1, l.item, l.supplyW, l.qty, cents(int(amount)), lines[k].dist})
	}
	n, err := w.exec(ctx, orderLinesStmt(len(in.lines)), p...)
	if err == nil && n != int64(len(in.lines)) {
		err = fmt.Errorf("%s: %d rows affected, want %d", orderLinesStmt(len(in.lines)), n, len(in.lines))
	}
	return sum, err
}

// roundDiv returns n/d rounded half away from zero (d > 0).
func roundDiv(n, d int64) int64 {
	if n < 0 {
		return -((-n + d/2) / d)
	}
	return (n + d/2) / d
}
