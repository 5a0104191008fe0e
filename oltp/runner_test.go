package oltp

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"vmbench/oltp/hist"
)

// sleeper is a worker whose every event takes a fixed time on the fake
// clock of a synctest bubble, so counts and latencies are exact.
type sleeper struct {
	d      time.Duration
	failAt int64 // event number that fails (0: never)
	n      *atomic.Int64
	h      *hist.Handle
}

func (s *sleeper) Event(ctx context.Context) (int, error) {
	n := s.n.Add(1)
	if s.failAt > 0 && n == s.failAt {
		return 0, errors.New("boom")
	}
	s.h.Add(0, 1)
	select {
	case <-time.After(s.d):
		return 0, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

func (s *sleeper) Close() error { return nil }

func sleeperSpec(d time.Duration, failAt int64) Spec {
	var n atomic.Int64
	return Spec{Workload: "sleep", Ops: []string{"event"}, Counters: []string{"calls"},
		NewWorker: func(_ context.Context, _ int, h *hist.Handle) (Worker, error) {
			return &sleeper{d: d, failAt: failAt, n: &n, h: h}, nil
		}}
}

func mustHist(t testing.TB, r *Result) *hist.Histogram {
	t.Helper()
	h, err := r.Histogram("event")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestClosedLoop(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		threads               int
		event, warmup, length time.Duration
		interval              time.Duration
		wantCount, wantPre    int64
		wantIntervals         int
	}{
		// Lengths end 5 ms past an event boundary and a tick, so that no
		// event ends at the same fake instant as the phase (a tie).
		{"4 threads 10ms 1s", 4, 10 * time.Millisecond, 0, time.Second + 5*time.Millisecond, time.Second / 4, 400, 0, 5},
		// The end and the last tick at the same instant: 3 reports either way.
		{"last tick at the end", 2, 70 * time.Millisecond, 0, 3 * time.Second, time.Second, 84, 0, 3},
		{"in flight at the end is not counted", 1, 300 * time.Millisecond, 0, time.Second, 0, 3, 0, 1},
		{"warmup excluded", 2, 100 * time.Millisecond, time.Second + 50*time.Millisecond, 2*time.Second + 5*time.Millisecond, time.Second, 40, 20, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var reports int
				res, err := Run(t.Context(), sleeperSpec(tc.event, 0), RunConfig{
					Threads: tc.threads, Time: tc.length, WarmupTime: tc.warmup, ReportInterval: tc.interval,
					OnInterval: func(r IntervalReport) {
						if r.Phase == PhaseMeasure {
							reports++
						}
					},
				})
				if err != nil {
					t.Fatal(err)
				}
				h := mustHist(t, res)
				if h.Count() != tc.wantCount {
					t.Errorf("measured %d events, want %d", h.Count(), tc.wantCount)
				}
				if h.Mean() != tc.event || h.Max() != tc.event {
					t.Errorf("latency mean %v max %v, want %v", h.Mean(), h.Max(), tc.event)
				}
				if res.Elapsed != tc.length {
					t.Errorf("elapsed %v, want %v", res.Elapsed, tc.length)
				}
				// Little's law: threads = rate x latency, short only by the
				// events in flight at the end (at most one event per thread).
				got := res.PerSecond(h.Count()) * h.Mean().Seconds()
				if lo := float64(tc.threads) * (1 - float64(tc.event)/float64(tc.length)); got < lo || got > float64(tc.threads) {
					t.Errorf("rate x latency = %g, want %g..%d threads", got, lo, tc.threads)
				}
				full := 0
				if tc.interval > 0 {
					full = int((tc.length + tc.interval/2) / tc.interval)
				}
				if len(res.Intervals) != tc.wantIntervals || reports != full {
					t.Errorf("%d intervals stored, %d reported; want %d and %d", len(res.Intervals), reports, tc.wantIntervals, full)
				}
				var sum int64
				for _, iv := range res.Intervals {
					sum += iv.Ops[0].Latency.Count
				}
				if sum != h.Count() {
					t.Errorf("intervals add up to %d events, cumulative %d", sum, h.Count())
				}
				if tc.wantPre > 0 {
					if res.Precondition == nil {
						t.Fatal("no precondition result")
					}
					if c := mustHist(t, res.Precondition).Count(); c != tc.wantPre || res.Precondition.Phase != PhasePrecondition {
						t.Errorf("precondition %s counted %d, want %d", res.Precondition.Phase, c, tc.wantPre)
					}
				}
			})
		})
	}
}

func TestEventsLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res, err := Run(t.Context(), sleeperSpec(time.Millisecond, 0), RunConfig{Threads: 3, Events: 50})
		if err != nil {
			t.Fatal(err)
		}
		if c := mustHist(t, res).Count(); c != 50 {
			t.Fatalf("ran %d events, want exactly 50", c)
		}
	})
}

func TestFatalErrorStopsRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, err := Run(t.Context(), sleeperSpec(time.Millisecond, 5), RunConfig{Threads: 2, Time: time.Minute})
		if err == nil || err.Error() != "boom" {
			t.Fatalf("err = %v, want the worker's error", err)
		}
	})
}

func TestInterrupted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(550*time.Millisecond, cancel)
		res, err := Run(ctx, sleeperSpec(100*time.Millisecond, 0), RunConfig{Threads: 1, Time: time.Hour})
		if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want interrupted", err)
		}
		if !res.Interrupted || mustHist(t, res).Count() != 5 || res.Elapsed != 550*time.Millisecond {
			t.Fatalf("interrupted result: flag %v count %d elapsed %v; want true, 5, 550ms",
				res.Interrupted, mustHist(t, res).Count(), res.Elapsed)
		}
	})
}

func TestOpenLoop(t *testing.T) {
	for _, tc := range []struct {
		name         string
		rate         float64
		threads      int
		event        time.Duration
		wantCount    int64
		wantIntended time.Duration // mean latency from the intended start
	}{
		// 100/s deterministic, 3 ms each (starts at 0, 10, .. 1000 ms): never late, both latencies equal.
		{"under capacity", 100, 2, 3 * time.Millisecond, 101, 3 * time.Millisecond},
		// 1 thread of 20 ms events can do 50/s; asked for 100/s the backlog
		// grows, the service time stays 20 ms and the intended latency grows.
		{"overloaded", 100, 1, 20 * time.Millisecond, 50, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var backlog int64
				res, err := Run(t.Context(), sleeperSpec(tc.event, 0), RunConfig{Threads: tc.threads, Time: time.Second + 5*time.Millisecond,
					Rate: tc.rate, Arrival: Deterministic, ReportInterval: time.Second,
					OnInterval: func(r IntervalReport) { backlog = r.Backlog }})
				if err != nil {
					t.Fatal(err)
				}
				h := mustHist(t, res)
				ih, err := res.Ops[0].Intended.Histogram()
				if err != nil {
					t.Fatal(err)
				}
				if res.Loop != OpenLoop || h.Count() != tc.wantCount || h.Mean() != tc.event {
					t.Errorf("loop %s count %d service mean %v; want open, %d, %v", res.Loop, h.Count(), h.Mean(), tc.wantCount, tc.event)
				}
				if tc.wantIntended > 0 && ih.Mean() != tc.wantIntended {
					t.Errorf("intended mean %v, want %v", ih.Mean(), tc.wantIntended)
				}
				if tc.wantIntended == 0 {
					// Event k (0-based) was due at 10k ms and started at 20k ms:
					// its latency from the intended start is 10k+20 ms.
					if ih.Max() < 500*time.Millisecond || backlog < 45 {
						t.Errorf("overload hidden: intended max %v, backlog %d", ih.Max(), backlog)
					}
				}
			})
		})
	}
}

func TestValidate(t *testing.T) {
	err := RunConfig{Threads: 0, Time: -time.Second, Rate: -1}.Validate()
	for _, want := range []string{"--threads: 0", "--time: -1s", "--rate: -1 is not valid"} {
		if err == nil || !contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to mention %q", err, want)
		}
	}
}

func TestValidateRejectsNonFiniteRate(t *testing.T) {
	for _, r := range []float64{math.NaN(), math.Inf(1)} {
		if err := (RunConfig{Threads: 1, Rate: r}).Validate(); err == nil {
			t.Errorf("--rate %g accepted", r)
		}
	}
}

func contains(s, sub string) bool {
	return len(s) >= len(sub) && (s == sub || len(sub) == 0 || indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestStopWords(t *testing.T) {
	for _, tc := range []struct {
		c    RunConfig
		want string
	}{
		{RunConfig{Time: time.Minute}, "Running for 1m0s"},
		{RunConfig{Events: 10}, "Stopping after 10 transactions"},
		{RunConfig{Time: 30 * time.Second, Events: 10}, "Stopping after 30s or 10 transactions"},
		{RunConfig{}, "Running until interrupted (--time=0, --events=0)"},
	} {
		if got := tc.c.StopWords("transactions"); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.c, got, tc.want)
		}
	}
}
