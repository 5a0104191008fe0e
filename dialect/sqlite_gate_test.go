package dialect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"vmbench/internal/golden"
)

// TestWriteGateFIFO: writers that queue one after the other get the gate
// in that order, each handed over by the one before.
func TestWriteGateFIFO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &writeGate{}
		ctx := context.Background()
		if err := g.acquire(ctx, -1); err != nil {
			t.Fatal(err)
		}
		const n = 8
		var mu sync.Mutex
		var order []int
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				if err := g.acquire(ctx, time.Second); err != nil {
					t.Errorf("writer %d: %v", i, err)
					return
				}
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
				g.release()
			})
			synctest.Wait() // writer i waits in line before i+1 starts
		}
		g.release()
		wg.Wait()
		if fmt.Sprint(order) != "[0 1 2 3 4 5 6 7]" {
			t.Errorf("served in order %v, want arrival order", order)
		}
		if g.held || len(g.waiters) != 0 {
			t.Errorf("after all: held %v, %d waiting", g.held, len(g.waiters))
		}
	})
}

// TestWriteGateGivingUp: a writer whose wait times out gets SQLITE_BUSY
// (class Retry), one whose context ends gets the context's error; both
// leave the line, and the gate goes to the next writer in it.
func TestWriteGateGivingUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &writeGate{}
		bg := context.Background()
		if err := g.acquire(bg, -1); err != nil {
			t.Fatal(err)
		}
		if err := g.acquire(bg, 0); Classify(err) != Retry || Name(err) != "busy" || Code(err) != 5 {
			t.Errorf("try while held: %v (class %v, name %q, code %d), want SQLITE_BUSY", err, Classify(err), Name(err), Code(err))
		}
		ctx, cancel := context.WithCancel(bg)
		errs := make(chan error, 3)
		go func() { errs <- g.acquire(bg, 50*time.Millisecond) }()
		synctest.Wait()
		go func() { errs <- g.acquire(ctx, -1) }()
		synctest.Wait()
		got := make(chan struct{})
		go func() {
			if err := g.acquire(bg, -1); err != nil {
				errs <- err
			}
			close(got)
		}()
		synctest.Wait()
		time.Sleep(50 * time.Millisecond) // fake time: the first waiter's timeout
		if err := <-errs; Classify(err) != Retry || Name(err) != "busy" {
			t.Errorf("timed-out waiter: %v, want SQLITE_BUSY", err)
		}
		cancel()
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled waiter: %v", err)
		}
		if len(g.waiters) != 1 {
			t.Fatalf("%d waiting, want the last writer only", len(g.waiters))
		}
		g.release()
		<-got
		g.release()
		if g.held {
			t.Error("gate held after the last release")
		}
	})
}

// openSQLite opens path with params for a test.
func openSQLite(t *testing.T, ctx context.Context, path string, params map[string]string) *DB {
	t.Helper()
	return mustOpen(t, ctx, Config{Driver: SQLite, SQLitePath: path, Params: params})
}

// TestSQLiteWritersServedInArrivalOrder: writers of one file, on two
// pools opened through two names of it (a symbolic link), queue behind a
// transaction that holds the write lock and commit in the order they
// asked for it.
func TestSQLiteWritersServedInArrivalOrder(t *testing.T) {
	ctx := testContext(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "fifo.db")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	db1 := openSQLite(t, ctx, path, nil)
	db2 := openSQLite(t, ctx, filepath.Join(link, "fifo.db"), nil)
	mustExec(t, ctx, db1, "CREATE TABLE log (seq INTEGER PRIMARY KEY, writer INTEGER NOT NULL)")

	g := gateFor(path)
	queued := make(chan int, 16)
	g.mu.Lock()
	g.onWait = func(n int) { queued <- n }
	g.mu.Unlock()
	t.Cleanup(func() { g.mu.Lock(); g.onWait = nil; g.mu.Unlock() })

	holder := mustConn(t, ctx, db1)
	mustExec(t, ctx, holder, "BEGIN IMMEDIATE")
	const n = 6
	errs := make(chan error, n)
	for i := range n {
		db := []*DB{db1, db2}[i%2]
		go func() {
			c, err := db.Conn(ctx)
			if err == nil {
				_, err = c.ExecContext(ctx, "BEGIN IMMEDIATE")
			}
			if err == nil {
				_, err = c.ExecContext(ctx, "INSERT INTO log (writer) VALUES (?)", i)
			}
			if err == nil {
				_, err = c.ExecContext(ctx, "COMMIT")
			}
			if c != nil {
				c.Close()
			}
			errs <- err
		}()
		if q := <-queued; q != i+1 {
			t.Fatalf("writer %d queued as number %d", i, q)
		}
	}
	mustExec(t, ctx, holder, "COMMIT")
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	rows, err := db1.QueryContext(ctx, "SELECT writer FROM log ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var order []int
	for rows.Next() {
		var w int
		if err := rows.Scan(&w); err != nil {
			t.Fatal(err)
		}
		order = append(order, w)
	}
	if fmt.Sprint(order) != "[0 1 2 3 4 5]" {
		t.Errorf("committed in order %v, want arrival order", order)
	}
}

// TestSQLiteWritersNeverBusy: 12 goroutines on two pools of one file each
// run 100 write transactions (BEGIN IMMEDIATE, UPDATE, INSERT, COMMIT)
// with the default busy_timeout of 5 s, far above the time the 11 short
// transactions ahead in line take even on a loaded machine under -race. None
// may fail. (With SQLite's busy handler alone a writer starves while others
// barge in: with a 1 s timeout, 3 to 13 failures a run.)
func TestSQLiteWritersNeverBusy(t *testing.T) {
	ctx := testContext(t)
	path := filepath.Join(t.TempDir(), "busy.db")
	params := map[string]string{"_busy_timeout": "5000"}
	pools := []*DB{openSQLite(t, ctx, path, params), openSQLite(t, ctx, path, params)}
	mustExec(t, ctx, pools[0], "CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)",
		"INSERT INTO counter VALUES (1, 0)", "CREATE TABLE log (seq INTEGER PRIMARY KEY, writer INTEGER, pad TEXT)")
	writers, txns := 12, 100
	if golden.RaceEnabled() {
		txns = 30 // modernc.org/sqlite is about 25 times slower under -race
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers*txns)
	for i := range writers {
		wg.Go(func() {
			c, err := pools[i%2].Conn(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for range txns {
				for _, q := range []string{"BEGIN IMMEDIATE", "UPDATE counter SET n = n + 1 WHERE id = 1",
					"INSERT INTO log (writer, pad) VALUES (" + fmt.Sprint(i) + ", printf('%.500c', 'x'))", "COMMIT"} {
					if _, err := c.ExecContext(ctx, q); err != nil {
						errs <- fmt.Errorf("writer %d: %s: %w", i, q, err)
						_, _ = c.ExecContext(ctx, "ROLLBACK")
						break
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	busy := 0
	for err := range errs {
		if busy++; busy <= 3 {
			t.Error(err)
		}
	}
	var n int
	if err := pools[1].QueryRowContext(ctx, "SELECT n FROM counter").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if busy > 0 || n != writers*txns {
		t.Errorf("%d failed transactions, counter %d, want 0 and %d", busy, n, writers*txns)
	}
}

// TestSQLiteConnLeftInTransaction: a connection handed back to the pool
// inside a write transaction is closed, not reused: its uncommitted row is
// gone, and the next write through the pool commits on its own and does
// not wait.
func TestSQLiteConnLeftInTransaction(t *testing.T) {
	ctx := testContext(t)
	path := filepath.Join(t.TempDir(), "left.db")
	db := openSQLite(t, ctx, path, map[string]string{"_busy_timeout": "0"})
	db.SetMaxIdleConns(4)
	mustExec(t, ctx, db, "CREATE TABLE t (id INTEGER PRIMARY KEY)")
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, c, "BEGIN IMMEDIATE", "INSERT INTO t VALUES (1)")
	c.Close() // left inside the transaction, as by a cancelled worker
	mustExec(t, ctx, db, "INSERT INTO t VALUES (2)")

	other := openSQLite(t, ctx, path, nil)
	var ids string
	if err := other.QueryRowContext(ctx, "SELECT COALESCE(group_concat(id), '') FROM t").Scan(&ids); err != nil {
		t.Fatal(err)
	}
	if ids != "2" {
		t.Errorf("rows seen by another pool: %q, want \"2\" (the abandoned transaction rolled back, the next write committed)", ids)
	}
}
