package tpcc

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vmbench/dialect"
	"vmbench/internal/testdb"
)

// Loading a warehouse (600,000 rows) is what makes these tests slow, so
// each test binary loads once per database kind and the tests that change
// the data work on copies: a MariaDB load of 2 warehouses (made as
// TestPrepareMariaDB's loader test: interrupted, resumed, a connection
// killed), copied
// server-side, whole or its first warehouse alone; and an SQLite file of
// 1 warehouse, copied as a file.

// sharedLoad is one load that tests copy and never change.
type sharedLoad struct {
	once   sync.Once
	cfg    Config
	out    string // Prepare's output
	killed string // the statement whose connection was killed, if any
	err    error
	// interrupted is the error of a first Prepare cancelled in the
	// middle of the load (MariaDB), which the second one resumed.
	interrupted error
}

var (
	mariaLoad  sharedLoad // 2 warehouses, seed loadTestSeed
	sqliteLoad sharedLoad // 1 warehouse, seed loadTestSeed
	pgLoad     sharedLoad // 1 warehouse, seed loadTestSeed, by COPY
	// sqliteDir holds the SQLite load; it outlives every test, so it is
	// named by the test binary's process, and the first use removes those
	// of processes that have ended.
	sqliteDir = sync.OnceValue(func() string {
		old, _ := filepath.Glob(filepath.Join(os.TempDir(), "vmbench-tpcc-test-*"))
		for _, d := range old {
			if pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "vmbench-tpcc-test-")); err == nil && processGone(pid) {
				_ = os.RemoveAll(d)
			}
		}
		d := filepath.Join(os.TempDir(), "vmbench-tpcc-test-"+strconv.Itoa(os.Getpid()))
		if err := os.MkdirAll(d, 0o755); err != nil {
			panic(err)
		}
		testdb.AtExit(func() { _ = os.RemoveAll(d) })
		return d
	})
)

// mariaTemplate returns the shared MariaDB load: 2 warehouses with seed
// loadTestSeed, interrupted in warehouse 1 and resumed while a loader
// connection is killed as it inserts order_line rows (TestPrepareMariaDB
// checks the outcome), in a database that outlives the test that made it.
func mariaTemplate(t *testing.T) *sharedLoad {
	t.Helper()
	srv := testdb.Shared(t)
	l := &mariaLoad
	l.once.Do(func() {
		c := DefaultConfig()
		c.Conn.Host, c.Conn.Port, c.Conn.User, c.Conn.Database = srv.Host(), srv.Port(), srv.User(), "tpcc_template"
		c.Warehouses, c.Seed = 2, loadTestSeed
		l.cfg = c
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		// Interrupted, on one loader thread, once item and some stock
		// rows of warehouse 1 are in; then resumed on two.
		cctx, interrupt := context.WithCancel(ctx)
		one := c
		one.Threads, one.WaitScale = 1, 0 // as ParseFlags reads --threads 1
		l.interrupted = Prepare(cctx, one, &cancelOnProgress{after: Items + 10000, cancel: interrupt}, true)
		interrupt()
		wait := killOneInsert(t, ctx, c.Conn.Database, OrderLine)
		var out bytes.Buffer
		l.err = Prepare(ctx, c, &out, false)
		var kerr error
		l.killed, kerr = wait()
		l.out = out.String()
		if l.err == nil && kerr != nil {
			l.err = kerr
		}
	})
	if l.err != nil {
		t.Fatalf("the shared 2-warehouse load: %v\n%s", l.err, l.out)
	}
	return l
}

// sqliteTemplate returns the shared SQLite load: 1 warehouse with seed
// loadTestSeed.
func sqliteTemplate(t testing.TB) *sharedLoad {
	t.Helper()
	return sqliteLoad.prepared(t, "SQLite", func() Config {
		c := DefaultConfig()
		c.Conn.Driver, c.Conn.SQLitePath, c.Seed = dialect.SQLite, filepath.Join(sqliteDir(), "template.db"), loadTestSeed
		return c
	})
}

// pgTemplate returns the shared PostgreSQL load: 1 warehouse with seed
// loadTestSeed, in a database of the shared throwaway PostgreSQL that
// outlives the test that made it and that no test connects to (pgCopy
// copies it with CREATE DATABASE ... TEMPLATE).
func pgTemplate(t testing.TB) *sharedLoad {
	t.Helper()
	srv := testdb.SharedPostgres(t)
	return pgLoad.prepared(t, "PostgreSQL", func() Config {
		c := DefaultConfig()
		c.Conn = dialect.Config{Driver: dialect.Postgres, Host: srv.Host(), Port: srv.Port(), User: srv.User(),
			Database: "tpcc_template", Params: map[string]string{"sslmode": "disable"}}
		c.Warehouses, c.Seed = 1, loadTestSeed
		return c
	})
}

// prepared runs Prepare once, on the first call, with the Config cfg
// returns, and returns l; it fails the test when that load failed
// (named as the shared <kind> load).
func (l *sharedLoad) prepared(t testing.TB, kind string, cfg func() Config) *sharedLoad {
	t.Helper()
	l.once.Do(func() {
		l.cfg = cfg()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		var out bytes.Buffer
		l.err = Prepare(ctx, l.cfg, &out, false)
		l.out = out.String()
	})
	if l.err != nil {
		t.Fatalf("the shared %s load: %v\n%s", kind, l.err, l.out)
	}
	return l
}

// pgCopy returns the Config of a fresh database of the test holding a
// copy of the shared PostgreSQL load (dialect.CopyDatabase: CREATE
// DATABASE ... TEMPLATE, well under a second for a warehouse).
func pgCopy(t testing.TB) Config {
	t.Helper()
	l := pgTemplate(t)
	c := l.cfg
	c.Conn = c.Conn.WithDatabase(testdb.SharedPostgres(t).NewDatabase(t))
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := dialect.CopyDatabase(ctx, l.cfg.Conn, c.Conn); err != nil {
		t.Fatalf("copying the shared PostgreSQL load: %v", err)
	}
	t.Logf("copied the shared PostgreSQL load in %v", time.Since(start).Round(time.Millisecond))
	return c
}

// warehouseColumn is each table's warehouse column ("" for none).
var warehouseColumn = map[string]string{
	Warehouse: "w_id", District: "d_w_id", Customer: "c_w_id", History: "h_w_id", Orders: "o_w_id",
	NewOrder: "no_w_id", OrderLine: "ol_w_id", Stock: "s_w_id", Item: "", metaTable: "", loadTable: "w_id",
}

// mariaCopy returns the Config of a fresh database of the test holding
// the first warehouses of the shared MariaDB load, copied server-side
// (the stored scale says warehouses).
func mariaCopy(t *testing.T, warehouses int) Config {
	t.Helper()
	return mariaCopyWhere(t, warehouses, nil)
}

// mariaCopyWhere is mariaCopy of the rows of each table that where[table]
// selects (an SQL condition; the table's warehouse column up to
// warehouses when absent).
func mariaCopyWhere(t *testing.T, warehouses int, where map[string]string) Config {
	t.Helper()
	l := mariaTemplate(t)
	srv := testdb.Shared(t)
	c := l.cfg
	c.Conn.Database, c.Warehouses = srv.NewDatabase(t), warehouses
	admin, err := sql.Open("mysql", srv.DSN(c.Conn.Database))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	for name, col := range warehouseColumn {
		q := []string{fmt.Sprintf("CREATE TABLE `%s` LIKE tpcc_template.`%s`", name, name),
			fmt.Sprintf("INSERT INTO `%s` SELECT * FROM tpcc_template.`%s`", name, name)}
		switch cond, ok := where[name]; {
		case ok:
			q[1] += " WHERE " + cond
		case col != "":
			q[1] += fmt.Sprintf(" WHERE %s <= %d", col, warehouses)
		}
		for _, s := range q {
			if _, err := admin.ExecContext(ctx, s); err != nil {
				t.Fatalf("copying the shared load: %s: %v", s, err)
			}
		}
	}
	if _, err := admin.ExecContext(ctx, "UPDATE "+metaTable+" SET value = ? WHERE name = 'warehouses'", strconv.Itoa(warehouses)); err != nil {
		t.Fatal(err)
	}
	t.Logf("copied %d warehouse(s) of the shared MariaDB load in %v", warehouses, time.Since(start).Round(time.Millisecond))
	return c
}

// sqliteCopy returns the Config of a copy of the shared SQLite load in
// the test's temporary directory.
func sqliteCopy(t *testing.T) Config {
	t.Helper()
	l := sqliteTemplate(t)
	c := l.cfg
	c.Conn.SQLitePath = filepath.Join(t.TempDir(), "tpcc.db")
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(l.cfg.Conn.SQLitePath+suffix, c.Conn.SQLitePath+suffix); err != nil && (suffix == "" || !os.IsNotExist(err)) {
			t.Fatal(err)
		}
	}
	return c
}

// copyFile copies the file src to dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
