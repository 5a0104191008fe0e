package dialect

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"vmbench/internal/testdb"
)

// RunCleanup on a missing SQLite file says there is nothing to drop and
// creates nothing; RunPrepare creates the file and hands load the pool;
// DropTables drops what exists and names only that.
func TestRunPrepareCleanupDropTables(t *testing.T) {
	ctx := testContext(t)
	cfg := Config{Driver: SQLite, SQLitePath: filepath.Join(t.TempDir(), "x.db")}
	var out bytes.Buffer
	called := false
	err := RunCleanup(ctx, cfg, &out, func(context.Context, *DB, io.Writer) error { called = true; return nil })
	if err != nil || called || out.String() != cfg.SQLitePath+" does not exist; nothing to drop\n" {
		t.Fatalf("RunCleanup on a missing file: err %v, drop called %v, out %q", err, called, out.String())
	}
	if _, err := os.Stat(cfg.SQLitePath); !os.IsNotExist(err) {
		t.Fatalf("RunCleanup created %s (%v)", cfg.SQLitePath, err)
	}

	err = RunPrepare(ctx, cfg, nil, func(ctx context.Context, db *DB, progress io.Writer) error {
		if progress == nil || db.Config.SQLitePath != cfg.SQLitePath {
			t.Errorf("load got progress %v, config %v", progress, db.Config)
		}
		mustExec(t, ctx, db, "CREATE TABLE a (id INTEGER)", "CREATE TABLE c (id INTEGER)")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	err = RunCleanup(ctx, cfg, nil, func(ctx context.Context, db *DB, _ io.Writer) error {
		dropped, err := DropTables(ctx, db, "a", "b", "c")
		if err != nil || !slices.Equal(dropped, []string{"a", "c"}) {
			t.Errorf("DropTables: dropped %v, err %v; want [a c]", dropped, err)
		}
		if dropped, err := DropTables(ctx, db, "a", "b", "c"); err != nil || len(dropped) != 0 {
			t.Errorf("DropTables again: dropped %v, err %v; want none", dropped, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// RunPrepare on a server says when it created the database (a mistyped
// name then shows), and not when the database was there.
func TestRunPrepareSaysItCreatedTheDatabase(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)
	cfg := serverConfig(srv, "vmbench_created_"+strconv.Itoa(os.Getpid()))
	t.Cleanup(func() { _ = DropDatabase(context.Background(), cfg) })
	load := func(context.Context, *DB, io.Writer) error { return nil }
	var out bytes.Buffer
	if err := RunPrepare(ctx, cfg, &out, load); err != nil || out.String() != "Database "+cfg.Database+" did not exist: created it (cleanup drops the tables, not the database)\n" {
		t.Fatalf("RunPrepare on a new database: %v, said %q", err, out.String())
	}
	out.Reset()
	if err := RunPrepare(ctx, cfg, &out, load); err != nil || out.Len() != 0 {
		t.Fatalf("RunPrepare on an existing database: %v, said %q", err, out.String())
	}
}
