package dialect

import (
	"path/filepath"
	"strings"
	"testing"

	"vmbench/internal/testdb"
)

// copyFixture makes tables a (with an index and 3 rows) and b (empty) in
// db; id is a's id column type ("INTEGER PRIMARY KEY AUTOINCREMENT").
func copyFixture(t *testing.T, db *DB, id string) {
	t.Helper()
	mustExec(t, testContext(t), db, "CREATE TABLE a (id "+id+", k INTEGER, c VARCHAR(10))",
		"CREATE INDEX k_1 ON a (k)", "INSERT INTO a (k, c) VALUES (1, 'x'), (2, 'y'), (3, 'z')", "CREATE TABLE b (id INTEGER)")
}

// copiedRows returns count(*) and sum(k) of table a in db, and whether
// inserting a row gives it id 4 (the auto-increment counter came along).
func copiedRows(t *testing.T, db *DB) (n, sum int64, next int64) {
	t.Helper()
	ctx := testContext(t)
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*), SUM(k) FROM a").Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, db, "INSERT INTO a (k, c) VALUES (9, 'n')")
	if err := db.QueryRowContext(ctx, "SELECT id FROM a WHERE k = 9").Scan(&next); err != nil {
		t.Fatal(err)
	}
	return n, sum, next
}

func TestCopyDatabaseSQLite(t *testing.T) {
	ctx := testContext(t)
	dir := t.TempDir()
	src := Config{Driver: SQLite, SQLitePath: filepath.Join(dir, "src.db")}
	dst := Config{Driver: SQLite, SQLitePath: filepath.Join(dir, "dst.db")}
	copyFixture(t, mustOpen(t, ctx, src), "INTEGER PRIMARY KEY AUTOINCREMENT")
	if err := CopyDatabase(ctx, src, dst); err != nil {
		t.Fatal(err)
	}
	if n, sum, next := copiedRows(t, mustOpen(t, ctx, dst)); n != 3 || sum != 6 || next != 4 {
		t.Errorf("copy holds %d rows, sum %d, next id %d; want 3, 6, 4", n, sum, next)
	}
	if names, err := Tables(ctx, dst); err != nil || strings.Join(names, ",") != "a,b" {
		t.Errorf("Tables = %v, %v; want [a b] (not sqlite_sequence)", names, err)
	}
	if err := CopyDatabase(ctx, src, dst); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("a copy onto an existing file: %v", err)
	}
	v, err := ServerVersion(ctx, dst)
	if err != nil || !strings.HasPrefix(v, "sqlite 3.") {
		t.Errorf("ServerVersion = %q, %v", v, err)
	}
	if _, err := ServerVersion(ctx, Config{Driver: SQLite, SQLitePath: filepath.Join(dir, "none.db")}); err == nil {
		t.Error("ServerVersion of a missing file: no error")
	}
}

func TestCopyDatabaseMySQL(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)
	src, dst := serverConfig(srv, srv.NewDatabase(t)), serverConfig(srv, srv.NewDatabase(t))
	copyFixture(t, mustOpen(t, ctx, src), "INTEGER PRIMARY KEY AUTO_INCREMENT")
	if err := CopyDatabase(ctx, src, dst); err != nil {
		t.Fatal(err)
	}
	db := mustOpen(t, ctx, dst)
	if n, sum, next := copiedRows(t, db); n != 3 || sum != 6 || next != 4 {
		t.Errorf("copy holds %d rows, sum %d, next id %d; want 3, 6, 4", n, sum, next)
	}
	var idx int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = ? AND index_name = 'k_1'", dst.Database).Scan(&idx); err != nil || idx != 1 {
		t.Errorf("index k_1 in the copy: %d, %v", idx, err)
	}
	if err := CopyDatabase(ctx, src, dst); err == nil || !strings.Contains(err.Error(), "holds tables already (a, b)") {
		t.Errorf("a copy onto a database with tables: %v", err)
	}
	v, err := ServerVersion(ctx, src)
	if err != nil || !strings.HasPrefix(v, "mysql ") || !strings.Contains(strings.ToLower(v), "mariadb") {
		t.Errorf("ServerVersion = %q, %v", v, err)
	}
	if err := CopyDatabase(ctx, src, Config{Driver: SQLite, SQLitePath: "x.db"}); err == nil {
		t.Error("a copy across engines: no error")
	}
}
