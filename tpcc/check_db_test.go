package tpcc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vmbench/dialect"
	"vmbench/internal/golden"
	"vmbench/internal/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// checkContext bounds a check test: a 1-warehouse load and a few Checks,
// which take minutes on SQLite under -race.
func checkContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// mariaCheckConfig returns a 1-warehouse Config on a fresh database of the
// shared test server: a copy of the shared load's first warehouse.
func mariaCheckConfig(t *testing.T) Config {
	t.Helper()
	return mariaCopy(t, 1)
}

// prepareForCheck loads cfg (a copy of a shared load: Prepare finds it
// complete) and returns an open pool on it.
func prepareForCheck(t *testing.T, ctx context.Context, cfg Config) *dialect.DB {
	t.Helper()
	start := time.Now()
	if err := Prepare(ctx, cfg, nil, false); err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	t.Logf("Prepare of %d warehouse(s) on %s: %v", cfg.Warehouses, cfg.Conn.Driver, time.Since(start).Round(time.Millisecond))
	db, err := dialect.Open(ctx, cfg.DialectConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// runCheck runs Check and returns its results, output and error.
func runCheck(t *testing.T, ctx context.Context, cfg Config) ([]CheckResult, string, error) {
	t.Helper()
	var out bytes.Buffer
	start := time.Now()
	res, err := Check(ctx, cfg, &out)
	t.Logf("Check: %v", time.Since(start).Round(time.Millisecond))
	if err != nil && !strings.HasPrefix(err.Error(), "consistency: ") {
		t.Fatalf("Check: %v", err)
	}
	if len(res) != 12 {
		t.Fatalf("Check returned %d results, want 12 (error %v)", len(res), err)
	}
	for i, r := range res {
		if want := fmt.Sprintf("3.3.2.%d", i+1); r.Clause != want {
			t.Errorf("result %d is clause %s, want %s", i, r.Clause, want)
		}
	}
	return res, out.String(), err
}

// wantAllPass fails unless every condition passed, except those in skipped,
// which must be skipped.
func wantAllPass(t *testing.T, res []CheckResult, out string, err error, skipped ...string) {
	t.Helper()
	if err != nil {
		t.Errorf("Check: %v\n%s", err, out)
	}
	for _, r := range res {
		switch {
		case slices.Contains(skipped, r.Clause):
			if r.Skipped == "" || r.Passed() {
				t.Errorf("%s %s: %+v, want skipped", r.Clause, r.Name, r)
			}
		case !r.Passed() || r.Warehouses != 1:
			t.Errorf("%s %s: %+v, want passed on 1 warehouse", r.Clause, r.Name, r)
		}
	}
	if strings.Count(out, "PASS  (1 warehouse)\n") != 12-len(skipped) {
		t.Errorf("output has not %d PASS lines:\n%s", 12-len(skipped), out)
	}
}

// corruption is a change to a loaded database, the conditions it breaks
// (clause -> the start of its first failure) and how to undo it.
type corruption struct {
	name            string
	corrupt, repair []string
	want            map[string]string
}

// corruptions of warehouse 1 as prepare loads it: order 100 of every
// district is delivered, order 2500 is not, customer 1 of district 9
// has exactly one HISTORY row.
var corruptions = []corruption{
	{
		name:    "w_ytd+1",
		corrupt: []string{"UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1"},
		repair:  []string{"UPDATE warehouse SET w_ytd = w_ytd - 1 WHERE w_id = 1"},
		want: map[string]string{
			"3.3.2.1": "warehouse 1: w_ytd = 300001.00, sum(d_ytd) = 300000.00",
			"3.3.2.8": "warehouse 1: w_ytd = 300001.00, sum(h_amount) = 300000.00",
		},
	},
	{
		name: "order line deleted",
		corrupt: []string{
			"CREATE TABLE ol_saved AS SELECT * FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 3 AND ol_o_id = 2500 AND ol_number = 1",
			"DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 3 AND ol_o_id = 2500 AND ol_number = 1",
		},
		repair: []string{"INSERT INTO order_line SELECT * FROM ol_saved", "DROP TABLE ol_saved"},
		want: map[string]string{
			"3.3.2.4": "warehouse 1 district 3: sum(o_ol_cnt) = ",
			"3.3.2.6": "warehouse 1 district 3 order 2500: o_ol_cnt = ",
		},
	},
	{
		name:    "d_next_o_id+1",
		corrupt: []string{"UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 7"},
		repair:  []string{"UPDATE district SET d_next_o_id = d_next_o_id - 1 WHERE d_w_id = 1 AND d_id = 7"},
		want: map[string]string{
			"3.3.2.2": "warehouse 1 district 7: d_next_o_id-1 = 3001, max(o_id) = 3000, max(no_o_id) = 3000",
		},
	},
	{
		name: "delivered order without carrier",
		corrupt: []string{
			"CREATE TABLE o_saved AS SELECT o_carrier_id FROM orders WHERE o_w_id = 1 AND o_d_id = 5 AND o_id = 100",
			"UPDATE orders SET o_carrier_id = NULL WHERE o_w_id = 1 AND o_d_id = 5 AND o_id = 100",
		},
		repair: []string{
			"UPDATE orders SET o_carrier_id = (SELECT o_carrier_id FROM o_saved) WHERE o_w_id = 1 AND o_d_id = 5 AND o_id = 100",
			"DROP TABLE o_saved",
		},
		want: map[string]string{
			"3.3.2.5": "warehouse 1 district 5 order 100: o_carrier_id NULL and no NEW-ORDER row",
			"3.3.2.7": "warehouse 1 district 5 order 100: o_carrier_id NULL, ",
		},
	},
	{
		name:    "c_balance+5",
		corrupt: []string{"UPDATE customer SET c_balance = c_balance + 5 WHERE c_w_id = 1 AND c_d_id = 2 AND c_id = 42"},
		repair:  []string{"UPDATE customer SET c_balance = c_balance - 5 WHERE c_w_id = 1 AND c_d_id = 2 AND c_id = 42"},
		want: map[string]string{
			"3.3.2.10": "warehouse 1 district 2 customer 42: c_balance = -5.00, delivered ol_amount - h_amount = 0.00 - 10.00 = -10.00",
			"3.3.2.12": "warehouse 1 district 2 customer 42: c_balance + c_ytd_payment = 5.00, delivered ol_amount = 0.00",
		},
	},
	{
		name:    "new order deleted",
		corrupt: []string{"DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 4 AND no_o_id = 2500"},
		repair:  []string{"INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (2500, 4, 1)"},
		want: map[string]string{
			"3.3.2.3":  "warehouse 1 district 4: max(no_o_id)-min(no_o_id)+1 = 900, NEW-ORDER rows = 899",
			"3.3.2.5":  "warehouse 1 district 4 order 2500: o_carrier_id NULL and no NEW-ORDER row",
			"3.3.2.11": "warehouse 1 district 4: ORDER rows - NEW-ORDER rows = 3000 - 899 = 2101, not 2100",
		},
	},
	{
		name:    "h_amount+1",
		corrupt: []string{"UPDATE history SET h_amount = h_amount + 1 WHERE h_w_id = 1 AND h_d_id = 9 AND h_c_id = 1"},
		repair:  []string{"UPDATE history SET h_amount = h_amount - 1 WHERE h_w_id = 1 AND h_d_id = 9 AND h_c_id = 1"},
		want: map[string]string{
			"3.3.2.8":  "warehouse 1: w_ytd = 300000.00, sum(h_amount) = 300001.00",
			"3.3.2.9":  "warehouse 1 district 9: d_ytd = 30000.00, sum(h_amount) = 30001.00",
			"3.3.2.10": "warehouse 1 district 9 customer 1: c_balance = -10.00, delivered ol_amount - h_amount = 0.00 - 11.00 = -11.00",
		},
	},
}

// execAll runs statements on db.
func execAll(t *testing.T, ctx context.Context, db *dialect.DB, stmts []string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// checkCorruption applies c, checks that exactly c.want fail, with the
// failure named, and repairs the database.
func checkCorruption(t *testing.T, ctx context.Context, cfg Config, db *dialect.DB, c corruption) {
	t.Helper()
	execAll(t, ctx, db, c.corrupt)
	defer execAll(t, ctx, db, c.repair)
	res, out, err := runCheck(t, ctx, cfg)
	wantErr := fmt.Sprintf("consistency: %d of 12 conditions failed", len(c.want))
	if err == nil || err.Error() != wantErr {
		t.Errorf("Check error %v, want %q", err, wantErr)
	}
	for _, r := range res {
		prefix, bad := c.want[r.Clause]
		if !bad {
			if !r.Passed() {
				t.Errorf("%s %s failed too: %+v", r.Clause, r.Name, r)
			}
			continue
		}
		if r.Passed() || r.Failed != 1 || len(r.Failures) != 1 || !strings.HasPrefix(r.Failures[0], prefix) {
			t.Errorf("%s %s: %+v, want 1 failure starting %q", r.Clause, r.Name, r, prefix)
			continue
		}
		if !strings.Contains(out, "FAIL  ") || !strings.Contains(out, "\n          "+r.Failures[0]+"\n") {
			t.Errorf("%s: output does not show the failure %q:\n%s", r.Clause, r.Failures[0], out)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

// TestCheckMariaDB loads 1 warehouse, checks that every condition holds,
// breaks the data in ways that each break known conditions, and checks
// that 3.3.2.11 is skipped once a run has counted itself.
func TestCheckMariaDB(t *testing.T) {
	t.Parallel()
	ctx := checkContext(t)
	cfg := mariaCheckConfig(t)
	db := prepareForCheck(t, ctx, cfg)

	res, out, err := runCheck(t, ctx, cfg)
	wantAllPass(t, res, out, err)
	t.Logf("output:\n%s", out)

	for _, c := range corruptions {
		t.Run(c.name, func(t *testing.T) { checkCorruption(t, ctx, cfg, db, c) })
	}

	// Repaired, and a run counted: 3.3.2.11 is no longer checked.
	if err := countRun(ctx, db, db.Dialect); err != nil {
		t.Fatal(err)
	}
	res, out, err = runCheck(t, ctx, cfg)
	wantAllPass(t, res, out, err, "3.3.2.11")
	if r := res[10]; !strings.Contains(r.Skipped, "1 run since the load") {
		t.Errorf("3.3.2.11 skipped for %q", r.Skipped)
	}
	if !strings.Contains(out, "3.3.2.11  count(ORDER) - count(NEW-ORDER) = 2100") || !strings.Contains(out, "skipped: 1 run since the load") {
		t.Errorf("output does not show 3.3.2.11 skipped:\n%s", out)
	}
}

// TestCheckSQLite: every condition holds after a 1-warehouse load on
// SQLite. (Under -race, modernc.org/sqlite is about 25 times slower: the
// load and one Check take minutes there, seconds without.)
func TestCheckSQLite(t *testing.T) {
	if golden.RaceEnabled() {
		t.Skip("modernc.org/sqlite under the race detector takes minutes for a load; make test runs the SQLite tests without -race")
	}
	t.Parallel()
	ctx := checkContext(t)
	cfg := sqliteCopy(t)
	prepareForCheck(t, ctx, cfg)
	res, out, err := runCheck(t, ctx, cfg)
	wantAllPass(t, res, out, err)
}

// TestCheckMoneyToleranceSQLite: SQLite keeps DECIMAL as binary floating
// point, so a balance kept by a run's arithmetic is not exactly the sum of
// its amounts. The customer conditions take half a cent as equal and a
// cent off as a failure.
func TestCheckMoneyToleranceSQLite(t *testing.T) {
	ctx := checkContext(t)
	cfg := DefaultConfig()
	cfg.Conn.Driver, cfg.Conn.SQLitePath = dialect.SQLite, filepath.Join(t.TempDir(), "money.db")
	db, err := dialect.Open(ctx, cfg.DialectConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := db.Dialect
	for _, name := range []string{Customer, History, Orders, OrderLine} {
		execAll(t, ctx, db, []string{createTable(d, tableByName(name))})
	}
	at := "2024-05-06 07:08:09"
	insert := func(table string, vals ...any) {
		t.Helper()
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(vals)), ", ")
		if _, err := db.ExecContext(ctx, "INSERT INTO "+table+" VALUES ("+marks+")", vals...); err != nil {
			t.Fatalf("INSERT INTO %s: %v", table, err)
		}
	}
	// Customer 1 of district 1 paid 10.00 at the load, then 0.10 and
	// 0.20, and received one delivered order of ten lines of 0.10.
	insert(Customer, 1, 1, 1, "first", "OE", "BARBARBAR", "s1", "s2", "city", "ST", "123411111", "0123456789012345", at,
		"GC", 50000.0, 0.1, 0.0, 0.0, 3, 1, "data")
	for _, amount := range []float64{10, 0.1, 0.2} {
		insert(History, 1, 1, 1, 1, 1, at, amount, "h")
	}
	insert(Orders, 1, 1, 1, 1, at, 3, 10, 1)
	for n := 1; n <= 10; n++ {
		insert(OrderLine, 1, 1, 1, n, n, 1, at, 1, 0.1, "dist")
	}

	k := &checker{db: db.DB, d: d}
	for _, tc := range []struct {
		set            string // how the run's arithmetic left the customer
		fail10, fail12 bool
	}{
		// 1.78e-15 off in binary: equal.
		{"c_balance = -10.0 + 1.0 - 0.1 - 0.2, c_ytd_payment = 10.0 + 0.1 + 0.2", false, false},
		{"c_balance = -10.0 + 1.0 - 0.1 - 0.2 + 0.004, c_ytd_payment = 10.0 + 0.1 + 0.2", false, false},
		{"c_balance = -10.0 + 1.0 - 0.1 - 0.2 + 0.01, c_ytd_payment = 10.0 + 0.1 + 0.2", true, true},
		{"c_balance = -10.0 + 1.0 - 0.1 - 0.2 - 0.01, c_ytd_payment = 10.0 + 0.1 + 0.2 + 0.01", true, false},
	} {
		execAll(t, ctx, db, []string{"UPDATE customer SET " + tc.set})
		var bal, ytd float64
		if err := db.QueryRowContext(ctx, "SELECT c_balance, c_ytd_payment FROM customer").Scan(&bal, &ytd); err != nil {
			t.Fatal(err)
		}
		var diff float64
		if err := db.QueryRowContext(ctx, "SELECT c_balance - ((SELECT SUM(ol_amount) FROM order_line) - (SELECT SUM(h_amount) FROM history)) FROM customer").Scan(&diff); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: c_balance - (delivered - paid) = %.3g", tc.set, diff)
		for _, c := range []condition{conditions[9], conditions[11]} {
			fail := tc.fail10
			if c.clause == "3.3.2.12" {
				fail = tc.fail12
			}
			var r CheckResult
			if err := k.run(ctx, c, 1, &r); err != nil {
				t.Fatal(err)
			}
			if r.Failed > 0 != fail {
				t.Errorf("%s after %s (c_balance %.17g, c_ytd_payment %.17g): %+v, want fail=%v", c.clause, tc.set, bal, ytd, r, fail)
			}
		}
	}
}

// TestCheckNotPrepared: an empty database is an error, not a pass.
func TestCheckNotPrepared(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Conn.Driver, cfg.Conn.SQLitePath = dialect.SQLite, filepath.Join(t.TempDir(), "empty.db")
	res, err := Check(checkContext(t), cfg, nil)
	if !errors.Is(err, errNotPrepared) || res != nil {
		t.Errorf("Check of an empty database: %v, %v; want errNotPrepared", res, err)
	}
}

// TestCheckLines pins the output format of one condition.
func TestCheckLines(t *testing.T) {
	fails := make([]string, maxFailures)
	for i := range fails {
		fails[i] = fmt.Sprintf("warehouse 1 district 2 customer %d: c_balance = 1.00, delivered ol_amount - h_amount = 0.00 - 10.00 = -10.00", i+1)
	}
	tests := []struct {
		r    CheckResult
		unit string
		of   int
		want string
	}{
		{CheckResult{Clause: "3.3.2.1", Name: conditions[0].name, Warehouses: 2}, "warehouse", 2,
			"3.3.2.1   W_YTD = sum(D_YTD)                               PASS  (2 warehouses)\n"},
		{CheckResult{Clause: "3.3.2.2", Name: conditions[1].name, Warehouses: 2, Failed: 1,
			Failures: []string{"warehouse 2 district 7: d_next_o_id-1 = 3010, max(o_id) = 3011"}}, "district", 20,
			"3.3.2.2   D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)       FAIL  1 of 20 districts\n" +
				"          warehouse 2 district 7: d_next_o_id-1 = 3010, max(o_id) = 3011\n"},
		{CheckResult{Clause: "3.3.2.10", Name: conditions[9].name, Warehouses: 1, Failed: 12, Failures: fails}, "customer", 0,
			"3.3.2.10  C_BALANCE = delivered OL_AMOUNT - H_AMOUNT       FAIL  12 customers (1 warehouse)\n" +
				"          " + strings.Join(fails, "\n          ") + "\n          ... and 2 more\n"},
		{CheckResult{Clause: "3.3.2.11", Name: conditions[10].name, Skipped: "2 runs since the load; it holds only right after prepare"}, "district", 0,
			"3.3.2.11  count(ORDER) - count(NEW-ORDER) = 2100           skipped: 2 runs since the load; it holds only right after prepare\n"},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		writeCheckLine(&b, tc.r, tc.unit, tc.of)
		if b.String() != tc.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", tc.r.Clause, b.String(), tc.want)
		}
	}
}

// TestCheckStatementsBind: every statement binds to each dialect's
// placeholders. The SQL Server text is only tested here, never run.
func TestCheckStatementsBind(t *testing.T) {
	stmt := "SELECT a FROM t WHERE x = ? AND y IN (SELECT y FROM u WHERE w = ?)"
	for _, tc := range []struct {
		d    dialect.Driver
		want string
	}{
		{dialect.MySQL, stmt},
		{dialect.SQLite, stmt},
		{dialect.SQLServer, "SELECT a FROM t WHERE x = @p1 AND y IN (SELECT y FROM u WHERE w = @p2)"},
	} {
		if got, n := bindWarehouse(tc.d.Dialect(), stmt); got != tc.want || n != 2 {
			t.Errorf("%s: %q, %d; want %q, 2", tc.d, got, n, tc.want)
		}
	}
}
