package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInputDriverFlags: a connection option for another kind of
// database than --db-driver's exits 2 naming it, before anything connects
// (sysbench run --sqlite-path without --db-driver sqlite used to connect
// to MySQL as sbtest and fail with "Access denied"; with sqlite the
// server's options were ignored).
func TestBadInputDriverFlags(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.db")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sysbench", "run", "--sqlite-path", db, "--events=1", "--time=0"}, "vmbench sysbench run: --sqlite-path applies to --db-driver sqlite; add --db-driver sqlite"},
		{[]string{"sysbench", "prepare", "--sqlite-path=" + db}, "--sqlite-path applies to --db-driver sqlite; add --db-driver sqlite"},
		{[]string{"sysbench", "run", "--db-driver=sqlite", "--sqlite-path=" + db, "--mysql-socket=/tmp/s", "--events=1"}, "--mysql-socket applies to --db-driver mysql, not sqlite; drop it, or give --db-driver mysql"},
		{[]string{"tpcc", "prepare", "--sqlite-path", db, "--warehouses=1"}, "vmbench tpcc prepare: --sqlite-path applies to --db-driver sqlite; add --db-driver sqlite"},
		{[]string{"tpcc", "run", "--db-driver", "sqlserver", "--sqlite-path", db}, "--sqlite-path applies to --db-driver sqlite"},
		{[]string{"tpcc", "run", "--db-driver=sqlite", "--sqlite-path=" + db, "-H", "db1"}, "--host applies to --db-driver mysql or sqlserver, not sqlite"},
		{[]string{"tpcc", "check", "--db-driver=sqlite", "--sqlite-path=" + db, "--mysql-db=x"}, "--mysql-db applies to --db-driver mysql or sqlserver, not sqlite"},
	} {
		code, stdout, stderr := runCLI(t, nil, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s%s", tc.args, code, tc.want, stdout, stderr)
		}
		if _, err := os.Stat(db); !os.IsNotExist(err) {
			t.Fatalf("%v created the database file: %v", tc.args, err)
		}
	}
}
