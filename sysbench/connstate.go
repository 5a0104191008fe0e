package sysbench

// How a worker's connection follows the event: statements made cancellable
// by KILL QUERY (MySQL), and the ROLLBACK that settles the transaction
// after a failed or cancelled event (the restarts, reconnects and
// discarding are dialect.TxRunner's).

import (
	"context"
	"database/sql"
	"strconv"
	"time"

	"vmbench/dialect"
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
	w.killMu.Lock()
	w.busy.Store(false)
	w.killMu.Unlock()
	defer w.busy.Store(true)
	if _, err := conn.ExecContext(ctx, w.s.d.Rollback()); err != nil {
		return &stmtError{w.s.d.Rollback(), err}
	}
	w.n.other++
	return nil
}

// stmtCtx returns the context the event's statements run under.
//
// With a cancellable context, go-sql-driver hands every statement to a
// watcher goroutine (and database/sql, were it used per statement, would
// start a goroutine per query): two to three goroutine wake-ups per
// statement, which cost a third of the client's CPU time on
// oltp_read_write and so skew the server's share of a shared machine. For
// MySQL the statements therefore run under a context without
// cancellation, and a cancellation of the event's context (Ctrl-C, or the
// end of the graceful stop) sends KILL QUERY for this worker's connection
// from a pooled connection, which ends a statement that waits (a lock
// wait, a long scan) at once. SQLite statements take ctx as it is.
func (w *worker) stmtCtx(ctx context.Context) context.Context {
	if w.s.d.Driver() != dialect.MySQL {
		return ctx
	}
	if ctx != w.watched {
		if w.stopWatch != nil {
			w.stopWatch()
		}
		w.watched, w.quiet = ctx, context.WithoutCancel(ctx)
		w.stopWatch = context.AfterFunc(ctx, w.killQuery)
	}
	return w.quiet
}

// killQuery ends the statement in flight on the worker's connection. A
// worker between events (the normal end of a run) is left alone.
func (w *worker) killQuery() {
	w.killMu.Lock()
	defer w.killMu.Unlock()
	id := w.connID.Load()
	if id == 0 || !w.busy.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), killTimeout)
	defer cancel()
	_, _ = w.s.db.ExecContext(ctx, "KILL QUERY "+strconv.FormatInt(id, 10))
}

// killTimeout bounds the KILL QUERY sent on cancellation.
const killTimeout = 5 * time.Second
