package dialect

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"vmbench/internal/testdb"
)

// pgConfig returns the Config of a new database on the shared throwaway
// PostgreSQL (the test is skipped when there is no server binary).
func pgConfig(t *testing.T) Config {
	t.Helper()
	srv := testdb.SharedPostgres(t)
	return Config{Driver: Postgres, Host: srv.Host(), Port: srv.Port(), User: srv.User(), Database: srv.NewDatabase(t),
		Params: map[string]string{"sslmode": "disable"}}
}

func openPG(t *testing.T, cfg Config) *DB {
	t.Helper()
	db, err := Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestPostgresOpenAndDatabases(t *testing.T) {
	cfg := pgConfig(t)
	ctx := context.Background()
	db := openPG(t, cfg)
	if ok, err := TableExists(ctx, db, db.Dialect, "nope"); ok || err != nil {
		t.Errorf("TableExists(nope) = %v, %v", ok, err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE "t" ("id" `+db.Dialect.AutoIncrementPK()+`, "v" INTEGER)`); err != nil {
		t.Fatal(err)
	}
	if ok, err := TableExists(ctx, db, db.Dialect, "t"); !ok || err != nil {
		t.Errorf("TableExists(t) = %v, %v", ok, err)
	}
	v, err := ServerVersion(ctx, cfg)
	if err != nil || !strings.HasPrefix(v, "postgres ") {
		t.Errorf("ServerVersion = %q, %v", v, err)
	}

	other := cfg.WithDatabase(cfg.Database + "_x")
	if err := EnsureDatabase(ctx, other); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDatabase(ctx, other); err != nil {
		t.Errorf("EnsureDatabase of an existing database: %v", err)
	}
	if err := CreateDatabase(ctx, other); err == nil || Name(errors.Unwrap(err)) != "database_exists" && !strings.Contains(err.Error(), "42P04") {
		t.Errorf("CreateDatabase of an existing database = %v, want 42P04", err)
	}
	if err := DropDatabase(ctx, other); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, other)
	if !IsUnknownDatabase(err) || !strings.Contains(err.Error(), "--pgsql-db") {
		t.Errorf("Open of a dropped database = %v, want unknown database with a hint", err)
	}
}

// pgRows is a CopySource of n rows (id, v).
type pgRows struct {
	n, i int
	row  []any
}

func (r *pgRows) Next() bool { r.i++; return r.i <= r.n }
func (r *pgRows) Values() ([]any, error) {
	r.row = append(r.row[:0], int64(r.i), int64(r.i*10))
	return r.row, nil
}
func (r *pgRows) Err() error { return nil }

func TestPostgresCopyFrom(t *testing.T) {
	cfg := pgConfig(t)
	ctx := context.Background()
	db := openPG(t, cfg)
	if _, err := db.ExecContext(ctx, `CREATE TABLE "t" ("id" SERIAL PRIMARY KEY, "v" INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	n, err := CopyFrom(ctx, conn, db.Dialect, "t", []string{"id", "v"}, &pgRows{n: 5000})
	if err != nil || n != 5000 {
		t.Fatalf("CopyFrom = %d, %v", n, err)
	}
	if _, err := conn.ExecContext(ctx, SyncSerialSQL("t", "id")); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := conn.QueryRowContext(ctx, `INSERT INTO "t" ("v") VALUES (1) RETURNING "id"`).Scan(&id); err != nil || id != 5001 {
		t.Errorf("next id after COPY and SyncSerialSQL = %d, %v; want 5001", id, err)
	}
	// A duplicate key fails the whole COPY: nothing of it stays.
	_, err = CopyFrom(ctx, conn, db.Dialect, "t", []string{"id", "v"}, &pgRows{n: 3})
	if !IsDuplicateKey(err) || !strings.HasPrefix(err.Error(), "copy into t:") {
		t.Errorf("CopyFrom of duplicates = %v", err)
	}
	var count int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM "t"`).Scan(&count); err != nil || count != 5001 {
		t.Errorf("count = %d, %v; want 5001", count, err)
	}
	if _, err := CopyFrom(ctx, conn, MySQL.Dialect(), "t", []string{"id"}, &pgRows{}); err == nil {
		t.Error("CopyFrom with the mysql dialect succeeded")
	}
}

// TestPostgresDeadlockAndSerialization provokes a real deadlock (40P01)
// and a real serialization failure (40001) and checks their classes.
func TestPostgresDeadlockAndSerialization(t *testing.T) {
	cfg := pgConfig(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := openPG(t, cfg)
	if _, err := db.ExecContext(ctx, `CREATE TABLE "t" ("id" INTEGER PRIMARY KEY, "v" INTEGER); INSERT INTO "t" VALUES (1, 0), (2, 0)`); err != nil {
		t.Fatal(err)
	}
	a, b := pgConn(t, db), pgConn(t, db)
	exec := func(c *sql.Conn, q string) error { _, err := c.ExecContext(ctx, q); return err }
	for _, c := range []*sql.Conn{a, b} {
		if err := exec(c, "BEGIN"); err != nil {
			t.Fatal(err)
		}
	}
	noErr(t, exec(a, `UPDATE "t" SET "v" = 1 WHERE "id" = 1`))
	noErr(t, exec(b, `UPDATE "t" SET "v" = 1 WHERE "id" = 2`))
	var wg sync.WaitGroup
	var errA, errB error
	wg.Go(func() { errA = exec(a, `UPDATE "t" SET "v" = 2 WHERE "id" = 2`) })
	wg.Go(func() { errB = exec(b, `UPDATE "t" SET "v" = 2 WHERE "id" = 1`) })
	wg.Wait()
	victim := errA
	if victim == nil {
		victim = errB
	}
	if victim == nil || !IsDeadlock(victim) || Classify(victim) != Retry || Name(victim) != "deadlock" {
		t.Errorf("deadlock: errors %v and %v, want one 40P01 of class Retry", errA, errB)
	}
	noErr(t, exec(a, "ROLLBACK"))
	noErr(t, exec(b, "ROLLBACK"))

	for _, c := range []*sql.Conn{a, b} {
		noErr(t, exec(c, "BEGIN ISOLATION LEVEL SERIALIZABLE"))
		noErr(t, exec(c, `SELECT sum("v") FROM "t"`))
	}
	noErr(t, exec(a, `UPDATE "t" SET "v" = 5 WHERE "id" = 1`))
	noErr(t, exec(a, "COMMIT"))
	err := exec(b, `UPDATE "t" SET "v" = 6 WHERE "id" = 1`)
	if !IsSerializationFailure(err) || Classify(err) != Retry || Name(err) != "serialization_failure" {
		t.Errorf("serialization: %v, want 40001 of class Retry", err)
	}
	noErr(t, exec(b, "ROLLBACK"))
}

func pgConn(t *testing.T, db *DB) *sql.Conn {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestPostgresTerminatedBackend ends a TxRunner's backend with
// pg_terminate_backend between two transactions: the next transaction
// fails with a lost connection (57P01 or a closed connection), the runner
// reconnects, prepares again and runs it, and both are counted.
func TestPostgresTerminatedBackend(t *testing.T) {
	cfg := pgConfig(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := openPG(t, cfg)
	var prepares, reconnects, failures int
	var lost error
	var pid int
	r := NewTxRunner(db, TxPolicy{MaxRestarts: 3, MaxReconnects: 3, ReconnectMin: time.Millisecond, ReconnectMax: 10 * time.Millisecond}, TxHooks{
		Prepare: func(ctx context.Context, c *sql.Conn) error {
			prepares++
			return c.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid)
		},
		Observe: func(e TxEvent) {
			switch e.Kind {
			case TxFailed:
				failures++
				lost = e.Err
			case TxReconnected:
				reconnects++
			case TxRestarting: // follows a TxFailed, counted there
			}
		},
	})
	noErr(t, r.Connect(ctx))
	defer r.Close()
	tx := func(c *sql.Conn) error {
		for _, q := range []string{"BEGIN", "SELECT 1", "COMMIT"} {
			if _, err := c.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	}
	noErr(t, r.Run(ctx, tx))
	first := pid
	var ok bool
	if err := testdb.SharedPostgres(t).Admin().QueryRowContext(ctx, "SELECT pg_terminate_backend($1)", first).Scan(&ok); err != nil || !ok {
		t.Fatalf("pg_terminate_backend(%d) = %v, %v", first, ok, err)
	}
	noErr(t, r.Run(ctx, tx))
	if failures != 1 || reconnects != 1 || prepares != 2 || pid == first {
		t.Errorf("failures %d, reconnects %d, prepares %d, backend %d then %d; want 1, 1, 2 and a new backend", failures, reconnects, prepares, first, pid)
	}
	if Classify(lost) != ConnLost {
		t.Errorf("the terminated backend's error %v is of class %v, want conn_lost", lost, Classify(lost))
	}
}

// TestPostgresTooManyConnections opens one connection more than a role's
// CONNECTION LIMIT allows: the refusal is 53300, class Limit, and Open's
// error names max_connections once.
func TestPostgresTooManyConnections(t *testing.T) {
	cfg := pgConfig(t)
	ctx := context.Background()
	admin := testdb.SharedPostgres(t).Admin()
	role := "limited_" + cfg.Database
	noErr(t, func() error {
		_, err := admin.ExecContext(ctx, `CREATE ROLE "`+role+`" LOGIN CONNECTION LIMIT 1`)
		return err
	}())
	t.Cleanup(func() { _, _ = admin.ExecContext(context.Background(), `DROP ROLE IF EXISTS "`+role+`"`) })
	lc := cfg
	lc.User = role
	db := openPG(t, lc)
	hold := pgConn(t, db)
	_ = hold
	_, err := Open(ctx, lc)
	if !IsServerLimit(err) || Name(err) != "too_many_connections" || strings.Count(err.Error(), "the server refused a connection: max_connections") != 1 {
		t.Errorf("Open past the connection limit = %v, want 53300 naming max_connections once", err)
	}
}
