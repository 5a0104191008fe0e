package tpcc

import (
	"strings"
	"testing"
	"time"
)

// boundedFlags are the counts and durations a user types, and the name
// a validation error gives each (go-tpc's aliases are checked under the
// option they spell).
var boundedFlags = map[string]string{
	"warehouses": "warehouses", "terminals": "terminals", "conns": "conns", "threads": "threads", "T": "threads",
	"wait-scale": "wait-scale", "wait": "wait-scale", "time": "time", "warmup-time": "warmup-time", "ramp": "warmup-time",
	"report-interval": "report-interval", "interval": "report-interval", "events": "events", "count": "events",
	"retries": "retries", "seed": "seed",
}

// flagArg spells option name with value as a user would.
func flagArg(name, value string) string {
	if len(name) == 1 {
		return "-" + name + "=" + value
	}
	return "--" + name + "=" + value
}

// wantNamed fails unless err names one of the options in names, by the
// spelling given or the option it stands for.
func wantNamed(t *testing.T, err error, names ...string) {
	t.Helper()
	msg := err.Error()
	for _, n := range names {
		for _, s := range []string{flagArg(n, ""), "--" + boundedFlags[n] + ":", `"--` + boundedFlags[n] + `"`, `"-` + n + `"`} {
			if strings.Contains(msg, strings.TrimSuffix(s, "=")) {
				return
			}
		}
	}
	t.Errorf("error %q names none of %v", msg, names)
}

// wantBounded fails unless every count and duration of an accepted
// Config is within its documented bound.
func wantBounded(t *testing.T, args map[string]string, c Config) {
	t.Helper()
	durationOK := func(d time.Duration) bool { return d == 0 || d >= time.Second }
	switch {
	case c.Warehouses < 1 || c.Warehouses > MaxWarehouses,
		c.terminals() < 1 || c.terminals() > MaxTerminals,
		c.conns() < 1 || c.conns() > MaxConns,
		c.Threads < 0 || c.Threads > MaxConns,
		!(c.WaitScale >= 0 && c.WaitScale <= MaxWaitScale),
		!durationOK(c.Time) || !durationOK(c.WarmupTime) || !durationOK(c.ReportInterval),
		c.Events < 0, c.Retries < 0 || c.Retries > MaxRetries:
		t.Errorf("%v accepted out of bounds: %+v", args, c)
	}
}

// FuzzParseFlags gives workload.Parse, the parser of a campaign's and an
// agent's flags, huge, negative and malformed values of one or two
// options: it never panics, refuses with an error naming an option it was
// given, and what it accepts is within bounds.
func FuzzParseFlags(f *testing.F) {
	for _, s := range [][4]string{
		{"warehouses", "100000000000", "terminals", "1"},
		{"warehouses", "-1", "conns", "-5"},
		{"terminals", "9223372036854775807", "conns", "10001"},
		{"threads", "-9223372036854775808", "T", "1e9"},
		{"wait-scale", "NaN", "wait", "Inf"},
		{"wait-scale", "1e308", "time", "1e300"},
		{"time", "-1", "warmup-time", "0.5"},
		{"time", "1e-10", "report-interval", "-1e-10"},
		{"time", "2562047h47m16.854775807s", "ramp", "106751.99116730064d"},
		{"interval", "0x10", "count", "-1"},
		{"events", "99999999999999999999", "retries", "1000000000"},
		{"seed", "-9223372036854775808", "threads", "10000"},
		{"warehouses", "100000", "threads", "0"},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, n1, v1, n2, v2 string) {
		if _, ok := boundedFlags[n1]; !ok {
			return
		}
		args := map[string]string{n1: v1}
		names := []string{n1}
		if _, ok := boundedFlags[n2]; ok && n2 != n1 {
			args[n2], names = v2, append(names, n2)
		}
		c, err := parse(args, nil)
		if err != nil {
			wantNamed(t, err, names...)
			return
		}
		wantBounded(t, args, c)
	})
}

// TestParseAllocatesNothingPerUnit: parsing and validating a huge count
// allocates no more than a small one; what a count makes (the terminals,
// the connections) is made only after Validate accepted it.
func TestParseAllocatesNothingPerUnit(t *testing.T) {
	allocs := func(name, value string) float64 {
		return testing.AllocsPerRun(5, func() { _, _ = parse(map[string]string{name: value}, nil) })
	}
	for _, name := range []string{"terminals", "conns", "threads", "warehouses", "events", "retries"} {
		small, huge := allocs(name, "1"), allocs(name, "9000000000000000000")
		if huge > small+20 {
			t.Errorf("--%s: %v allocations for a huge value, %v for 1", name, huge, small)
		}
	}
}

// TestPositiveDurationNeverNoLimit: a positive --time too small to be a
// nanosecond is refused, not read as 0 (no limit).
func TestPositiveDurationNeverNoLimit(t *testing.T) {
	for _, v := range []string{"1e-10", "0.0000000001", "4e-324"} {
		c, err := parse(map[string]string{"time": v}, nil)
		if err == nil {
			t.Errorf("--time=%s accepted as %v", v, c.Time)
			continue
		}
		wantNamed(t, err, "time")
	}
}

// A port given as 0 (or out of range) is refused, naming the flag, on
// every spelling of it (-P is the CLI's, cmd/vmbench's tests); left out,
// the driver's default applies.
func TestPortFlagRange(t *testing.T) {
	for _, args := range []map[string]string{{"port": "0"}, {"mysql-port": "0"}, {"port": "65536"}} {
		if _, err := parse(args, nil); err == nil || !strings.Contains(err.Error(), "is not a port (1..65535") {
			t.Errorf("%v: %v, want a port error", args, err)
		}
	}
	if c, err := parse(nil, nil); err != nil || c.Conn.Port != 0 && c.Conn.Port != 3306 {
		t.Errorf("no port given: port %d, %v", c.Conn.Port, err)
	}
}
