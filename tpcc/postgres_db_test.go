package tpcc

import (
	"bytes"
	"strings"
	"testing"

	"vmbench/dialect"
)

// TestPostgres loads one warehouse into PostgreSQL (COPY, pgTemplate),
// checks in a copy of it (pgCopy) the exact cardinality of every table and the consistency conditions, then
// runs without and with waits under READ COMMITTED (runAndCheck: the
// conditions hold after each run), then under SERIALIZABLE, where the
// serialization failures of four threads on one warehouse are restarted
// and counted as retries.
func TestPostgres(t *testing.T) {
	out := pgTemplate(t).out
	c := pgCopy(t)
	ctx := loadTestContext(t)
	if !strings.Contains(out, "by COPY") {
		t.Errorf("prepare did not load by COPY:\n%s", out)
	}
	db := loadOpen(t, c)
	checkLoaded(t, db, 1, expectOrderLines(t, 1))
	runAndCheck(t, c)

	s := c
	s.Isolation, s.Threads, s.WaitScale, s.Time, s.Events, s.ReportInterval, s.Retries = Serializable, 4, 0, 0, 400, 0, 100
	var b bytes.Buffer
	r, err := runPrinted(ctx, s, &b)
	if err != nil {
		t.Fatalf("serializable run: %v\n%s", err, b.String())
	}
	if !strings.Contains(b.String(), "Isolation: SERIALIZABLE") || r.Flags["isolation"] != "serializable" {
		t.Errorf("the isolation level is not stated:\n%s\nflags %v", b.String(), r.Flags)
	}
	retries := r.Counters[counterNames[ctrRetries]]
	t.Logf("SERIALIZABLE, 4 threads on 1 warehouse: %d retries in 400 transactions", retries)
	if retries == 0 {
		t.Errorf("no retries counted under SERIALIZABLE with 4 threads on one warehouse")
	}
	res, cout, err := runCheck(t, ctx, c)
	wantAllPass(t, res, cout, err, "3.3.2.11")
}

func TestIsolationFlag(t *testing.T) {
	for _, tt := range []struct {
		driver dialect.Driver
		iso    Isolation
		err    string
		param  string
	}{
		{dialect.Postgres, "", "", ""},
		{dialect.Postgres, Serializable, "", "serializable"},
		{dialect.Postgres, ReadCommitted, "", "read committed"},
		{dialect.Postgres, "snapshot", "--isolation: \"snapshot\" is not valid", ""},
		{dialect.MySQL, Serializable, "--isolation: applies to --db-driver postgres", ""},
	} {
		c := DefaultConfig()
		c.Conn.Driver, c.Isolation = tt.driver, tt.iso
		err := c.Validate()
		if (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s %q: Validate = %v, want %q", tt.driver, tt.iso, err, tt.err)
		}
		if got := c.DialectConfig().Params["default_transaction_isolation"]; tt.err == "" && got != tt.param {
			t.Errorf("%s %q: session parameter %q, want %q", tt.driver, tt.iso, got, tt.param)
		}
	}
}
