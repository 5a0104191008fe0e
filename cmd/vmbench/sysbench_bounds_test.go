package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestSysbenchHugeThreadsExitsAtOnce: 'sysbench run --threads 100000000'
// (which once grew to 21 GB) exits 2 with the bound named, before
// connecting, without allocating per thread.
func TestSysbenchHugeThreadsExitsAtOnce(t *testing.T) {
	db := filepath.Join(t.TempDir(), "missing-dir", "sbtest.db") // old code failed here with exit 1
	for _, args := range [][]string{
		{"sysbench", "run", "--threads", "100000000", "--db-driver", "sqlite", "--sqlite-path", db},
		{"sysbench", "oltp_point_select", "run", "--threads=100000000", "--db-driver=sqlite", "--sqlite-path=" + db},
		{"sysbench", "prepare", "--tables", "100000000", "--threads", "100000000", "--db-driver", "sqlite", "--sqlite-path", db},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		code, _, stderr := runCLI(t, nil, args...)
		runtime.ReadMemStats(&after)
		if code != 2 || !strings.Contains(stderr, "is more than 10,000") {
			t.Errorf("%q: exit %d, want 2 with the bound named:\n%s", args, code, stderr)
		}
		if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
			t.Errorf("%q allocated %d MiB before refusing", args, d>>20)
		}
	}
	if _, err := os.Stat(filepath.Dir(db)); !os.IsNotExist(err) {
		t.Errorf("something was created: %v", err)
	}
}

// TestSysbenchRunTableSizeMismatchSQLite: a run whose --table-size is not
// what prepare loaded exits 2, naming the flag and what the tables hold.
func TestSysbenchRunTableSizeMismatchSQLite(t *testing.T) {
	db := filepath.Join(t.TempDir(), "sbtest.db")
	conn := []string{"--db-driver=sqlite", "--sqlite-path=" + db, "--tables=2"}
	if code, _, stderr := runCLI(t, nil, append([]string{"sysbench", "prepare", "--table-size=100"}, conn...)...); code != 0 {
		t.Fatalf("prepare: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, nil, append([]string{"sysbench", "run", "--events=10", "--time=0"}, conn...)...)
	if code != 2 || !strings.Contains(stderr, "--table-size: sbtest1") || !strings.Contains(stderr, "holds ids 1..100 (highest id 100; COUNT(*) of ids 1..100 found 100 rows)") ||
		!strings.Contains(stderr, "--table-size is 10,000") || !strings.Contains(stderr, "pass --table-size 100") {
		t.Errorf("run without --table-size on 100-row tables: exit %d, want 2 naming --table-size:\n%s", code, stderr)
	}
	if stdout != "" {
		t.Errorf("the run started:\n%s", stdout)
	}
	if code, _, stderr := runCLI(t, nil, append([]string{"sysbench", "run", "--events=10", "--time=0", "--table-size=100"}, conn...)...); code != 0 {
		t.Errorf("run with the prepared --table-size: exit %d\n%s", code, stderr)
	}
}

// TestSysbenchThreadsBeyondOpenFileLimit: more threads than the process
// may open connections for exit 2 before the first connects (the run used
// to fail at thread 10,002 of 20,000 after starting the others).
func TestSysbenchThreadsBeyondOpenFileLimit(t *testing.T) {
	old := openFileLimit
	openFileLimit = func() uint64 { return 200 }
	t.Cleanup(func() { openFileLimit = old })
	db := filepath.Join(t.TempDir(), "sbtest.db")
	code, stdout, stderr := runCLI(t, nil, "sysbench", "run", "--threads=100", "--events=1", "--db-driver=sqlite", "--sqlite-path="+db)
	if code != 2 || !strings.Contains(stderr, "--threads: 100 connections need about 264 open files, but this process may open 200 (ulimit -n)") {
		t.Errorf("exit %d, want 2 naming --threads and ulimit -n:\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("the database file was created: %v", err)
	}
}
