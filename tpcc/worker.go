package tpcc

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/oltp/hist"
)

// maxReconnects bounds how often one transaction is restarted on a new
// connection.
const maxReconnects = 10

// txPolicy is how a worker restarts a transaction (see transact): after a
// Retry-class error at most retries times, after a lost connection at
// most maxReconnects times; reconnecting waits 10 ms after the first
// failed connect, doubling up to 1 s, for 30 s at most (the run's context
// may end it sooner), and gives up on any error but a lost connection.
func txPolicy(retries int) dialect.TxPolicy {
	return dialect.TxPolicy{
		MaxRestarts: retries, MaxReconnects: maxReconnects,
		ReconnectMin: 10 * time.Millisecond, ReconnectMax: time.Second, ReconnectTimeout: 30 * time.Second,
	}
}

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
	tx     *dialect.TxRunner // owns conn: restarts, reconnects, settles
	conn   *sql.Conn         // tx's connection while prepared (nil when it has none)
	ds     [numStmts]rawStmt // on conn's driver connection (see rawstmt.go)
	dc     rawConn           // conn's driver connection while an attempt runs
	// On PostgreSQL: the PGExec of conn's driver connection while
	// prepared, and the server-side name of each statement on it.
	pe      *dialect.PGExec
	pgNames [numStmts]string

	// Scratch space reused by every statement: parameters, a row's
	// values, New-Order's batched keys and lines (see newOrderBody).
	nv      [9 * MaxOrderLines]driver.NamedValue
	vals    []driver.Value
	rr      rawRows
	params  [9 * MaxOrderLines]any
	noLines [MaxOrderLines]lineState
	raw     [2]sql.RawBytes // columns read but not kept (i_name, i_data, s_data)

	// Cancellation (see cancel.go): live is the context of the attempt
	// running; MySQL statements run under kill's context, and a cancelled
	// live context kills the statement in flight.
	live context.Context
	kill *dialect.Killer

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
	w := &worker{r: r, db: db, d: db.Dialect, thread: thread, h: h, kill: dialect.NewKiller(db)}
	hooks := dialect.TxHooks{Prepare: w.prepare, Release: w.release, Observe: w.observe}
	if w.d.Driver() == dialect.MySQL {
		hooks.Rollback = w.rollback
	}
	w.tx = dialect.NewTxRunner(db, txPolicy(r.cfg.Retries), hooks)
	if err := w.tx.Connect(ctx); err != nil {
		if dialect.IsServerLimit(err) {
			return nil, fmt.Errorf("%w; %s", err, dialect.LimitHint(err))
		}
		return nil, err
	}
	return w, nil
}

// prepare is the worker's dialect.TxHooks.Prepare: it prepares every
// statement on conn's driver connection.
func (w *worker) prepare(ctx context.Context, conn *sql.Conn) error {
	w.conn = conn
	if err := w.readConnID(ctx, conn); err != nil {
		return err
	}
	return conn.Raw(func(dc any) error { return w.prepareRaw(ctx, dc) })
}

// release is the worker's dialect.TxHooks.Release: it closes the
// statements before the runner closes or discards conn.
func (w *worker) release(conn *sql.Conn) {
	// A broken connection fails Raw; its statements went with it.
	_ = conn.Raw(func(any) error { w.closeRaw(); return nil })
	clear(w.ds[:])
	w.conn = nil
	w.kill.SetConnID(0)
}

// Close closes the statements and the connection.
func (w *worker) Close() error {
	w.kill.Close()
	w.tx.Close()
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
// at most maxReconnects), as dialect.TxRunner does. body must be
// repeatable: it starts from its inputs each time and keeps nothing of a
// failed attempt. Errors name the transaction; a cancelled ctx returns
// ctx.Err().
func (w *worker) transact(ctx context.Context, name, begin string, body func(ctx context.Context) error) error {
	sctx := w.kill.Context(ctx)
	w.kill.Enter()
	err := w.tx.Run(ctx, func(*sql.Conn) error { return w.attempt(ctx, sctx, begin, body) })
	w.kill.Leave()
	var gu *dialect.GiveUpError
	var re *dialect.ReconnectError
	switch {
	case err == nil || errors.Is(err, ctx.Err()):
		return err
	case errors.As(err, &gu) && gu.Class == dialect.ConnLost:
		return fmt.Errorf("%s: gave up after %d reconnects; last error: %w", name, gu.Reconnects, gu.Err)
	case gu != nil:
		return fmt.Errorf("%s: gave up after %d restarts; last error: %w", name, gu.Restarts, gu.Err)
	case errors.As(err, &re):
		// re's failure to reconnect is the error; the failure that
		// lost the connection is told, not wrapped.
		return fmt.Errorf("%s: %w (after: %v)", name, re, re.Cause) //nolint:errorlint // see above
	case dialect.IsServerLimit(err):
		return fmt.Errorf("%s: %w; %s", name, err, dialect.LimitHint(err))
	}
	return fmt.Errorf("%s: %w", name, err)
}

// transactResult runs body(ctx, in) as transaction name (transact) and
// returns the result of its last attempt with transact's error.
func transactResult[In, Out any](ctx context.Context, w *worker, name, begin string, body func(context.Context, In) (Out, error), in In) (Out, error) {
	var res Out
	err := w.transact(ctx, name, begin, func(ctx context.Context) error {
		var err error
		res, err = body(ctx, in)
		return err
	})
	return res, err
}

// attempt runs body once between begin and COMMIT, all on the driver
// connection, with statement context sctx (stmtCtx of live).
func (w *worker) attempt(live, sctx context.Context, begin string, body func(ctx context.Context) error) error {
	return w.conn.Raw(func(dc any) error {
		w.dc, w.live = dc.(rawConn), live // prepareRaw checked dc
		defer func() { w.dc, w.live = nil, nil }()
		return w.rawAttempt(sctx, begin, body)
	})
}

func (w *worker) rawAttempt(ctx context.Context, begin string, body func(ctx context.Context) error) error {
	err := w.text(ctx, begin)
	if err == nil {
		if err = body(ctx); errors.Is(err, errRollback) {
			err = w.text(ctx, w.d.Rollback())
		} else if err == nil {
			err = w.text(ctx, w.d.Commit())
		}
	}
	return err
}

// text runs a statement that is not prepared (BEGIN, COMMIT, ROLLBACK).
func (w *worker) text(ctx context.Context, q string) error {
	if err := w.live.Err(); err != nil {
		return err
	}
	if w.pe != nil {
		if err := w.pe.Simple(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		return nil
	}
	if _, err := w.dc.ExecContext(ctx, q, nil); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}

// observe is the worker's dialect.TxHooks.Observe: a Retry-class error
// counts as a deadlock, a lock timeout (SQLite: the database stayed busy
// or locked past busy_timeout) or a serialization failure (PostgreSQL
// 40001, under --isolation repeatable-read or serializable); other ones,
// MySQL 1020 and SQL Server 3960, count only as restarts. Each restart
// after one counts as a retry, each new connection as a reconnect.
func (w *worker) observe(e dialect.TxEvent) {
	switch {
	case e.Kind == dialect.TxFailed && e.Class == dialect.Retry && e.Action != dialect.TxEnd:
		switch {
		case dialect.IsDeadlock(e.Err):
			w.h.Add(ctrDeadlocks, 1)
		case dialect.IsLockTimeout(e.Err):
			w.h.Add(ctrLockTimeouts, 1)
		case dialect.IsSerializationFailure(e.Err):
			w.h.Add(ctrSerialization, 1)
		}
	case e.Kind == dialect.TxRestarting:
		if e.Class == dialect.Retry {
			w.h.Add(ctrRetries, 1)
		}
		if w.onRestart != nil {
			w.onRestart(e.Err)
		}
	case e.Kind == dialect.TxReconnected:
		w.h.Add(ctrReconnects, 1)
	}
}

// exec runs prepared statement id and returns the rows it affected.
func (w *worker) exec(ctx context.Context, id stmtID, params ...any) (int64, error) {
	n, err := w.rawExec(ctx, id, params)
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

// row runs prepared query id and scans its first row into dest. A missing
// row is an error wrapping sql.ErrNoRows.
func (w *worker) row(ctx context.Context, id stmtID, params []any, dest ...any) error {
	n, err := w.rawQuery(ctx, id, params, func(r *rawRows) (bool, error) { return false, r.Scan(dest...) })
	if err == nil && n == 0 {
		err = sql.ErrNoRows
	}
	if err != nil {
		return fmt.Errorf("%s %v: %w", id, params, err)
	}
	return nil
}

// rows runs prepared query id and calls scan for each row.
func (w *worker) rows(ctx context.Context, id stmtID, params []any, scan func(rowScanner) error) error {
	_, err := w.rawQuery(ctx, id, params, func(r *rawRows) (bool, error) { return true, scan(r) })
	if err != nil {
		return fmt.Errorf("%s: %w", id, err)
	}
	return nil
}

// args lists a query's parameters, before its scan destinations.
func args(a ...any) []any { return a }
