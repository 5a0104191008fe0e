package tpcc

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"maps"
	"testing"
	"time"

	"vmbench/dialect"
	"vmbench/oltp"
)

// The failures of TestTxn's retry subtests (txn_retry_db_test.go) forced
// on PostgreSQL: a deadlock (40P01), a serialization failure (40001), a
// backend ended by pg_terminate_backend in the middle of a run, and a
// transaction cancelled (Ctrl-C, the end of a run) while it waits for a
// lock. Each
// works on its own copy of the shared 1-warehouse load (pgCopy).

// TestPostgresFailures runs the subtests on one copy, one after the
// other.
func TestPostgresFailures(t *testing.T) {
	t.Parallel()
	e := newTxnEnvOn(t, pgCopy(t))
	t.Run("DeadlockRetried", e.testPGDeadlockRetried)
	t.Run("SerializationFailureRetried", e.testPGSerializationRetried)
	t.Run("TerminatedBackendReconnects", e.testPGTerminatedBackend)
	t.Run("CancelledLockWaitEndsOnServer", e.testPGCancelledLockWait)
}

// pgPid returns the backend pid of conn.
func pgPid(t *testing.T, conn interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) int64 {
	t.Helper()
	var pid int64
	if err := conn.QueryRowContext(txnCtx(t), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitLockWait polls pg_stat_activity until backend pid waits for a lock
// (wait_event_type 'Lock'), failing the test if ended reports first (the
// transaction ended without waiting) or txnCtx's deadline passes.
func (e *txnEnv) waitLockWait(t *testing.T, pid int64, ended <-chan struct{}) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for e.int1(t, "SELECT COUNT(*) FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", pid) == 0 {
		select {
		case <-ended:
			t.Fatalf("backend %d ended its statement without waiting for a lock", pid)
		case <-tick.C:
		}
	}
}

// testPGDeadlockRetried: a Payment chosen as a deadlock's victim (40P01)
// restarts once and then commits once. PostgreSQL's victim is the
// backend whose deadlock check (run once, deadlock_timeout after it
// starts to wait; 100 ms on the test server) finds the cycle. So the
// cycle is closed by the Payment, and the other side checks only after a
// minute: a holder H locks the warehouse row; the Payment waits for it;
// the locker L (deadlock_timeout 1 min) locks the district row and
// queues for the warehouse row behind the Payment; H rolls back; the
// Payment gets the warehouse row, waits for L's district row, and its own
// check finds the cycle. The Payment's error ends its transaction on the
// server, and L, woken, takes the warehouse row only when it next runs; a
// retry that ran first would update the row before it (a row lock whose
// holder is gone has no queue) and deadlock with L again, so the retry
// waits until L has the row (it failed 2 in 15 on a loaded machine, 2-3
// restarts).
func (e *txnEnv) testPGDeadlockRetried(t *testing.T) {
	ctx := txnCtx(t)
	w, h := e.worker(t, nil)
	pid := pgPid(t, w.conn)
	in := paymentInput{w: 1, d: 4, cw: 1, cd: 4, c: 21, amount: 700}
	holder := lockRow(t, e.db, "SELECT w_ytd FROM warehouse WHERE w_id = 1 FOR UPDATE")
	locker := lockRow(t, e.db, "SET LOCAL deadlock_timeout = '1min'")
	lpid := pgPid(t, locker.conn)
	if _, err := locker.conn.ExecContext(ctx, "SELECT d_ytd FROM district WHERE d_w_id = 1 AND d_id = $1 FOR UPDATE", in.d); err != nil {
		t.Fatal(err)
	}
	var restarts []error
	lockerDone, lockerHas := make(chan error, 1), make(chan struct{})
	w.onRestart = func(err error) {
		restarts = append(restarts, err)
		select {
		case <-lockerHas:
		case <-ctx.Done():
		}
	}
	wYTD := e.cents1(t, "SELECT w_ytd FROM warehouse WHERE w_id = 1")
	type outcome struct{ err error }
	done, ended := make(chan outcome, 1), make(chan struct{})
	go func() {
		_, err := w.payment(ctx, in)
		close(ended)
		done <- outcome{err}
	}()
	e.waitLockWait(t, pid, ended) // the Payment waits for H
	go func() {
		_, err := locker.conn.ExecContext(ctx, "SELECT w_ytd FROM warehouse WHERE w_id = 1 FOR UPDATE")
		close(lockerHas)
		lockerDone <- err
	}()
	e.waitLockWait(t, lpid, nil) // L queues behind the Payment
	holder.release()
	if err := <-lockerDone; err != nil {
		t.Fatalf("the locker lost the deadlock: %v", err)
	}
	locker.release()
	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	if len(restarts) != 1 || dialect.SQLState(restarts[0]) != "40P01" {
		t.Fatalf("restarts %v, want one after 40P01", restarts)
	}
	if got := e.cents1(t, "SELECT w_ytd FROM warehouse WHERE w_id = 1"); got != wYTD+700 {
		t.Errorf("w_ytd %d, want %d: the payment did not commit once", got, wYTD+700)
	}
	wantCounters(t, h, map[int]int64{ctrRetries: 1, ctrDeadlocks: 1})
}

// testPGSerializationRetried: under --isolation serializable, a Payment
// whose district row another transaction wrote (a new row version, same
// values) and committed after the
// Payment's snapshot was taken (its first statement) fails with 40001
// ("could not serialize access due to concurrent update"), restarts once
// on a new snapshot and commits once; the failure is counted.
func (e *txnEnv) testPGSerializationRetried(t *testing.T) {
	ctx := txnCtx(t)
	cfg := e.cfg
	cfg.Isolation = Serializable
	w, h := e.workerOn(t, cfg, nil)
	pid := pgPid(t, w.conn)
	in := paymentInput{w: 1, d: 6, cw: 1, cd: 6, c: 33, amount: 900}
	writer := lockRow(t, e.db, "UPDATE district SET d_ytd = d_ytd WHERE d_w_id = 1 AND d_id = $1", in.d)
	var restarts []error
	w.onRestart = func(err error) { restarts = append(restarts, err) }
	dYTD := e.cents1(t, "SELECT d_ytd FROM district WHERE d_w_id = 1 AND d_id = $1", in.d)
	done, ended := make(chan error, 1), make(chan struct{})
	go func() {
		_, err := w.payment(ctx, in)
		close(ended)
		done <- err
	}()
	e.waitLockWait(t, pid, ended) // the Payment's district UPDATE waits for the writer
	if _, err := writer.conn.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	writer.release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(restarts) != 1 || dialect.SQLState(restarts[0]) != "40001" {
		t.Fatalf("restarts %v, want one after 40001", restarts)
	}
	if got := e.cents1(t, "SELECT d_ytd FROM district WHERE d_w_id = 1 AND d_id = $1", in.d); got != dYTD+900 {
		t.Errorf("d_ytd %d, want %d: the payment did not commit once", got, dYTD+900)
	}
	wantCounters(t, h, map[int]int64{ctrRetries: 1, ctrSerialization: 1})
}

// testPGTerminatedBackend: a backend of a worker in a tpcc run ended with
// pg_terminate_backend (57P01, admin shutdown) is reconnected and the run
// goes on: a new backend of the run runs its transactions, the reconnect
// is counted, the run ends with no error but the test's interruption, and
// the consistency conditions hold after it. The run has no end of its own (--time 1 h, no --events):
// the test ends it (as Ctrl-C) once a backend of the run that the test
// did not see before the kill runs transactions, the worker's new
// connection, so the killed connection is certain to have been met and
// replaced, however the two workers share the events.
func (e *txnEnv) testPGTerminatedBackend(t *testing.T) {
	ctx := txnCtx(t)
	c := e.cfg
	c.Threads, c.WaitScale, c.Time, c.Events, c.ReportInterval = 2, 0, time.Hour, 0, 0
	c.Conn.Params = maps.Clone(c.Conn.Params)
	if c.Conn.Params == nil {
		c.Conn.Params = map[string]string{}
	}
	app := "vmbench-tpcc-terminated"
	c.Conn.Params["application_name"] = app
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var out bytes.Buffer
	done := make(chan runOutcome, 1)
	go func() {
		r, err := runPrinted(runCtx, c, &out)
		o := runOutcome{err: err}
		if r != nil {
			for _, op := range r.Ops {
				o.n += op.Latency.Count
			}
			o.reconnects = r.Counters[counterNames[ctrReconnects]]
		}
		done <- o
	}()
	// The workers' backends are those that run transactions (BEGIN,
	// COMMIT, or in one); the run's other connections read and count only.
	seen := map[int64]bool{}
	for len(seen) < c.Threads {
		for _, pid := range e.workerBackends(t, ctx, app, done) {
			seen[pid] = true
		}
	}
	var victim int64
	for pid := range seen {
		victim = pid
		break
	}
	var ok bool
	if err := e.db.QueryRowContext(ctx, "SELECT pg_terminate_backend($1)", victim).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend(%d) = %v, %v", victim, ok, err)
	}
	for fresh := false; !fresh; {
		for _, pid := range e.workerBackends(t, ctx, app, done) {
			fresh = fresh || !seen[pid]
		}
	}
	stop()
	o := <-done
	if !errors.Is(o.err, oltp.ErrInterrupted) || !errors.Is(o.err, context.Canceled) {
		t.Fatalf("run after backend %d was terminated: %v, want only the test's interruption\n%s", victim, o.err, out.String())
	}
	t.Logf("terminated backend %d; %d transactions, %d reconnects", victim, o.n, o.reconnects)
	if o.reconnects < 1 {
		t.Errorf("run: %d transactions, %d reconnects; want at least 1 reconnect\n%s", o.n, o.reconnects, out.String())
	}
	res, cout, err := runCheck(t, ctx, e.cfg)
	wantAllPass(t, res, cout, err, "3.3.2.11") // holds only right after the load
}

// runOutcome is what a run in a goroutine ended with: its transactions,
// its reconnects and its error.
type runOutcome struct {
	n, reconnects int64
	err           error
}

// workerBackends returns the backends named app that run transactions
// now (their last statement BEGIN or COMMIT, or inside a transaction),
// after a short wait between polls; the run ending first fails the test.
func (e *txnEnv) workerBackends(t *testing.T, ctx context.Context, app string, done <-chan runOutcome) []int64 {
	t.Helper()
	select {
	case o := <-done:
		t.Fatalf("the run ended (%d transactions, %d reconnects, %v) before the test ended it", o.n, o.reconnects, o.err)
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	case <-time.After(2 * time.Millisecond):
	}
	rows, err := e.db.QueryContext(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1
		AND (query IN ('BEGIN', 'COMMIT') OR state = 'idle in transaction')`, app)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var pids []int64
	for rows.Next() {
		var pid int64
		if err := rows.Scan(&pid); err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return pids
}

// testPGCancelledLockWait: a Payment waiting for the warehouse row that
// another session holds, cancelled (Ctrl-C, the graceful stop running
// out), is cancelled on the server: once it has returned, its backend
// waits for nothing although the other session still holds the row, and
// the worker keeps its connection (the same backend), rolled back, with
// nothing of the Payment committed.
func (e *txnEnv) testPGCancelledLockWait(t *testing.T) {
	ctx := txnCtx(t)
	w, _ := e.worker(t, nil)
	pid := pgPid(t, w.conn)
	in := paymentInput{w: 1, d: 5, cw: 1, cd: 5, c: 22, amount: 500}
	wYTD := e.cents1(t, "SELECT w_ytd FROM warehouse WHERE w_id = 1")
	holder := lockRow(t, e.db, "SELECT w_ytd FROM warehouse WHERE w_id = 1 FOR UPDATE")
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done, ended := make(chan error, 1), make(chan struct{})
	go func() {
		_, err := w.payment(pctx, in)
		close(ended)
		done <- err
	}()
	e.waitLockWait(t, pid, ended)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Payment: %v, want context.Canceled", err)
	}
	if n := e.int1(t, "SELECT COUNT(*) FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", pid); n != 0 {
		t.Errorf("backend %d still waits for the warehouse row after the cancelled Payment returned", pid)
	}
	if w.conn == nil {
		t.Fatalf("the worker's connection was discarded: the server did not answer the cancel")
	}
	if got := pgPid(t, w.conn); got != pid {
		t.Errorf("the worker's backend is %d after the cancel, was %d", got, pid)
	}
	holder.release()
	if got := e.cents1(t, "SELECT w_ytd FROM warehouse WHERE w_id = 1"); got != wYTD {
		t.Errorf("w_ytd %d, want %d: the cancelled Payment changed it", got, wYTD)
	}
}
