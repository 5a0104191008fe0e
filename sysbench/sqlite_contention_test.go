package sysbench

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"vmbench/dialect"
	"vmbench/oltp"
)

// TestSQLiteManyWriters runs 8 threads of oltp_read_write on one SQLite
// file with a 10 ms busy timeout, the situation of a loaded simulated
// campaign whose writers wait longer than the 5 s default: BEGIN IMMEDIATE
// itself fails with SQLITE_BUSY, after which ROLLBACK finds no transaction.
// Every collision must be retried and counted, never end the run.
func TestSQLiteManyWriters(t *testing.T) {
	c := DefaultConfig()
	c.Conn.Driver = dialect.SQLite
	c.Conn.SQLitePath = filepath.Join(t.TempDir(), "sbtest.db")
	c.Conn.Params = map[string]string{"_busy_timeout": "10"}
	c.Tables, c.TableSize, c.Threads, c.Events, c.Time = 2, 500, 8, 200, 0
	c.Rand.Seed = 7
	// Every collision costs a 10 ms wait and a restart: under -race on a
	// loaded 2-core machine 200 events can take minutes. The deadline only
	// guards against a hang; what is tested is that nothing ends the run.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := Prepare(ctx, c, nil, false); err != nil {
		t.Fatal(err)
	}
	spec, err := NewSpec(c, openT(t, c))
	if err != nil {
		t.Fatal(err)
	}
	// On a loaded machine one writer can lose the race many times in a
	// row; the bound on restarts (tested elsewhere) is not what this tests.
	spec = instrument(spec, func(w *worker) { w.tx.Policy.MaxFailures = 1 << 20 })
	res, err := oltp.Run(ctx, spec, c.RunConfig())
	if err != nil {
		t.Fatalf("8 writers on SQLite: %v", err)
	}
	if n := res.Op(OpTransaction).Latency.Count; n != 200 {
		t.Errorf("%d transactions, want 200", n)
	}
	db := openT(t, c)
	if got := totalRows(t, db, c); got != 1000 {
		t.Errorf("%d rows after delete/insert pairs, want 1000", got)
	}
	if res.Counters[CounterRetries] == 0 {
		t.Errorf("no SQLITE_BUSY retries with 8 writers and a 10 ms busy timeout: the test no longer exercises them")
	}
}
