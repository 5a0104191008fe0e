package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"vmbench/dialect"
	"vmbench/oltp/hist"
)

// txnEnv is a 2-warehouse load on the shared test server and a run state
// on it, shared by the subtests of TestTxn, which run one after the other
// and check the changes each transaction makes.
type txnEnv struct {
	cfg Config
	db  *dialect.DB // for the tests' own queries
	rs  *runState
	r   *Rand // draws the subtests' New-Orders
	// lastOrder is the New-Order the NewOrder subtest ran, order
	// lastOrderID; OrderStatus and StockLevel look at it.
	lastOrder   newOrderInput
	lastOrderID int
}

func newTxnEnv(t *testing.T) *txnEnv {
	t.Helper()
	return newTxnEnvOn(t, mariaCopy(t, 2))
}

// newTxnEnvOn is a txnEnv on the loaded database of cfg.
func newTxnEnvOn(t *testing.T, cfg Config) *txnEnv {
	t.Helper()
	ctx := txnCtx(t)
	db := openTxnDB(t, cfg)
	m, err := readMeta(ctx, db, db.Dialect)
	if err != nil {
		t.Fatal(err)
	}
	if err := countRun(ctx, db, db.Dialect); err != nil {
		t.Fatal(err)
	}
	consts := RunConstants(m.Load, NewRand(cfg.Seed, streamRun, 0))
	return &txnEnv{cfg: cfg, db: db, rs: newRunState(db, cfg, consts)}
}

func txnCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func openTxnDB(t *testing.T, cfg Config) *dialect.DB {
	t.Helper()
	db, err := dialect.Open(txnCtx(t), cfg.DialectConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// testHandle is the handle a worker's counters go to in a test without
// a Runner, with its registry.
type testHandle struct {
	*hist.Handle
	reg *hist.Registry
}

func newTestHandle() *testHandle {
	reg := hist.NewRegistry(OpNames, counterNames)
	return &testHandle{Handle: reg.NewHandle(), reg: reg}
}

// counter returns the total of counter c so far, what the worker counted
// with its transactions (AddToEvent) included: the transaction it ran
// last is recorded (with no latency), as the Runner records each one.
func (h *testHandle) counter(c int) int64 {
	h.Record(0, 0)
	return h.reg.Tick().CumulativeCounters[c]
}

// worker returns a worker on its own pool (with extra DSN parameters
// params, over those of the env's Config) and the handle its counters go
// to.
func (e *txnEnv) worker(t *testing.T, params map[string]string) (*worker, *testHandle) {
	t.Helper()
	return e.workerOn(t, e.cfg, params)
}

// workerOn is worker with cfg (the env's, changed) instead of the env's.
func (e *txnEnv) workerOn(t *testing.T, cfg Config, params map[string]string) (*worker, *testHandle) {
	t.Helper()
	cfg.Conn = cfg.Conn.WithDatabase(cfg.Conn.Database)
	if cfg.Conn.Params == nil {
		cfg.Conn.Params = map[string]string{}
	}
	maps.Copy(cfg.Conn.Params, params)
	db := openTxnDB(t, cfg)
	h := newTestHandle()
	w, err := newWorker(txnCtx(t), db, e.rs, 0, h.Handle)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, h
}

// int1 reads one integer.
func (e *txnEnv) int1(t *testing.T, q string, args ...any) int64 {
	t.Helper()
	var n sql.NullInt64
	if err := e.db.QueryRowContext(txnCtx(t), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s %v: %v", q, args, err)
	}
	return n.Int64
}

// cents1 reads one decimal as cents.
func (e *txnEnv) cents1(t *testing.T, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := e.db.QueryRowContext(txnCtx(t), q, args...).Scan(&decimalScan{p: &n, scale: 2, nullOK: true}); err != nil {
		t.Fatalf("%s %v: %v", q, args, err)
	}
	return n
}

func (e *txnEnv) str1(t *testing.T, q string, args ...any) string {
	t.Helper()
	var s string
	if err := e.db.QueryRowContext(txnCtx(t), q, args...).Scan(&s); err != nil {
		t.Fatalf("%s %v: %v", q, args, err)
	}
	return s
}

func wantCounters(t *testing.T, h *testHandle, want map[int]int64) {
	t.Helper()
	h.Record(0, 0)
	got := h.reg.Tick().CumulativeCounters
	for c := range numCounters {
		if got := got[c]; got != want[c] {
			t.Errorf("counter %s = %d, want %d", counterNames[c], got, want[c])
		}
	}
}

// stockRow is what New-Order changes in a stock row.
type stockRow struct{ qty, ytd, orderCnt, remoteCnt int64 }

func (e *txnEnv) stock(t *testing.T, w, i int) stockRow {
	t.Helper()
	var s stockRow
	if err := e.db.QueryRowContext(txnCtx(t), "SELECT s_quantity, s_ytd, s_order_cnt, s_remote_cnt FROM stock WHERE s_w_id = ? AND s_i_id = ?",
		w, i).Scan(&s.qty, &s.ytd, &s.orderCnt, &s.remoteCnt); err != nil {
		t.Fatal(err)
	}
	return s
}

// newOrderWithRemoteLine draws New-Orders of warehouse 1 until one does
// not roll back, and makes its first line supplied by warehouse 2.
func (e *txnEnv) newOrderWithRemoteLine(r *Rand) newOrderInput {
	for {
		in := genNewOrder(r, e.rs.consts, 1, 2)
		if in.rollback {
			continue
		}
		for i := range in.lines {
			in.lines[i].supplyW = 1
		}
		in.lines[0].supplyW = 2
		return in
	}
}

// TestTxn runs each transaction on a 2-warehouse load and checks its
// effects in the database exactly (txn_effects_db_test.go), then the
// retries and reconnects (txn_retry_db_test.go), then a mix through Event
// and the consistency conditions. The subtests run in this order on one
// load, each starting from the changes of those before it.
func TestTxn(t *testing.T) {
	t.Parallel()
	e := newTxnEnv(t)
	e.r = NewRand(99, streamRun, 1)
	for _, st := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"NewOrder", e.testNewOrder},
		{"NewOrderRollback", e.testNewOrderRollback},
		{"Payment", e.testPayment},
		{"OrderStatus", e.testOrderStatus},
		{"Delivery", e.testDelivery},
		{"StockLevel", e.testStockLevel},
		{"LockTimeoutRetried", e.testLockTimeoutRetried},
		{"DeadlockRetried", e.testDeadlockRetried},
		{"RetriesExhausted", e.testRetriesExhausted},
		{"KilledConnectionReconnects", e.testKilledConnectionReconnects},
		{"EventMixConsistent", e.testEventMixConsistent},
	} {
		t.Run(st.name, st.run)
	}
}

// testEventMixConsistent: two workers run their terminals' decks through
// Event without waits concurrently; then every consistency condition
// still holds.
func (e *txnEnv) testEventMixConsistent(t *testing.T) {
	ctx := txnCtx(t)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	handles := make([]*testHandle, 2)
	var opsMu sync.Mutex
	ops := make([]int, numOps)
	for th := range 2 {
		cfg := e.cfg
		db := openTxnDB(t, cfg)
		h := newTestHandle()
		handles[th] = h
		w, err := newWorker(ctx, db, e.rs, th, h.Handle)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 92 {
				op, err := w.Event(ctx)
				if err != nil {
					errs <- fmt.Errorf("thread %d: %w", th, err)
					return
				}
				opsMu.Lock()
				ops[op]++
				opsMu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if want := []int{80, 80, 8, 8, 8}; fmt.Sprint(ops) != fmt.Sprint(want) {
		t.Errorf("ops %v, want %v (4 rounds of the deck per worker)", ops, want)
	}
	var lines int64
	for _, h := range handles {
		lines += h.counter(ctrOrderLines)
	}
	if lines < 80*5 {
		t.Errorf("%d order lines for 80 New-Orders", lines)
	}
	var out strings.Builder
	if _, err := Check(ctx, e.cfg, &out); err != nil {
		t.Errorf("%v\n%s", err, out.String())
	}
}
