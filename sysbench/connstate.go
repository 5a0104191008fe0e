package sysbench

// How a worker's connection follows the event: statements made cancellable
// by KILL QUERY (MySQL), the transaction settled after a failed or
// cancelled event, and reconnecting.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"vmbench/dialect"
)

// rollbackTimeout bounds the ROLLBACK that settles a connection after a
// failed or cancelled event; past it the connection is discarded.
const rollbackTimeout = 5 * time.Second

// settle makes the transaction state of the worker's connection known
// after a failed attempt, and reports whether the connection can be kept.
//
// An event cancelled between two statements (Ctrl-C, the end of the run)
// or failed mid-transaction leaves the session inside its transaction:
// its row locks held and its changes visible to whoever uses the
// connection next, were it handed back to the pool so. Neither MySQL's
// cancellation (KILL QUERY ends the statement, not the transaction) nor
// the drivers roll it back. So settle sends ROLLBACK under a fresh context
// (not the cancelled one) bounded by rollbackTimeout; when that fails the
// connection is discarded (closed, never pooled), except on SQLite's "no
// transaction is active" (the failed statement was BEGIN, or SQLite has
// rolled back itself). Events without a transaction (--skip-trx and the
// single-statement workloads) run in autocommit and need nothing.
func (w *worker) settle(ctx context.Context) bool {
	if w.conn == nil {
		return false
	}
	if !w.dirty {
		return true
	}
	if !w.s.mix.trx {
		w.dirty = false
		return true
	}
	// A KILL QUERY sent for this event's cancellation must not end the
	// ROLLBACK: wait for one under way, and let none start until it is
	// done (a restarted attempt is killable again).
	w.killMu.Lock()
	w.busy.Store(false)
	w.killMu.Unlock()
	defer w.busy.Store(true)
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	defer cancel()
	if err := w.rollback(rctx); err != nil && !noActiveTransaction(err) {
		w.discard()
		return false
	}
	w.dirty = false
	return true
}

// noActiveTransaction reports SQLite's answer to a ROLLBACK when no
// transaction is open (SQLITE_ERROR "cannot rollback - no transaction is
// active"), which is harmless before a restart.
func noActiveTransaction(err error) bool {
	return strings.Contains(err.Error(), "no transaction is active")
}

func (w *worker) rollback(ctx context.Context) error {
	if w.conn == nil {
		return driverBadConn
	}
	if _, err := w.conn.ExecContext(ctx, w.s.d.Rollback()); err != nil {
		return &stmtError{w.s.d.Rollback(), err}
	}
	w.n.other++
	return nil
}

// discard closes the worker's connection for good (see closeConn).
func (w *worker) discard() {
	w.dirty = true
	w.closeConn()
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

// reconnect replaces the connection: backoff from reconnectMin doubling
// to reconnectMax until it succeeds, a fatal error occurs or ctx ends.
func (w *worker) reconnect(ctx context.Context) error {
	w.closeConn()
	wait := reconnectMin
	for {
		err := w.connect(ctx)
		if err == nil {
			w.h.Add(w.s.ctr.reconnects, 1)
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if c := dialect.Classify(err); c == dialect.Fatal {
			return fmt.Errorf("thread %d: reconnecting: %w", w.thread+1, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(wait*2, reconnectMax)
	}
}
