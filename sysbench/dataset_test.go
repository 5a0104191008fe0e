package sysbench

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/dialect"
	"vmbench/workload"
)

// TestCheckAndDataShape: Check passes on prepared data and fails, naming
// the table, when a row is missing; DataShape names the shaping flags and
// says oltp_insert with --auto-inc=off loads empty tables.
func TestCheckAndDataShape(t *testing.T) {
	c := DefaultConfig()
	c.Conn.Driver = dialect.SQLite
	c.Conn.SQLitePath = filepath.Join(t.TempDir(), "sbtest.db")
	c.Tables, c.TableSize, c.Rand.Seed = 2, 50, 7
	ctx := ctxT(t)
	if err := Prepare(ctx, c, nil, false); err != nil {
		t.Fatal(err)
	}
	tc := &toolConfig{c}
	var log bytes.Buffer
	if err := tc.Check(ctx, workload.Env{Log: &log}); err != nil || strings.Count(log.String(), ": ok") != 2 {
		t.Fatalf("check of prepared data: %v\n%s", err, log.String())
	}
	db := openT(t, c)
	if _, err := db.ExecContext(ctx, "DELETE FROM sbtest2 WHERE id = 7"); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	err := tc.Check(ctx, workload.Env{Log: &log})
	if !errors.Is(err, workload.ErrCheckFailed) || !strings.Contains(err.Error(), "[sbtest2]") || !strings.Contains(log.String(), "sbtest2: want 50 rows, ids 1..50: FAILED: holds 49 rows") {
		t.Errorf("check after a delete: %v\n%s", err, log.String())
	}

	want := map[string]string{"tables": "2", "table-size": "50", "auto-inc": "on", "create-secondary": "on", "rand-seed": "7"}
	for k, v := range want {
		if got := tc.DataShape()[k]; got != v {
			t.Errorf("DataShape()[%s] = %q, want %q", k, got, v)
		}
	}
	before := tc.DataShape()["rand-type"]
	tc.Rand.Type = "pareto"
	if after := tc.DataShape()["rand-type"]; after == before || after != "pareto" {
		t.Errorf("rand-type %q -> %q: column k's distribution must be in the key", before, after)
	}
	tc.Workload, tc.AutoInc = Insert, false
	if got := tc.DataShape()["table-size"]; got != "0" {
		t.Errorf("oltp_insert --auto-inc=off: table-size %q, want 0 (empty tables)", got)
	}
}
