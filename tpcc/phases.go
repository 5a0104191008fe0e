package tpcc

import (
	"context"
	"fmt"
	"io"
	"time"

	"vmbench/oltp"
)

// phases runs the precondition and the measure phase of one Run, each as
// a Runner run of its own on the same pooled connections, so that the
// measured window starts with nothing in flight and the NOPM readings
// bracket it with no transaction running (see window).
type phases struct {
	ctx     context.Context
	rs      *runState
	rc      oltp.RunConfig // as the caller gave it
	log     io.Writer      // the warning of a run it could not count
	pool    *workerPool
	counted bool // the run is in the meta's run count
}

// run runs the phases and returns the measure phase's Result with the
// precondition's inside, or the precondition's alone when it was
// interrupted or failed.
func (p *phases) run() (*oltp.Result, error) {
	var pre *oltp.Result
	if p.rc.WarmupTime > 0 {
		var err error
		pre, err = p.precondition()
		if pre == nil || err != nil || pre.Interrupted {
			return pre, err
		}
	}
	res, err := p.measure(pre == nil)
	if res != nil {
		res.Precondition = pre
	}
	return res, err
}

// phaseStarts is called as each phase starts: the run is counted (3.3.2.11
// then no longer holds) when its first phase starts, with every
// connection open and no transaction run; the caller's OnPhase follows
// (the CLI's report writer prints the precondition's start and end).
func (p *phases) phaseStarts(phase oltp.Phase, length time.Duration) {
	if !p.counted {
		p.counted = true
		if err := countRun(p.ctx, p.rs.db, p.rs.db.Dialect); err != nil {
			fmt.Fprintf(p.log, "warning: counting the run in %s: %v (check may then test 3.3.2.11 wrongly)\n", metaTable, err)
		}
	}
	if p.rc.OnPhase != nil {
		p.rc.OnPhase(phase, length)
	}
}

// runConfig is the Runner configuration of one phase: one phase of the
// given length and events, reported under the name phase.
func (p *phases) runConfig(phase oltp.Phase, length time.Duration, events int64) oltp.RunConfig {
	rc := p.rc
	rc.WarmupTime, rc.Time, rc.Events = 0, length, events
	rc.OnPhase = nil
	rc.OnInterval = func(rep oltp.IntervalReport) {
		rep.Phase = phase
		if p.rc.OnInterval != nil {
			p.rc.OnInterval(rep)
		}
	}
	return rc
}

// precondition runs the precondition phase for WarmupTime. What is in
// flight at its end is neither counted nor kept from committing: the
// measure phase's start reading comes after it.
func (p *phases) precondition() (*oltp.Result, error) {
	rc := p.runConfig(oltp.PhasePrecondition, p.rc.WarmupTime, 0)
	rc.OnPhase = func(oltp.Phase, time.Duration) { p.phaseStarts(oltp.PhasePrecondition, p.rc.WarmupTime) }
	res, err := oltp.Run(p.ctx, newSpec(p.rs, p.pool), rc)
	if res != nil {
		res.Phase = oltp.PhasePrecondition
	}
	return res, err
}

// measure runs the measure phase: a Runner run of --time (or --events),
// which ends its window at --time as it does for any workload, between
// the window's two readings. first says whether it is the run's first
// phase (StartAt applies; else it has passed, and the terminals ramp up
// again as at a start).
func (p *phases) measure(first bool) (*oltp.Result, error) {
	rc := p.runConfig(oltp.PhaseMeasure, p.rc.Time, p.rc.Events)
	if !first {
		rc.StartAt = time.Time{}
		for _, t := range p.rs.terms {
			t.started = false
		}
	}
	rc.OnPhase = func(oltp.Phase, time.Duration) { p.phaseStarts(oltp.PhaseMeasure, p.rc.Time) }
	w := openWindow(p.ctx, p.rs)
	res, err := oltp.Run(p.ctx, newSpec(p.rs, p.pool), rc)
	if res != nil && res.Phase == oltp.PhaseMeasure {
		w.close(p.ctx, res)
	}
	return res, err
}
