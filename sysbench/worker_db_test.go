package sysbench

import (
	"database/sql"
	"path/filepath"
	"testing"

	"vmbench/dialect"
	"vmbench/internal/testdb"
	"vmbench/oltp/hist"
)

// TestWorkerClosesItsStatements: the statements a worker prepares on its
// driver connection are closed on the server when the worker closes (the
// connection itself goes back to the pool and lives on), so reconnects and
// repeated runs do not pile up toward max_prepared_stmt_count.
//
// Prepared_stmt_count is global, so the test has a server of its own:
// on the shared one, other tests' pools open and close statements at the
// same time.
func TestWorkerClosesItsStatements(t *testing.T) {
	testdb.Shared(t) // skips when no server binary exists
	srv, err := testdb.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Error(err)
		}
	})
	c := DefaultConfig()
	c.Conn.Host, c.Conn.Port, c.Conn.User, c.Conn.Database = srv.Host(), srv.Port(), srv.User(), "sbtest"
	c.Tables, c.TableSize, c.Threads, c.Rand.Seed = 2, 500, 2, 12345
	ctx := ctxT(t)
	if err := Prepare(ctx, c, nil, false); err != nil {
		t.Fatal(err)
	}
	admin := openT(t, c)
	count := func() int {
		t.Helper()
		var name string
		var n int
		if err := admin.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'").Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	db := openT(t, c)
	db.SetMaxIdleConns(4)
	spec, err := NewSpec(c, db)
	if err != nil {
		t.Fatal(err)
	}
	reg := hist.NewRegistry(spec.Ops, spec.Counters)
	before := count()
	w, err := spec.NewWorker(ctx, 0, reg.NewHandle())
	if err != nil {
		t.Fatal(err)
	}
	// oltp_read_write prepares 9 statements per table.
	if got, want := count()-before, 9*c.Tables; got != want {
		t.Errorf("%d statements prepared, want %d", got, want)
	}
	for range 5 {
		if _, err := w.Event(ctx); err != nil {
			t.Fatal(err)
		}
	}
	wk := w.(*worker)
	if err := wk.tx.Reconnect(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := count()-before, 9*c.Tables; got != want {
		t.Errorf("after a reconnect %d statements prepared, want %d", got, want)
	}
	if _, err := w.Event(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// COM_STMT_CLOSE has no reply: the server may not have processed it
	// yet. A round trip on every connection of the pool (the worker's went
	// back to it) orders the check after the closes.
	var held []*sql.Conn
	for range db.Stats().OpenConnections {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := conn.PingContext(ctx); err != nil {
			t.Fatal(err)
		}
		held = append(held, conn)
	}
	for _, conn := range held {
		conn.Close()
	}
	if got := count() - before; got != 0 {
		t.Errorf("%d statements left prepared after Close, want 0", got)
	}
}

// TestWrittenValuesKeepTheirShape: the c and pad values written by the
// non-index UPDATE and the re-INSERT arrive as sysbench's digit strings
// (MySQL: sent from the worker's byte buffers) and, on SQLite, as TEXT.
func TestWrittenValuesKeepTheirShape(t *testing.T) {
	const cShape, padShape = "^[0-9]{11}(-[0-9]{11}){9}$", "^[0-9]{11}(-[0-9]{11}){4}$"
	t.Run("mariadb", func(t *testing.T) {
		c := mariaConfig(t, WriteOnly)
		c.Tables, c.TableSize, c.Events = 1, 50, 300 // every row rewritten many times over
		ctx := ctxT(t)
		if err := Prepare(ctx, c, nil, false); err != nil {
			t.Fatal(err)
		}
		if _, err := Run(ctx, c, c.RunConfig()); err != nil {
			t.Fatal(err)
		}
		db := openT(t, c)
		var bad, total int
		if err := db.QueryRowContext(ctx, "SELECT SUM(c NOT REGEXP ? OR pad NOT REGEXP ?), COUNT(*) FROM sbtest1",
			cShape, padShape).Scan(&bad, &total); err != nil {
			t.Fatal(err)
		}
		if bad != 0 || total != 50 {
			t.Errorf("%d of %d rows with a c or pad not of sysbench's shape", bad, total)
		}
	})
	t.Run("sqlite", func(t *testing.T) {
		c := DefaultConfig()
		c.Workload = WriteOnly
		c.Conn.Driver = dialect.SQLite
		c.Conn.SQLitePath = filepath.Join(t.TempDir(), "sbtest.db")
		c.Tables, c.TableSize, c.Threads, c.Events, c.Time = 1, 50, 1, 300, 0
		ctx := ctxT(t)
		if err := Prepare(ctx, c, nil, false); err != nil {
			t.Fatal(err)
		}
		if _, err := Run(ctx, c, c.RunConfig()); err != nil {
			t.Fatal(err)
		}
		db := openT(t, c)
		var bad, total int
		if err := db.QueryRowContext(ctx, `SELECT SUM(typeof(c) <> 'text' OR typeof(pad) <> 'text' OR length(c) <> 119 OR length(pad) <> 59), COUNT(*) FROM sbtest1`).
			Scan(&bad, &total); err != nil {
			t.Fatal(err)
		}
		if bad != 0 || total != 50 {
			t.Errorf("%d of %d rows with a c or pad that is not 119/59 characters of TEXT", bad, total)
		}
	})
}

// TestRangeLargerThanReadBuffer: range selects whose result sets are
// larger than the driver's read buffer (1,000 rows of c, 126 KB) are read
// whole, so the connection stays in step and every read is counted.
func TestRangeLargerThanReadBuffer(t *testing.T) {
	c := mariaConfig(t, ReadOnly)
	c.Tables, c.TableSize, c.RangeSize, c.Events = 1, 2000, 1000, 20
	ctx := ctxT(t)
	if err := Prepare(ctx, c, nil, false); err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, c, c.RunConfig())
	if err != nil {
		t.Fatal(err)
	}
	n := res.Op(OpTransaction).Latency.Count
	if r := res.Counters[CounterRead]; n != c.Events || r != 14*n {
		t.Errorf("%d transactions, %d reads; want %d and %d", n, r, c.Events, 14*c.Events)
	}
}
