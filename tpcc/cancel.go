package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"vmbench/dialect"
)

// How a worker's MySQL statements are cancelled. With a cancellable
// context go-sql-driver hands every statement to its watcher goroutine
// and back (two goroutine hand-offs per statement, which showed in the
// client's CPU profile and its context switches). So, as sysbench's
// worker does, MySQL statements run under a context without cancellation
// (stmtCtx), each first checks the transaction's own context (live) so
// that a cancelled run starts no further statement, and a cancellation of
// that context while a statement is in flight (Ctrl-C, the end of the
// run) sends KILL QUERY for the worker's connection from a pooled
// connection (killQuery), which ends a statement waiting for a lock at
// once. Other databases' statements take the context as it is.

// killTimeout bounds the KILL QUERY sent on cancellation.
const killTimeout = 5 * time.Second

// stmtCtx returns the context the statements of a transaction under ctx
// run with: ctx itself except for MySQL (see above).
func (w *worker) stmtCtx(ctx context.Context) context.Context {
	if w.d.Driver() != dialect.MySQL {
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

// readConnID stores the MySQL connection id of conn for killQuery.
func (w *worker) readConnID(ctx context.Context, conn *sql.Conn) error {
	if w.d.Driver() != dialect.MySQL {
		return nil
	}
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		return fmt.Errorf("SELECT CONNECTION_ID(): %w", err)
	}
	w.connID.Store(id)
	return nil
}

// killQuery ends the statement in flight on the worker's connection. A
// worker between transactions, or settling one with ROLLBACK, is left
// alone.
func (w *worker) killQuery() {
	w.killMu.Lock()
	defer w.killMu.Unlock()
	id := w.connID.Load()
	if id == 0 || !w.busy.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), killTimeout)
	defer cancel()
	_, _ = w.db.ExecContext(ctx, "KILL QUERY "+strconv.FormatInt(id, 10))
}

// rollback is the worker's dialect.TxHooks.Rollback on MySQL: the
// runner's ROLLBACK, which a KILL QUERY sent for the transaction's
// cancellation must not end: it waits for one under way and lets none
// start until the ROLLBACK is done.
func (w *worker) rollback(ctx context.Context, conn *sql.Conn) error {
	w.killMu.Lock()
	w.busy.Store(false)
	w.killMu.Unlock()
	defer w.busy.Store(true)
	q := w.d.Rollback()
	if _, err := conn.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}
