package dialect

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"testing"
	"time"
)

// TestPostgresCancelIsServerSide: a statement waiting for a lock that
// another session holds, on each way vmbench reaches a PostgreSQL
// connection (database/sql through pgx/v5/stdlib, PGExec, CopyFrom),
// ends when its context is cancelled with the server's answer to a
// CancelRequest (SQLSTATE 57014, class Canceled), not with the client
// giving up on the socket while the backend goes on waiting: once the call
// has returned, the backend waits for nothing, and the same connection
// (same backend) rolls back and runs the next statement.
func TestPostgresCancelIsServerSide(t *testing.T) {
	cfg := pgConfig(t)
	bg, cancelAll := context.WithTimeout(context.Background(), time.Minute)
	defer cancelAll()
	db := openPG(t, cfg)
	noErr(t, execAll(bg, db, `CREATE TABLE "t" ("id" INTEGER PRIMARY KEY, "v" INTEGER)`, `INSERT INTO "t" VALUES (1, 10)`))
	for _, tc := range []struct {
		name string
		// setup readies conn before the lock is taken; it returns the
		// statement to cancel.
		setup func(t *testing.T, conn *sql.Conn) func(ctx context.Context) error
	}{
		{"database/sql", func(_ *testing.T, conn *sql.Conn) func(context.Context) error {
			return func(ctx context.Context) error {
				_, err := conn.ExecContext(ctx, `UPDATE "t" SET "v" = "v" + 1 WHERE "id" = 1`)
				return err
			}
		}},
		{"PGExec", func(t *testing.T, conn *sql.Conn) func(context.Context) error {
			const q = `UPDATE "t" SET "v" = "v" + $1 WHERE "id" = 1`
			var e *PGExec
			var name string
			noErr(t, conn.Raw(func(dc any) error {
				var err error
				e, _ = NewPGExec(dc)
				name, err = e.Prepare(bg, q)
				return err
			}))
			return func(ctx context.Context) error {
				return conn.Raw(func(any) error {
					_, err := e.Exec(ctx, name, []driver.NamedValue{{Ordinal: 1, Value: int64(1)}})
					return err
				})
			}
		}},
		{"CopyFrom", func(_ *testing.T, conn *sql.Conn) func(context.Context) error {
			return func(ctx context.Context) error {
				_, err := CopyFrom(ctx, conn, db.Dialect, "t", []string{"id", "v"}, &pgRows{n: 1})
				return err
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := pgConn(t, db)
			pid := backendPid(t, bg, conn)
			stmt := tc.setup(t, conn)
			locker := pgConn(t, db)
			noErr(t, execAll(bg, locker, "BEGIN", `LOCK TABLE "t" IN EXCLUSIVE MODE`))
			defer func() {
				if _, err := locker.ExecContext(bg, "ROLLBACK"); err != nil {
					t.Errorf("the locker's ROLLBACK: %v", err)
				}
			}()
			noErr(t, execAll(bg, conn, "BEGIN"))
			ctx, cancel := context.WithCancel(bg)
			done := make(chan error, 1)
			go func() { done <- stmt(ctx) }()
			waitForLock(t, bg, db, pid, done)
			cancel()
			err := <-done
			if SQLState(err) != "57014" || Classify(err) != Canceled {
				t.Fatalf("cancelled during a lock wait: %v (SQLSTATE %q, class %v), want 57014 from the server, class Canceled", err, SQLState(err), Classify(err))
			}
			if w := lockWaits(t, bg, db, pid); w != 0 {
				t.Errorf("backend %d still waits for a lock after the cancelled statement returned", pid)
			}
			noErr(t, execAll(bg, conn, "ROLLBACK"))
			if got := backendPid(t, bg, conn); got != pid {
				t.Errorf("the connection's backend is %d after the cancel, was %d: the connection was replaced", got, pid)
			}
		})
	}
}

// execAll runs qs one after the other on q.
func execAll(ctx context.Context, q interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, qs ...string) error {
	for _, s := range qs {
		if _, err := q.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

func backendPid(t *testing.T, ctx context.Context, conn *sql.Conn) int64 {
	t.Helper()
	var pid int64
	noErr(t, conn.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid))
	return pid
}

// lockWaits returns 1 when backend pid waits for a lock, else 0.
func lockWaits(t *testing.T, ctx context.Context, db *DB, pid int64) int {
	t.Helper()
	var n int
	noErr(t, db.QueryRowContext(ctx, "SELECT COUNT(*) FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", pid).Scan(&n))
	return n
}

// waitForLock polls until backend pid waits for a lock; the statement
// ending first (done) fails the test.
func waitForLock(t *testing.T, ctx context.Context, db *DB, pid int64, done <-chan error) {
	t.Helper()
	for lockWaits(t, ctx, db, pid) == 0 {
		select {
		case err := <-done:
			t.Fatalf("the statement ended without waiting for the lock: %v", err)
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(2 * time.Millisecond):
		}
	}
}
