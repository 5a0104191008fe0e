package oltp

import (
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"

	"vmbench/oltp/hist"
)

// burner is a worker whose events burn a fixed amount of its own thread's
// CPU time (RUSAGE_THREAD), so the CPU the run must report is known
// whatever the machine's load.
type burner struct{ per time.Duration }

func threadCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestClientCostCoversTheWork: a run's Client covers at least the CPU its
// workers burned, and its per-event figure follows.
func TestClientCostCoversTheWork(t *testing.T) {
	const events, per = 20, 2 * time.Millisecond
	spec := Spec{Workload: "burn", Ops: []string{"event"},
		NewWorker: func(context.Context, int, *hist.Handle) (Worker, error) {
			return workerFunc(func(context.Context) (int, error) {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				start := threadCPU(t)
				burning := func() bool { return threadCPU(t)-start < per }
				for burning() {
				}
				return 0, nil
			}), nil
		}}
	res, err := Run(context.Background(), spec, RunConfig{Threads: 1, Events: events})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Client
	if c == nil {
		t.Fatal("no client cost recorded")
	}
	if c.CPU() < events*per {
		t.Errorf("client CPU %v, but the workers alone burned %v", c.CPU(), events*per)
	}
	if cpu, _, _ := c.PerEvent(res.Ops[0].Latency.Count); cpu < per {
		t.Errorf("client CPU per event %v < the %v each event burned", cpu, per)
	}
	if c.Processes != 1 || c.Cores != runtime.NumCPU() || c.Process == "" || c.End.Before(c.Start) {
		t.Errorf("client cost %+v", c)
	}
}

// workerFunc is a Worker of one function.
type workerFunc func(context.Context) (int, error)

func (f workerFunc) Event(ctx context.Context) (int, error) { return f(ctx) }
func (workerFunc) Close() error                             { return nil }
