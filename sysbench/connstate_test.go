package sysbench

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"vmbench/dialect"
	"vmbench/internal/fakesql"
)

// TestSettleDecision: what a worker does with its connection after an
// event cancelled between two statements: it sends the dialect's ROLLBACK
// under a fresh context with a deadline, keeps the connection when that
// succeeds and discards it (closed, not pooled) when it fails. A ROLLBACK
// that fails cannot be provoked on a real server, so internal/fakesql
// stands in for the driver (with the SQLite dialect's statements, whose
// connection setup needs no server query).
// TestStoppedEventLeavesNoTransaction runs the whole on MariaDB.
func TestSettleDecision(t *testing.T) {
	for _, fail := range []bool{false, true} {
		name := map[bool]string{false: "rollback succeeds", true: "rollback fails"}[fail]
		t.Run(name, func(t *testing.T) {
			fc := &fakesql.Connector{FailRollback: fail}
			c := DefaultConfig()
			c.Conn.Driver, c.Conn.SQLitePath = dialect.SQLite, "unused.db"
			c.Tables, c.TableSize, c.Threads = 1, 100, 1
			pool := sql.OpenDB(fc)
			defer pool.Close()
			db := &dialect.DB{DB: pool, Dialect: dialect.SQLite.Dialect(), Config: c.DialectConfig()}
			w := newTestWorker(t, c, db)
			ctx, cancel := context.WithCancel(ctxT(t))
			defer cancel()
			w.betweenSteps = func(i int) error {
				if w.s.mix.steps[i].g == gIndexUpdate {
					cancel()
				}
				return nil
			}
			if _, err := w.Event(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("Event: %v, want context.Canceled", err)
			}
			log := fc.Log()
			last := log[len(log)-1]
			if last.SQL != db.Dialect.Rollback() || last.CtxErr != nil || !last.HasDeadline {
				t.Errorf("last statement %+v, want %q under a live context with a deadline", last, db.Dialect.Rollback())
			}
			if kept := w.conn != nil; kept == fail {
				t.Errorf("connection kept: %v, want %v", kept, !fail)
			}
			w.Close()
			if _, closed := fc.Counts(); closed != map[bool]int{false: 0, true: 1}[fail] {
				t.Errorf("%d connections closed after the worker's Close, want %d (pooled when rolled back, else discarded)", closed, map[bool]int{false: 0, true: 1}[fail])
			}
		})
	}
}

// TestStoppedEventSQLite: on SQLite, an event cancelled between two
// statements after its index UPDATE rolls back at once, before the worker
// closes: another pool (busy_timeout 0) then gets the write lock at once.
func TestStoppedEventSQLite(t *testing.T) {
	c := DefaultConfig()
	c.Conn.Driver, c.Conn.SQLitePath = dialect.SQLite, filepath.Join(t.TempDir(), "sbtest.db")
	c.Tables, c.TableSize, c.Threads = 1, 100, 1
	ctx := ctxT(t)
	if err := Prepare(ctx, c, nil, false); err != nil {
		t.Fatal(err)
	}
	w := newTestWorker(t, c, openT(t, c))
	ectx, cancel := context.WithCancel(ctx)
	defer cancel()
	w.betweenSteps = func(i int) error {
		if w.s.mix.steps[i].g == gIndexUpdate {
			cancel()
		}
		return nil
	}
	if _, err := w.Event(ectx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Event: %v, want context.Canceled", err)
	}
	oc := c
	oc.Conn.Params = map[string]string{"_busy_timeout": "0"}
	conn, err := openT(t, oc).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"BEGIN IMMEDIATE", "ROLLBACK"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Errorf("another pool, while the stopped worker is open: %s: %v", q, err)
		}
	}
}
