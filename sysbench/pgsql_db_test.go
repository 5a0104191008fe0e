package sysbench

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/stdlib"

	"vmbench/dialect"
	"vmbench/internal/testdb"
	"vmbench/oltp"
)

// pgConfig returns a Config for a fresh database on the shared throwaway
// PostgreSQL: 2 tables x 500 rows, 2 threads, a fixed seed, --events runs.
func pgConfig(t *testing.T, w Workload) Config {
	t.Helper()
	srv := testdb.SharedPostgres(t)
	c := DefaultConfig()
	c.Workload = w
	c.Conn = dialect.Config{Driver: dialect.Postgres, Host: srv.Host(), Port: srv.Port(), User: srv.User(),
		Database: srv.NewDatabase(t), Params: map[string]string{"sslmode": "disable"}}
	c.Tables, c.TableSize, c.Threads = 2, 500, 2
	c.Rand.Seed = 12345
	c.Time, c.Events = 0, 200
	return c
}

// TestWorkloadsPostgres prepares (COPY), runs and cleans up every workload
// on PostgreSQL with the checks of TestWorkloadsMariaDB: exact row counts
// after prepare, sysbench's r/w/o accounting, rows kept or changed as each
// workload does.
func TestWorkloadsPostgres(t *testing.T) { checkWorkloads(t, pgConfig) }

// TestLittlesLawPostgres: TestLittlesLaw on PostgreSQL.
func TestLittlesLawPostgres(t *testing.T) { checkLittlesLaw(t, pgConfig) }

// TestPreparePostgres checks the loaded tables against sysbench 1.0's
// pgsql schema (SERIAL id, k index after the load) and the data: every
// row as the generator makes it for the seed (checkLoadedRows), the
// sequence past the ids.
func TestPreparePostgres(t *testing.T) {
	c := pgConfig(t, ReadWrite)
	c.Tables, c.TableSize, c.Threads = 3, 2000, 2
	ctx := ctxT(t)
	if err := Prepare(ctx, c, nil, false); err != nil {
		t.Fatal(err)
	}
	db := openT(t, c)
	checkLoadedRows(t, ctx, db, c)
	var def, idx string
	if err := db.QueryRowContext(ctx, `SELECT column_default FROM information_schema.columns WHERE table_name = 'sbtest2' AND column_name = 'id'`).Scan(&def); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(def, "nextval(") {
		t.Errorf("sbtest2.id default %q, want a SERIAL's nextval", def)
	}
	if err := db.QueryRowContext(ctx, `SELECT indexdef FROM pg_indexes WHERE indexname = 'k_2'`).Scan(&idx); err != nil || !strings.Contains(idx, "(k)") {
		t.Errorf("index k_2: %q, %v", idx, err)
	}
	var next int64
	if err := db.QueryRowContext(ctx, `INSERT INTO sbtest3 (k, c, pad) VALUES (1, 'x', 'y') RETURNING id`).Scan(&next); err != nil || next != 2001 {
		t.Errorf("next SERIAL id = %d, %v; want 2001", next, err)
	}
}

// TestTerminatedBackendPostgres ends a worker's backend with
// pg_terminate_backend in the middle of an event: the event is restarted
// on a new connection with its statements prepared again, and the
// reconnect is counted.
func TestTerminatedBackendPostgres(t *testing.T) {
	c := pgConfig(t, ReadWrite)
	c.Threads, c.Events = 1, 50
	ctx := ctxT(t)
	if err := Prepare(ctx, c, nil, false); err != nil {
		t.Fatal(err)
	}
	admin := testdb.SharedPostgres(t).Admin()
	var killed atomic.Int32
	spec := newSpecT(t, c, func(w *worker) {
		w.betweenSteps = func(step int) error {
			if step != 2 || killed.Add(1) != 5 {
				return nil
			}
			// Inside the attempt the database/sql connection is held (Raw):
			// the backend's pid comes from pgx's connection beneath.
			pid := w.dc.(*stdlib.Conn).Conn().PgConn().PID()
			_, err := admin.ExecContext(context.Background(), "SELECT pg_terminate_backend($1)", pid)
			return err
		}
	})
	res := runAllEvents(t, ctx, spec, c)
	if res.Counters[CounterReconnects] != 1 || res.Counters[ErrorCounterPrefix+"conn_lost"] != 1 || res.Counters[CounterRetries] < 1 {
		t.Errorf("counters %v, want 1 reconnect, 1 conn_lost and a retry", res.Counters)
	}
}

// pgForcedConflict runs oltp_write_only with one thread on one table of
// two rows, and in one event (the third), after the index UPDATE of row r,
// provokes a conflict with another session through provoke(ctx, other,
// worker, r, r2) (r2 is the other row; worker runs a statement in the
// event's transaction). It returns the run's Result.
func pgForcedConflict(t *testing.T, c Config, provoke func(ctx context.Context, other *sql.Conn, worker func(q string, args ...any) error, r, r2 int64) error) *oltp.Result {
	t.Helper()
	c.Workload, c.Tables, c.TableSize, c.Threads, c.Events = WriteOnly, 1, 2, 1, 10
	ctx := ctxT(t)
	other := preparedConn(t, ctx, c)
	var events atomic.Int32
	spec := newSpecT(t, c, func(w *worker) {
		w.betweenSteps = func(step int) error {
			if step != 0 || events.Add(1) != 3 {
				return nil
			}
			pc := w.dc.(*stdlib.Conn).Conn()
			run := func(q string, args ...any) error { _, err := pc.Exec(ctx, q, args...); return err }
			r := w.args[0].Value.(int64) // the id of the index UPDATE
			return provoke(ctx, other, run, r, 3-r)
		}
	})
	return runAllEvents(t, ctx, spec, c)
}

// TestDeadlockRetriedPostgres: the worker holds row r and waits for row
// r2, which another session holds while it waits for r. PostgreSQL picks
// the worker as the victim (its deadlock_timeout, 100 ms in the test
// server, runs out first; the other session's is 10 s); 40P01 is counted
// and the event restarted, once.
func TestDeadlockRetriedPostgres(t *testing.T) {
	c := pgConfig(t, WriteOnly)
	res := pgForcedConflict(t, c, func(ctx context.Context, other *sql.Conn, worker func(string, ...any) error, r, r2 int64) error {
		for _, q := range []string{"BEGIN", "SET LOCAL deadlock_timeout = '10s'"} {
			if _, err := other.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		if _, err := other.ExecContext(ctx, "UPDATE sbtest1 SET k = k WHERE id = $1", r2); err != nil {
			return err
		}
		var pid int
		if err := other.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
			return err
		}
		waited := make(chan error, 1)
		go func() {
			_, err := other.ExecContext(ctx, "UPDATE sbtest1 SET k = k WHERE id = $1", r)
			if err == nil {
				_, err = other.ExecContext(ctx, "COMMIT")
			}
			waited <- err
		}()
		if err := waitForLock(ctx, testdb.SharedPostgres(t).Admin(), pid); err != nil {
			return err
		}
		err := worker("UPDATE sbtest1 SET k = k WHERE id = $1", r2)
		if !dialect.IsDeadlock(err) {
			return fmt.Errorf("the worker's UPDATE: %w, want a deadlock", err)
		}
		// The error ended the worker's transaction on the server; the
		// event restarts only once the other session has row r and has
		// committed, or its restart could update r first and deadlock
		// with it again.
		if werr := <-waited; werr != nil {
			return fmt.Errorf("the other session: %w", werr)
		}
		return err
	})
	if res.Counters[ErrorCounterPrefix+"deadlock"] != 1 || res.Counters[CounterRetries] != 1 {
		t.Errorf("counters %v, want 1 deadlock and 1 retry", res.Counters)
	}
}

// waitForLock waits until backend pid waits for a lock, asking admin.
func waitForLock(ctx context.Context, admin *sql.DB, pid int) error {
	for {
		var waiting bool
		if err := admin.QueryRowContext(ctx, "SELECT coalesce(wait_event_type = 'Lock', false) FROM pg_stat_activity WHERE pid = $1", pid).Scan(&waiting); err != nil {
			return err
		}
		if waiting {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		runtime.Gosched()
	}
}

// TestSerializationFailureRetriedPostgres: under SERIALIZABLE (set for the
// run's sessions through a connection parameter) another session updates
// and commits row r2 after the event's snapshot; the worker's UPDATE of r2
// fails with 40001, which is counted and the event restarted.
func TestSerializationFailureRetriedPostgres(t *testing.T) {
	c := pgConfig(t, WriteOnly)
	c.Conn.Params["default_transaction_isolation"] = "serializable"
	res := pgForcedConflict(t, c, func(ctx context.Context, other *sql.Conn, worker func(string, ...any) error, _, r2 int64) error {
		if _, err := other.ExecContext(ctx, "UPDATE sbtest1 SET k = k + 1 WHERE id = $1", r2); err != nil {
			return err
		}
		err := worker("UPDATE sbtest1 SET k = k WHERE id = $1", r2)
		if !dialect.IsSerializationFailure(err) {
			return fmt.Errorf("the worker's UPDATE: %w, want a serialization failure", err)
		}
		return err
	})
	if res.Counters[ErrorCounterPrefix+"serialization_failure"] != 1 || res.Counters[CounterRetries] != 1 {
		t.Errorf("counters %v, want 1 serialization_failure and 1 retry", res.Counters)
	}
}

// TestTooManyConnectionsAtStartPostgres: a role limited to 2 connections
// (CONNECTION LIMIT, SQLSTATE 53300 like max_connections) running 4
// threads gets one error naming the limit and what to set, once, before
// the run, and the role's password shows nowhere.
func TestTooManyConnectionsAtStartPostgres(t *testing.T) {
	c := pgConfig(t, PointSelect)
	c.Threads = 4
	ctx := ctxT(t)
	if err := Prepare(ctx, c, nil, false); err != nil {
		t.Fatal(err)
	}
	admin := testdb.SharedPostgres(t).Admin()
	role := "lim_" + c.Conn.Database
	for _, q := range []string{
		fmt.Sprintf(`CREATE ROLE %q LOGIN PASSWORD 'sekrit' CONNECTION LIMIT 2`, role),
		fmt.Sprintf(`GRANT ALL ON ALL TABLES IN SCHEMA public TO %q`, role),
	} {
		if _, err := openT(t, c).ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _, _ = admin.Exec(fmt.Sprintf(`DROP OWNED BY %q CASCADE; DROP ROLE %q`, role, role)) })
	c.Conn.User, c.Conn.Password = role, "sekrit"
	res, err := Run(ctx, c, c.RunConfig())
	if err == nil || res != nil {
		t.Fatalf("run with 4 threads on a 2-connection role: %v, %v", res, err)
	}
	t.Log(err)
	if dialect.Classify(err) != dialect.Limit || strings.Count(err.Error(), "the server refused a connection: max_connections") != 1 {
		t.Errorf("error %q: want the limit named once with what to set", err)
	}
	if strings.Contains(err.Error(), "sekrit") {
		t.Errorf("error shows the password: %v", err)
	}
}
