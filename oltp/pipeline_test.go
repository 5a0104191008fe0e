package oltp

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"vmbench/oltp/hist"
)

// fakePipe is a Pipeline on the fake clock of a synctest bubble: every
// Reap submits what was started, lets d pass, and ends every event in
// flight, so latencies are exactly d. The n-th Start, end or Reap (1-based,
// 0: never) fails.
type fakePipe struct {
	d                         time.Duration
	startErr, endErr, reapErr int
	starts, ends, reaps       int
	queued, inFlight          []int
	maxInFlight, maxPerWorker int
	perWorker                 map[int]int
}

var errPipe = errors.New("pipe boom")

func (p *fakePipe) Start(t int) error {
	if p.starts++; p.starts == p.startErr {
		return errPipe
	}
	if p.perWorker[t]++; p.perWorker[t] > p.maxPerWorker {
		p.maxPerWorker = p.perWorker[t]
	}
	p.queued = append(p.queued, t)
	return nil
}

func (p *fakePipe) Reap(ended func(t, op int, err error)) error {
	if p.reaps++; p.reaps == p.reapErr {
		return errPipe
	}
	p.inFlight, p.queued = append(p.inFlight, p.queued...), nil
	p.maxInFlight = max(p.maxInFlight, len(p.inFlight))
	time.Sleep(p.d)
	batch := p.inFlight
	p.inFlight = nil
	for _, t := range batch {
		p.perWorker[t]--
		var err error
		if p.ends++; p.ends == p.endErr {
			err = errPipe
		}
		ended(t, 0, err)
	}
	return nil
}

// pipeSpec is sleeperSpec (whose workers' Event must not be called in a
// pipelined run: it counts its calls in events) with a NewPipeline
// handing out p.
func pipeSpec(p *fakePipe, events *int64) Spec {
	spec := sleeperSpec(time.Millisecond, 0)
	newWorker := spec.NewWorker
	spec.NewWorker = func(ctx context.Context, t int, h *hist.Handle) (Worker, error) {
		w, err := newWorker(ctx, t, h)
		return countingWorker{w, events}, err
	}
	spec.NewPipeline = func(context.Context, []Worker) (Pipeline, error) {
		p.perWorker = map[int]int{}
		return p, nil
	}
	return spec
}

type countingWorker struct {
	Worker
	n *int64
}

func (w countingWorker) Event(ctx context.Context) (int, error) {
	*w.n++
	return w.Worker.Event(ctx)
}

// A closed-loop run with a Pipeline drives it from one goroutine: every
// worker has one event in flight at a time, all of them at once, each
// event's latency is exactly its time in the pipeline, the Events budget
// and the planned end hold as in the worker loop, and no worker's Event
// is called.
func TestPipelineClosedLoop(t *testing.T) {
	for _, tc := range []struct {
		name      string
		events    int64
		length    time.Duration
		keepTime  bool
		wantCount int64
	}{
		// 100 batches of 4 end by 1.005 s; the 101st is in flight at the end.
		{"planned end", 0, time.Second + 5*time.Millisecond, false, 400},
		{"workers keep time", 0, time.Second + 5*time.Millisecond, true, 400},
		{"events budget", 37, 0, false, 37},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := &fakePipe{d: 10 * time.Millisecond}
				var calls int64
				res, err := Run(t.Context(), pipeSpec(p, &calls), RunConfig{
					Threads: 4, Time: tc.length, Events: tc.events, WorkersKeepTime: tc.keepTime})
				if err != nil {
					t.Fatal(err)
				}
				h := mustHist(t, res)
				if h.Count() != tc.wantCount || h.Mean() != p.d || h.Max() != p.d {
					t.Errorf("%d events, latency mean %v max %v; want %d of exactly %v", h.Count(), h.Mean(), h.Max(), tc.wantCount, p.d)
				}
				if calls != 0 || p.maxInFlight != 4 || p.maxPerWorker != 1 {
					t.Errorf("Event called %d times; at most %d in flight, %d per worker; want 0, 4, 1", calls, p.maxInFlight, p.maxPerWorker)
				}
				if len(p.queued)+len(p.inFlight) != 0 {
					t.Errorf("returned with %d events started and %d in flight", len(p.queued), len(p.inFlight))
				}
			})
		})
	}
}

// A failing Start, a failed event and a failing Reap each stop the run
// with the error, the Result marked failed; the events ended before it
// are counted, and no event starts after it.
func TestPipelineFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		pipe fakePipe
	}{
		{"start", fakePipe{startErr: 9}},
		{"event", fakePipe{endErr: 9}},
		{"reap", fakePipe{reapErr: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := tc.pipe
				p.d = 10 * time.Millisecond
				var calls int64
				res, err := Run(t.Context(), pipeSpec(&p, &calls), RunConfig{Threads: 4, Time: time.Second})
				if !errors.Is(err, errPipe) || res == nil || res.Status != StatusFailed {
					t.Fatalf("err %v, result %+v; want %v and a failed Result", err, res, errPipe)
				}
				// Two batches of 4 end before the failure; with a failed event
				// the other three of its batch end too, and count.
				if h := mustHist(t, res); h.Count() == 0 || h.Count() > 11 {
					t.Errorf("%d events counted; want those ended before the failure or with it (1 to 11)", h.Count())
				}
			})
		})
	}
}

// NewPipeline is used only in closed loop: an open-loop run calls the
// workers' Event, and a NewPipeline error aborts the run before it starts.
func TestPipelineOnlyClosedLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &fakePipe{d: 10 * time.Millisecond}
		var calls int64
		res, err := Run(t.Context(), pipeSpec(p, &calls), RunConfig{Threads: 2, Time: time.Second, Rate: 100, Arrival: Deterministic})
		if err != nil {
			t.Fatal(err)
		}
		// One event per worker may be in flight at the end: called, not counted.
		if h := mustHist(t, res); p.starts != 0 || calls < h.Count() || calls > h.Count()+2 || h.Count() < 90 {
			t.Errorf("open loop: %d pipeline starts, %d Event calls for %d events", p.starts, calls, h.Count())
		}
	})
	spec := sleeperSpec(time.Millisecond, 0)
	spec.NewPipeline = func(context.Context, []Worker) (Pipeline, error) { return nil, errPipe }
	if res, err := Run(t.Context(), spec, RunConfig{Threads: 2, Time: time.Second}); !errors.Is(err, errPipe) || res != nil {
		t.Errorf("NewPipeline failing: %v, %v; want %v and no Result", res, err, errPipe)
	}
}

// instantPipe ends every started event at its Reap: what is left is the
// runner's own cost per event in a pipelined run.
type instantPipe struct{ queued []int }

func (p *instantPipe) Start(t int) error { p.queued = append(p.queued, t); return nil }

func (p *instantPipe) Reap(ended func(t, op int, err error)) error {
	batch := p.queued
	p.queued = nil
	for _, t := range batch {
		ended(t, 0, nil)
	}
	return nil
}

// BenchmarkPipelineEvent is the runner's cost per event of a pipelined
// closed loop (8 workers in flight): the clock read per batch, the
// latency recorded, the next event started. It guards the io_uring
// engine's hot path apart from the I/O itself.
func BenchmarkPipelineEvent(b *testing.B) {
	spec := sleeperSpec(time.Millisecond, 0)
	spec.NewPipeline = func(context.Context, []Worker) (Pipeline, error) { return &instantPipe{}, nil }
	b.ReportAllocs()
	b.ResetTimer()
	res, err := Run(b.Context(), spec, RunConfig{Threads: 8, Events: int64(b.N), Time: time.Hour, ReportInterval: time.Hour})
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	if h := mustHist(b, res); h.Count() != int64(b.N) {
		b.Fatalf("%d events recorded, want %d", h.Count(), b.N)
	}
}
