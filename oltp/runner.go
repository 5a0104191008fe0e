package oltp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"vmbench/oltp/hist"
)

// ErrInterrupted is joined to the error Run returns when ctx was cancelled
// (Ctrl-C); the partial Result is still returned.
var ErrInterrupted = errors.New("run interrupted")

// Run drives spec with cfg: it makes cfg.Threads workers, waits for
// cfg.StartAt, runs the precondition phase (if cfg.WarmupTime > 0) and the
// measure phase, and returns the measure phase's Result with the
// precondition's Result inside it.
//
// Every event is counted in the interval, and so the phase, whose clock
// covers its end: the precondition ends and the measure phase starts at
// one instant, the registry swap of the precondition's final tick, and
// each interval ends at its own swap. Events still in flight when the
// precondition ends are recorded in the measure phase (with Events, each
// takes one of them, so the measure phase counts exactly Events); those
// in flight at the end of the run are neither counted nor reported as
// errors. When the
// runner handles an edge late (a starved host), the interval or phase is
// as long as it ran and Result.Overruns says so.
//
// In open loop the measure phase starts with an empty schedule: the
// arrivals due before its start and not started by then are dropped and
// counted in the precondition's BacklogDropped, so that a slow warm-up
// cannot push its queue into the measured figures; its own arrivals are
// those of the same arrival process from its start on (the first within
// one gap of it, at it for a deterministic grid that falls there). Within
// a phase the catch-up policy is CatchUpFullSpeed.
//
// A fatal worker error stops the run and is returned, with the Result
// marked StatusFailed. When ctx is cancelled Run returns the Result of what
// was measured until then, marked StatusInterrupted, and an error wrapping
// ErrInterrupted and ctx.Err().
//
// The run ends when the events in flight at the end of the measure phase
// have returned: finished (not counted), or cancelled when
// cfg.GracefulStop runs out or ctx is cancelled. Result.Stopped is that
// instant; Result.End is the end of the measured window.
func Run(ctx context.Context, spec Spec, cfg RunConfig) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(spec.Ops) == 0 || spec.NewWorker == nil {
		return nil, errors.New("oltp: spec needs Ops and NewWorker")
	}
	if cfg.Terminals > 0 && spec.NewTerminal == nil {
		return nil, errors.New("oltp: a terminal-driven run needs Spec.NewTerminal")
	}
	r := newRun(spec, cfg)
	if err := r.startWorkers(ctx); err != nil {
		return nil, err
	}
	defer r.closeWorkers()
	if r.pipelined() {
		p, err := spec.NewPipeline(ctx, r.workers)
		if err != nil {
			return nil, err
		}
		r.pipe = p
	}
	return r.drive(ctx)
}

type run struct {
	spec    Spec
	cfg     RunConfig
	reg     *hist.Registry
	nOps    int
	open    bool       // open loop: a pacer schedules starts
	terms   *terminals // terminal-driven: terminals submit events
	pacer   *pacer
	workers []Worker
	handles []*hist.Handle
	pipe    Pipeline // drives the workers from one goroutine (pipelined)
	// waitCounter is the index of CounterTerminalWait in a terminal-driven
	// run's registry.
	waitCounter int

	stopping atomic.Bool // no new events start; completions are discarded
	stopOnce sync.Once
	measure  atomic.Bool  // the measure phase has begun (Events counts)
	tickets  atomic.Int64 // events counted against Events (see take)
	// boundary orders the precondition's final swap, with measure set,
	// against the settling of events that started in the precondition
	// when Events limits a run with a warm-up (see crossing).
	boundary sync.RWMutex
	// deadline is the measure phase's planned end in Unix ns when the
	// workers keep time (RunConfig.WorkersKeepTime), else 0; haltAt is the
	// instant a worker ended the phase at it.
	deadline atomic.Int64
	haltAt   atomic.Int64
	fatal    chan error
}

func newRun(spec Spec, cfg RunConfig) *run {
	r := &run{spec: spec, cfg: cfg, nOps: len(spec.Ops), open: cfg.Rate > 0, fatal: make(chan error, cfg.Threads)}
	if cfg.Terminals > 0 {
		r.terms = newTerminals(spec, cfg.Terminals)
	}
	ops := append([]string(nil), spec.Ops...)
	if r.intended() {
		for _, o := range spec.Ops {
			ops = append(ops, o+"@intended")
		}
	}
	counters := spec.Counters
	if r.terms != nil {
		counters = append(slices.Clone(counters), CounterTerminalWait)
		r.waitCounter = len(spec.Counters)
	}
	r.reg = hist.NewRegistry(ops, counters)
	if r.cfg.GracefulStop == 0 {
		r.cfg.GracefulStop = DefaultGracefulStop
	}
	return r
}

func (r *run) startWorkers(ctx context.Context) error {
	r.workers = make([]Worker, r.cfg.Threads)
	r.handles = make([]*hist.Handle, r.cfg.Threads)
	for i := range r.handles {
		r.handles[i] = r.reg.NewHandle()
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i := range r.workers {
		g.Go(func() error {
			w, err := r.spec.NewWorker(gctx, i, r.handles[i])
			if err != nil {
				return fmt.Errorf("thread %d: %w", i+1, err)
			}
			r.workers[i] = w
			if _, ok := w.(Executor); r.terms != nil && !ok {
				return fmt.Errorf("thread %d: a terminal-driven run needs workers that are Executors", i+1)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		r.closeWorkers()
		return err
	}
	return nil
}

func (r *run) closeWorkers() {
	for _, w := range r.workers {
		if w != nil {
			_ = w.Close()
		}
	}
}

// drive runs the phases from the calling goroutine, which also ticks.
//
// The boundary between the precondition and the measure phase is one
// registry swap (the precondition's final Tick): its instant is both the
// precondition's end and the measure phase's start, so an event is counted
// in the phase whose clock covers its end, however late the runner gets
// to the boundary on a starved host. In open loop the arrivals due before
// that instant and not started are dropped there (Result.BacklogDropped).
func (r *run) drive(ctx context.Context) (*Result, error) {
	if !r.cfg.StartAt.IsZero() {
		if err := sleepUntil(ctx, r.cfg.StartAt); err != nil {
			return nil, errors.Join(ErrInterrupted, err)
		}
	}
	// evCtx is what events run under: cancelled on interrupt or when the
	// graceful stop after the end runs out.
	evCtx, cancelEvents := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelEvents()
	start := time.Now()
	if r.open {
		r.pacer = newPacer(start, r.cfg.Rate, r.cfg.Arrival, r.cfg.Seed)
	}
	if r.terms != nil {
		r.terms.start(start)
	}
	r.measure.Store(r.cfg.WarmupTime == 0)
	var wg sync.WaitGroup
	done := make(chan struct{})
	if r.pipe != nil {
		wg.Go(func() { r.pipeLoop(r.pipe) })
	} else {
		for i, w := range r.workers {
			wg.Go(func() {
				if r.terms != nil {
					r.execLoop(evCtx, w, r.handles[i])
					return
				}
				r.loop(evCtx, w, r.handles[i])
			})
		}
	}
	go func() { wg.Wait(); close(done) }()

	var pre, res *Result
	var runErr error
	if r.cfg.WarmupTime > 0 {
		pre, runErr = r.phase(ctx, PhasePrecondition, start, r.cfg.WarmupTime, done)
		pre.SetStatus(runErr)
		start = pre.End // the instant of its final swap
		r.reg.ResetCumulative()
	}
	if runErr == nil {
		r.measure.Store(true) // set with the precondition's final swap already
		res, runErr = r.phase(ctx, PhaseMeasure, start, r.cfg.Time, done)
		res.SetStatus(runErr)
	}
	r.halt()
	r.waitWorkers(ctx, done, cancelEvents)
	if res == nil {
		res = pre
	} else {
		res.Precondition = pre
	}
	res.Stopped = time.Now()
	return res, runErr
}

// waitWorkers lets in-flight events finish for the graceful stop, then
// cancels them, and waits for every worker goroutine.
func (r *run) waitWorkers(ctx context.Context, done <-chan struct{}, cancel context.CancelFunc) {
	t := time.NewTimer(r.cfg.GracefulStop)
	defer t.Stop()
	select {
	case <-done:
		return
	case <-ctx.Done():
	case <-t.C:
	}
	cancel()
	<-done
}

// pastDeadline reports whether t is at or after the planned end of the
// measure phase when the workers keep time; the first worker to see it
// halts the run at the planned end.
func (r *run) pastDeadline(t time.Time) bool {
	d := r.deadline.Load()
	if d == 0 || t.UnixNano() < d {
		return false
	}
	r.haltAt.CompareAndSwap(0, d)
	r.halt()
	return true
}

// halt stops new events from starting; completions from now on are
// discarded.
func (r *run) halt() {
	r.stopOnce.Do(func() {
		r.stopping.Store(true)
		if r.terms != nil {
			close(r.terms.stop)
		}
	})
}

// intended reports whether latency is also recorded from an intended start
// (open loop) or a submission (terminal-driven).
func (r *run) intended() bool { return r.open || r.terms != nil }

func (r *run) newResult(phase Phase, start time.Time) *Result {
	res := &Result{
		Version: ResultVersion, Workload: r.spec.Workload, Flags: maps.Clone(r.cfg.Flags), Labels: maps.Clone(r.cfg.Labels),
		Phase: phase, Loop: ClosedLoop, Threads: r.cfg.Threads, Start: start, Parts: 1, Status: StatusComplete,
		Measured: fmt.Sprintf("service time of each event (start to end, retries included), closed loop, %s", plural(r.cfg.Threads, "thread")),
	}
	if r.open {
		res.Loop, res.Rate, res.CatchUp = OpenLoop, r.cfg.Rate, CatchUpFullSpeed
		res.Measured = fmt.Sprintf("open loop at %g events/s (%s arrivals), %s: latency as service time and from the intended start",
			r.cfg.Rate, r.cfg.arrival(), plural(r.cfg.Threads, "thread"))
	}
	if r.terms != nil {
		res.Loop = TerminalLoop
		res.Terminals = r.cfg.Terminals
		res.Measured = fmt.Sprintf("terminal-driven, %s sharing %s: latency as response time from submission (waiting for a connection included) and as service time",
			plural(r.cfg.Terminals, "terminal"), plural(r.cfg.Threads, "connection"))
	}
	return res
}

func (c RunConfig) arrival() Arrival {
	if c.Arrival == "" {
		return Exponential
	}
	return c.Arrival
}

func (r *run) opResults(hs []*hist.Histogram) []OpResult {
	out := make([]OpResult, r.nOps)
	for i := range r.nOps {
		out[i] = OpResult{Name: r.spec.Ops[i], Latency: hs[i].Snapshot()}
		if r.intended() {
			s := hs[r.nOps+i].Snapshot()
			out[i].Intended = &s
		}
	}
	return out
}

func (r *run) counterMap(vals []int64) map[string]int64 {
	m := make(map[string]int64, len(vals))
	for i, v := range vals {
		m[r.reg.Counters()[i]] = v
	}
	return m
}

// take reports whether an event may start now, and whether it holds one
// of the measure phase's Events tickets. Without Events, and in the
// precondition, every event may start and none holds a ticket; in the
// measure phase an event starts only with a ticket left.
func (r *run) take() (ok, held bool) {
	if r.cfg.Events == 0 || !r.measure.Load() {
		return true, false
	}
	return r.tickets.Add(1) <= r.cfg.Events, true
}

// crossing reports whether an event that ended, holding a ticket or not
// (take), may be recorded in the measure phase without one: it started
// in the precondition of a run with Events. Such an event is settled
// under the boundary's read lock (the precondition's final swap and the
// measure flag are set under its write lock), and counts takes its ticket
// exactly when its record lands in the measure phase, so that the measure
// phase counts Events events, those in flight at the boundary included.
func (r *run) crossing(held bool) bool {
	return !held && r.cfg.Events > 0 && r.cfg.WarmupTime > 0
}

// loop is one worker's event loop.
func (r *run) loop(ctx context.Context, w Worker, h *hist.Handle) {
	for !r.stopping.Load() {
		ok, held := r.take()
		if !ok {
			return
		}
		var intended time.Time
		if r.open {
			var ok bool
			if intended, ok = r.claim(ctx); !ok {
				return
			}
		}
		begin := time.Now()
		if r.pastDeadline(begin) {
			return
		}
		op, err := w.Event(ctx)
		end := time.Now()
		if !r.settle(h, end, err, held, func() {
			if r.open {
				h.RecordPair(op, end.Sub(begin), r.nOps+op, end.Sub(intended))
			} else {
				h.Record(op, end.Sub(begin))
			}
		}) {
			return
		}
	}
}

// settle settles an event that ended at end with err, holding a ticket or
// not (take): if counts says it is counted, rec records it, under the
// boundary's read lock when it is crossing. It reports whether it was
// counted; if not, the worker returns.
func (r *run) settle(h *hist.Handle, end time.Time, err error, held bool, rec func()) bool {
	cross := r.crossing(held)
	if cross {
		r.boundary.RLock()
		defer r.boundary.RUnlock()
	}
	if !r.counts(h, end, err, cross) {
		return false
	}
	rec()
	return true
}

// counts settles an event that ended at end with err and reports whether
// it is to be recorded. One in flight when the run stops, or ending past
// the planned end (pastDeadline: never in a terminal-driven run, which has
// no deadline), is neither counted nor an error; so is one crossing the
// boundary into the measure phase (crossing; the caller holds the
// boundary's read lock) when no ticket is left for it; a failed one ends
// the run (r.fatal). Either way it is dropped from h and the worker
// returns.
func (r *run) counts(h *hist.Handle, end time.Time, err error, cross bool) bool {
	if r.stopping.Load() || r.pastDeadline(end) ||
		cross && r.measure.Load() && r.tickets.Add(1) > r.cfg.Events {
		h.DropEvent()
		return false // in flight at the end: neither counted nor an error
	}
	if err != nil {
		h.DropEvent()
		r.fatal <- err
		return false
	}
	return true
}

// claim waits for the worker's next intended start and starts it; false
// when the run stops first. A claim the pacer dropped meanwhile (it was
// due before the measure phase and had not started) is replaced by the
// next.
func (r *run) claim(ctx context.Context) (time.Time, bool) {
	for {
		at, n := r.pacer.claim()
		if sleepUntil(ctx, at) != nil || r.stopping.Load() {
			return at, false
		}
		if r.pacer.begin(n) {
			return at, true
		}
	}
}

func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// plural formats n with a noun, e.g. "1 thread", "32 threads".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
