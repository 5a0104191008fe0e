package tpcc

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vmbench/dialect"
	"vmbench/internal/golden"
	"vmbench/internal/testdb"
)

// The loader's tests against MariaDB (internal/testdb, one fresh database
// per test; TestMain is in check_db_test.go) and SQLite.

const loadTestSeed = 42

// loadTestContext bounds a loader test.
func loadTestContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// loadMariaConfig returns a Config of w warehouses on a fresh database of
// the shared test server.
func loadMariaConfig(t *testing.T, w int) Config {
	t.Helper()
	srv := testdb.Shared(t)
	c := DefaultConfig()
	c.Conn.Host, c.Conn.Port, c.Conn.User, c.Conn.Database = srv.Host(), srv.Port(), srv.User(), srv.NewDatabase(t)
	c.Warehouses, c.Seed = w, loadTestSeed
	return c
}

func loadOpen(t *testing.T, c Config) *dialect.DB {
	t.Helper()
	db, err := dialect.Open(loadTestContext(t), c.DialectConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// loadPrepare runs Prepare, logs its last line and returns its output.
func loadPrepare(t *testing.T, ctx context.Context, c Config) string {
	t.Helper()
	var out bytes.Buffer
	if err := Prepare(ctx, c, &out, false); err != nil {
		t.Fatalf("Prepare: %v\n%s", err, out.String())
	}
	t.Logf("%s: %s", c.Conn.Driver, lastLine(out.String()))
	return out.String()
}

// loadExpect is what the generator puts in warehouse w's ORDER-LINE rows.
type loadExpect struct{ lines, itemSum int64 }

// expectOrderLines generates the orders of warehouses 1..w (without a
// database) and returns what their ORDER-LINE rows hold.
func expectOrderLines(t *testing.T, warehouses int) map[int]loadExpect {
	t.Helper()
	out := map[int]loadExpect{}
	for w := 1; w <= warehouses; w++ {
		var e loadExpect
		g := &loadRows{seed: loadTestSeed, cLoad: LoadConstants(NewRand(loadTestSeed, streamLoad, 0)), at: testLoadTime,
			emit: func(b *rowBatch) error {
				if b.table == OrderLine {
					for _, r := range b.Rows() {
						e.lines++
						e.itemSum += int64(r[colIdx(OrderLine, "ol_i_id")].(int))
					}
				}
				return nil
			}}
		if err := g.orders(w); err != nil {
			t.Fatal(err)
		}
		out[w] = e
	}
	return out
}

// loadCount returns the single integer q selects.
func loadCount(t *testing.T, db *dialect.DB, q string, args ...any) int64 {
	t.Helper()
	var n sql.NullInt64
	if err := db.QueryRowContext(loadTestContext(t), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n.Int64
}

// checkLoaded checks the exact cardinality of every table of a load of
// the given warehouses, order_line against the generator and against
// sum(o_ol_cnt), the load records and the stored meta.
func checkLoaded(t *testing.T, db *dialect.DB, warehouses int, exp map[int]loadExpect) {
	t.Helper()
	var lines int64
	for w := 1; w <= warehouses; w++ {
		lines += exp[w].lines
	}
	W := int64(warehouses)
	want := map[string]int64{Item: 100000, Warehouse: W, District: 10 * W, Stock: 100000 * W, Customer: 30000 * W,
		History: 30000 * W, Orders: 30000 * W, NewOrder: 9000 * W, OrderLine: lines, loadTable: W + 1}
	for name, n := range want {
		if got := loadCount(t, db, "SELECT COUNT(*) FROM "+name); got != n {
			t.Errorf("%s: %d rows, want %d", name, got, n)
		}
	}
	if got := loadCount(t, db, "SELECT SUM(o_ol_cnt) FROM orders"); got != lines {
		t.Errorf("sum(o_ol_cnt) = %d, order lines %d", got, lines)
	}
	for w := 1; w <= warehouses; w++ {
		if got := loadCount(t, db, "SELECT SUM(ol_i_id) FROM order_line WHERE ol_w_id = "+db.Dialect.Placeholder(1), w); got != exp[w].itemSum {
			t.Errorf("warehouse %d: sum(ol_i_id) = %d, the generator's %d", w, got, exp[w].itemSum)
		}
	}
	m, err := readMeta(loadTestContext(t), db, db.Dialect)
	if err != nil {
		t.Fatalf("readMeta after the load: %v", err)
	}
	if m.Warehouses != warehouses || m.Seed != loadTestSeed || m.Load != LoadConstants(NewRand(loadTestSeed, streamLoad, 0)) ||
		m.Runs != 0 || m.Loading || m.LoadTime.IsZero() {
		t.Errorf("meta after the load: %+v", m)
	}
}

// killOneInsert kills, from another connection, the first connection of
// database db seen running an INSERT INTO table or a LOAD DATA into it, and returns a function
// that stops looking and returns what it killed ("" for nothing).
func killOneInsert(t *testing.T, ctx context.Context, db, table string) (wait func() (string, error)) {
	admin, err := sql.Open("mysql", testdb.Shared(t).DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(ctx)
	var (
		wg     sync.WaitGroup
		killed string
		kerr   error
	)
	wg.Go(func() {
		for ctx.Err() == nil {
			var id int64
			var info string
			err := admin.QueryRowContext(ctx, "SELECT id, info FROM information_schema.processlist WHERE db = ? AND (info LIKE ? OR info LIKE ?) LIMIT 1",
				db, "INSERT INTO `"+table+"`%", "LOAD DATA LOCAL INFILE % INTO TABLE `"+table+"`%").Scan(&id, &info)
			if errors.Is(err, sql.ErrNoRows) {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			if err != nil {
				if ctx.Err() == nil {
					kerr = err
				}
				return
			}
			if _, err := admin.ExecContext(ctx, fmt.Sprintf("KILL %d", id)); err != nil {
				kerr = err
				return
			}
			killed = info[:min(len(info), 40)]
			return
		}
	})
	return func() (string, error) {
		stop()
		wg.Wait()
		admin.Close()
		return killed, kerr
	}
}

// TestPrepareMariaDB: the shared load (mariaTemplate) of 2 warehouses is
// interrupted in warehouse 1 (item loaded) and resumed: item is kept,
// warehouse 1 deleted and loaded again with warehouse 2, while a loader
// connection is killed as it inserts order_line rows, when its
// warehouse's stock, customer and history chunks are committed: that
// warehouse is loaded again from scratch on a new connection, without a
// duplicate key and with exact cardinalities. Then prepare again is a
// no-op, other --warehouses or --seed are refused, and cleanup drops every
// table.
func TestPrepareMariaDB(t *testing.T) {
	t.Parallel()
	l := mariaTemplate(t)
	c := l.cfg
	ctx := loadTestContext(t)
	exp := expectOrderLines(t, 2)
	out := l.out
	t.Logf("2 warehouses on MariaDB, resumed, one reloaded: %s", lastLine(out))
	if err := l.interrupted; !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "prepare again resumes") {
		t.Errorf("interrupted Prepare = %v", err)
	}
	if !strings.Contains(out, "Resuming the load of 2 warehouse(s) with --seed=42") || !strings.Contains(out, "0 loaded already, item loaded") {
		t.Errorf("no resume reported:\n%s", out)
	}
	if l.killed == "" {
		t.Fatalf("no loader connection killed")
	}
	t.Logf("killed a connection running %q", l.killed)
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "loading it again") {
			t.Log(line)
		}
	}
	if !strings.Contains(out, "loading it again on a new connection (attempt 2 of 5)") {
		t.Errorf("no reload reported:\n%s", out)
	}
	if !summaryLine.MatchString(out) || !strings.Contains(out, "by LOAD DATA LOCAL INFILE") {
		t.Errorf("no summary line:\n%s", out)
	}
	db := loadOpen(t, c)
	checkLoaded(t, db, 2, exp)
	if n := loadCount(t, db, "SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = DATABASE() AND index_name LIKE 'idx_%'"); n != 13 {
		t.Errorf("%d secondary index columns, want 13 (4 indexes)", n)
	}
	var last string
	if err := db.QueryRowContext(ctx, "SELECT c_last FROM customer WHERE c_w_id = 2 AND c_d_id = 3 AND c_id = 372").Scan(&last); err != nil || last != "PRICALLYOUGHT" {
		t.Errorf("c_last of customer 372 = %q, %v; want PRICALLYOUGHT", last, err)
	}

	out = loadPrepare(t, ctx, c)
	if !strings.Contains(out, "nothing to do") {
		t.Errorf("prepare on a complete load:\n%s", out)
	}
	for _, other := range []func(*Config){func(c *Config) { c.Warehouses = 3 }, func(c *Config) { c.Seed = 7 }} {
		o := c
		other(&o)
		err := Prepare(ctx, o, io.Discard, false)
		if err == nil || !strings.Contains(err.Error(), "--warehouses=2 --seed=42") || !strings.Contains(err.Error(), "vmbench tpcc cleanup") {
			t.Errorf("prepare with --warehouses=%d --seed=%d over a load of 2 with seed 42: %v", o.Warehouses, o.Seed, err)
		}
	}

	// Cleanup on a copy of the tables without their rows.
	c = mariaCopyWhere(t, 2, map[string]string{Warehouse: "FALSE", District: "FALSE", Customer: "FALSE", History: "FALSE",
		Orders: "FALSE", NewOrder: "FALSE", OrderLine: "FALSE", Stock: "FALSE", Item: "FALSE"})
	db = loadOpen(t, c)
	var cl bytes.Buffer
	if err := Cleanup(ctx, c, &cl); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cl.String(), "Dropped 11 table(s)") {
		t.Errorf("cleanup output: %s", cl.String())
	}
	if n := loadCount(t, db, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()"); n != 0 {
		t.Errorf("%d tables after cleanup", n)
	}
	cl.Reset()
	if err := Cleanup(ctx, c, &cl); err != nil || !strings.Contains(cl.String(), "nothing dropped") {
		t.Errorf("cleanup of an empty database: %v, %s", err, cl.String())
	}
	c.Conn.Database = "no_such_db_for_tpcc"
	if err := Cleanup(ctx, c, io.Discard); err != nil {
		t.Errorf("cleanup of a missing database: %v", err)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// cancelOnProgress cancels the prepare at the first progress update
// that counts more than after rows, in the middle of the load.
type cancelOnProgress struct {
	mu     sync.Mutex
	after  int64
	cancel context.CancelFunc
	at     time.Time // of the cancel
}

// summaryLine is Prepare's last line but one: rows, MB, seconds and both rates.
var summaryLine = regexp.MustCompile(`Loaded 2 warehouses: [0-9,]+ rows \([0-9.]+ MB\) in [0-9.]+ s: [0-9,]+ rows/s, [0-9.]+ MB/s \(MB = 10\^6 bytes\) by `)

var progressRows = regexp.MustCompile(`, ([0-9,]+) rows,`)

func (c *cancelOnProgress) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := progressRows.FindSubmatch(b); m != nil && c.at.IsZero() {
		if n, _ := strconv.ParseInt(strings.ReplaceAll(string(m[1]), ",", ""), 10, 64); n > c.after {
			c.at = time.Now()
			c.cancel()
		}
	}
	return len(b), nil
}

// TestPrepareInterrupted: Ctrl-C in the middle of the load (item loaded,
// warehouse 1 under way) returns promptly with the context's error and
// leaves a database that run and check refuse, with warehouse 1 not
// recorded as loaded. (Resuming such a database is how the shared MariaDB
// load is made: see TestPrepareMariaDB.)
func TestPrepareInterrupted(t *testing.T) {
	c := loadMariaConfig(t, 1)
	ctx := loadTestContext(t)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &cancelOnProgress{after: Items + 10000, cancel: cancel}
	err := Prepare(cctx, c, p, true)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "prepare again resumes") {
		t.Fatalf("interrupted Prepare = %v", err)
	}
	returned := time.Since(p.at)
	if returned > 5*time.Second {
		t.Errorf("the interrupted prepare took %v to return", returned)
	}
	db := loadOpen(t, c)
	if _, err := readMeta(ctx, db, db.Dialect); !errors.Is(err, errNotPrepared) {
		t.Errorf("readMeta after an interrupted prepare: %v, want errNotPrepared", err)
	}
	if n := loadCount(t, db, "SELECT COUNT(*) FROM vmbench_tpcc_load WHERE w_id = 1"); n != 0 {
		t.Errorf("warehouse 1 recorded as loaded after an interrupted prepare")
	}
	stock := loadCount(t, db, "SELECT COUNT(*) FROM stock")
	if stock == 0 || stock >= StockPerWarehouse {
		t.Errorf("%d stock rows at the interruption, want a partial warehouse", stock)
	}
	t.Logf("interrupted after %d stock rows; returned %v after the cancel", stock, returned.Round(time.Millisecond))
}

// TestPrepareSQLite loads 1 warehouse into an SQLite file.
func TestPrepareSQLite(t *testing.T) {
	if golden.RaceEnabled() {
		t.Skip("modernc.org/sqlite under the race detector loads a warehouse in about 3 minutes; " +
			"make test runs the SQLite tests without -race (go test -run SQLite ./tpcc/)")
	}
	t.Parallel()
	c := DefaultConfig()
	c.Conn.Driver = dialect.SQLite
	c.Conn.SQLitePath = filepath.Join(t.TempDir(), "tpcc.db")
	ctx := loadTestContext(t)
	var cl bytes.Buffer
	if err := Cleanup(ctx, c, &cl); err != nil || !strings.Contains(cl.String(), "does not exist") {
		t.Errorf("cleanup without a file: %v, %s", err, cl.String())
	}
	l := sqliteTemplate(t)
	out := l.out
	t.Logf("1 warehouse on SQLite: %s", lastLine(out))
	if !strings.Contains(out, "1 loader thread") {
		t.Errorf("SQLite should load with one writer:\n%s", out)
	}
	checkLoaded(t, loadOpen(t, l.cfg), 1, expectOrderLines(t, 1))
	c = sqliteCopy(t)
	db := loadOpen(t, c)
	cl.Reset()
	if err := Cleanup(ctx, c, &cl); err != nil || !strings.Contains(cl.String(), "Dropped 11 table(s)") {
		t.Errorf("cleanup: %v, %s", err, cl.String())
	}
	if n := loadCount(t, db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'"); n != 0 {
		t.Errorf("%d tables after cleanup", n)
	}
}
