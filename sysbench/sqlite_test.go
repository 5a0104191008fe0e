package sysbench

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/dialect"
	"vmbench/workload"
)

// TestSQLite runs prepare, a short oltp_read_write run with 2 threads (one
// writer at a time: SQLITE_BUSY is retried) and cleanup on an SQLite file.
func TestSQLite(t *testing.T) {
	c := DefaultConfig()
	c.Conn.Driver = dialect.SQLite
	c.Conn.SQLitePath = filepath.Join(t.TempDir(), "sbtest.db")
	c.Tables, c.TableSize, c.Threads, c.Events, c.Time = 2, 300, 2, 100, 0
	c.Rand.Seed = 3
	ctx := ctxT(t)
	var prog bytes.Buffer
	if err := Prepare(ctx, c, &prog, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(prog.String(), "1 loader thread") {
		t.Errorf("SQLite should load with one writer:\n%s", prog.String())
	}
	var out bytes.Buffer
	res, err := runPrinted(ctx, c, c.RunConfig(), &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if n := res.Op(OpTransaction).Latency.Count; n != 100 {
		t.Errorf("%d transactions, want 100", n)
	}
	if r := res.Counters[CounterRead]; r < 14*100 {
		t.Errorf("%d reads, want at least 1400", r)
	}
	db := openT(t, c)
	if got := totalRows(t, db, c); got != 600 {
		t.Errorf("%d rows after delete/insert pairs, want 600", got)
	}
	if err := checkTable(ctx, db, db.Dialect, 1, 300); err != nil {
		t.Error(err)
	}
	t.Logf("busy retries: %d", res.Counters[CounterRetries])
	// Through the contract, the header reaches the IntervalWriter (a
	// workload.Announcer) once, before the report.
	tc := &toolConfig{Config: c}
	var viaEnv bytes.Buffer
	if _, err := tc.Run(ctx, workload.Env{Observer: tc.IntervalWriter(&viaEnv)}); err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]string{"runPrinted": out.String(), "Run": viaEnv.String()} {
		if strings.Count(o, "Running the test with following options:\nNumber of threads: 2\n") != 1 {
			t.Errorf("%s printed no header, or more than one:\n%s", name, o)
		}
	}
	if err := Cleanup(ctx, c, nil); err != nil {
		t.Fatal(err)
	}
	if ok, err := dialect.TableExists(ctx, db, db.Dialect, "sbtest2"); ok || err != nil {
		t.Errorf("sbtest2 after cleanup: exists=%v err=%v", ok, err)
	}
}

func TestProgressLine(t *testing.T) {
	c := DefaultConfig()
	c.Tables, c.TableSize = 4, 1_000_000
	p := newProgress(nil, false, c)
	got := p.line(1_234_567, 1, 2*1e9)
	want := "loading: 1,234,567/4,000,000 rows (30.9%), 617,283 rows/s, indexes 1/4, 2.0s"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	var b bytes.Buffer
	p = newProgress(&b, true, c)
	p.rows.Store(10)
	p.print(1e9)
	if s := b.String(); !strings.HasPrefix(s, "\r") || strings.Contains(s, "\n") {
		t.Errorf("terminal progress %q: want one line redrawn in place", s)
	}
}
