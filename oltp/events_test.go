package oltp

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"vmbench/oltp/hist"
)

// TestEventsAfterWarmup: --events N counts exactly N events in the measure
// phase, whether or not a warm-up ran first. After a warm-up, every
// thread (or terminal) has an event in flight at the boundary; those
// that end in the measure phase are counted there and take their share
// of the N (before the fix: 504 for --events 500 with 4 threads).
func TestEventsAfterWarmup(t *testing.T) {
	const events = 500
	// The warm-up ends 5 ms into each thread's 10 ms event.
	warmup := time.Second + 5*time.Millisecond
	for _, tc := range []struct {
		name string
		spec func() Spec
		cfg  RunConfig
	}{
		{"closed loop", func() Spec { return sleeperSpec(10*time.Millisecond, 0) }, RunConfig{Threads: 4}},
		{"open loop", func() Spec { return sleeperSpec(10*time.Millisecond, 0) }, RunConfig{Threads: 4, Rate: 390, Arrival: Deterministic}},
		{"terminal-driven", func() Spec {
			var served [8]atomic.Int64
			return terminalSpec(10*time.Millisecond, fixedTerminal{}, &served)
		}, RunConfig{Threads: 4, Terminals: 6}},
		{"pipelined", func() Spec {
			var calls int64
			return pipeSpec(&fakePipe{d: 10 * time.Millisecond}, &calls)
		}, RunConfig{Threads: 4}},
	} {
		for _, w := range []time.Duration{0, warmup} {
			t.Run(tc.name+map[bool]string{false: "", true: " after a warm-up"}[w > 0], func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					cfg := tc.cfg
					cfg.Events, cfg.WarmupTime = events, w
					res, err := Run(t.Context(), tc.spec(), cfg)
					if err != nil {
						t.Fatal(err)
					}
					if n := mustHist(t, res).Count(); n != events {
						t.Errorf("measured %d events, want exactly %d", n, events)
					}
					var sum int64
					for _, iv := range res.Intervals {
						sum += iv.Ops[0].Latency.Count
					}
					if sum != events {
						t.Errorf("intervals add up to %d events, want %d", sum, events)
					}
					if w > 0 && (res.Precondition == nil || mustHist(t, res.Precondition).Count() == 0) {
						t.Errorf("no precondition counted: %+v", res.Precondition)
					}
				})
			})
		}
	}
}

// TestEventsAfterWarmupRealClock: with events ending at any instant around
// the warm-up's final swap, on the real clock, the measure phase still
// counts exactly --events, whatever the scheduling of a loaded machine.
func TestEventsAfterWarmupRealClock(t *testing.T) {
	spec := Spec{Workload: "spin", Ops: []string{"event"}, NewWorker: func(context.Context, int, *hist.Handle) (Worker, error) {
		return spinner{time.Microsecond}, nil
	}}
	for i := range 5 {
		res, err := Run(t.Context(), spec, RunConfig{Threads: 8, WarmupTime: 5 * time.Millisecond, Events: 2000})
		if err != nil {
			t.Fatal(err)
		}
		if n := mustHist(t, res).Count(); n != 2000 {
			t.Errorf("run %d: measured %d events, want exactly 2000", i+1, n)
		}
	}
}
