package sysbench

import (
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"vmbench/dialect"
	"vmbench/internal/flagvalue"
	"vmbench/workload"
)

// parse builds a Config from a workload name and flags as a campaign and
// the agent do (workload.Parse), with the environment getenv (may be nil).
func parse(name string, flags map[string]string, getenv func(string) string) (Config, error) {
	cfg, err := workload.Parse(Tool{}, name, flags, getenv, nil)
	return cfg.(*toolConfig).Config, err
}

// flagMap is args ("--name=value") as a flag map.
func flagMap(args ...string) map[string]string {
	m := map[string]string{}
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		m[k] = v
	}
	return m
}

func TestParseDefaults(t *testing.T) {
	c, err := parse("", nil, nil)
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

func TestParseSysbenchSpellings(t *testing.T) {
	c, err := parse("oltp_point_select", flagMap(
		"--table_size=500", "--tables=4", "--skip_trx=on", "--range_selects=off", "--auto-inc=false",
		"--create_secondary=yes", "--time=60", "--report-interval=1", "--warmup-time=2.5", "--rand-type=pareto",
		"--rand_seed=9", "--mysql_host=127.0.0.1", "--mysql-port=3307", "--threads=8", "--events=100",
		"--percentile=99", "--rate=50",
	), nil)
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

// Keys with or without dashes, with underscores, and durations in
// seconds or as Go durations give the same Config.
func TestParseSpellingsSameConfig(t *testing.T) {
	m, err := parse("oltp_read_only", map[string]string{"tables": "4", "table_size": "10000", "--threads": "32", "time": "20s"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parse("oltp_read_only", flagMap("--tables=4", "--table-size=10000", "--threads=32", "--time=20"), nil)
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

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		workload string
		args     []string
		want     string
	}{
		{"", []string{"--rand-type=bogus"}, "uniform, gaussian, special, pareto, zipfian"},
		{"", []string{"--time=soon"}, "not a duration"},
		{"", []string{"--skip-trx=maybe"}, "not on or off"},
		{"", []string{"--db-driver=oracle"}, "unknown database driver"},
		{"", []string{"--no-such-flag=1"}, "--no-such-flag: not an option of sysbench"},
		{"oltp_everything", nil, "unknown workload"},
		{"", []string{"--db-driver=sqlite", "--sqlite-path="}, "--sqlite-path"},
	} {
		_, err := parse(tc.workload, flagMap(tc.args...), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parse(%q, %q) = %v, want an error containing %q", tc.workload, tc.args, err, tc.want)
		}
	}
}

func TestPasswordFromEnvAndNeverInFlags(t *testing.T) {
	env := map[string]string{EnvMySQLPassword: "pwd-mysql", EnvPassword: "pwd-sysbench"}
	c, err := parse("", nil, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.Conn.Password != "pwd-sysbench" {
		t.Errorf("password %q, want $%s's", c.Conn.Password, EnvPassword)
	}
	delete(env, EnvPassword)
	c, _ = parse("", nil, func(k string) string { return env[k] })
	if c.Conn.Password != "pwd-mysql" {
		t.Errorf("password %q, want $%s's", c.Conn.Password, EnvMySQLPassword)
	}
	c, _ = parse("", flagMap("--mysql-password=flag-pw"), func(k string) string { return env[k] })
	if c.Conn.Password != "flag-pw" {
		t.Errorf("flag should win over the environment, got %q", c.Conn.Password)
	}
	for k, v := range c.RunConfig().Flags {
		if strings.Contains(v, "flag-pw") || strings.Contains(k, "password") {
			t.Errorf("the recorded flags expose the password: %s=%s", k, v)
		}
	}
	if s := c.DialectConfig().String(); strings.Contains(s, "flag-pw") {
		t.Errorf("connection string shows the password: %s", s)
	}
}

func TestRecordedFlagsShapeOnly(t *testing.T) {
	f := DefaultConfig().RunConfig().Flags
	for _, k := range []string{"tables", "table-size", "threads", "time", "rand-type", "point-selects", "skip-trx", "db-driver"} {
		if _, ok := f[k]; !ok {
			t.Errorf("the recorded flags lack %s", k)
		}
	}
	for _, k := range []string{"mysql-host", "mysql-port", "mysql-user", "mysql-db", "sqlite-path", "percentile", "num-threads"} {
		if _, ok := f[k]; ok {
			t.Errorf("the recorded flags hold %s, which does not shape the run", k)
		}
	}
	if f["skip-trx"] != "off" || f["time"] != "10s" || f["warmup-time"] != "0s" {
		t.Errorf("recorded flags = %v", f)
	}
}

// flagsBefore is the hand-written list that Config.Flags recorded before
// the recorded flags were derived from the flag set
// (workload.RecordedFlags): the derivation must record the same for the
// same options, so that campaign.yaml and the Results of earlier runs
// still compare equal with new ones.
func flagsBefore(c Config) map[string]string {
	itoa := strconv.Itoa
	ftoa := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	m := map[string]string{
		"tables": itoa(c.Tables), "table-size": strconv.FormatInt(c.TableSize, 10),
		"auto-inc": flagvalue.OnOff(c.AutoInc), "create-secondary": flagvalue.OnOff(c.CreateSecondary),
		"range-size": itoa(c.RangeSize), "point-selects": itoa(c.PointSelects),
		"simple-ranges": itoa(c.SimpleRanges), "sum-ranges": itoa(c.SumRanges),
		"order-ranges": itoa(c.OrderRanges), "distinct-ranges": itoa(c.DistinctRanges),
		"index-updates": itoa(c.IndexUpdates), "non-index-updates": itoa(c.NonIndexUpdates),
		"delete-inserts": itoa(c.DeleteInserts), "range-selects": flagvalue.OnOff(c.RangeSelects),
		"skip-trx":  flagvalue.OnOff(c.SkipTrx),
		"rand-type": string(c.Rand.Type), "rand-seed": strconv.FormatInt(c.Rand.Seed, 10),
		"db-driver": string(c.Conn.Driver),
		"threads":   itoa(c.Threads), "time": c.Time.String(), "events": strconv.FormatInt(c.Events, 10),
		"warmup-time": c.WarmupTime.String(), "report-interval": c.ReportInterval.String(), "rate": ftoa(c.Rate),
		"mysql-ignore-errors": c.IgnoreErrors.String(),
	}
	switch c.Rand.Type {
	case RandUniform: // no parameters
	case RandGaussian:
		m["rand-spec-iter"] = itoa(c.Rand.SpecIter)
	case RandSpecial:
		m["rand-spec-iter"] = itoa(c.Rand.SpecIter)
		m["rand-spec-pct"] = ftoa(c.Rand.SpecPct)
		m["rand-spec-res"] = ftoa(c.Rand.SpecRes)
	case RandPareto:
		m["rand-pareto-h"] = ftoa(c.Rand.ParetoH)
	case RandZipfian:
		m["rand-zipfian-exp"] = ftoa(c.Rand.ZipfianExp)
	}
	return m
}

// TestRecordedFlagsAsBefore: the recorded flags derived from the flag
// set are the ones the hand-written list gave, for the defaults and for
// options of every kind given.
func TestRecordedFlagsAsBefore(t *testing.T) {
	for _, flags := range []map[string]string{
		nil,
		flagMap("--tables=4", "--table-size=1000", "--skip-trx=on", "--auto-inc=off", "--rand-type=special", "--rand-spec-pct=5",
			"--rand-seed=7", "--time=90", "--warmup-time=1m", "--report-interval=1", "--rate=1e6", "--mysql-ignore-errors=1213", "--percentile=99"),
		flagMap("--rand-type=gaussian", "--rand-spec-iter=3", "--rand-pareto-h=0.5", "--events=100", "--time=0", "--mysql-ignore-errors=all"),
		flagMap("--rand-type=pareto", "--rand-pareto-h=0.5", "--db-driver=pgsql", "--pgsql-host=db1", "--pgsql-password=pw"),
		flagMap("--rand-type=zipfian", "--rand-zipfian-exp=1.5", "--db-driver=sqlite", "--mysql-ignore-errors=none"),
	} {
		c, err := parse("", flags, nil)
		if err != nil {
			t.Fatalf("%v: %v", flags, err)
		}
		want := flagsBefore(c)
		if want["mysql-ignore-errors"] == "" {
			want["mysql-ignore-errors"] = "none" // the one difference: a recorded value is never empty
		}
		if got := c.RunConfig().Flags; !maps.Equal(got, want) {
			t.Errorf("%v: recorded %v,\nbefore %v", flags, got, want)
		}
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
