package tpcc

import (
	"context"
	"database/sql"
)

// orderStatusInput is what a terminal keys for an Order-Status (TPC-C
// 2.6.1).
type orderStatusInput struct {
	w, d   int
	byName bool
	last   string
	c      int
}

// genOrderStatus draws an Order-Status of home warehouse w (TPC-C 2.6.1):
// district U[1,10]; in 60 % the customer is chosen by last name
// NURand(255), else by id NURand(1023).
func genOrderStatus(r *Rand, k Constants, w int) orderStatusInput {
	in := orderStatusInput{w: w, d: r.Int(1, DistrictsPerWarehouse)}
	if r.Int(1, 100) <= 60 {
		in.byName, in.last = true, r.CustomerLast(k)
	} else {
		in.c = r.CustomerID(k)
	}
	return in
}

// orderStatusResult is what an Order-Status returns to its terminal.
type orderStatusResult struct {
	c       int
	balance int64 // cents
	oID     int   // the customer's latest order, 0 when it has none
	carrier sql.NullInt64
	lines   int
	amount  int64 // Σ ol_amount of its lines, cents
}

// orderStatus runs an Order-Status (TPC-C 2.6.2), read-only, and counts
// selections by name.
func (w *worker) orderStatus(ctx context.Context, in orderStatusInput) (orderStatusResult, error) {
	res, err := transactResult(ctx, w, "order_status", w.d.Begin(), w.orderStatusBody, in)
	if err != nil {
		return res, err
	}
	if in.byName {
		w.h.AddToEvent(ctrOrderStatusByName, 1)
	}
	return res, nil
}

// orderStatusBody is one attempt's statements.
func (w *worker) orderStatusBody(ctx context.Context, in orderStatusInput) (orderStatusResult, error) {
	res := orderStatusResult{c: in.c}
	if in.byName {
		c, err := w.customerByName(ctx, in.w, in.d, in.last)
		if err != nil {
			return res, err
		}
		res.c = c
	}
	var first, middle, last string
	if err := w.row(ctx, stOSCustomer, args(in.w, in.d, res.c), moneyScan(&res.balance), &first, &middle, &last); err != nil {
		return res, err
	}
	var latest sql.NullInt64
	if err := w.row(ctx, stOSLastOrder, args(in.w, in.d, res.c), &latest); err != nil {
		return res, err
	}
	if !latest.Valid {
		return res, nil // no order yet: nothing more to show
	}
	res.oID = int(latest.Int64)
	var entry any
	if err := w.row(ctx, stOSOrder, args(in.w, in.d, res.oID), &entry, &res.carrier); err != nil {
		return res, err
	}
	err := w.rows(ctx, stOSOrderLines, args(in.w, in.d, res.oID), func(rs rowScanner) error {
		var item, supplyW, qty int
		var amount int64
		var delivered any
		if err := rs.Scan(&item, &supplyW, &qty, moneyScan(&amount), &delivered); err != nil {
			return err
		}
		res.lines++
		res.amount += amount
		return nil
	})
	return res, err
}
