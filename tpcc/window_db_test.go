package tpcc

import (
	"bytes"
	"testing"
	"time"

	"vmbench/oltp"
)

// TestWindowEndsAtTime: a terminal-driven run of --time T (10 terminals
// on 2 connections without waits after a warm-up, as a simulated SQL
// Server campaign runs) measures a window of T: its planned length is
// recorded, and it ends at T unless the Runner handled the end late, in
// which case the overrun is recorded. Its TPS agrees with Little's law:
// each terminal's counted response times are disjoint spans of the
// window (no waits: the next submission is at the last end), so
// TPS x mean response time is at most the terminals, and short of them
// only by the response in flight at the end (at most the longest). The
// NOPM delta is exactly the committed New-Orders the client counted.
func TestWindowEndsAtTime(t *testing.T) {
	t.Parallel()
	ctx := checkContext(t)
	cfg := mariaCheckConfig(t)
	prepareForCheck(t, ctx, cfg)
	const length = 3 * time.Second
	cfg.Terminals, cfg.Conns, cfg.WaitScale, cfg.WarmupTime, cfg.Time, cfg.ReportInterval = 10, 2, 0, time.Second, length, time.Second
	var out bytes.Buffer
	res, err := runPrinted(ctx, cfg, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Logf("measure phase: %v (planned %v), overruns %v", res.Elapsed, res.Planned, res.Overruns)
	if res.Planned != length {
		t.Errorf("planned length %v, want %v (--time)", res.Planned, length)
	}
	slack := max(time.Duration(float64(length)*oltp.OverrunSlack), oltp.OverrunFloor)
	if res.Elapsed < length || res.Elapsed > length+slack && (len(res.Overruns) == 0 || res.Overruns[0].Interval != 0) {
		t.Errorf("measured window %v for --time %v, no overrun of the phase recorded (%v)", res.Elapsed, length, res.Overruns)
	}
	var n int64
	var sum, longest time.Duration
	for _, op := range res.Ops {
		if op.Intended == nil {
			t.Fatalf("%s: no response times", op.Name)
		}
		h, err := op.Intended.Histogram()
		if err != nil {
			t.Fatal(err)
		}
		n += h.Count()
		sum += h.Sum()
		longest = max(longest, h.Max())
	}
	if n == 0 {
		t.Fatal("no transaction counted")
	}
	if w, ok := res.Counters[oltp.CounterTerminalWait]; !ok || w != 0 {
		t.Errorf("%s = %d (present: %v), want 0 without waits", oltp.CounterTerminalWait, w, ok)
	}
	tps, mean := res.PerSecond(n), sum/time.Duration(n)
	little := tps * mean.Seconds() // terminals busy, by Little's law
	lo := float64(cfg.Terminals) * (1 - longest.Seconds()/res.Elapsed.Seconds())
	t.Logf("TPS %.2f x mean response %v = %.3f terminals of %d (at least %.3f)", tps, mean, little, cfg.Terminals, lo)
	if little > float64(cfg.Terminals)*(1+1e-9) || little < lo {
		t.Errorf("Little's law: TPS %.2f x mean response time %v = %.3f terminals, want %.3f to %d", tps, mean, little, lo, cfg.Terminals)
	}
	committed := res.Op(OpNames[opNewOrder]).Latency.Count - res.Counters[counterNames[ctrRollbacks]]
	if d, ok := res.Counters[CounterNOPMDelta]; !ok || d != committed {
		t.Errorf("NOPM delta %d (read: %v), %d committed New-Orders counted; want them equal", d, ok, committed)
	}
	if _, ok := res.Counters[CounterNOPMAfterEnd]; !ok {
		t.Errorf("no %s counter", CounterNOPMAfterEnd)
	}
}
