package tpcc

import (
	"context"
	"database/sql"
)

// deliveryInput is what a terminal keys for a Delivery (TPC-C 2.7.1).
type deliveryInput struct {
	w       int
	carrier int
}

// genDelivery draws a Delivery of home warehouse w: carrier U[1,10].
func genDelivery(r *Rand, w int) deliveryInput {
	return deliveryInput{w: w, carrier: r.Int(1, 10)}
}

// deliveryResult is what a Delivery did, district by district.
type deliveryResult struct {
	// delivered[d-1] is the order delivered in district d, 0 when the
	// district had no undelivered order (skipped).
	delivered [DistrictsPerWarehouse]int
	skipped   int
}

// delivery runs a Delivery (TPC-C 2.7.4) for all ten districts of the
// warehouse in one transaction, synchronously (TPC-C defers it to a
// queue; here its latency is the whole business transaction's), and
// counts the districts and those skipped.
func (w *worker) delivery(ctx context.Context, in deliveryInput) (deliveryResult, error) {
	res, err := transactResult(ctx, w, "delivery", w.d.BeginWrite(), w.deliveryBody, in)
	if err != nil {
		return res, err
	}
	w.h.AddToEvent(ctrDeliveryDistricts, DistrictsPerWarehouse)
	w.h.AddToEvent(ctrDeliverySkipped, int64(res.skipped))
	return res, nil
}

// deliveryBody is one attempt's statements.
//
// The oldest new order is read with an update lock, so that a second
// Delivery of the same warehouse waits for the first and then finds the
// next order instead of the one just delivered. Should the DELETE still
// find the row gone, the district counts as skipped, as an empty one.
func (w *worker) deliveryBody(ctx context.Context, in deliveryInput) (deliveryResult, error) {
	var res deliveryResult
	now := w.r.now()
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		var oldest sql.NullInt64
		if err := w.row(ctx, stDLOldestNewOrder, args(in.w, d), &oldest); err != nil {
			return res, err
		}
		if !oldest.Valid {
			res.skipped++
			continue
		}
		o := int(oldest.Int64)
		n, err := w.exec(ctx, stDLDeleteNewOrder, in.w, d, o)
		if err != nil {
			return res, err
		}
		if n != 1 {
			res.skipped++
			continue
		}
		var c int
		if err := w.row(ctx, stDLOrderCustomer, args(in.w, d, o), &c); err != nil {
			return res, err
		}
		if err := w.execOne(ctx, stDLOrderUpdate, in.carrier, in.w, d, o); err != nil {
			return res, err
		}
		if _, err := w.exec(ctx, stDLOrderLineUpdate, now, in.w, d, o); err != nil {
			return res, err
		}
		var sum int64
		if err := w.row(ctx, stDLOrderLineSum, args(in.w, d, o), &decimalScan{p: &sum, scale: scaleMoney, nullOK: true}); err != nil {
			return res, err
		}
		if err := w.execOne(ctx, stDLCustomerUpdate, cents(int(sum)), in.w, d, c); err != nil {
			return res, err
		}
		res.delivered[d-1] = o
	}
	return res, nil
}
