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
	n := r.Int(5, 15)
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

// newOrder runs a New-Order (TPC-C 2.4.2) and counts it: lines, remote
// lines and the order's line count always (a rolled-back order was entered
// too, TPC-C 5.4.2 counts it as completed), and the rollback.
func (w *worker) newOrder(ctx context.Context, in newOrderInput) (newOrderResult, error) {
	res, err := transactResult(ctx, w, "new_order", w.d.BeginWrite(), w.newOrderBody, in)
	if err != nil {
		return res, err
	}
	w.h.Add(ctrOrderLines, int64(len(in.lines)))
	w.h.Add(ctrRemoteLines, int64(in.remoteLines()))
	if n := len(in.lines); n >= 5 && n <= 15 {
		w.h.Add(ctrOlCnt5+n-5, 1)
	}
	if res.rolledBack {
		w.h.Add(ctrRollbacks, 1)
	}
	return res, nil
}

// errItemNotValid is the rollback of TPC-C 2.4.2.3: "Item number is not
// valid".
var errItemNotValid = fmt.Errorf("item number is not valid: %w", errRollback)

// newOrderBody is one attempt's statements.
func (w *worker) newOrderBody(ctx context.Context, in newOrderInput) (newOrderResult, error) {
	var res newOrderResult
	var disc, wTax, dTax int64
	var cLast, credit string
	if err := w.row(ctx, stNOCustomer, args(in.w, in.d, in.c), rateScan(&disc), &cLast, &credit); err != nil {
		return res, err
	}
	if err := w.row(ctx, stNOWarehouse, args(in.w), rateScan(&wTax)); err != nil {
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
	var sum int64
	for i, l := range in.lines {
		var price int64
		var iName, iData string
		err := w.row(ctx, stNOItem, args(l.item), moneyScan(&price), &iName, &iData)
		if errors.Is(err, sql.ErrNoRows) {
			if !in.rollback {
				return res, fmt.Errorf("%w (item %d is not in the item table: is the load complete?)", err, l.item)
			}
			res.rolledBack = true
			return res, errItemNotValid
		}
		if err != nil {
			return res, err
		}
		var sQty int
		var sData, dist string
		if err := w.row(ctx, stockStmt(in.d), args(l.supplyW, l.item), &sQty, &sData, &dist); err != nil {
			return res, err
		}
		if sQty >= l.qty+10 {
			sQty -= l.qty
		} else {
			sQty += 91 - l.qty
		}
		remote := 0
		if l.supplyW != in.w {
			remote = 1
		}
		if err := w.execOne(ctx, stNOStockUpdate, sQty, l.qty, remote, l.supplyW, l.item); err != nil {
			return res, err
		}
		amount := int64(l.qty) * price
		sum += amount
		if err := w.execOne(ctx, stNOInsertOrderLine, res.oID, in.d, in.w, i+1, l.item, l.supplyW, l.qty,
			cents(int(amount)), dist); err != nil {
			return res, err
		}
	}
	res.total = roundDiv(sum*(10000-disc)*(10000+wTax+dTax), 100000000)
	return res, nil
}

// roundDiv returns n/d rounded half away from zero (d > 0).
func roundDiv(n, d int64) int64 {
	if n < 0 {
		return -((-n + d/2) / d)
	}
	return (n + d/2) / d
}
