package dialect

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"time"
)

// RollbackTimeout bounds the ROLLBACK with which a TxRunner settles its
// connection after a failed or cancelled attempt; past it the connection
// is discarded.
const RollbackTimeout = 5 * time.Second

// TxRunner runs one worker's transactions on a connection of its own: it
// takes the connection from the pool and has the caller prepare its
// statements on it (TxHooks.Prepare), runs each transaction as attempts
// of the caller's function, and after a failed attempt decides, by the
// error's Class and a TxPolicy, whether to run it again:
//
//   - Retry (and what TxPolicy.Restartable admits): ROLLBACK, then run
//     again on the same connection (TxRestart);
//   - ConnLost: a new connection with backoff, statements prepared again,
//     then run again (TxReconnect);
//   - a restart limit reached: a *GiveUpError (TxGiveUp);
//   - anything else, or the caller's context ended: the error (TxEnd).
//
// A connection whose transaction state is unknown (an attempt failed or
// was cancelled) is settled: ROLLBACK under a fresh context bounded by
// RollbackTimeout, and when that fails the connection is discarded
// (closed, never pooled), so no transaction, locks or uncommitted changes
// survive into the pool. TxHooks.Observe hears every failure, restart and
// reconnect, for the caller's counters. A TxRunner is used by one
// goroutine at a time.
type TxRunner struct {
	// Policy may be changed between calls of Run.
	Policy TxPolicy

	db    *DB
	hooks TxHooks
	conn  *sql.Conn
	// dirty: conn may be inside a transaction (an attempt failed and no
	// ROLLBACK has succeeded since), so it must not go back to the pool.
	dirty bool

	// now and sleep are the clock of the reconnect backoff; tests replace
	// them.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
}

// TxPolicy says when a TxRunner runs a transaction again and how it
// reconnects.
type TxPolicy struct {
	// Restartable reports whether an error of class Retry, Fatal or Limit
	// restarts the transaction (after a ROLLBACK) instead of ending it.
	// Nil: errors of class Retry do, no others.
	Restartable func(err error, c Class) bool
	// MaxRestarts bounds the restarts of one transaction after restartable
	// errors, MaxReconnects those after lost connections; the error past
	// the bound gives up. Negative: no bound.
	MaxRestarts, MaxReconnects int
	// MaxFailures bounds the failed attempts of one transaction in all,
	// restarts of both kinds together: the MaxFailures-th failure gives
	// up. 0: no bound of its own.
	MaxFailures int
	// Reconnecting waits ReconnectMin (at least 1 ms) after the first
	// failed connect, doubling up to ReconnectMax; ReconnectTimeout bounds one reconnect
	// in all (0: only the caller's context does).
	ReconnectMin, ReconnectMax, ReconnectTimeout time.Duration
	// KeepConnecting reports whether a connect that failed with an error
	// of class c is tried again. Nil: only class ConnLost is.
	KeepConnecting func(c Class) bool
}

// TxHooks are the caller's parts of a TxRunner.
type TxHooks struct {
	// Prepare readies a new connection (prepares the caller's statements
	// on it); it is required. When it fails, the runner calls Release and
	// hands the connection back to the pool.
	Prepare func(ctx context.Context, conn *sql.Conn) error
	// Release, if set, closes what Prepare made, before the runner closes
	// or discards conn.
	Release func(conn *sql.Conn)
	// Rollback, if set, replaces the runner's ROLLBACK (Dialect.Rollback)
	// when it settles the connection; nil error means the transaction is
	// over.
	Rollback func(ctx context.Context, conn *sql.Conn) error
	// Observe, if set, is told of every failed attempt, restart and
	// reconnect (see TxEvent).
	Observe func(TxEvent)
}

// TxAction is what follows a failed attempt.
type TxAction int

const (
	// TxRestart means the connection is settled (ROLLBACK, or discarded
	// and replaced) and the transaction runs again.
	TxRestart TxAction = iota + 1
	// TxReconnect means the connection is replaced with a new one, its
	// statements prepared again, and the transaction runs again.
	TxReconnect
	// TxGiveUp means a restart limit of the TxPolicy is reached; Run
	// returns a *GiveUpError.
	TxGiveUp
	// TxEnd means the error ends the transaction (not restartable, of
	// class Canceled, or the caller's context ended); Run returns it.
	TxEnd
)

// TxEventKind says what a TxEvent reports.
type TxEventKind int

const (
	// TxFailed reports that an attempt failed with Err of Class; Action
	// says what follows.
	TxFailed TxEventKind = iota + 1
	// TxRestarting reports that after the failure in Err (Action
	// TxRestart or TxReconnect) the connection is ready and the
	// transaction is about to run again.
	TxRestarting
	// TxReconnected reports that a new connection is ready, its
	// statements prepared.
	TxReconnected
)

// TxEvent is what TxHooks.Observe is told.
type TxEvent struct {
	Kind   TxEventKind
	Err    error    // the failed attempt's error (TxFailed, TxRestarting)
	Class  Class    // Classify(Err)
	Action TxAction // what follows the failure (TxFailed, TxRestarting)
}

// GiveUpError is Run's error when a transaction failed more often in a
// row than the TxPolicy allows. It unwraps to the last failure, so
// Classify, Name and the predicates see that.
type GiveUpError struct {
	Err        error // the last failure
	Class      Class // Classify(Err)
	Restarts   int   // restarts after restartable errors before giving up
	Reconnects int   // restarts on a new connection before giving up
}

func (e *GiveUpError) Error() string {
	return fmt.Sprintf("gave up after %d restarts and %d reconnects; last error: %v", e.Restarts, e.Reconnects, e.Err)
}

func (e *GiveUpError) Unwrap() error { return e.Err }

// ReconnectError is the error of a reconnect that failed for good: a
// connect error that KeepConnecting refuses, or TxPolicy.ReconnectTimeout
// passed. It unwraps to the connect error.
type ReconnectError struct {
	Err     error         // the last connect error
	Cause   error         // the failure that made Run reconnect; nil from Reconnect
	Timeout time.Duration // ReconnectTimeout when it passed, else 0
}

func (e *ReconnectError) Error() string {
	if e.Timeout > 0 {
		return fmt.Sprintf("reconnecting for %s: %v", e.Timeout, e.Err)
	}
	return "reconnecting: " + e.Err.Error()
}

func (e *ReconnectError) Unwrap() error { return e.Err }

// NewTxRunner returns a runner on db with policy p and hooks h
// (h.Prepare is required). It holds no connection until Connect.
func NewTxRunner(db *DB, p TxPolicy, h TxHooks) *TxRunner {
	return &TxRunner{Policy: p, db: db, hooks: h, now: time.Now, sleep: sleepCtx}
}

// Conn returns the runner's connection, or nil when it holds none (a
// failed reconnect, or before Connect).
func (r *TxRunner) Conn() *sql.Conn { return r.conn }

// Connect takes a connection from the pool and prepares it, once, without
// backoff. Errors: "connecting to <config>: <cause>" from the pool, or
// Prepare's.
func (r *TxRunner) Connect(ctx context.Context) error {
	conn, err := r.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", r.db.Config, err)
	}
	r.conn = conn
	if err := r.hooks.Prepare(ctx, conn); err != nil {
		r.closeConn()
		return err
	}
	return nil
}

// Close releases the connection: back to the pool when its transaction
// state is known, else discarded.
func (r *TxRunner) Close() { r.closeConn() }

// closeConn calls Release, then discards conn when dirty (database/sql
// closes a driver connection whose Raw returns driver.ErrBadConn instead
// of pooling it; the server rolls back what was open) or hands it back.
func (r *TxRunner) closeConn() {
	if r.conn == nil {
		return
	}
	if r.hooks.Release != nil {
		r.hooks.Release(r.conn)
	}
	if r.dirty {
		_ = r.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	_ = r.conn.Close()
	r.conn, r.dirty = nil, false
}

// Run runs one transaction: attempt, on the runner's connection, until it
// succeeds, restarting it as the TxPolicy says (see TxRunner). attempt
// must be repeatable (it starts from its inputs each time) and does the
// whole transaction, BEGIN to COMMIT. Errors: ctx.Err() when ctx ended;
// a *GiveUpError; a *ReconnectError; else the failed attempt's error.
func (r *TxRunner) Run(ctx context.Context, attempt func(conn *sql.Conn) error) error {
	var n txCounts
	for {
		err := r.attempt(attempt)
		if err == nil {
			return nil
		}
		ev := r.decide(ctx, err, &n)
		r.observe(ev)
		switch ev.Action {
		case TxEnd:
			r.settle(ctx)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		case TxGiveUp:
			if ev.Class != ConnLost {
				r.settle(ctx)
			}
			return &GiveUpError{Err: err, Class: ev.Class, Restarts: n.restarts, Reconnects: n.reconnects}
		case TxRestart:
			if r.settle(ctx) {
				break
			}
			fallthrough // discarded: a new connection
		case TxReconnect:
			if rerr := r.reconnect(ctx, err); rerr != nil {
				return rerr
			}
		}
		ev.Kind = TxRestarting
		r.observe(ev)
	}
}

// txCounts are the restarts of one Run so far.
type txCounts struct{ restarts, reconnects, failures int }

// attempt runs fn once; a runner without a connection fails it with
// driver.ErrBadConn (class ConnLost), so that Run reconnects.
func (r *TxRunner) attempt(fn func(*sql.Conn) error) error {
	if r.conn == nil {
		return driver.ErrBadConn
	}
	r.dirty = true
	err := fn(r.conn)
	if err == nil {
		r.dirty = false
	}
	return err
}

// decide returns the TxFailed event of err, its Action chosen by the
// policy and the counts so far, and counts it.
func (r *TxRunner) decide(ctx context.Context, err error, n *txCounts) TxEvent {
	p := &r.Policy
	ev := TxEvent{Kind: TxFailed, Err: err, Class: Classify(err), Action: TxEnd}
	switch {
	case ctx.Err() != nil || ev.Class == Canceled:
	case ev.Class == ConnLost:
		ev.Action = TxReconnect
		if p.MaxReconnects >= 0 && n.reconnects >= p.MaxReconnects {
			ev.Action = TxGiveUp
		}
	case r.restartable(err, ev.Class):
		ev.Action = TxRestart
		if p.MaxRestarts >= 0 && n.restarts >= p.MaxRestarts {
			ev.Action = TxGiveUp
		}
	}
	if ev.Action == TxEnd {
		return ev
	}
	n.failures++
	if p.MaxFailures > 0 && n.failures >= p.MaxFailures {
		ev.Action = TxGiveUp
	}
	switch ev.Action {
	case TxRestart:
		n.restarts++
	case TxReconnect:
		n.reconnects++
	case TxGiveUp, TxEnd: // nothing more is tried
	}
	return ev
}

func (r *TxRunner) restartable(err error, c Class) bool {
	if r.Policy.Restartable == nil {
		return c == Retry
	}
	return r.Policy.Restartable(err, c)
}

func (r *TxRunner) observe(ev TxEvent) {
	if r.hooks.Observe != nil {
		r.hooks.Observe(ev)
	}
}

// settle makes the transaction state of the connection known after a
// failed attempt and reports whether the connection was kept.
//
// An attempt cancelled between two statements (Ctrl-C, the end of the
// run) or failed mid-transaction leaves the session inside its
// transaction: its row locks held and its changes visible to the next user
// of the connection, were it handed back to the pool so; neither the
// servers' cancellation (MySQL's KILL QUERY ends the statement, not the
// transaction) nor the drivers roll it back. So settle sends ROLLBACK
// under a fresh context (not the cancelled one) bounded by
// RollbackTimeout, and when that fails discards the connection, except on
// IsNoActiveTransaction (the failed statement was BEGIN itself, or the
// server has rolled back already).
func (r *TxRunner) settle(ctx context.Context) bool {
	if r.conn == nil {
		return false
	}
	if !r.dirty {
		return true
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RollbackTimeout)
	defer cancel()
	if err := r.rollback(rctx); err != nil && !IsNoActiveTransaction(err) {
		r.closeConn() // dirty: discarded
		return false
	}
	r.dirty = false
	return true
}

func (r *TxRunner) rollback(ctx context.Context) error {
	if r.hooks.Rollback != nil {
		return r.hooks.Rollback(ctx, r.conn)
	}
	q := r.db.Dialect.Rollback()
	if _, err := r.conn.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}

// Reconnect replaces the connection (the old one is released, discarded
// when its state is unknown) with a new one, prepared: it tries Connect
// until it succeeds, waiting ReconnectMin after the first failure and
// doubling the wait up to ReconnectMax, until a connect error that
// KeepConnecting refuses, ReconnectTimeout passing (*ReconnectError) or
// ctx ending (ctx.Err()). Observe hears TxReconnected on success.
func (r *TxRunner) Reconnect(ctx context.Context) error { return r.reconnect(ctx, nil) }

func (r *TxRunner) reconnect(ctx context.Context, cause error) error {
	r.closeConn()
	p := &r.Policy
	var deadline time.Time
	if p.ReconnectTimeout > 0 {
		deadline = r.now().Add(p.ReconnectTimeout)
	}
	wait := max(p.ReconnectMin, time.Millisecond)
	for {
		err := r.Connect(ctx)
		if err == nil {
			r.observe(TxEvent{Kind: TxReconnected})
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !r.keepConnecting(Classify(err)) {
			return &ReconnectError{Err: err, Cause: cause}
		}
		if !deadline.IsZero() && r.now().Add(wait).After(deadline) {
			return &ReconnectError{Err: err, Cause: cause, Timeout: p.ReconnectTimeout}
		}
		if err := r.sleep(ctx, wait); err != nil {
			return err
		}
		wait = min(wait*2, max(p.ReconnectMax, wait))
	}
}

func (r *TxRunner) keepConnecting(c Class) bool {
	if r.Policy.KeepConnecting == nil {
		return c == ConnLost
	}
	return r.Policy.KeepConnecting(c)
}

// sleepCtx waits d, or until ctx ends (then it returns ctx.Err()).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
