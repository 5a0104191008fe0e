package sysbench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"vmbench/dialect"
	"vmbench/internal/textfmt"
)

// sqliteConfig returns a Config on a fresh SQLite file: 2 tables x 300
// rows, 2 threads, 20 events.
func sqliteConfig(t *testing.T, w Workload) Config {
	c := DefaultConfig()
	c.Workload = w
	c.Conn.Driver = dialect.SQLite
	c.Conn.SQLitePath = filepath.Join(t.TempDir(), "sbtest.db")
	c.Tables, c.TableSize, c.Threads, c.Events, c.Time = 2, 300, 2, 20, 0
	c.Rand.Seed = 3
	return c
}

// TestRunChecksTheData: a run refuses tables that do not hold --tables x
// --table-size rows (sysbench's ids 1..table-size), before any thread
// starts, with an error that names the flag, what the data holds and the
// value that fits; the workloads that add or remove rows are allowed to.
func TestRunChecksTheData(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config func(t *testing.T, w Workload) Config
	}{
		{"MariaDB", mariaConfig},
		{"SQLite", sqliteConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := ctxT(t)
			c := tc.config(t, ReadWrite)
			c.Events = 20
			size := c.TableSize
			if _, err := Run(ctx, c, c.RunConfig()); !errors.Is(err, ErrFlagValue) ||
				!strings.Contains(err.Error(), " does not exist") || !strings.Contains(err.Error(), "vmbench sysbench prepare") {
				t.Errorf("run before prepare: %v, want ErrFlagValue saying to prepare", err)
			}
			if err := Prepare(ctx, c, nil, false); err != nil {
				t.Fatal(err)
			}
			for _, bad := range []struct {
				tables int
				size   int64
				want   string
			}{
				{c.Tables, size * 1000, "; --table-size is " + textfmt.Thousands(size*1000) + ": prepare with that size or pass --table-size " + strconv.FormatInt(size, 10)},
				{c.Tables, size - 1, "holds ids 1.." + textfmt.Thousands(size) + " (highest id " + textfmt.Thousands(size) + "; COUNT(*) of ids 1.." + textfmt.Thousands(size) +
					" found " + textfmt.Thousands(size) + " rows); --table-size is " + textfmt.Thousands(size-1)},
				{c.Tables + 1, size, "--tables: sbtest3 does not exist"},
			} {
				c2 := c
				c2.Tables, c2.TableSize = bad.tables, bad.size
				_, err := Run(ctx, c2, c2.RunConfig())
				if !errors.Is(err, ErrFlagValue) || !strings.Contains(err.Error(), bad.want) {
					t.Errorf("--tables=%d --table-size=%d: %v\nwant ErrFlagValue containing %q", bad.tables, bad.size, err, bad.want)
				}
				if bad.tables > c.Tables && err != nil && !strings.Contains(err.Error(), "pass --tables 2") {
					t.Errorf("missing table: %v, want the --tables that fits", err)
				}
			}
			if _, err := Run(ctx, c, c.RunConfig()); err != nil {
				t.Fatalf("matching flags: %v", err)
			}
			// oltp_delete and oltp_insert remove and add rows; they still
			// run with the prepared --table-size, in either order, while
			// the others then see rows beyond it. A --table-size of more
			// than twice the data is refused for them too.
			for _, w := range []Workload{Delete, Insert, Delete} {
				c2 := c
				c2.Workload = w
				if _, err := Run(ctx, c2, c2.RunConfig()); err != nil {
					t.Fatalf("%s after prepare: %v", w, err)
				}
			}
			if _, err := Run(ctx, c, c.RunConfig()); !errors.Is(err, ErrFlagValue) {
				t.Errorf("oltp_read_write on tables oltp_insert grew: %v, want ErrFlagValue", err)
			}
			c2 := c
			c2.Workload, c2.TableSize = Delete, 3*size
			if _, err := Run(ctx, c2, c2.RunConfig()); !errors.Is(err, ErrFlagValue) || !strings.Contains(err.Error(), "--table-size") {
				t.Errorf("oltp_delete --table-size=%d on %d rows: %v, want ErrFlagValue", c2.TableSize, size, err)
			}
		})
	}
}

// TestRunRefusesMissingRows: a table whose highest id is --table-size but
// most of whose rows are gone (ids 2..9,000 of 10,000 deleted) is refused
// before the run starts, for the workloads that keep the ids and for
// oltp_delete, with a message naming the table, its highest id as such,
// how its rows were counted and what was found; a wider --table-size is
// refused the same way, not offered the highest id as a row count. The
// complete table is accepted.
func TestRunRefusesMissingRows(t *testing.T) {
	onDatabases(t, func(t *testing.T, config configFunc) {
		ctx := ctxT(t)
		c := config(t, ReadWrite)
		c.Tables, c.TableSize, c.Events, c.Time = 1, 10000, 10, 0
		if err := Prepare(ctx, c, nil, false); err != nil {
			t.Fatal(err)
		}
		if _, err := Run(ctx, c, c.RunConfig()); err != nil {
			t.Fatalf("the complete table: %v", err)
		}
		const gone0, gone1 = 2, 9000
		db := openT(t, c)
		if _, err := db.ExecContext(ctx, fmt.Sprintf("DELETE FROM sbtest1 WHERE id BETWEEN %d AND %d", gone0, gone1)); err != nil {
			t.Fatal(err)
		}
		var found, ids int64 // what the windows hold now
		for _, r := range sampleRanges(c.TableSize) {
			ids += r[1] - r[0] + 1
			found += r[1] - r[0] + 1 - max(0, min(r[1], gone1)-max(r[0], gone0)+1)
		}
		for _, w := range []struct {
			workload Workload
			size     int64
			need     string
		}{
			{ReadWrite, c.TableSize, "needs rows for 99% of ids 1..10,000"},
			{Delete, c.TableSize, "needs rows for half of ids 1..10,000"},
			{ReadWrite, 2 * c.TableSize, "needs rows for 99% of ids 1..20,000"},
		} {
			c2 := c
			c2.Workload, c2.TableSize = w.workload, w.size
			_, err := Run(ctx, c2, c2.RunConfig())
			msg := fmt.Sprint(err)
			for _, want := range []string{
				"--table-size: sbtest1 in ", " is missing rows: COUNT(*) in 10 windows of 500 ids spread evenly over ids 1..10,000 found " +
					textfmt.Thousands(found) + " rows in their " + textfmt.Thousands(ids) + " ids", "(highest id 10,000)", w.need,
			} {
				if !errors.Is(err, ErrFlagValue) || !strings.Contains(msg, want) {
					t.Errorf("%s --table-size %d after deleting ids %d..%d: %v\nwant ErrFlagValue containing %q", w.workload, w.size, gone0, gone1, err, want)
				}
			}
			if strings.Contains(msg, "10,000 rows") {
				t.Errorf("the highest id is called a row count: %v", err)
			}
		}
	}, "MariaDB", "PostgreSQL", "SQLite")
}

// TestRunChecksServerLimits: --threads beyond the server's
// max_connections, and more prepared statements than its
// max_prepared_stmt_count, are refused before any thread connects, naming
// the flag and the server variable.
func TestRunChecksServerLimits(t *testing.T) {
	ctx := ctxT(t)
	c := mariaConfig(t, ReadWrite)
	db := openT(t, c)
	var maxConns, maxStmts int64
	if err := db.QueryRow("SELECT @@max_connections, @@max_prepared_stmt_count").Scan(&maxConns, &maxStmts); err != nil {
		t.Fatal(err)
	}
	if maxConns+1 > MaxThreads {
		t.Skipf("max_connections is %d, more than --threads may be", maxConns)
	}
	c.Threads = int(maxConns + 1)
	_, err := Run(ctx, c, c.RunConfig())
	if !errors.Is(err, ErrFlagValue) || !strings.Contains(err.Error(), "--threads: "+strconv.Itoa(c.Threads)+" connections, but the server's max_connections is "+textfmt.Thousands(maxConns)) {
		t.Errorf("--threads=%d: %v\nwant ErrFlagValue naming --threads and max_connections", c.Threads, err)
	}

	c.Threads = 2
	c.Tables = int(maxStmts/(2*9)) + 1 // oltp_read_write prepares 9 kinds per table
	if c.Tables > MaxTables {
		t.Skipf("max_prepared_stmt_count is %d, more than --tables may ask", maxStmts)
	}
	_, err = Run(ctx, c, c.RunConfig())
	if !errors.Is(err, ErrFlagValue) || !strings.Contains(err.Error(), "--threads x --tables") ||
		!strings.Contains(err.Error(), "max_prepared_stmt_count is "+textfmt.Thousands(maxStmts)) {
		t.Errorf("--tables=%d: %v\nwant ErrFlagValue naming --threads x --tables and max_prepared_stmt_count", c.Tables, err)
	}
}

// TestMissingSQLiteFileIsNotCreated: run and cleanup on an SQLite file
// that does not exist leave no file behind (opening it would create an
// empty one); run says to prepare first.
func TestMissingSQLiteFileIsNotCreated(t *testing.T) {
	c := sqliteConfig(t, ReadWrite)
	ctx := ctxT(t)
	if _, err := Run(ctx, c, c.RunConfig()); !errors.Is(err, ErrFlagValue) || !strings.Contains(err.Error(), "--sqlite-path: "+c.Conn.SQLitePath+" does not exist") {
		t.Errorf("run: %v, want ErrFlagValue naming --sqlite-path", err)
	}
	var out strings.Builder
	if err := Cleanup(ctx, c, &out); err != nil || !strings.Contains(out.String(), "nothing to drop") {
		t.Errorf("cleanup: %v, %q", err, out.String())
	}
	if _, err := os.Stat(c.Conn.SQLitePath); !os.IsNotExist(err) {
		t.Errorf("%s was created: %v", c.Conn.SQLitePath, err)
	}
}
