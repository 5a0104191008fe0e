package oltp

import (
	"context"
	"errors"
	"time"

	"vmbench/oltp/hist"
)

// phase runs one phase of the given length from start (0 = until Events
// are used up or the workers stop) and returns its Result.
//
// Report edges lie on the grid start + k × ReportInterval. Each interval
// ends at the instant of its registry swap (hist.Tick.At), and the next
// one starts there, so intervals tile the phase and an event counts in the
// interval whose clock covers it. When the runner handles an edge late (a
// starved host), the interval is as long as it ran, the next edge is the
// next one on the grid, and the overrun is recorded (Result.Overruns).
// start may lie in the past (the measure phase starts at the
// precondition's final swap): the phase's clock runs from start all the
// same.
func (r *run) phase(ctx context.Context, name Phase, start time.Time, length time.Duration, done <-chan struct{}) (*Result, error) {
	if r.cfg.OnPhase != nil {
		r.cfg.OnPhase(name, length)
	}
	cpu := newCPUChain()
	res := r.newResult(name, start)
	res.Planned = length
	every := r.cfg.ReportInterval
	planEnd := r.planEnd(name, start, length)
	var edge time.Time
	if every > 0 {
		edge = start.Add(every)
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	last := start
	var target time.Time // the end the current interval is planned to have
	var err error
loop:
	for {
		target = intervalEnd(edge, planEnd)
		var fire <-chan time.Time
		if !target.IsZero() {
			timer.Reset(time.Until(target))
			fire = timer.C
		}
		select {
		case <-fire:
			if every == 0 || !planEnd.IsZero() && !time.Now().Before(planEnd) {
				target = planEnd // an edge handled after the planned end ends the phase
				break loop
			}
			t := r.reg.Tick()
			r.record(res, name, last, t.At, target, t, true, r.backlogAt(t.At), cpu.next())
			last = t.At
			edge = start.Add((last.Sub(start)/every + 1) * every)
		case <-done: // every worker stopped: Events used up
			break loop
		case err = <-r.fatal:
			break loop
		case <-ctx.Done():
			err = errors.Join(ErrInterrupted, ctx.Err())
			break loop
		}
	}
	if err == nil {
		select { // a worker's fatal error may come with the end of all workers
		case err = <-r.fatal:
		default:
		}
	}
	t, end := r.lastTick(name, planEnd, err == nil)
	backlog := r.backlogAt(end)
	if name == PhasePrecondition && err == nil && r.open {
		// The measure phase starts at end with no backlog.
		res.BacklogDropped = r.pacer.cut(end)
		backlog = res.BacklogDropped
	}
	res.BacklogAtEnd = backlog
	if target.IsZero() || target.Before(last) {
		target = last
	}
	// The last interval is stored (so intervals add up to the phase); it is
	// reported when it is at least half a report interval long: the end of
	// the phase and the last tick fall at nearly the same instant, and a
	// 10 s run with 1 s reports should print [ 10s ], but not a sliver.
	full := every > 0 && end.Sub(last) >= every/2
	r.record(res, name, last, end, target, t, full, backlog, cpu.next())
	r.finish(res, t, end)
	r.setClient(res, cpu)
	return res, err
}

// planEnd returns the planned end of the phase name that starts at start
// and lasts length (zero: no planned end). For the measure phase of
// workers that keep the time themselves, it is their deadline too.
func (r *run) planEnd(name Phase, start time.Time, length time.Duration) time.Time {
	if length <= 0 {
		return time.Time{}
	}
	end := start.Add(length)
	if name == PhaseMeasure && r.cfg.WorkersKeepTime && r.terms == nil {
		r.deadline.Store(end.UnixNano())
	}
	return end
}

// intervalEnd is the end the current interval is planned to have: the
// next report edge, or the planned end of the phase when that comes
// first; zero when there is neither.
func intervalEnd(edge, planEnd time.Time) time.Time {
	if !planEnd.IsZero() && (edge.IsZero() || !edge.Before(planEnd)) {
		return planEnd
	}
	return edge
}

// setClient sets res.Client from the phase's chained CPU readings: the
// whole-run cost spans the same readings as the intervals, so their CPU
// adds up to it.
func (r *run) setClient(res *Result, cpu *cpuChain) {
	res.Client = cpu.whole()
	if res.Client != nil {
		res.Client.Shares = r.cfg.ClientShares
		res.Client.PeakUtilization = peakUtilization(res.Intervals)
	}
}

// lastTick takes the last tick of the phase name, planned to end at
// planEnd (zero: no planned end), and returns it with the phase's end. The
// measure phase halts the workers first, so nothing completing after its
// end is counted; the precondition ends at the tick, which starts the
// measure phase when next is set: the measure flag is set with it, under
// the boundary's write lock (see run.crossing).
func (r *run) lastTick(name Phase, planEnd time.Time, next bool) (hist.Tick, time.Time) {
	if name != PhaseMeasure {
		r.boundary.Lock()
		defer r.boundary.Unlock()
		t := r.reg.Tick()
		if next {
			r.measure.Store(true)
		}
		return t, t.At
	}
	// Stop before the last tick so nothing completing later is
	// counted: the phase ends when new completions stop counting.
	r.halt()
	end := time.Now()
	if r.haltAt.Load() != 0 && planEnd.Before(end) {
		// a worker ended the phase at its planned end: nothing that
		// completed after that instant was counted
		end = planEnd
	}
	return r.reg.Tick(), end
}

// record stores the interval [last, end) of res, planned to end at
// planned, from tick t with the CPU cpu spent in it, and if report is
// set, reports it with the backlog at its end.
func (r *run) record(res *Result, phase Phase, last, end, planned time.Time, t hist.Tick, report bool, backlog int64, cpu *IntervalCPU) {
	iv := Interval{At: end.Sub(res.Start), Length: end.Sub(last), Planned: planned.Sub(last),
		Ops: r.opResults(t.Interval), Counters: r.counterMap(t.IntervalCounters), CPU: cpu}
	if iv.Length > 0 {
		res.Intervals = append(res.Intervals, iv)
	}
	if report && r.cfg.OnInterval != nil {
		rep := IntervalReport{Phase: phase, At: iv.At, End: end, Length: iv.Length, Threads: r.cfg.Threads, Ops: r.spec.Ops,
			Latency: t.Interval[:r.nOps], Counters: iv.Counters, Backlog: backlog, CPU: cpu}
		if r.intended() {
			rep.Intended = t.Interval[r.nOps:]
		}
		r.cfg.OnInterval(rep)
	}
}

// backlogAt is the open loop's backlog at now (arrivals due, not started),
// or a terminal-driven run's queue of submitted events; 0 in closed loop.
func (r *run) backlogAt(now time.Time) int64 {
	switch {
	case r.open:
		return r.pacer.backlog(now)
	case r.terms != nil:
		return int64(len(r.terms.queue))
	}
	return 0
}

func (r *run) finish(res *Result, t hist.Tick, end time.Time) {
	res.End = end
	res.Elapsed = end.Sub(res.Start)
	res.Ops = r.opResults(t.Cumulative)
	res.Counters = r.counterMap(t.CumulativeCounters)
	res.Overruns = overruns(res)
}
