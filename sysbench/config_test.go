package sysbench

import (
	"strings"
	"testing"
	"time"

	"vmbench/dialect"
)

func TestParseFlagsDefaults(t *testing.T) {
	c, err := ParseFlags("", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultConfig()
	if c.Workload != ReadWrite || c.Tables != 1 || c.TableSize != 10000 || c.RangeSize != 100 || c.PointSelects != 10 ||
		c.SimpleRanges != 1 || c.SumRanges != 1 || c.OrderRanges != 1 || c.DistinctRanges != 1 || c.IndexUpdates != 1 ||
		c.NonIndexUpdates != 1 || c.DeleteInserts != 1 || !c.RangeSelects || c.SkipTrx || !c.AutoInc || !c.CreateSecondary ||
		c.Rand.Type != RandUniform || c.Conn.User != "sbtest" || c.Conn.Database != "sbtest" || c.Threads != 1 ||
		c.Time != 10*time.Second || c.Percentile != 95 || c.Conn.Driver != dialect.MySQL {
		t.Errorf("defaults differ from sysbench 1.0's: %+v", c)
	}
	if c.Rand != want.Rand {
		t.Errorf("rand defaults %+v, want %+v", c.Rand, want.Rand)
	}
}

func TestParseFlagsSysbenchSpellings(t *testing.T) {
	c, err := ParseFlags("oltp_point_select", []string{
		"--table_size=500", "--tables", "4", "--skip_trx=on", "--range_selects=off", "--auto-inc=false",
		"--create_secondary", "--time=60", "--report-interval=1", "--warmup-time=2.5", "--rand-type=pareto",
		"--rand_seed=9", "--mysql_host=127.0.0.1", "--mysql-port=3307", "--threads=8", "--events=100",
		"--percentile=99", "--rate=50",
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Workload != PointSelect || c.TableSize != 500 || c.Tables != 4 || !c.SkipTrx || c.RangeSelects || c.AutoInc ||
		!c.CreateSecondary || c.Time != time.Minute || c.ReportInterval != time.Second || c.WarmupTime != 2500*time.Millisecond ||
		c.Rand.Type != RandPareto || c.Rand.Seed != 9 || c.Conn.Host != "127.0.0.1" || c.Conn.Port != 3307 ||
		c.Threads != 8 || c.Events != 100 || c.Percentile != 99 || c.Rate != 50 {
		t.Errorf("parsed %+v", c)
	}
	rc := c.RunConfig()
	if rc.Threads != 8 || rc.Time != time.Minute || rc.Events != 100 || rc.Rate != 50 || rc.WarmupTime != 2500*time.Millisecond {
		t.Errorf("RunConfig %+v", rc)
	}
}

func TestParseMapSameAsFlags(t *testing.T) {
	m, err := ParseMap("oltp_read_only", map[string]string{"tables": "4", "table_size": "10000", "--threads": "32", "time": "20s"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseFlags("oltp_read_only", []string{"--tables=4", "--table-size=10000", "--threads=32", "--time=20"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Tables != f.Tables || m.TableSize != f.TableSize || m.Threads != f.Threads || m.Time != f.Time || m.Workload != f.Workload {
		t.Errorf("map %+v != flags %+v", m, f)
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	c := DefaultConfig()
	c.Workload = "oltp_nope"
	c.Tables = 0
	c.TableSize = -1
	c.Rand.Type = "weird"
	c.Rand.ParetoH = 1
	c.Conn.Port = 70000
	c.Threads = 0
	c.Time = -time.Second
	c.Percentile = 101
	c.PointSelects = -2
	err := c.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"workload", "--tables", "--table-size", "--rand-type", "--rand-pareto-h", "--mysql-port",
		"--threads", "--time", "--percentile", "--point-selects"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %s:\n%v", want, err)
		}
	}
}

func TestParseFlagsErrors(t *testing.T) {
	for _, tc := range []struct {
		workload string
		args     []string
		want     string
	}{
		{"", []string{"--rand-type=bogus"}, "uniform, gaussian, special, pareto, zipfian"},
		{"", []string{"--time=soon"}, "not a duration"},
		{"", []string{"--skip-trx=maybe"}, "not on or off"},
		{"", []string{"--db-driver=oracle"}, "unknown database driver"},
		{"", []string{"--no-such-flag=1"}, "unknown flag"},
		{"oltp_everything", nil, "unknown workload"},
		{"", []string{"extra"}, "unexpected argument"},
		{"", []string{"--db-driver=sqlite", "--sqlite-path="}, "--sqlite-path"},
	} {
		_, err := ParseFlags(tc.workload, tc.args, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseFlags(%q, %q) = %v, want an error containing %q", tc.workload, tc.args, err, tc.want)
		}
	}
}

func TestPasswordFromEnvAndNeverInFlags(t *testing.T) {
	env := map[string]string{EnvMySQLPassword: "pwd-mysql", EnvPassword: "pwd-sysbench"}
	c, err := ParseFlags("", nil, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.Conn.Password != "pwd-sysbench" {
		t.Errorf("password %q, want $%s's", c.Conn.Password, EnvPassword)
	}
	delete(env, EnvPassword)
	c, _ = ParseFlags("", nil, func(k string) string { return env[k] })
	if c.Conn.Password != "pwd-mysql" {
		t.Errorf("password %q, want $%s's", c.Conn.Password, EnvMySQLPassword)
	}
	c, _ = ParseFlags("", []string{"--mysql-password=flag-pw"}, func(k string) string { return env[k] })
	if c.Conn.Password != "flag-pw" {
		t.Errorf("flag should win over the environment, got %q", c.Conn.Password)
	}
	for k, v := range c.Flags() {
		if strings.Contains(v, "flag-pw") || strings.Contains(k, "password") {
			t.Errorf("Flags() exposes the password: %s=%s", k, v)
		}
	}
	if s := c.DialectConfig().String(); strings.Contains(s, "flag-pw") {
		t.Errorf("connection string shows the password: %s", s)
	}
}

func TestFlagsShapeOnly(t *testing.T) {
	c := DefaultConfig()
	f := c.Flags()
	for _, k := range []string{"tables", "table-size", "threads", "time", "rand-type", "point-selects", "skip-trx", "db-driver"} {
		if _, ok := f[k]; !ok {
			t.Errorf("Flags() lacks %s", k)
		}
	}
	for _, k := range []string{"mysql-host", "mysql-port", "mysql-user", "mysql-db", "sqlite-path", "percentile"} {
		if _, ok := f[k]; ok {
			t.Errorf("Flags() holds %s, which does not shape the run", k)
		}
	}
	if f["skip-trx"] != "off" || f["time"] != "10s" {
		t.Errorf("Flags() = %v", f)
	}
}

func TestMixes(t *testing.T) {
	type counts struct{ stmts, reads, trx int }
	for _, tc := range []struct {
		w    Workload
		mod  func(*Config)
		want counts
	}{
		{ReadWrite, nil, counts{20, 14, 1}},
		{ReadWrite, func(c *Config) { c.RangeSelects = false }, counts{16, 10, 1}},
		{ReadWrite, func(c *Config) { c.SkipTrx = true }, counts{18, 14, 0}},
		{ReadOnly, nil, counts{16, 14, 1}},
		{WriteOnly, nil, counts{6, 0, 1}},
		{PointSelect, nil, counts{1, 1, 0}},
		{UpdateIndex, func(c *Config) { c.IndexUpdates = 3 }, counts{3, 0, 0}},
		{UpdateNonIndex, nil, counts{1, 0, 0}},
		{Insert, nil, counts{1, 0, 0}},
		{Delete, nil, counts{1, 0, 0}},
	} {
		c := DefaultConfig()
		c.Workload = tc.w
		if tc.mod != nil {
			tc.mod(&c)
		}
		m := mixFor(c)
		reads := 0
		for _, s := range m.steps {
			if s.g <= gDistinctRange {
				reads += s.count
			}
		}
		got := counts{m.statements(), reads, map[bool]int{true: 1}[m.trx]}
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.w, got, tc.want)
		}
	}
}

func TestKindsAndStatementText(t *testing.T) {
	c := DefaultConfig()
	ks := mixFor(c).kinds(true)
	if len(ks) != 9 { // sysbench: 9 statements per table for oltp_read_write
		t.Errorf("oltp_read_write prepares %d kinds per table, want 9: %v", len(ks), ks)
	}
	d := dialect.MySQL.Dialect()
	if got, want := stmtText(d, kDistinctRange, "sbtest3"), "SELECT DISTINCT c FROM `sbtest3` WHERE id BETWEEN ? AND ? ORDER BY c"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := createTableSQL(d, "sbtest1", true); !strings.Contains(got, "AUTO_INCREMENT") || !strings.Contains(got, "CHAR(120)") ||
		!strings.HasSuffix(got, "ENGINE=InnoDB") {
		t.Errorf("DDL %q", got)
	}
}
