package tpcc

import (
	"context"
	"errors"
	"sync"
	"time"

	"vmbench/oltp"
	"vmbench/oltp/hist"
)

// windowWorker is the Runner's view of a worker. It outlives one Runner
// run, so that the precondition and the measure phase share connections
// and prepared statements (Close is left to Run), and in the measure
// phase it holds the run's gate around every transaction (see gate).
type windowWorker struct {
	*worker
	// holding: with --threads, the gate is held for the last Event until
	// the next one starts (the Runner has recorded the last by then).
	holding bool
}

var _ oltp.Executor = (*windowWorker)(nil)

// Close does nothing: Run closes the connections after its last phase.
func (w *windowWorker) Close() error { return nil }

// Event runs the next transaction of the worker's own terminal (--threads)
// inside the gate, when the phase has one.
func (w *windowWorker) Event(ctx context.Context) (int, error) {
	g := w.r.gate
	if g == nil {
		return w.worker.Event(ctx)
	}
	if w.holding {
		w.holding = false
		g.leave()
	}
	if err := g.enter(ctx); err != nil {
		return 0, err
	}
	op, err := w.worker.Event(ctx)
	if err != nil {
		g.leave()
		return op, err
	}
	w.holding = true
	return op, nil
}

// Execute runs op for terminal term inside the gate, when the phase has
// one; the terminal releases it in Think, which the Runner calls after it
// has recorded the transaction.
func (w *windowWorker) Execute(ctx context.Context, op, term int) error {
	g := w.r.gate
	if g == nil {
		return w.worker.Execute(ctx, op, term)
	}
	if err := g.enter(ctx); err != nil {
		return err
	}
	if err := w.worker.Execute(ctx, op, term); err != nil {
		g.leave()
		return err
	}
	w.r.terms[term].held = g
	return nil
}

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

// reset forgets the gate holds of a phase whose Runner has returned.
func (p *workerPool) reset() {
	for _, w := range p.workers {
		if w != nil {
			w.holding = false
		}
	}
	for _, t := range p.rs.terms {
		t.held = nil
	}
}

// close closes every connection.
func (p *workerPool) close() {
	for _, w := range p.workers {
		if w != nil {
			w.worker.Close()
		}
	}
}

// errWindowEnd is the cause with which Run stops the Runner of the
// measure phase, once it has taken the end reading.
var errWindowEnd = errors.New("tpcc: the measured window ended")

// window is the measured window of a run and its two readings of
// sum(d_next_o_id), taken while the gate is held exclusively.
type window struct {
	rs *runState
	g  *gate

	mu            sync.Mutex
	before, after int64
	opened        bool // before was read
	closed        bool // after was read with the gate held
	endDone       chan struct{}
}

// open takes the start reading (the gate is held since newGate: nothing
// has begun), opens the gate and, when length > 0, ends the window after
// length from now: stop is called with the gate held after the end
// reading. abort ends the wait when the Runner stops on its own.
func (w *window) open(ctx context.Context, length time.Duration, stop func(), abort <-chan struct{}) {
	before, err := sumNextOrderID(ctx, w.rs.db)
	w.mu.Lock()
	w.before, w.opened = before, err == nil
	w.mu.Unlock()
	w.g.open()
	if length <= 0 {
		return
	}
	w.endDone = make(chan struct{})
	go func() {
		defer close(w.endDone)
		t := time.NewTimer(length)
		defer t.Stop()
		select {
		case <-t.C:
		case <-abort:
			return
		}
		if !w.g.hold(abort) {
			return
		}
		rctx, cancel := readingContext(ctx)
		after, err := sumNextOrderID(rctx, w.rs.db)
		cancel()
		w.mu.Lock()
		w.after, w.closed = after, err == nil
		w.mu.Unlock()
		w.g.end()
		stop()
	}()
}

// finish waits for the end reading, or takes it now that the Runner has
// returned (the run ended on --events, an error or Ctrl-C), and returns
// the delta and whether both readings were taken.
func (w *window) finish(ctx context.Context) (int64, bool) {
	if w.endDone != nil {
		<-w.endDone
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.opened {
		return 0, false
	}
	if !w.closed {
		rctx, cancel := readingContext(ctx)
		after, err := sumNextOrderID(rctx, w.rs.db)
		cancel()
		if err != nil {
			return 0, false
		}
		w.after = after
	}
	return w.after - w.before, true
}

// readingContext bounds one NOPM reading; after Ctrl-C it is still
// wanted, so ctx's cancellation does not end it.
func readingContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
}
