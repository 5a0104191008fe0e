package sysbench

// How a worker's connection follows the event: the ROLLBACK that settles
// the transaction after a failed or cancelled event, shielded from the
// KILL QUERY of dialect.Killer (the restarts, reconnects and discarding
// are dialect.TxRunner's).

import (
	"context"
	"database/sql"
)

// rollback is the worker's dialect.TxHooks.Rollback: the ROLLBACK with
// which the runner settles the connection after a failed or cancelled
// event (see dialect.TxRunner), counted as an other query. Events without
// a transaction (--skip-trx and the single-statement workloads) run in
// autocommit and need none. A KILL QUERY sent for this event's
// cancellation must not end the ROLLBACK: it waits for one under way,
// and lets none start until it is done (a restarted attempt is killable
// again).
func (w *worker) rollback(ctx context.Context, conn *sql.Conn) error {
	if !w.s.mix.trx {
		return nil
	}
	return w.kill.Settle(func() error {
		if _, err := conn.ExecContext(ctx, w.s.d.Rollback()); err != nil {
			return &stmtError{w.s.d.Rollback(), err}
		}
		w.n.other++
		return nil
	})
}
