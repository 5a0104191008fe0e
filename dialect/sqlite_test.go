package dialect

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SQLite tests need nothing installed: modernc.org/sqlite is pure Go.

func TestSQLiteOpen(t *testing.T) {
	ctx := testContext(t)
	path := filepath.Join(t.TempDir(), "sbtest.db")
	db := mustOpen(t, ctx, Config{Driver: SQLite, SQLitePath: path})
	if db.Dialect.Driver() != SQLite {
		t.Fatalf("dialect %v", db.Dialect.Driver())
	}
	var mode string
	var busy int
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode %q, %v; want wal", mode, err)
	}
	if err := db.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy); err != nil || busy != sqliteBusyTimeout {
		t.Errorf("busy_timeout %d, %v; want %d", busy, err, sqliteBusyTimeout)
	}

	d := db.Dialect
	mustExec(t, ctx, db,
		"CREATE TABLE "+d.QuoteIdent("sbtest1")+" (id "+d.AutoIncrementPK()+", k INTEGER NOT NULL DEFAULT 0)"+d.TableOptions(),
		"INSERT INTO sbtest1 (k) VALUES (10), (20), (30)",
		d.CreateIndex("sbtest1", "k_1", "k"),
	)
	// A transaction stays on one connection: the pool closes a connection
	// handed back inside one.
	mustExec(t, ctx, mustConn(t, ctx, db), d.Begin(), "DELETE FROM sbtest1 WHERE id = 3", d.Rollback())
	var maxID, n int
	if err := db.QueryRowContext(ctx, "SELECT MAX(id), COUNT(*) FROM sbtest1 WHERE k >= "+d.Placeholder(1), 10).Scan(&maxID, &n); err != nil {
		t.Fatal(err)
	}
	if maxID != 3 || n != 3 {
		t.Errorf("ids: max %d count %d, want 3 3", maxID, n)
	}
	mustExec(t, ctx, db, d.DropTableIfExists("sbtest1"), d.DropTableIfExists("sbtest1"))
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database file: %v", err)
	}

	// EnsureDatabase is a no-op; DropDatabase removes the file and its WAL.
	if err := EnsureDatabase(ctx, db.Config); err != nil {
		t.Errorf("EnsureDatabase: %v", err)
	}
	db.Close()
	if err := DropDatabase(ctx, db.Config); err != nil {
		t.Fatalf("DropDatabase: %v", err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s survived DropDatabase (%v)", p, err)
		}
	}
	if err := DropDatabase(ctx, db.Config); err != nil {
		t.Errorf("second DropDatabase: %v", err)
	}
}

func TestSQLiteOpenMissingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "no", "such", "dir")
	_, err := Open(testContext(t), Config{Driver: SQLite, SQLitePath: filepath.Join(dir, "x.db")})
	if err == nil || !strings.Contains(err.Error(), "--sqlite-path: directory "+dir+" does not exist") {
		t.Fatalf("Open in a missing directory: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Open created %s", dir)
	}
}

func TestSQLiteBusyIsRetry(t *testing.T) {
	ctx := testContext(t)
	path := filepath.Join(t.TempDir(), "busy.db")
	holder := mustOpen(t, ctx, Config{Driver: SQLite, SQLitePath: path})
	mustExec(t, ctx, holder, "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)")
	c := mustConn(t, ctx, holder)
	mustExec(t, ctx, c, "BEGIN IMMEDIATE", "INSERT INTO t (v) VALUES (1)") // holds the write lock

	other := mustOpen(t, ctx, Config{Driver: SQLite, SQLitePath: path, Params: map[string]string{"_busy_timeout": "0"}})
	_, err := other.ExecContext(ctx, "INSERT INTO t (v) VALUES (2)")
	if err == nil {
		t.Fatal("a second writer got in while the first held the lock")
	}
	if Classify(err) != Retry || Name(err) != "busy" || Code(err)&0xff != 5 {
		t.Errorf("%q (%T): class %v name %q code %d", err, err, Classify(err), Name(err), Code(err))
	}
	mustExec(t, ctx, c, "COMMIT")
	if _, err := other.ExecContext(ctx, "INSERT INTO t (v) VALUES (2)"); err != nil {
		t.Errorf("after COMMIT the retry fails: %v", err)
	}
}

// TestSQLiteLockedIsRetry drops a table that a pending SELECT of the same
// connection still reads: SQLITE_LOCKED ("database table is locked").
func TestSQLiteLockedIsRetry(t *testing.T) {
	ctx := testContext(t)
	db := mustOpen(t, ctx, Config{Driver: SQLite, SQLitePath: filepath.Join(t.TempDir(), "locked.db")})
	c := mustConn(t, ctx, db)
	mustExec(t, ctx, c, "CREATE TABLE t (id INTEGER PRIMARY KEY)", "INSERT INTO t VALUES (1), (2), (3)")
	rows, err := c.QueryContext(ctx, "SELECT id FROM t")
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() {
		t.Fatal(rows.Err())
	}
	_, err = c.ExecContext(ctx, "DROP TABLE t")
	rows.Close()
	if err == nil {
		t.Fatal("DROP TABLE succeeded under a pending SELECT")
	}
	if Classify(err) != Retry || Name(err) != "locked" || Code(err)&0xff != 6 {
		t.Errorf("%q (%T): class %v name %q code %d", err, err, Classify(err), Name(err), Code(err))
	}
}

func TestSQLiteConstraintIsFatal(t *testing.T) {
	ctx := testContext(t)
	db := mustOpen(t, ctx, Config{Driver: SQLite, SQLitePath: filepath.Join(t.TempDir(), "c.db")})
	mustExec(t, ctx, db, "CREATE TABLE t (id INTEGER PRIMARY KEY)", "INSERT INTO t VALUES (1)")
	_, err := db.ExecContext(ctx, "INSERT INTO t VALUES (1)")
	if Classify(err) != Fatal || Name(err) != "constraint" || Code(err)&0xff != 19 {
		t.Errorf("%q: class %v name %q code %d", err, Classify(err), Name(err), Code(err))
	}
	_, err = db.ExecContext(ctx, "SELEC 1")
	if Classify(err) != Fatal || Name(err) != "sqlite_error" {
		t.Errorf("%q: class %v name %q code %d", err, Classify(err), Name(err), Code(err))
	}
}

func TestSQLiteCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(testContext(t))
	db := mustOpen(t, ctx, Config{Driver: SQLite, SQLitePath: filepath.Join(t.TempDir(), "c.db")})
	cancel()
	_, err := db.ExecContext(ctx, "SELECT 1")
	if Classify(err) != Canceled {
		t.Errorf("%v: class %v", err, Classify(err))
	}
}
