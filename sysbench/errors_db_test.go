package sysbench

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/oltp/hist"
)

// TestLockWaitTimeoutIsRetried holds row locks from a second connection
// while a run's transaction waits with innodb_lock_wait_timeout=1: the
// 1205 is rolled back, counted and the event restarted, not fatal.
func TestLockWaitTimeoutIsRetried(t *testing.T) {
	c := mariaConfig(t, WriteOnly)
	c.Tables, c.TableSize, c.Threads, c.Events = 1, 20, 1, 5
	ctx := ctxT(t)
	locker := prepareAndLock(t, ctx, c)
	c.Conn.Params = map[string]string{"innodb_lock_wait_timeout": "1"}
	var once sync.Once
	var firstErr error
	spec := newSpecT(t, c, func(w *worker) {
		w.onRestart = func(err error) {
			once.Do(func() {
				firstErr = err
				_, _ = locker.ExecContext(context.Background(), "ROLLBACK") // release: the retry goes through
			})
		}
	})
	res := runAllEvents(t, ctx, spec, c)
	if dialect.Name(firstErr) != "lock_wait_timeout" {
		t.Errorf("first restart after %v, want a lock wait timeout", firstErr)
	}
	if res.Counters[CounterRetries] < 1 || res.Counters["errors.lock_wait_timeout"] < 1 {
		t.Errorf("counters %v: want the timeout counted", res.Counters)
	}
	// The restarted event's latency includes the 1 s wait.
	if mx := time.Duration(res.Op(OpTransaction).Latency.MaxNs); mx < time.Second {
		t.Errorf("max latency %s, want the lock wait included", mx)
	}
}

// TestKilledConnectionReconnects kills a worker's connection from another
// connection in the middle of a run: the worker reconnects, prepares again
// and goes on; the reconnect is counted.
func TestKilledConnectionReconnects(t *testing.T) {
	c := mariaConfig(t, ReadWrite)
	c.Threads, c.Events = 2, 40
	ctx := ctxT(t)
	if err := Prepare(ctx, c, nil, false); err != nil {
		t.Fatal(err)
	}
	admin := openT(t, c)
	var victims []*worker
	var mu sync.Mutex
	spec := newSpecT(t, c, func(w *worker) {
		mu.Lock()
		victims = append(victims, w)
		mu.Unlock()
	})
	// Wrap each worker so that its 5th event starts on a killed connection.
	nw := spec.NewWorker
	spec.NewWorker = func(ctx context.Context, th int, h *hist.Handle) (oltp.Worker, error) {
		w, err := nw(ctx, th, h)
		if err != nil {
			return nil, err
		}
		return &killAt{worker: w.(*worker), at: 5, admin: admin, t: t}, nil
	}
	res := runAllEvents(t, ctx, spec, c)
	if got := res.Counters[CounterReconnects]; got != 2 {
		t.Errorf("reconnects %d, want 2 (one per killed worker); counters %v", got, res.Counters)
	}
	if res.Counters["errors.conn_lost"] < 2 {
		t.Errorf("errors.conn_lost %d, want 2", res.Counters["errors.conn_lost"])
	}
}

// killAt kills its worker's connection before event number at.
type killAt struct {
	*worker
	at, n int
	admin *dialect.DB
	t     *testing.T
}

func (k *killAt) Event(ctx context.Context) (int, error) {
	k.n++
	if k.n == k.at {
		id := k.kill.ConnID()
		if _, err := k.admin.ExecContext(ctx, fmt.Sprintf("KILL %d", id)); err != nil {
			return 0, err
		}
		// Wait until the server has ended the thread, so the next statement
		// surely meets a dead connection (a condition, not a timing guess).
		for {
			var n int
			if err := k.admin.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.processlist WHERE id=?", id).Scan(&n); err != nil {
				return 0, err
			}
			if n == 0 {
				break
			}
			select {
			case <-ctx.Done():
				return 0, ctx.Err()
			case <-time.After(time.Millisecond):
			}
		}
	}
	return k.worker.Event(ctx)
}

// TestTooManyConnectionsAtStart: an account limited to 2 connections
// running 4 threads gets one clear error naming the limit, before the run.
func TestTooManyConnectionsAtStart(t *testing.T) {
	c := mariaConfig(t, PointSelect)
	c.Threads = 4
	ctx := ctxT(t)
	if err := Prepare(ctx, c, nil, false); err != nil {
		t.Fatal(err)
	}
	admin := openT(t, c)
	user := "lim_" + strings.TrimPrefix(c.Conn.Database, "t_")
	user = user[:min(len(user), 32)]
	for _, q := range []string{
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY 'pw' WITH MAX_USER_CONNECTIONS 2", user),
		fmt.Sprintf("GRANT ALL ON `%s`.* TO '%s'@'%%'", c.Conn.Database, user),
	} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(fmt.Sprintf("DROP USER '%s'@'%%'", user)); err != nil {
			t.Error(err)
		}
	})
	c.Conn.User, c.Conn.Password = user, "pw"
	res, err := Run(ctx, c, c.RunConfig())
	if err == nil || res != nil {
		t.Fatalf("run with 4 threads on a 2-connection account: %v, %v", res, err)
	}
	t.Log(err)
	if dialect.Classify(err) != dialect.Limit || !strings.Contains(err.Error(), "--threads") ||
		!strings.Contains(strings.ToLower(err.Error()), "max_user_connections") {
		t.Errorf("error %q: want the limit named with what to set", err)
	}
	if strings.Contains(err.Error(), "pw@") || strings.Contains(err.Error(), ":pw") {
		t.Errorf("error shows the password: %v", err)
	}
}

// TestPreparedStatementLimitAtStart lowers max_prepared_stmt_count below
// what 2 threads x 2 tables x 9 statements need.
func TestPreparedStatementLimitAtStart(t *testing.T) {
	c := mariaConfig(t, ReadWrite)
	ctx := ctxT(t)
	if err := Prepare(ctx, c, nil, false); err != nil {
		t.Fatal(err)
	}
	admin := openT(t, c)
	var old int
	if err := admin.QueryRow("SELECT @@GLOBAL.max_prepared_stmt_count").Scan(&old); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec("SET GLOBAL max_prepared_stmt_count = 25"); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := admin.Exec(fmt.Sprintf("SET GLOBAL max_prepared_stmt_count = %d", old)); err != nil {
			t.Error(err)
		}
	}()
	_, err := Run(ctx, c, c.RunConfig())
	// Found by Run's check before the threads connect (ErrFlagValue), or
	// by a thread that hits the limit (Limit).
	if err == nil || !strings.Contains(err.Error(), "max_prepared_stmt_count") || (dialect.Classify(err) != dialect.Limit && !errors.Is(err, ErrFlagValue)) {
		t.Fatalf("run: %v, want the max_prepared_stmt_count limit named", err)
	}
}

func TestFatalErrorNamesStatement(t *testing.T) {
	c := mariaConfig(t, PointSelect)
	ctx := ctxT(t)
	if err := Prepare(ctx, c, nil, false); err != nil {
		t.Fatal(err)
	}
	db := openT(t, c)
	spec, err := NewSpec(c, db)
	if err != nil {
		t.Fatal(err)
	}
	reg := hist.NewRegistry(spec.Ops, spec.Counters)
	w, err := spec.NewWorker(ctx, 0, reg.NewHandle())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Event(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("ALTER TABLE sbtest1 DROP COLUMN c"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("ALTER TABLE sbtest2 DROP COLUMN c"); err != nil {
		t.Fatal(err)
	}
	_, err = w.Event(ctx)
	if err == nil || !strings.Contains(err.Error(), "SELECT c FROM") || dialect.Classify(err) != dialect.Fatal {
		t.Fatalf("event on a changed table: %v, want a fatal error naming the statement", err)
	}
}

func TestInterruptedRunReportsWhatWasMeasured(t *testing.T) {
	c := mariaConfig(t, PointSelect)
	c.Events, c.Time = 0, 0
	c.ReportInterval = 100 * time.Millisecond
	ctx, cancel := context.WithCancel(ctxT(t))
	if err := Prepare(ctx, c, nil, false); err != nil {
		t.Fatal(err)
	}
	rc := c.RunConfig()
	ticks := 0
	rc.OnInterval = func(oltp.IntervalReport) {
		if ticks++; ticks == 3 {
			cancel() // Ctrl-C after three report intervals
		}
	}
	var out bytes.Buffer
	res, err := runPrinted(ctx, c, rc, &out)
	if !errors.Is(err, oltp.ErrInterrupted) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want interrupted", err)
	}
	if res == nil || !res.Interrupted || res.Op(OpTransaction).Latency.Count == 0 {
		t.Fatalf("result %+v", res)
	}
	s := out.String()
	if strings.Count(s, "] thds: 2 tps:") < 3 || !strings.Contains(s, "Interrupted:") || !strings.Contains(s, "SQL statistics:") {
		t.Errorf("output:\n%s", s)
	}
}

// TestCancelEndsLockWait: a statement waiting for a row lock (50 s
// innodb_lock_wait_timeout) ends promptly when the event's context is
// cancelled (KILL QUERY from another connection).
func TestCancelEndsLockWait(t *testing.T) {
	c := mariaConfig(t, UpdateIndex)
	c.Tables, c.TableSize, c.Threads = 1, 10, 1
	bg := ctxT(t)
	locker := prepareAndLock(t, bg, c)
	defer func() {
		if _, err := locker.ExecContext(bg, "ROLLBACK"); err != nil {
			t.Error(err)
		}
	}()
	db := openT(t, c)
	spec, err := NewSpec(c, openT(t, c))
	if err != nil {
		t.Fatal(err)
	}
	reg := hist.NewRegistry(spec.Ops, spec.Counters)
	wk, err := spec.NewWorker(bg, 0, reg.NewHandle())
	if err != nil {
		t.Fatal(err)
	}
	defer wk.Close()
	w := wk.(*worker)
	ctx, cancel := context.WithCancel(bg)
	done := make(chan error, 1)
	go func() { _, err := w.Event(ctx); done <- err }()
	// Wait until the UPDATE waits for the lock.
	for {
		var n int
		if err := db.QueryRowContext(bg, "SELECT COUNT(*) FROM information_schema.processlist WHERE id=? AND info LIKE 'UPDATE%'",
			w.kill.ConnID()).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Event returned %v, want context.Canceled", err)
		}
		t.Logf("lock wait ended %s after the cancel", time.Since(start))
	case <-time.After(20 * time.Second):
		t.Fatal("Event still waiting for the lock 20 s after the cancel")
	}
}

// TestRestartsAreBounded: an event that keeps failing with a retryable
// error (rows locked for good, innodb_lock_wait_timeout=0) gives up after
// MaxRestarts (lowered to 5) with an error naming the cause.
func TestRestartsAreBounded(t *testing.T) {
	c := mariaConfig(t, WriteOnly)
	c.Tables, c.TableSize = 1, 10
	ctx := ctxT(t)
	prepareAndLock(t, ctx, c)
	c.Conn.Params = map[string]string{"innodb_lock_wait_timeout": "0"}
	spec, err := NewSpec(c, openT(t, c))
	if err != nil {
		t.Fatal(err)
	}
	reg := hist.NewRegistry(spec.Ops, spec.Counters)
	h := reg.NewHandle()
	wk, err := spec.NewWorker(ctx, 0, h)
	if err != nil {
		t.Fatal(err)
	}
	defer wk.Close()
	wk.(*worker).tx.Policy.MaxFailures = 5
	start := time.Now()
	_, err = wk.Event(ctx)
	t.Logf("gave up after %s", time.Since(start))
	if err == nil || !strings.Contains(err.Error(), "gave up after 5 restarts") || dialect.Name(err) != "lock_wait_timeout" {
		t.Fatalf("Event: %v, want to give up naming the lock wait timeout", err)
	}
	if got := h.Counter(reg.Counter(CounterRetries)); got != 5 {
		t.Errorf("retries %d, want 5", got)
	}
}

// prepareAndLock loads c's tables and locks every row of sbtest1 from a
// connection that holds the locks until the test ends.
func prepareAndLock(t *testing.T, ctx context.Context, c Config) *sql.Conn {
	t.Helper()
	locker := preparedConn(t, ctx, c)
	for _, q := range []string{"BEGIN", "SELECT id FROM sbtest1 FOR UPDATE"} {
		if _, err := locker.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	return locker
}
