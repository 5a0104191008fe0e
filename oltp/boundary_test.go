package oltp

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"vmbench/oltp/hist"
)

// starvedRun runs 4 threads of 10 ms events for a 1.605 s precondition and
// a 3 s measure phase with 1 s reports, where the runner is late: after
// reporting the precondition's last interval (1 s to 1.605 s) it is held
// for hold (as a starved host holds it), and after the measure phase's
// first report for holdMeasure. Edges lie 5 ms off the events' ends, so
// nothing ties.
func starvedRun(t *testing.T, hold, holdMeasure time.Duration) *Result {
	t.Helper()
	return starvedRunKeep(t, hold, holdMeasure, false)
}

// starvedRunKeep is starvedRun with RunConfig.WorkersKeepTime set to keep.
func starvedRunKeep(t *testing.T, hold, holdMeasure time.Duration, keep bool) *Result {
	t.Helper()
	measured := 0
	res, err := Run(t.Context(), sleeperSpec(10*time.Millisecond, 0), RunConfig{
		Threads: 4, WarmupTime: 1605 * time.Millisecond, Time: 3 * time.Second, ReportInterval: time.Second,
		WorkersKeepTime: keep,
		OnInterval: func(r IntervalReport) {
			switch {
			case r.Phase == PhasePrecondition && r.At > time.Second:
				time.Sleep(hold)
			case r.Phase == PhaseMeasure:
				if measured++; measured == 1 {
					time.Sleep(holdMeasure)
				}
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func countOf(ops []OpResult) int64 {
	var n int64
	for _, o := range ops {
		n += o.Latency.Count
	}
	return n
}

// TestBoundaryHoldsWhenRunnerIsLate: the runner reaches the measure phase
// 2.5 s after the precondition's final swap. The events done meanwhile
// belong to the measure phase and so does their time: the measure phase
// starts at the swap, counts 400 events/s over its 3 s, and its first
// interval is 2.5 s long, not 1 s holding 2.5 s of events.
func TestBoundaryHoldsWhenRunnerIsLate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res := starvedRun(t, 2500*time.Millisecond, 0)
		pre := res.Precondition
		if !res.Start.Equal(pre.End) {
			t.Errorf("measure starts %v after the precondition's end, want at it", res.Start.Sub(pre.End))
		}
		if n := countOf(pre.Ops); n != 640 {
			t.Errorf("precondition counted %d, want 640", n)
		}
		if n := countOf(res.Ops); n != 1200 || res.Elapsed != 3*time.Second {
			t.Errorf("measure counted %d in %v, want 1200 in 3s (400/s)", n, res.Elapsed)
		}
		var sum int64
		var covered time.Duration
		for i, iv := range res.Intervals {
			n := countOf(iv.Ops)
			sum += n
			covered += iv.Length
			if rate := float64(n) / iv.Length.Seconds(); rate < 399 || rate > 401 {
				t.Errorf("interval %d: %d events in %v = %.1f/s, want 400/s", i+1, n, iv.Length, rate)
			}
		}
		if sum != 1200 || covered != res.Elapsed {
			t.Errorf("intervals hold %d events over %v, want 1200 over %v", sum, covered, res.Elapsed)
		}
		if len(res.Intervals) == 0 || res.Intervals[0].Length != 2500*time.Millisecond {
			t.Errorf("first interval %+v, want 2.5 s long", res.Intervals)
		}
	})
}

// TestOverrunsAreRecorded: an interval handled late and a phase that ends
// late say so, with their planned and actual lengths; the events of the
// longer window are counted with its time.
func TestOverrunsAreRecorded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res := starvedRun(t, 2500*time.Millisecond, 0)
		want := []Overrun{{Interval: 1, Planned: time.Second, Ran: 2500 * time.Millisecond}}
		if len(res.Overruns) != 1 || res.Overruns[0] != want[0] || res.Precondition.Overruns != nil {
			t.Errorf("overruns %+v (precondition %+v), want %+v", res.Overruns, res.Precondition.Overruns, want)
		}
		if got := res.Overruns[0].String(); got != "interval 1 ran 2.5 s for a planned 1 s: the host was starved (the runner handled its end late)" {
			t.Errorf("overrun words %q", got)
		}

		// Held 3 s after the first measure report (at 1 s), the runner
		// handles the end (due at 3 s) at 4 s: the phase ran 4 s.
		res = starvedRun(t, 0, 3*time.Second)
		if n := countOf(res.Ops); res.Elapsed != 4*time.Second || n != 1600 {
			t.Errorf("late end: %d events in %v, want 1600 in 4s", n, res.Elapsed)
		}
		if len(res.Overruns) != 2 || res.Overruns[0] != (Overrun{Planned: 3 * time.Second, Ran: 4 * time.Second}) ||
			res.Overruns[1] != (Overrun{Interval: 2, Planned: 2 * time.Second, Ran: 3 * time.Second}) {
			t.Errorf("late end: overruns %+v, want the phase (3 s, ran 4 s) and interval 2 (2 s, ran 3 s)", res.Overruns)
		}
		if res.Planned != 3*time.Second || res.Intervals[1].Planned != 2*time.Second {
			t.Errorf("planned %v, interval 2 planned %v", res.Planned, res.Intervals[1].Planned)
		}
	})
}

// spinner is a CPU-bound worker: each event spins for about d.
type spinner struct{ d time.Duration }

func (s spinner) Event(context.Context) (int, error) {
	end := time.Now().Add(s.d)
	for time.Now().Before(end) {
	}
	return 0, nil
}

func (spinner) Close() error { return nil }

// TestBoundaryWithMoreWorkersThanCores runs CPU-bound workers, four per
// core, on the real clock, and checks what must hold however starved the
// runner is: the measure phase starts at the precondition's end, intervals
// tile each phase, and every event counted is in exactly one interval.
func TestBoundaryWithMoreWorkersThanCores(t *testing.T) {
	spec := Spec{Workload: "spin", Ops: []string{"event"},
		NewWorker: func(context.Context, int, *hist.Handle) (Worker, error) { return spinner{50 * time.Microsecond}, nil }}
	res, err := Run(t.Context(), spec, RunConfig{Threads: 4 * runtime.NumCPU(), WarmupTime: 100 * time.Millisecond,
		Time: 200 * time.Millisecond, ReportInterval: 25 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Start.Equal(res.Precondition.End) {
		t.Errorf("measure starts %v after the precondition's end, want at it", res.Start.Sub(res.Precondition.End))
	}
	t.Logf("precondition %v (%d events), measure %v (%d events), overruns %v %v", res.Precondition.Elapsed, countOf(res.Precondition.Ops),
		res.Elapsed, countOf(res.Ops), res.Precondition.Overruns, res.Overruns)
	for _, r := range []*Result{res.Precondition, res} {
		var sum int64
		var at time.Duration
		for i, iv := range r.Intervals {
			if iv.At-iv.Length != at {
				t.Errorf("%s interval %d starts at %v, the previous ended at %v", r.Phase, i+1, iv.At-iv.Length, at)
			}
			at = iv.At
			sum += countOf(iv.Ops)
		}
		if at != r.Elapsed || sum != countOf(r.Ops) {
			t.Errorf("%s: intervals end at %v holding %d events; the phase ran %v with %d", r.Phase, at, sum, r.Elapsed, countOf(r.Ops))
		}
		if got := overruns(r); len(got) != len(r.Overruns) {
			t.Errorf("%s: %d overruns recorded, %d in the intervals", r.Phase, len(r.Overruns), len(got))
		}
	}
}

// TestOpenLoopWarmupBacklogIsDropped: at 100/s on one thread whose events
// take 50 ms during the warm-up (a cold cache) and 1 ms after, about 80
// arrivals are queued when the warm-up ends. The measure phase starts with
// an empty schedule: it runs at the rate, its latency from the intended
// start stays near the service time, and the precondition records the
// backlog it dropped.
func TestOpenLoopWarmupBacklogIsDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res := warmupBacklogRun(t)
		pre := res.Precondition
		// Due by 1.005 s: 101 arrivals; started: one per 50 ms, 21.
		if pre.BacklogDropped < 75 || pre.BacklogDropped > 81 || pre.BacklogAtEnd != pre.BacklogDropped {
			t.Errorf("precondition backlog at end %d, dropped %d; want about 80 both", pre.BacklogAtEnd, pre.BacklogDropped)
		}
		if res.BacklogAtEnd != 0 || res.CatchUp != CatchUpFullSpeed {
			t.Errorf("measure: backlog at end %d, catch-up %q; want 0 and %q", res.BacklogAtEnd, res.CatchUp, CatchUpFullSpeed)
		}
	})
}

// TestOpenLoopMeasureRunsAtTheRateAfterSlowWarmup is the part of
// TestOpenLoopWarmupBacklogIsDropped that reads only the figures.
func TestOpenLoopMeasureRunsAtTheRateAfterSlowWarmup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res := warmupBacklogRun(t)
		// 2.005 s at 100/s: arrivals at 0, 10, ... 2000 ms of the phase.
		if n := countOf(res.Ops); n < 200 || n > 202 {
			t.Errorf("measure ran %d events, want 201 (100/s)", n)
		}
		ih, err := res.Ops[0].Intended.Histogram()
		if err != nil {
			t.Fatal(err)
		}
		// The one event in flight at the boundary started from the warm-up's
		// queue and counts where it ends; every other is on time.
		if p99 := ih.Percentile(99); p99 > 60*time.Millisecond {
			t.Errorf("latency from the intended start: p99 %v, want the warm-up's queue left out (under 60 ms)", p99)
		}
	})
}

func warmupBacklogRun(t *testing.T) *Result {
	t.Helper()
	begin := time.Now()
	warmup := time.Second + 5*time.Millisecond
	var n atomic.Int64
	spec := sleeperSpec(0, 0)
	spec.NewWorker = func(_ context.Context, _ int, h *hist.Handle) (Worker, error) {
		return &phasedSleeper{sleeper: sleeper{n: &n, h: h}, slow: 50 * time.Millisecond, fast: time.Millisecond, until: begin.Add(warmup)}, nil
	}
	res, err := Run(t.Context(), spec, RunConfig{Threads: 1, Rate: 100, Arrival: Deterministic,
		WarmupTime: warmup, Time: 2*time.Second + 5*time.Millisecond, ReportInterval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// phasedSleeper's events take slow until the instant until, then fast.
type phasedSleeper struct {
	sleeper
	slow, fast time.Duration
	until      time.Time
}

func (p *phasedSleeper) Event(ctx context.Context) (int, error) {
	p.d = p.fast
	if time.Now().Before(p.until) {
		p.d = p.slow
	}
	return p.sleeper.Event(ctx)
}

// TestWorkersKeepTheMeasureEnd: with WorkersKeepTime the workers end the
// measure phase at its planned end while the runner is held past it (a
// starved runner goroutine): the phase is exactly 3 s with the 1200 events
// that ended inside it, and no phase overrun is reported.
func TestWorkersKeepTheMeasureEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res := starvedRunKeep(t, 0, 3*time.Second, true)
		if n := countOf(res.Ops); res.Elapsed != 3*time.Second || n != 1200 {
			t.Errorf("%d events in %v, want 1200 in 3s", n, res.Elapsed)
		}
		for _, o := range res.Overruns {
			if o.Interval == 0 {
				t.Errorf("phase overrun %+v reported, want none", o)
			}
		}
		var covered time.Duration
		for _, iv := range res.Intervals {
			covered += iv.Length
		}
		if covered != res.Elapsed {
			t.Errorf("intervals cover %v of %v", covered, res.Elapsed)
		}
	})
}
