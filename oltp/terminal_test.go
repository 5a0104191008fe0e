package oltp

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"vmbench/oltp/hist"
)

// fixedTerminal keys for keying and thinks for think before and after
// every event; it always submits op 0.
type fixedTerminal struct{ keying, think time.Duration }

func (f fixedTerminal) Next() (int, time.Duration) { return 0, f.keying }
func (f fixedTerminal) Think(int) time.Duration    { return f.think }

// executor serves every event in a fixed time on the fake clock and
// counts the events it served per terminal.
type executor struct {
	sleeper
	served *[8]atomic.Int64
}

func (e *executor) Execute(ctx context.Context, _, terminal int) error {
	if _, err := e.Event(ctx); err != nil {
		return err
	}
	e.served[terminal].Add(1)
	return nil
}

func terminalSpec(service time.Duration, term fixedTerminal, served *[8]atomic.Int64) Spec {
	spec := sleeperSpec(service, 0)
	var n atomic.Int64
	spec.NewWorker = func(_ context.Context, _ int, h *hist.Handle) (Worker, error) {
		return &executor{sleeper: sleeper{d: service, n: &n, h: h}, served: served}, nil
	}
	spec.NewTerminal = func(int) Terminal { return term }
	return spec
}

func TestTerminalDriven(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Two terminals share one connection. Both submit at 1 s; the
		// second waits for the first, so its first response time is
		// 1 s while every service time is 0.5 s. Then each cycle is
		// 0.5 s of service + 2 s think + 1 s keying = 3.5 s, and the two
		// terminals stay 0.5 s apart: events end at 1.5, 2.0, 5.0, 5.5,
		// 8.5 and 9.0 s of a 10 s run.
		var served [8]atomic.Int64
		res, err := Run(t.Context(), terminalSpec(500*time.Millisecond, fixedTerminal{time.Second, 2 * time.Second}, &served),
			RunConfig{Threads: 1, Terminals: 2, Time: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.Loop != TerminalLoop || res.Terminals != 2 || res.Threads != 1 {
			t.Errorf("loop %s, terminals %d, threads %d; want terminals, 2, 1", res.Loop, res.Terminals, res.Threads)
		}
		svc := mustHist(t, res)
		rt, err := res.Op("event").Intended.Histogram()
		if err != nil {
			t.Fatal(err)
		}
		if svc.Count() != 6 || svc.Min() != 500*time.Millisecond || svc.Max() != 500*time.Millisecond {
			t.Errorf("service: count %d min %v max %v; want 6 events of 500ms", svc.Count(), svc.Min(), svc.Max())
		}
		if rt.Count() != 6 || rt.Min() != 500*time.Millisecond || rt.Max() != time.Second || rt.Sum() != 3500*time.Millisecond {
			t.Errorf("response: count %d min %v max %v sum %v; want 6, 500ms, 1s, 3.5s", rt.Count(), rt.Min(), rt.Max(), rt.Sum())
		}
		if a, b := served[0].Load(), served[1].Load(); a != 3 || b != 3 {
			t.Errorf("served per terminal %d and %d; want 3 each", a, b)
		}
	})
}

func TestTerminalDrivenNoWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Three terminals without waits on two connections: two events
		// end every second, and a terminal waits one round out of three.
		var backlog []int64
		var served [8]atomic.Int64
		res, err := Run(t.Context(), terminalSpec(time.Second, fixedTerminal{}, &served), RunConfig{
			Threads: 2, Terminals: 3, Time: 10*time.Second + 500*time.Millisecond, ReportInterval: 2*time.Second + 500*time.Millisecond,
			OnInterval: func(r IntervalReport) { backlog = append(backlog, r.Backlog) },
		})
		if err != nil {
			t.Fatal(err)
		}
		svc := mustHist(t, res)
		rt, _ := res.Op("event").Intended.Histogram()
		if svc.Count() != 20 || rt.Min() != time.Second || rt.Max() != 2*time.Second {
			t.Errorf("count %d, response min %v max %v; want 20, 1s, 2s", svc.Count(), rt.Min(), rt.Max())
		}
		// Mid-second, one event is always waiting for a connection.
		if len(backlog) != 4 {
			t.Errorf("%d interval reports, want 4", len(backlog))
		}
		for i, b := range backlog {
			if b != 1 {
				t.Errorf("interval %d: backlog %d, want 1", i+1, b)
			}
		}
	})
}

func TestTerminalDrivenEventsLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var served [8]atomic.Int64
		res, err := Run(t.Context(), terminalSpec(10*time.Millisecond, fixedTerminal{}, &served), RunConfig{Threads: 1, Terminals: 4, Events: 7})
		if err != nil {
			t.Fatal(err)
		}
		if c := mustHist(t, res).Count(); c != 7 {
			t.Errorf("count %d, want 7", c)
		}
	})
}

func TestTerminalConfigErrors(t *testing.T) {
	if err := (RunConfig{Threads: 1, Terminals: 2, Rate: 5}).Validate(); err == nil {
		t.Error("terminals with a rate: no error")
	}
	if err := (RunConfig{Threads: 1, Terminals: -1}).Validate(); err == nil {
		t.Error("negative terminals: no error")
	}
	_, err := Run(context.Background(), sleeperSpec(time.Millisecond, 0), RunConfig{Threads: 1, Terminals: 2, Time: time.Second})
	if err == nil {
		t.Error("terminals without NewTerminal: no error")
	}
}

// TestTerminalWaitCounter: a terminal-driven Result holds the keying and
// think time its terminals waited after the events counted, so that
// Little's law closes over the window: terminals x time = events x (mean
// response time + mean wait), short only by the cycles crossing the
// window's edges (at most one per terminal at each edge).
func TestTerminalWaitCounter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const terminals = 6
		keying, think, service := 5*time.Millisecond, 20*time.Millisecond, 10*time.Millisecond
		length := 10*time.Second + 3*time.Millisecond
		var served [8]atomic.Int64
		res, err := Run(t.Context(), terminalSpec(service, fixedTerminal{keying, think}, &served),
			RunConfig{Threads: 4, Terminals: terminals, Time: length, ReportInterval: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		rt, err := res.Op("event").Intended.Histogram()
		if err != nil {
			t.Fatal(err)
		}
		wait, ok := res.Counters[CounterTerminalWait]
		if !ok || time.Duration(wait) != time.Duration(rt.Count())*(keying+think) {
			t.Errorf("%s = %v (present: %v) for %d events; want %v each", CounterTerminalWait, time.Duration(wait), ok, rt.Count(), keying+think)
		}
		var sum int64
		for _, iv := range res.Intervals {
			sum += iv.Counters[CounterTerminalWait]
		}
		if sum != wait {
			t.Errorf("intervals add up to %v of waits, the phase %v", time.Duration(sum), time.Duration(wait))
		}
		busy := rt.Sum() + time.Duration(wait)          // terminal time the counted cycles cover
		cycle := rt.Max() + keying + think              // the longest cycle
		total := time.Duration(terminals) * res.Elapsed // terminal time in the window
		if busy > total+terminals*cycle || busy < total-terminals*cycle {
			t.Errorf("Little's law: counted cycles cover %v of %v terminal time (allowed ±%v)", busy, total, terminals*cycle)
		}
	})
}
