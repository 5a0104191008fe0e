package tpcc

import (
	"context"
	"time"

	"vmbench/oltp"
	"vmbench/oltp/hist"
)

// windowWorker is the Runner's view of a worker. It outlives one Runner
// run, so that the precondition and the measure phase share connections
// and prepared statements (Close is left to Run).
type windowWorker struct {
	*worker
}

var _ oltp.Executor = (*windowWorker)(nil)

// Close does nothing: Run closes the connections after its last phase.
func (w *windowWorker) Close() error { return nil }

// workerPool keeps the workers of a Run across its phases.
type workerPool struct {
	rs      *runState
	workers []*windowWorker // by thread, made by the first phase
}

// newWorker is oltp.Spec.NewWorker: the pooled worker of thread t, made
// on first use, recording into h from now on. The Runner calls it for
// distinct t at once.
func (p *workerPool) newWorker(ctx context.Context, t int, h *hist.Handle) (oltp.Worker, error) {
	if w := p.workers[t]; w != nil {
		w.h = h
		return w, nil
	}
	w, err := newWorker(ctx, p.rs.db, p.rs, t, h)
	if err != nil {
		return nil, err
	}
	p.workers[t] = &windowWorker{worker: w}
	return p.workers[t], nil
}

// close closes every connection.
func (p *workerPool) close() {
	for _, w := range p.workers {
		if w != nil {
			w.worker.Close()
		}
	}
}

// window is the measured window of a run: the Runner's measure phase,
// which ends at --time as any Runner's (or on --events), and two readings
// of sum(d_next_o_id) taken with no transaction running, one before the
// Runner starts and one after it has returned.
//
// The second reading also holds the New-Orders of the transactions in
// flight at the window's end, which finish (within the graceful stop)
// after it and which the Runner does not count. The workers count every
// New-Order they commit (runState.committed), and the Result counts
// those committed in the window (New-Orders minus intended rollbacks,
// which count with their transaction), so the difference is what
// committed after the end, and the change over the window is the change
// between the readings less it: exactly the client's count, unless a
// transaction was cancelled while it committed (Ctrl-C, a failure, or one
// still running when the graceful stop ran out), which it may then count.
type window struct {
	rs        *runState
	before    int64
	opened    bool  // before was read
	committed int64 // rs.committed at the start reading
}

// openWindow takes the start reading: no transaction runs (the Runner of
// the measure phase has not started; the precondition's has returned).
func openWindow(ctx context.Context, rs *runState) *window {
	w := &window{rs: rs, committed: rs.committed.Load()}
	rctx, cancel := readingContext(ctx)
	defer cancel()
	before, err := sumNextOrderID(rctx, rs.db)
	w.before, w.opened = before, err == nil
	return w
}

// close takes the end reading once the Runner of the measure phase has
// returned, with res its Result, and stores the change over the window
// (CounterNOPMDelta) and the New-Orders committed after the end
// (CounterNOPMAfterEnd) in res; nothing when a reading failed.
func (w *window) close(ctx context.Context, res *oltp.Result) {
	if !w.opened {
		return
	}
	rctx, cancel := readingContext(ctx)
	defer cancel()
	after, err := sumNextOrderID(rctx, w.rs.db)
	if err != nil {
		return
	}
	var counted int64
	if op := res.Op(OpNames[opNewOrder]); op != nil {
		counted = op.Latency.Count - res.Counters[counterNames[ctrRollbacks]]
	}
	afterEnd := w.rs.committed.Load() - w.committed - counted
	res.Counters[CounterNOPMDelta] = after - w.before - afterEnd
	res.Counters[CounterNOPMAfterEnd] = afterEnd
}

// readingContext bounds one NOPM reading; after Ctrl-C it is still
// wanted, so ctx's cancellation does not end it.
func readingContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
}
