package oltp

import "time"

// Pipeline keeps one event of each of a run's workers in flight from a
// single goroutine, the way fio's io_uring engine keeps iodepth I/Os in
// flight from one thread: it starts an event without waiting for it, and
// reaps the events that have ended in batches. A closed-loop run
// (RunConfig.Rate 0, no Terminals) whose Spec has NewPipeline is driven
// this way; its latencies are the same service times (an event's start to
// the instant its end is reaped), but no goroutine sleeps or wakes per
// event, which on a small machine is most of the cost of a short event.
type Pipeline interface {
	// Start prepares the next event of worker t (0-based, as NewWorker's
	// t) without waiting for it; worker t has no other event in flight.
	// The next Reap submits it, and the event's latency is counted from
	// then. An error is fatal, as Event's, and nothing was started.
	Start(t int) error
	// Reap submits the events started since the last Reap, waits until at
	// least one event in flight has ended, and calls ended once for each
	// event that has ended, with its worker, its op (an index into
	// Spec.Ops) and its error (fatal, as Event's). A returned error means
	// the pipeline itself failed: no event in flight will be reaped.
	Reap(ended func(t, op int, err error)) error
}

// pipelined reports whether the run is driven by a Pipeline.
func (r *run) pipelined() bool {
	return r.spec.NewPipeline != nil && !r.open && r.terms == nil
}

// pipeLoop drives every worker's events through p from one goroutine
// (Pipeline). It keeps the rules of loop: an event starts only while the
// run is not stopping, within the Events budget and before the planned
// end; an event that ends after the run stopped or past its planned end is
// neither counted nor an error; a failed one stops the run. It returns
// once every event it started has been reaped (or p failed).
//
// The clock is read twice per Reap, not per event: an event's latency
// runs from the instant before the Reap that submits it to the instant
// its batch of ends was reaped (the first ended call of the batch), which
// is when the event was submitted and when it was seen to have ended.
func (r *run) pipeLoop(p Pipeline) {
	begin := make([]time.Time, len(r.workers))
	held := make([]bool, len(r.workers))     // the event of worker t holds a ticket (take)
	queued := make([]int, 0, len(r.workers)) // started, not yet submitted
	stopped := false
	start := func(t int, now time.Time) {
		var ok bool
		if !stopped && !r.stopping.Load() {
			ok, held[t] = r.take()
		}
		if !ok || r.pastDeadline(now) {
			stopped = true
			return
		}
		if err := p.Start(t); err != nil {
			stopped = true
			r.fatal <- err // at most one per worker: capacity Threads
			return
		}
		queued = append(queued, t)
	}
	inFlight := 0
	var end time.Time // the instant the current batch was reaped
	ended := func(t, op int, err error) {
		inFlight--
		if end.IsZero() {
			end = time.Now()
		}
		h := r.handles[t]
		if !r.settle(h, end, err, held[t], func() { h.Record(op, end.Sub(begin[t])) }) {
			stopped = true
			return
		}
		start(t, end)
	}
	now := time.Now()
	for t := range r.workers {
		start(t, now)
	}
	for len(queued) > 0 || inFlight > 0 {
		now := time.Now()
		for _, t := range queued {
			begin[t] = now
		}
		inFlight += len(queued)
		queued = queued[:0]
		end = time.Time{}
		if err := p.Reap(ended); err != nil {
			select {
			case r.fatal <- err:
			default: // a worker's error is already there
			}
			return
		}
	}
}
