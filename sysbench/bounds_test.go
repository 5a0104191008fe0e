package sysbench

import (
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestValidateBounds: every count a user types has an upper bound, and the
// error names the flag, the bound and why.
func TestValidateBounds(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--threads=100000000"}, []string{"--threads: 100000000 is more than 10,000", "connection"}},
		{[]string{"--num-threads=10001"}, []string{"--threads: 10001 is more than 10,000"}},
		{[]string{"--tables=1000000"}, []string{"--tables: 1000000 is more than 10,000", "prepared statements"}},
		{[]string{"--threads=5000", "--tables=1000"}, []string{"--threads x --tables", "max_prepared_stmt_count"}},
		{[]string{"--point-selects=1000000000"}, []string{"--point-selects: 1000000000 is more than 100,000", "row locks"}},
		{[]string{"--delete-inserts=60000"}, []string{"--point-selects .. --delete-inserts", "120,"}},
		{[]string{"--rate=1e12"}, []string{"--rate: 1e+12 is more than 10,000,000"}},
		{[]string{"--rate=+Inf"}, []string{"--rate"}},
		{[]string{"--rate=NaN"}, []string{"--rate"}},
		{[]string{"--time=1e9"}, []string{"--time", "more than a year"}},
		{[]string{"--warmup-time=100000h"}, []string{"--warmup-time", "more than a year"}},
		{[]string{"--report-interval=1ns"}, []string{"--report-interval: 1ns is less than 1ms"}},
		{[]string{"--time=86400", "--report-interval=0.1"}, []string{"--report-interval: 100ms over --time=24h0m0s is 864,000 intervals"}},
		{[]string{"--range-size=3000000000"}, []string{"--range-size: 3000000000 is more than 2,147,483,647"}},
		{[]string{"--rand-spec-iter=1000000000"}, []string{"--rand-spec-iter: 1000000000 is more than 1,000"}},
		{[]string{"--table-size=100000000000"}, []string{"--table-size"}},
		{[]string{"--threads=-5"}, []string{"--threads: -5 is not valid"}},
		{[]string{"--tables=-1"}, []string{"--tables: -1 is not valid"}},
		{[]string{"--events=-1"}, []string{"--events: -1 is negative"}},
		{[]string{"--threads=99999999999999999999"}, []string{"--threads", "out of range"}},
		{[]string{"--time=-99999999999999999999"}, []string{"--time", "out of range"}},
	} {
		_, err := parse("", flagMap(tc.args...), nil)
		if err == nil {
			t.Errorf("parse(%q): no error", tc.args)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("parse(%q) = %v\nwant it to contain %q", tc.args, err, w)
			}
		}
	}
}

// TestBoundsAdmitTheReview: the review's own figures, and sysbench's
// largest usual ones, stay within the bounds.
func TestBoundsAdmitTheReview(t *testing.T) {
	for _, args := range [][]string{
		{"--tables=100", "--table-size=10000000", "--threads=32", "--time=1h", "--warmup-time=2h", "--report-interval=1"},
		{"--threads=10000", "--tables=1", "--time=86400", "--report-interval=1"},
		{"--tables=10000", "--threads=40", "--rate=10000000", "--time=0", "--report-interval=0.001"},
		{"--point-selects=99990", "--rand-type=gaussian", "--rand-spec-iter=1000", "--range-size=2147483647"},
	} {
		if _, err := parse("", flagMap(args...), nil); err != nil {
			t.Errorf("parse(%q): %v", args, err)
		}
	}
}

// TestValidateHugeThreadsAllocatesNothing: --threads=100000000 is refused
// by Validate without allocating per thread.
func TestValidateHugeThreadsAllocatesNothing(t *testing.T) {
	c := DefaultConfig()
	c.Threads, c.Tables = 100_000_000, 100_000_000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := c.Validate()
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "--threads") || !strings.Contains(err.Error(), "--tables") {
		t.Fatalf("Validate = %v, want errors naming --threads and --tables", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Errorf("Validate allocated %d bytes for %d threads", d, c.Threads)
	}
}

// flagNamed matches what every error line of workload.Parse must carry:
// the flag it is about (--name, as given or as its option is named; a
// key that is no flag name quoted) or the workload.
var flagNamed = regexp.MustCompile(`(^|[\s'"(])--?[^\s-]|^flag name "|workload`)

// FuzzFlags feeds arbitrary flags (a line of name=value fields, split on
// spaces; a field without "=" is a name with an empty value) and
// workload names through workload.Parse, as a campaign and the agent
// parse them: no panic, every error names a flag, and what parses is
// within the bounds the run relies on. A failure found by fuzzing is kept
// in testdata/fuzz/FuzzFlags as a seed.
func FuzzFlags(f *testing.F) {
	for _, s := range []string{
		"--threads=100000000",
		"threads=100000000 tables=100000000 table-size=99999999999",
		"--rate=1e308 --time=1e300 --report-interval=1e-300",
		"--rate=NaN --percentile=NaN --rand-spec-pct=NaN --rand-zipfian-exp=Inf",
		"--time=-9223372036854775808 --warmup-time=9223372036ns --report-interval=-1",
		"--point-selects=-9223372036854775808 --delete-inserts=2147483647",
		"--rand-type=special --rand-spec-iter=0 --rand-spec-res=-1 --rand-pareto-h=1",
		"--mysql-port=-1 --mysql-ignore-errors=99999999999999999999,1213",
		"--db-driver=sqlite --sqlite-path= --tables=0",
		"--num-threads=-1 --max-time=x --max-requests=-1 --tx-rate=-5",
		"-t --=x ---x -- extra threads=1 --threads=2 skip_trx",
		"--events=9223372036854775807 --time=0 --range-size=2147483648",
		"--db-driver=pgsql --mysql-host=x --pgsql-port=0",
	} {
		f.Add("", s)
	}
	f.Add("oltp_insert", "--table-size=0 --auto-inc=off")
	f.Add("bogus", "")
	f.Fuzz(func(t *testing.T, name, line string) {
		flags := map[string]string{}
		for i, a := range strings.Fields(line) {
			if i == 64 {
				break
			}
			k, v, _ := strings.Cut(a, "=")
			if _, dup := flags[k]; !dup {
				flags[k] = v
			}
		}
		c, err := parse(name, flags, nil)
		if err == nil {
			// What parses must satisfy the bounds the run relies on.
			if c.Threads < 1 || c.Threads > MaxThreads || c.Tables < 1 || c.Tables > MaxTables ||
				c.preparedStatements() > MaxPreparedStatements || c.Rate > MaxRate || c.Rate < 0 || c.Time > MaxRunTime ||
				(c.ReportInterval > 0 && c.ReportInterval < MinReportInterval) || c.eventStatements() > MaxStatementsPerEvent {
				t.Fatalf("parse(%q, %q) accepted %+v", name, flags, c)
			}
			return
		}
		for _, l := range strings.Split(err.Error(), "\n") {
			if !flagNamed.MatchString(l) {
				t.Fatalf("parse(%q, %q): error line %q names no flag (whole error: %v)", name, flags, l, err)
			}
		}
	})
}
