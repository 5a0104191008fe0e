package tpcc

import "context"

// stockLevelInput is what a terminal keys for a Stock-Level (TPC-C
// 2.8.1): its own warehouse and district, and a threshold.
type stockLevelInput struct {
	w, d      int
	threshold int
}

// genStockLevel draws a Stock-Level of the terminal's warehouse w and
// district d: threshold U[10,20].
func genStockLevel(r *Rand, w, d int) stockLevelInput {
	return stockLevelInput{w: w, d: d, threshold: r.Int(10, 20)}
}

// stockLevelOrders is how many of the district's latest orders a
// Stock-Level examines.
const stockLevelOrders = 20

// stockLevelResult is what a Stock-Level returns to its terminal.
type stockLevelResult struct {
	nextOID  int // d_next_o_id read
	lowStock int // distinct items of the last 20 orders with s_quantity < threshold
}

// stockLevel runs a Stock-Level (TPC-C 2.8.2), read-only.
func (w *worker) stockLevel(ctx context.Context, in stockLevelInput) (stockLevelResult, error) {
	var res stockLevelResult
	err := w.transact(ctx, "stock_level", w.d.Begin(), func(ctx context.Context) error {
		res = stockLevelResult{}
		if err := w.row(ctx, stSLNextOrder, args(in.w, in.d), &res.nextOID); err != nil {
			return err
		}
		return w.row(ctx, stSLLowStock, args(in.w, in.d, res.nextOID-stockLevelOrders, res.nextOID, in.threshold), &res.lowStock)
	})
	return res, err
}
