package tpcc

import (
	"context"
	"fmt"
)

// paymentInput is what a terminal keys for a Payment (TPC-C 2.5.1).
type paymentInput struct {
	w, d   int // home warehouse and the district paid to
	cw, cd int // the customer's warehouse and district
	// The customer: by last name when byName, else by id.
	byName bool
	last   string
	c      int
	amount int // h_amount in cents
}

// genPayment draws a Payment of home warehouse w out of warehouses
// (TPC-C 2.5.1): district U[1,10]; in 85 % the customer is of the home
// warehouse and district, in 15 % (only when warehouses > 1) of another
// warehouse chosen uniformly and a district U[1,10]; in 60 % the customer
// is chosen by last name NURand(255), else by id NURand(1023); amount
// U[1.00, 5000.00].
func genPayment(r *Rand, k Constants, w, warehouses int) paymentInput {
	in := paymentInput{w: w, d: r.Int(1, DistrictsPerWarehouse)}
	in.cw, in.cd = w, in.d
	if r.Int(1, 100) > 85 && warehouses > 1 {
		in.cw, in.cd = otherWarehouse(r, w, warehouses), r.Int(1, DistrictsPerWarehouse)
	}
	if r.Int(1, 100) <= 60 {
		in.byName, in.last = true, r.CustomerLast(k)
	} else {
		in.c = r.CustomerID(k)
	}
	in.amount = r.Int(100, 500000)
	return in
}

// paymentResult is what a Payment returns to its terminal.
type paymentResult struct {
	c       int    // the customer paid for
	credit  string // c_credit
	balance int64  // c_balance after the payment, cents
}

// maxCData is the length of c_data.
const maxCData = 500

// payment runs a Payment (TPC-C 2.5.2) and counts remote payments and
// selections by name.
func (w *worker) payment(ctx context.Context, in paymentInput) (paymentResult, error) {
	res, err := transactResult(ctx, w, "payment", w.d.BeginWrite(), w.paymentBody, in)
	if err != nil {
		return res, err
	}
	if in.cw != in.w {
		w.h.AddToEvent(ctrRemotePayments, 1)
	}
	if in.byName {
		w.h.AddToEvent(ctrPaymentsByName, 1)
	}
	return res, nil
}

// paymentBody is one attempt's statements.
func (w *worker) paymentBody(ctx context.Context, in paymentInput) (paymentResult, error) {
	var res paymentResult
	amount := cents(in.amount)
	var wName, dName string
	var street1, street2, city, state, zip string
	if err := w.row(ctx, stPayWarehouse, args(in.w), &wName, &street1, &street2, &city, &state, &zip); err != nil {
		return res, err
	}
	if err := w.execOne(ctx, stPayWarehouseUpdate, amount, in.w); err != nil {
		return res, err
	}
	if err := w.row(ctx, stPayDistrict, args(in.w, in.d), &dName, &street1, &street2, &city, &state, &zip); err != nil {
		return res, err
	}
	if err := w.execOne(ctx, stPayDistrictUpdate, amount, in.w, in.d); err != nil {
		return res, err
	}
	res.c = in.c
	if in.byName {
		c, err := w.customerByName(ctx, in.cw, in.cd, in.last)
		if err != nil {
			return res, err
		}
		res.c = c
	}
	var first, middle, last, phone, cData string
	var since any
	var limit, disc int64
	if err := w.row(ctx, stPayCustomer, args(in.cw, in.cd, res.c), &first, &middle, &last, &street1, &street2, &city,
		&state, &zip, &phone, &since, &res.credit, moneyScan(&limit), rateScan(&disc), moneyScan(&res.balance), &cData); err != nil {
		return res, err
	}
	res.balance -= int64(in.amount)
	if res.credit == "BC" {
		cData = fmt.Sprintf("%d %d %d %d %d %s|%s", res.c, in.cd, in.cw, in.d, in.w, amount, cData)
		if len(cData) > maxCData {
			cData = cData[:maxCData]
		}
		if err := w.execOne(ctx, stPayCustomerUpdateBC, amount, amount, cData, in.cw, in.cd, res.c); err != nil {
			return res, err
		}
	} else if err := w.execOne(ctx, stPayCustomerUpdate, amount, amount, in.cw, in.cd, res.c); err != nil {
		return res, err
	}
	hData := wName + "    " + dName
	if err := w.execOne(ctx, stPayInsertHistory, res.c, in.cd, in.cw, in.d, in.w, w.r.now(), amount, hData); err != nil {
		return res, err
	}
	return res, nil
}

// customerByName returns the customer of district (cw, cd) with last name
// last that TPC-C 2.5.2.2 selects: of all of them ordered by c_first, the
// one at position ⌈n/2⌉ (counting from 1).
func (w *worker) customerByName(ctx context.Context, cw, cd int, last string) (int, error) {
	var ids []int
	err := w.rows(ctx, stCustomerByName, args(cw, cd, last), func(rs rowScanner) error {
		var id int
		if err := rs.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("%s: no customer named %s in warehouse %d district %d (is the load complete?)", stCustomerByName, last, cw, cd)
	}
	return ids[(len(ids)-1)/2], nil
}
