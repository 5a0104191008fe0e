package tpcc

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"vmbench/internal/golden"
	"vmbench/oltp"
	"vmbench/workload"
)

// runAndCheck runs cfg's workload once with --threads (no waits) and
// once terminal-driven with waits, checking after each run that the
// Result holds what was asked, that the C-delta rule held, that NOPM was
// read, and that every consistency condition still passes.
func runAndCheck(t *testing.T, cfg Config) {
	ctx := checkContext(t)
	prepareForCheck(t, ctx, cfg)
	res, out, err := runCheck(t, ctx, cfg)
	wantAllPass(t, res, out, err)

	noWait := cfg
	noWait.Threads, noWait.WaitScale, noWait.Time, noWait.Events, noWait.ReportInterval = 4, 0, 0, 400, 0
	withWait := cfg
	withWait.Terminals, withWait.Conns, withWait.WaitScale, withWait.Time, withWait.ReportInterval = 10, 2, 0.01, 3*time.Second, time.Second
	withWait.WarmupTime = time.Second
	for i, c := range []Config{noWait, withWait} {
		var b bytes.Buffer
		r, err := runPrinted(ctx, c, &b)
		if err != nil {
			t.Fatalf("run %d: %v\n%s", i+1, err, b.String())
		}
		if strings.Count(b.String(), "vmbench tpcc (TPC-C-like) on ") != 1 { // the header, announced to the IntervalWriter
			t.Errorf("run %d printed no header, or more than one:\n%s", i+1, b.String())
		}
		var n int64
		for _, op := range r.Ops {
			n += op.Latency.Count
			if c.Threads == 0 && op.Latency.Count > 0 {
				svc, _ := op.Latency.Histogram()
				rt, err := op.Intended.Histogram()
				if err != nil {
					t.Fatalf("run %d: %s has no response times: %v", i+1, op.Name, err)
				}
				if rt.Sum() < svc.Sum() {
					t.Errorf("run %d: %s response time %v below its service time %v", i+1, op.Name, rt.Sum(), svc.Sum())
				}
			}
		}
		switch {
		case c.Threads > 0 && (r.Loop != oltp.ClosedLoop || n != 400):
			t.Errorf("run %d: loop %s, %d transactions; want closed, 400 (--events)", i+1, r.Loop, n)
		case c.Threads == 0 && (r.Loop != oltp.TerminalLoop || r.Terminals != 10 || r.Threads != 2 || n == 0):
			t.Errorf("run %d: loop %s, %d terminals, %d connections, %d transactions; want terminals, 10, 2, some", i+1, r.Loop, r.Terminals, r.Threads, n)
		}
		// Both readings bracket the window with nothing in flight: the
		// database counts exactly the New-Orders the client counted.
		committed := r.Op(OpNames[opNewOrder]).Latency.Count - r.Counters[counterNames[ctrRollbacks]]
		if r.Status != oltp.StatusComplete || r.Interrupted {
			// a timed run ends the Runner itself; that is no interruption,
			// and an interrupted part would not merge in a campaign
			t.Errorf("run %d: status %q (interrupted %v, %q), want complete", i+1, r.Status, r.Interrupted, r.Error)
		}
		if d, ok := r.Counters[CounterNOPMDelta]; !ok || d != committed {
			t.Errorf("run %d: NOPM delta %d (read: %v), %d committed New-Orders counted; want them equal", i+1, d, ok, committed)
		}
		if c.WarmupTime > 0 && (r.Precondition == nil || r.Precondition.Phase != oltp.PhasePrecondition || r.Interrupted) {
			t.Errorf("run %d: precondition %+v, interrupted %v", i+1, r.Precondition, r.Interrupted)
		}
		m := regexp.MustCompile(`NURand C: load (\d+)/\d+/\d+, run (\d+)/`).FindStringSubmatch(b.String())
		if m == nil {
			t.Fatalf("run %d: no NURand line in\n%s", i+1, b.String())
		}
		load, _ := strconv.Atoi(m[1])
		run, _ := strconv.Atoi(m[2])
		if !ValidDelta(load, run) {
			t.Errorf("run %d: C_LAST load %d run %d breaks the C-delta rule", i+1, load, run)
		}
		res, out, err := runCheck(t, ctx, cfg)
		wantAllPass(t, res, out, err, "3.3.2.11")
	}
}

func TestRunMariaDB(t *testing.T) {
	t.Parallel()
	runAndCheck(t, mariaCheckConfig(t))
}

func TestRunSQLite(t *testing.T) {
	if golden.RaceEnabled() {
		t.Skip("modernc.org/sqlite under the race detector takes minutes for a load; make test runs the SQLite tests without -race")
	}
	t.Parallel()
	runAndCheck(t, sqliteCopy(t))
}

// TestWarehousesMismatchIsFlagValue: a run or prepare whose --warehouses
// (or prepare's --seed) is not the load's fails before anything runs or
// loads with an error wrapping workload.ErrFlagValue, so that the CLI
// exits 2 as sysbench does for another --table-size.
func TestWarehousesMismatchIsFlagValue(t *testing.T) {
	l := mariaTemplate(t) // read only: both fail before they change anything
	if l.err != nil {
		t.Fatal(l.err)
	}
	ctx := checkContext(t)
	c := l.cfg
	c.Warehouses, c.Time = 1, time.Second
	if _, err := Run(ctx, c, c.RunConfig()); !errors.Is(err, workload.ErrFlagValue) || !strings.Contains(err.Error(), "--warehouses: 1, but") {
		t.Errorf("run --warehouses=1 on a load of 2: %v, want ErrFlagValue naming --warehouses", err)
	}
	for _, other := range []func(*Config){func(c *Config) { c.Warehouses = 3 }, func(c *Config) { c.Seed++ }} {
		c := l.cfg
		other(&c)
		if err := Prepare(ctx, c, io.Discard, false); !errors.Is(err, workload.ErrFlagValue) || !strings.Contains(err.Error(), "vmbench tpcc cleanup") {
			t.Errorf("prepare --warehouses=%d --seed=%d on a load of 2: %v, want ErrFlagValue", c.Warehouses, c.Seed, err)
		}
	}
}
