package tpcc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/dialect"
)

// TestCleanupLeavesForeignTables: tables named like TPC-C's but without
// vmbench's meta table are another tool's, and cleanup leaves them.
func TestCleanupLeavesForeignTables(t *testing.T) {
	ctx := context.Background()
	cfg := DefaultConfig()
	cfg.Conn.Driver, cfg.Conn.SQLitePath = dialect.SQLite, filepath.Join(t.TempDir(), "other.db")
	db, err := dialect.Open(ctx, cfg.DialectConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE TABLE customer (id INT); INSERT INTO customer VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	err = Cleanup(ctx, cfg, nil)
	if err == nil || !strings.Contains(err.Error(), "customer but no vmbench_tpcc table") {
		t.Errorf("Cleanup = %v; want a refusal naming customer and the missing vmbench_tpcc", err)
	}
	var id int
	if err := db.QueryRowContext(ctx, "SELECT id FROM customer").Scan(&id); err != nil || id != 42 {
		t.Errorf("the foreign table was touched: %v, %v", id, err)
	}
}

// TestRunAndCheckCreateNothing: run and check on an SQLite file that does
// not exist fail without creating it.
func TestRunAndCheckCreateNothing(t *testing.T) {
	ctx := context.Background()
	cfg := DefaultConfig()
	cfg.Conn.Driver, cfg.Conn.SQLitePath = dialect.SQLite, filepath.Join(t.TempDir(), "none.db")
	if _, err := Run(ctx, cfg, cfg.RunConfig()); err == nil || !strings.Contains(err.Error(), "prepare") {
		t.Errorf("Run = %v; want an error pointing at prepare", err)
	}
	if _, err := Check(ctx, cfg, nil); err == nil {
		t.Error("Check on a missing file: no error")
	}
	if fileExists(cfg.Conn.SQLitePath) {
		t.Errorf("%s was created", cfg.Conn.SQLitePath)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
