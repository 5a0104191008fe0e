package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"vmbench/dialect"
)

// The subtests of TestTxn that make transactions wait on locks, deadlock
// and lose their connection, and check the restarts and reconnects.

// testLockTimeoutRetried checks that a New-Order that times out waiting
// for a locked district row (1205) restarts once and then commits once.
func (e *txnEnv) testLockTimeoutRetried(t *testing.T) {
	ctx := txnCtx(t)
	w, h := e.worker(t, map[string]string{"innodb_lock_wait_timeout": "1"})
	in := e.newOrderWithRemoteLine(e.r)
	locker := lockRow(t, e.db, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = ? FOR UPDATE", in.d)
	var restarts []error
	w.onRestart = func(err error) {
		restarts = append(restarts, err)
		if len(restarts) == 1 {
			locker.release()
		}
	}
	next := e.int1(t, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = ?", in.d)
	start := time.Now()
	res, err := w.newOrder(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(restarts) != 1 || dialect.Code(restarts[0]) != 1205 {
		t.Fatalf("restarts %v, want one after 1205", restarts)
	}
	if time.Since(start) < time.Second {
		t.Errorf("committed after %s: the lock wait did not happen", time.Since(start))
	}
	if res.oID != int(next) || e.int1(t, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = ?", in.d) != next+1 {
		t.Errorf("after the retry: o_id %d, d_next_o_id before %d: not committed once", res.oID, next)
	}
	if n := e.int1(t, "SELECT COUNT(*) FROM orders WHERE o_w_id = 1 AND o_d_id = ? AND o_id = ?", in.d, res.oID); n != 1 {
		t.Errorf("%d orders rows", n)
	}
	wantCounters(t, h, map[int]int64{ctrRetries: 1, ctrLockTimeouts: 1, ctrOrderLines: int64(len(in.lines)), ctrRemoteLines: 1,
		ctrOlCnt5 + len(in.lines) - 5: 1})
}

// testDeadlockRetried checks that a New-Order chosen as a deadlock's
// victim (1213) restarts once and then commits once.
func (e *txnEnv) testDeadlockRetried(t *testing.T) {
	// The locker updates many rows of warehouse 2 and locks the stock
	// row of the order's first line; the New-Order locks its district,
	// then waits for that stock row; the locker then asks for the
	// district: a deadlock, whose victim InnoDB chooses as the smaller
	// transaction, the New-Order.
	ctx := txnCtx(t)
	w, h := e.worker(t, map[string]string{"innodb_lock_wait_timeout": "20"})
	in := e.newOrderWithRemoteLine(e.r)
	in.lines[0].supplyW = 1 // the first (smallest) item's stock is the home warehouse's
	if len(in.lines) > 1 {
		in.lines[1].supplyW = 2
	}
	locker := lockRow(t, e.db, "SELECT s_quantity FROM stock WHERE s_w_id = 1 AND s_i_id = ? FOR UPDATE", in.lines[0].item)
	// Real row changes weigh in InnoDB's choice of the victim.
	if _, err := locker.conn.ExecContext(ctx, "UPDATE stock SET s_remote_cnt = s_remote_cnt + 1 WHERE s_w_id = 2 AND s_i_id <= 500"); err != nil {
		t.Fatal(err)
	}
	var wid int64
	if err := w.conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&wid); err != nil {
		t.Fatal(err)
	}
	var restarts []error
	w.onRestart = func(err error) { restarts = append(restarts, err) }
	next := e.int1(t, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = ?", in.d)
	type outcome struct {
		res newOrderResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := w.newOrder(ctx, in)
		done <- outcome{res, err}
	}()
	// Wait until the New-Order waits for the stock row.
	// (information_schema.innodb_trx is a cache that InnoDB refreshes
	// only when it was not read for 100 ms: poll slower than that.)
	for {
		n := e.int1(t, "SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_mysql_thread_id = ? AND trx_state = 'LOCK WAIT'", wid)
		if n == 1 {
			break
		}
		select {
		case o := <-done:
			t.Fatalf("the New-Order ended without waiting: %+v", o)
		case <-time.After(150 * time.Millisecond):
		}
	}
	if _, err := locker.conn.ExecContext(ctx, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = ? FOR UPDATE", in.d); err != nil {
		t.Fatalf("the locker lost the deadlock: %v", err)
	}
	locker.release()
	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	if len(restarts) != 1 || dialect.Code(restarts[0]) != 1213 {
		t.Fatalf("restarts %v, want one after 1213", restarts)
	}
	if o.res.oID != int(next) || e.int1(t, "SELECT d_next_o_id FROM district WHERE d_w_id = 1 AND d_id = ?", in.d) != next+1 {
		t.Errorf("after the retry: o_id %d, d_next_o_id before %d: not committed once", o.res.oID, next)
	}
	remote := int64(in.remoteLines())
	wantCounters(t, h, map[int]int64{ctrRetries: 1, ctrDeadlocks: 1, ctrOrderLines: int64(len(in.lines)), ctrRemoteLines: remote,
		ctrOlCnt5 + len(in.lines) - 5: 1})
}

// testRetriesExhausted checks that with --retries=1 a Payment that keeps
// timing out on a lock gives up after one restart with the 1205.
func (e *txnEnv) testRetriesExhausted(t *testing.T) {
	ctx := txnCtx(t)
	w, h := e.worker(t, map[string]string{"innodb_lock_wait_timeout": "1"})
	w.tx.Policy.MaxRestarts = 1 // --retries=1
	locker := lockRow(t, e.db, "SELECT w_ytd FROM warehouse WHERE w_id = 2 FOR UPDATE")
	defer locker.release()
	_, err := w.payment(ctx, paymentInput{w: 2, d: 1, cw: 2, cd: 1, c: 1, amount: 500})
	if err == nil || !strings.HasPrefix(err.Error(), "payment: gave up after 1 restarts") || dialect.Code(err) != 1205 {
		t.Fatalf("error %v, want payment giving up after 1 restart with the 1205", err)
	}
	wantCounters(t, h, map[int]int64{ctrRetries: 1, ctrLockTimeouts: 2})
}

// testKilledConnectionReconnects checks that a worker whose connection is
// killed, between transactions and in one waiting for a lock, reconnects
// and commits its Payment once.
func (e *txnEnv) testKilledConnectionReconnects(t *testing.T) {
	ctx := txnCtx(t)
	w, h := e.worker(t, nil)
	var id int64
	if err := w.conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.ExecContext(ctx, fmt.Sprintf("KILL %d", id)); err != nil {
		t.Fatal(err)
	}
	for e.int1(t, "SELECT COUNT(*) FROM information_schema.processlist WHERE id = ?", id) != 0 {
		time.Sleep(time.Millisecond)
	}
	var restarts []error
	w.onRestart = func(err error) { restarts = append(restarts, err) }
	wYTD := e.cents1(t, "SELECT w_ytd FROM warehouse WHERE w_id = 1")
	if _, err := w.payment(ctx, paymentInput{w: 1, d: 2, cw: 1, cd: 2, c: 17, amount: 2500}); err != nil {
		t.Fatal(err)
	}
	if len(restarts) != 1 || dialect.Classify(restarts[0]) != dialect.ConnLost {
		t.Errorf("restarts %v, want one after a lost connection", restarts)
	}
	if got := e.cents1(t, "SELECT w_ytd FROM warehouse WHERE w_id = 1"); got != wYTD+2500 {
		t.Errorf("w_ytd %d, want %d: the payment did not commit once", got, wYTD+2500)
	}
	var id2 int64
	if err := w.conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id2); err != nil || id2 == id {
		t.Errorf("connection %d after the reconnect (%v), was %d", id2, err, id)
	}
	wantCounters(t, h, map[int]int64{ctrReconnects: 1})

	// Killed in the middle of a transaction, waiting for a lock.
	locker := lockRow(t, e.db, "SELECT w_ytd FROM warehouse WHERE w_id = 1 FOR UPDATE")
	restarts = nil
	w.onRestart = func(err error) {
		restarts = append(restarts, err)
		locker.release()
	}
	done := make(chan error, 1)
	go func() {
		_, err := w.payment(ctx, paymentInput{w: 1, d: 2, cw: 1, cd: 2, c: 18, amount: 1})
		done <- err
	}()
	for e.int1(t, "SELECT COUNT(*) FROM information_schema.innodb_trx WHERE trx_mysql_thread_id = ? AND trx_state = 'LOCK WAIT'", id2) == 0 {
		time.Sleep(150 * time.Millisecond) // see DeadlockRetried
	}
	if _, err := e.db.ExecContext(ctx, fmt.Sprintf("KILL %d", id2)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(restarts) != 1 || dialect.Classify(restarts[0]) != dialect.ConnLost {
		t.Errorf("restarts %v, want one after a lost connection", restarts)
	}
	if got := e.cents1(t, "SELECT w_ytd FROM warehouse WHERE w_id = 1"); got != wYTD+2501 {
		t.Errorf("w_ytd %d, want %d", got, wYTD+2501)
	}
	wantCounters(t, h, map[int]int64{ctrReconnects: 2})
}

// rowLock is a transaction of another connection that holds row locks.
type rowLock struct {
	conn *sql.Conn
	once sync.Once
}

// lockRow opens a transaction on a connection of db and runs q (a
// SELECT ... FOR UPDATE) in it; release rolls it back.
func lockRow(t *testing.T, db *dialect.DB, q string, args ...any) *rowLock {
	t.Helper()
	ctx := txnCtx(t)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l := &rowLock{conn: conn}
	t.Cleanup(l.release)
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, q, args...); err != nil {
		t.Fatal(err)
	}
	return l
}

func (l *rowLock) release() {
	l.once.Do(func() {
		_, _ = l.conn.ExecContext(context.Background(), "ROLLBACK")
		_ = l.conn.Close()
	})
}
