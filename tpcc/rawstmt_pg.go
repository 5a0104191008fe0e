package tpcc

import (
	"context"
	"database/sql/driver"
	"fmt"

	"vmbench/dialect"
)

// On PostgreSQL the worker's statements run through dialect.PGExec, pgx's
// native pgconn interface, as sysbench's do, instead of pgx/v5/stdlib's
// driver statements: the same messages go over the wire (Bind and
// Execute of the statement prepared on the connection), but parameters
// are written as text into one reused buffer and the rows' columns reach
// rawRows as the server's text (nil for NULL), which assign and
// decimalScan parse, instead of stdlib's decoding of every column into a
// driver.Value first. Measured on PostgreSQL 15 on a busy 2-core machine
// (other tests ran beside it), the deck's mix on 4 workers without waits:
//   - BenchmarkTransactionPG (-benchtime 3000x -count 4, both paths in one
//     process): user CPU per transaction 289-324 µs against 331-388 µs
//     through stdlib (medians 303 and 352, -14 %), user+system 816-922
//     against 878-1,011 µs, 10.4 kB in 340 allocations against 19.2 kB in
//     438;
//   - `tpcc run --db-driver postgres --warehouses 2 --threads 4
//     --wait-scale 0 --time 15`, two builds A B A B over 5 rounds: client
//     CPU per transaction 0.97 (0.84-1.04) of stdlib's, TPS 1.02
//     (0.90-1.16): within the noise of the shared machine.

// preparePG prepares every statement of the run through pe, the PGExec of
// the worker's driver connection.
func (w *worker) preparePG(ctx context.Context, pe *dialect.PGExec) error {
	for i, text := range w.r.stmts.text {
		name, err := pe.Prepare(ctx, text)
		if err != nil {
			return fmt.Errorf("preparing %s (%s): %w", stmtID(i), text, err)
		}
		w.pgNames[i] = name
	}
	w.pe = pe
	return nil
}

// pgQuery is rawQuery on PostgreSQL: statement id with the bound
// parameters nv, each row's columns handed to row as rawRows values.
func (w *worker) pgQuery(ctx context.Context, id stmtID, nv []driver.NamedValue, row func(*rawRows) (bool, error)) (int, error) {
	r := &w.rr
	return w.pe.Rows(ctx, w.pgNames[id], nv, func(cols [][]byte) (bool, error) {
		if cap(w.vals) < len(cols) {
			w.vals = make([]driver.Value, len(cols))
		}
		r.vals = w.vals[:len(cols)]
		for i, c := range cols {
			if c == nil {
				r.vals[i] = nil // NULL: no typed nil []byte
			} else {
				r.vals[i] = c
			}
		}
		return row(r)
	})
}
