package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSysbenchArgumentOrders: sysbench 1.0's 'sysbench [options]...
// [testname] [command]' runs with the options before, between and after
// the workload and the command, as --name=value or --name value; the
// errors of a bad order or option keep their messages and exit 2.
func TestSysbenchArgumentOrders(t *testing.T) {
	db := filepath.Join(t.TempDir(), "sbtest.db")
	conn := []string{"--db-driver=sqlite", "--sqlite-path", db}
	if code, _, stderr := runCLI(t, nil, append([]string{"sysbench", "prepare", "--tables", "2", "--table-size=100"}, conn...)...); code != 0 {
		t.Fatalf("prepare: exit %d\n%s", code, stderr)
	}
	bounds := []string{"--events", "5", "--time=0", "--report-interval=0"}
	for _, args := range [][]string{
		append(append([]string{"oltp_read_only"}, conn...), append([]string{"--tables=2", "--table-size", "100", "run"}, bounds...)...),
		append(append([]string{"--tables=2", "--table-size", "100"}, conn...), append(bounds, "oltp_read_only", "run")...),
		append(append([]string{"--tables", "2", "oltp_read_only", "--table_size=100"}, conn...), append([]string{"run"}, bounds...)...),
		append(append([]string{"--skip-trx", "--tables", "2", "run"}, conn...), append([]string{"--table-size", "100", "oltp_read_only"}, bounds...)...),
	} {
		code, stdout, stderr := runCLI(t, nil, append([]string{"sysbench"}, args...)...)
		if code != 0 || !strings.Contains(stdout, "vmbench sysbench oltp_read_only (sysbench 1.0 workload)") || !strings.Contains(stdout, "transactions:                        5") {
			t.Errorf("sysbench %q: exit %d, want 0 and 5 oltp_read_only transactions\n%s%s", args, code, stdout, stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"oltp_read_only", "--tables=2", "--bogus", "run"}, "vmbench sysbench run: unknown flag: --bogus (see 'vmbench sysbench run --help')"},
		{[]string{"--tables=x", "oltp_read_only", "run"}, `vmbench sysbench run: invalid argument "x" for "--tables" flag`},
		{[]string{"oltp_read_only", "run", "--tables"}, "vmbench sysbench run: flag needs an argument: --tables"},
		{[]string{"--tables", "2", "oltp_read_only", "rnu"}, `vmbench sysbench: unknown command "oltp_read_only" (want prepare, run or cleanup`},
		{[]string{"--tables", "2"}, "vmbench sysbench: no command (want prepare, run or cleanup"},
		{[]string{"--tables", "2", "oltp_read_only", "run", "extra"}, "takes at most one WORKLOAD"},
		{[]string{"--tables", "2", "oltp_nope", "run"}, "oltp_nope"},
	} {
		code, stdout, stderr := runCLI(t, nil, append(append([]string{"sysbench"}, conn...), tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("sysbench %q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	for _, args := range [][]string{{"--help"}, {"help"}, {}} {
		if code, stdout, _ := runCLI(t, nil, append([]string{"sysbench"}, args...)...); code != 0 || !strings.Contains(stdout, "Options may come anywhere") {
			t.Errorf("sysbench %q: exit %d, want the group's help:\n%s", args, code, stdout)
		}
	}
	if code, stdout, _ := runCLI(t, nil, "sysbench", "--tables", "2", "oltp_read_only", "run", "-h"); code != 0 || !strings.HasPrefix(stdout, "Run WORKLOAD") {
		t.Errorf("--tables 2 oltp_read_only run -h: exit %d, want run's help:\n%s", code, stdout)
	}
}
