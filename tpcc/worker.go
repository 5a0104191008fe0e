package tpcc

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/oltp/hist"
)

// Reconnecting: the first retry waits reconnectMin, each failure doubles
// the wait up to reconnectMax, and reconnectTimeout bounds one reconnect
// in all (the run's context may end it sooner). maxReconnects bounds how
// often one transaction is restarted on a new connection.
const (
	reconnectMin     = 10 * time.Millisecond
	reconnectMax     = time.Second
	reconnectTimeout = 30 * time.Second
	maxReconnects    = 10
	// rollbackTimeout bounds the ROLLBACK after a failed or cancelled
	// attempt (see settle); past it the connection is discarded.
	rollbackTimeout = 5 * time.Second
)

// worker runs transactions on one connection, with every statement
// prepared on it. In a terminal-driven run it executes the transactions
// the terminals submit (Execute); with --threads it owns terminal
// number thread and runs its deck without waits (Event).
type worker struct {
	r      *runState
	db     *dialect.DB
	d      dialect.Dialect
	thread int // 0-based
	h      *hist.Handle
	conn   *sql.Conn
	ps     [numStmts]*sql.Stmt
	// dirty: conn may be inside a transaction (an attempt failed and no
	// ROLLBACK has succeeded since), so it must not go back to the pool.
	dirty bool

	// onRestart, if set (tests), is called before each restart of a
	// transaction, with the error that caused it.
	onRestart func(error)
}

var _ oltp.Executor = (*worker)(nil)

// newWorker opens the connection of worker thread (0-based) on db and
// prepares the statements of r on it; h receives its counters. A server
// limit hit on the way (too many connections, prepared statements) comes
// back with dialect.LimitHint's advice.
func newWorker(ctx context.Context, db *dialect.DB, r *runState, thread int, h *hist.Handle) (*worker, error) {
	w := &worker{r: r, db: db, d: db.Dialect, thread: thread, h: h}
	if err := w.connect(ctx); err != nil {
		if dialect.Classify(err) == dialect.Limit {
			return nil, fmt.Errorf("%w; %s", err, dialect.LimitHint(err))
		}
		return nil, err
	}
	return w, nil
}

// connect takes a connection from the pool and prepares every statement
// on it.
func (w *worker) connect(ctx context.Context) error {
	conn, err := w.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", w.db.Config, err)
	}
	w.conn = conn
	for i, text := range w.r.stmts.text {
		st, err := conn.PrepareContext(ctx, text)
		if err != nil {
			w.closeConn()
			return fmt.Errorf("preparing %s (%s): %w", stmtID(i), text, err)
		}
		w.ps[i] = st
	}
	return nil
}

// closeConn closes the statements and hands the connection back to the
// pool, which discards it when it is broken; a connection whose
// transaction state is unknown (dirty) is discarded.
func (w *worker) closeConn() {
	if w.dirty && w.conn != nil {
		// Returning driver.ErrBadConn from Raw makes database/sql close the
		// driver connection instead of pooling it; the server rolls back
		// what was open.
		_ = w.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	w.dirty = false
	for i, st := range w.ps {
		if st != nil {
			_ = st.Close()
			w.ps[i] = nil
		}
	}
	if w.conn != nil {
		_ = w.conn.Close()
		w.conn = nil
	}
}

// Close closes the statements and the connection.
func (w *worker) Close() error {
	w.closeConn()
	return nil
}

// Event runs the next transaction of the worker's own terminal, without
// keying or think time (--threads).
func (w *worker) Event(ctx context.Context) (int, error) {
	t := w.r.terms[w.thread]
	op := t.deck.draw(t.rnd)
	return op, w.Execute(ctx, op, w.thread)
}

// Execute draws the inputs of op from terminal term and runs it.
func (w *worker) Execute(ctx context.Context, op, term int) error {
	t := w.r.terms[term]
	c, n := w.r.consts, w.r.cfg.Warehouses
	var err error
	switch op {
	case opNewOrder:
		_, err = w.newOrder(ctx, genNewOrder(t.rnd, c, t.w, n))
	case opPayment:
		_, err = w.payment(ctx, genPayment(t.rnd, c, t.w, n))
	case opOrderStatus:
		_, err = w.orderStatus(ctx, genOrderStatus(t.rnd, c, t.w))
	case opDelivery:
		_, err = w.delivery(ctx, genDelivery(t.rnd, t.w))
	case opStockLevel:
		_, err = w.stockLevel(ctx, genStockLevel(t.rnd, t.w, t.d))
	default:
		return fmt.Errorf("tpcc: unknown operation %d", op)
	}
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("terminal %d (warehouse %d): %w", term+1, t.w, err)
	}
	return err
}

// errRollback is returned by a transaction body that ends on purpose with
// a rollback (New-Order's unused item): transact rolls back and reports
// success.
var errRollback = errors.New("rolled back on purpose")

// transact runs body as one database transaction started with begin
// (Dialect.Begin or BeginWrite) and committed at its end, restarting the
// whole of it with the same inputs after a deadlock, a lock timeout or a
// busy database (ROLLBACK first; at most Config.Retries restarts) and
// after a lost connection (a new connection, statements prepared again;
// at most maxReconnects). body must be repeatable: it starts from its
// inputs each time and keeps nothing of a failed attempt. Errors name the
// transaction; a cancelled ctx returns ctx.Err().
func (w *worker) transact(ctx context.Context, name, begin string, body func(ctx context.Context) error) error {
	restarts, reconnects := 0, 0
	for {
		err := w.attempt(ctx, begin, body)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			w.settle(ctx)
			return ctx.Err()
		}
		switch dialect.Classify(err) {
		case dialect.Retry:
			w.countRetryError(err)
			if restarts >= w.r.cfg.Retries {
				w.rollbackOrDrop(ctx)
				return fmt.Errorf("%s: gave up after %d restarts; last error: %w", name, restarts, err)
			}
			restarts++
			w.h.Add(ctrRetries, 1)
			w.rollbackOrDrop(ctx)
		case dialect.ConnLost:
			if reconnects >= maxReconnects {
				return fmt.Errorf("%s: gave up after %d reconnects; last error: %w", name, reconnects, err)
			}
			reconnects++
			if rerr := w.reconnect(ctx); rerr != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				return fmt.Errorf("%s: %w (after: %v)", name, rerr, err)
			}
		case dialect.Canceled:
			w.settle(ctx)
			return fmt.Errorf("%s: %w", name, err)
		case dialect.Limit:
			w.rollbackOrDrop(ctx)
			return fmt.Errorf("%s: %w; %s", name, err, dialect.LimitHint(err))
		default:
			w.rollbackOrDrop(ctx)
			return fmt.Errorf("%s: %w", name, err)
		}
		if w.onRestart != nil {
			w.onRestart(err)
		}
	}
}

// attempt runs body once between begin and COMMIT.
func (w *worker) attempt(ctx context.Context, begin string, body func(ctx context.Context) error) error {
	if w.conn == nil {
		return driver.ErrBadConn // a failed reconnect left none
	}
	w.dirty = true
	err := w.text(ctx, begin)
	if err == nil {
		if err = body(ctx); errors.Is(err, errRollback) {
			err = w.text(ctx, w.d.Rollback())
		} else if err == nil {
			err = w.text(ctx, w.d.Commit())
		}
	}
	if err == nil {
		w.dirty = false
	}
	return err
}

// text runs a statement that is not prepared (BEGIN, COMMIT, ROLLBACK).
func (w *worker) text(ctx context.Context, q string) error {
	if _, err := w.conn.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}

// rollbackOrDrop settles the connection after a failed attempt and, when
// it had to be discarded, connects again (on failure the next attempt
// finds no connection and tries again).
func (w *worker) rollbackOrDrop(ctx context.Context) {
	if !w.settle(ctx) && w.conn == nil {
		_ = w.reconnect(ctx)
	}
}

// settle makes the transaction state of the connection known after a
// failed attempt and reports whether the connection was kept.
//
// A transaction cancelled between two statements (Ctrl-C, the end of the
// run) or failed mid-way leaves the session inside it: its row locks held
// and its changes visible to the next user of the connection (NOPM's end
// reading among them), were it handed back to the pool so; the drivers
// neither roll back nor drop a connection whose context was cancelled
// between statements. So settle sends ROLLBACK under a fresh context (not
// the cancelled one) bounded by rollbackTimeout, and when that fails
// discards the connection (closed, never pooled), except on SQLite's "no
// transaction is active": the failed statement was BEGIN itself, or
// SQLite has rolled back already.
func (w *worker) settle(ctx context.Context) bool {
	if w.conn == nil {
		return false
	}
	if !w.dirty {
		return true
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	defer cancel()
	if err := w.text(rctx, w.d.Rollback()); err != nil && !strings.Contains(err.Error(), "no transaction is active") {
		w.closeConn() // dirty: discarded
		return false
	}
	w.dirty = false
	return true
}

// countRetryError counts a Retry-class error as a deadlock or a lock
// timeout (SQLite: the database stayed busy or locked past busy_timeout);
// other ones (MySQL 1020, SQL Server 3960) count only as restarts.
func (w *worker) countRetryError(err error) {
	code := dialect.Code(err)
	switch w.d.Driver() {
	case dialect.MySQL:
		switch code {
		case 1213: // ER_LOCK_DEADLOCK
			w.h.Add(ctrDeadlocks, 1)
		case 1205: // ER_LOCK_WAIT_TIMEOUT
			w.h.Add(ctrLockTimeouts, 1)
		}
	case dialect.SQLServer:
		switch code {
		case 1205: // chosen as deadlock victim
			w.h.Add(ctrDeadlocks, 1)
		case 1222: // lock request time out period exceeded
			w.h.Add(ctrLockTimeouts, 1)
		}
	case dialect.SQLite:
		switch code & 0xff {
		case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
			w.h.Add(ctrLockTimeouts, 1)
		}
	}
}

// reconnect replaces the connection: backoff from reconnectMin doubling to
// reconnectMax, until it succeeds, a fatal error occurs, reconnectTimeout
// passes or ctx ends.
func (w *worker) reconnect(ctx context.Context) error {
	w.closeConn()
	deadline := time.Now().Add(reconnectTimeout)
	wait := reconnectMin
	for {
		err := w.connect(ctx)
		if err == nil {
			w.h.Add(ctrReconnects, 1)
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if c := dialect.Classify(err); c != dialect.ConnLost {
			return fmt.Errorf("reconnecting: %w", err)
		}
		if time.Now().Add(wait).After(deadline) {
			return fmt.Errorf("reconnecting for %s: %w", reconnectTimeout, err)
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

// exec runs prepared statement id and returns the rows it affected.
func (w *worker) exec(ctx context.Context, id stmtID, params ...any) (int64, error) {
	res, err := w.ps[id].ExecContext(ctx, params...)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", id, err)
	}
	return n, nil
}

// execOne runs prepared statement id, which must affect exactly one row.
func (w *worker) execOne(ctx context.Context, id stmtID, params ...any) error {
	n, err := w.exec(ctx, id, params...)
	if err == nil && n != 1 {
		err = fmt.Errorf("%s %v: %d rows affected, want 1", id, params, n)
	}
	return err
}

// row runs prepared query id and scans its one row into dest. A missing
// row is an error wrapping sql.ErrNoRows.
func (w *worker) row(ctx context.Context, id stmtID, params []any, dest ...any) error {
	if err := w.ps[id].QueryRowContext(ctx, params...).Scan(dest...); err != nil {
		return fmt.Errorf("%s %v: %w", id, params, err)
	}
	return nil
}

// rows runs prepared query id and calls scan for each row.
func (w *worker) rows(ctx context.Context, id stmtID, params []any, scan func(*sql.Rows) error) error {
	rs, err := w.ps[id].QueryContext(ctx, params...)
	if err != nil {
		return fmt.Errorf("%s: %w", id, err)
	}
	defer rs.Close()
	for rs.Next() {
		if err := scan(rs); err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
	}
	if err := rs.Err(); err != nil {
		return fmt.Errorf("%s: %w", id, err)
	}
	return nil
}

// args lists a query's parameters, before its scan destinations.
func args(a ...any) []any { return a }
