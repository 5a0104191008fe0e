package rundir

import (
	"slices"
	"sync"
	"time"

	"vmbench/oltp"
)

// Timeline times a campaign's steps with the campaign's clock, for its
// Overhead record. Begin, EndRun, Overhead and Snapshot are called from
// the goroutine that runs the campaign; VMStep from the provisioning's
// goroutines.
type Timeline struct {
	now   func() time.Time
	start time.Time // the first step's start
	steps []StepTime
	cur   Step // the step running, "" when none
	at    time.Time
	// results are the run step's Results (EndRun).
	results []*oltp.Result

	mu      sync.Mutex
	vmSteps []VMStepTime
}

// NewTimeline is a Timeline on the clock now (time.Now when nil).
func NewTimeline(now func() time.Time) *Timeline {
	if now == nil {
		now = time.Now
	}
	return &Timeline{now: now}
}

// Now reads the timeline's clock.
func (t *Timeline) Now() time.Time { return t.now() }

// Begin ends the step running and starts step; nothing when step is
// running already.
func (t *Timeline) Begin(step Step) {
	if t.cur == step {
		return
	}
	now := t.now()
	if t.start.IsZero() {
		t.start = now
	}
	t.close(now)
	t.cur, t.at = step, now
}

// close ends the step running at now.
func (t *Timeline) close(now time.Time) {
	t.steps = append(t.steps, t.running(now)...)
	t.cur = ""
}

// running is the step running as it would end at now (the run step as
// its parts); none when no step runs.
func (t *Timeline) running(now time.Time) []StepTime {
	switch t.cur {
	case "":
		return nil
	case StepRun:
		return t.split(t.at, now)
	default:
		return []StepTime{{Step: t.cur, Wall: now.Sub(t.at)}}
	}
}

// VMStep records that VM step step took d (vsphere ProvisionSpec.OnStep).
func (t *Timeline) VMStep(_, step string, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := slices.IndexFunc(t.vmSteps, func(s VMStepTime) bool { return s.Step == step })
	if i < 0 {
		t.vmSteps = append(t.vmSteps, VMStepTime{Step: step})
		i = len(t.vmSteps) - 1
	}
	s := &t.vmSteps[i]
	s.VMs++
	s.Sum += d
	s.Slowest = max(s.Slowest, d)
}

// EndRun gives the Results of the run step (StepRun, the workload on
// every VM; nil for a VM that returned none). When the run step ends it
// is recorded as its parts at the workload's own boundaries (see split).
func (t *Timeline) EndRun(results []*oltp.Result) { t.results = results }

// split is the run step from begin to end as its parts: the wait for the
// common start, the precondition (from the earliest VM's start), the
// measure phase (from the earliest VM's measure start to the latest VM's
// end) and the wind-down until every VM's run returned. A Result of the
// precondition phase (a run interrupted or failed before its measure
// phase: oltp's run returns the precondition as its Result then) is
// precondition time only; when no VM reached its measure phase, the
// measure part is 0 and the precondition runs to the latest VM's end. A
// boundary outside the run step is moved to its edge, so the parts add
// up to the step. Without a Result the run stays one step.
func (t *Timeline) split(begin, end time.Time) []StepTime {
	var first, measure, last time.Time
	for _, r := range t.results {
		if r == nil || r.Start.IsZero() {
			continue
		}
		s := r.Start
		if p := r.Precondition; p != nil && !p.Start.IsZero() {
			s = p.Start
		}
		first = earliest(first, s)
		if r.Phase != oltp.PhasePrecondition {
			measure = earliest(measure, r.Start)
		}
		if r.End.After(last) {
			last = r.End
		}
	}
	if first.IsZero() {
		return []StepTime{{Step: StepRun, Wall: end.Sub(begin)}}
	}
	clamp := func(x, lo time.Time) time.Time {
		if x.Before(lo) {
			return lo
		}
		if x.After(end) {
			return end
		}
		return x
	}
	first = clamp(first, begin)
	last = clamp(last, first)
	if measure.IsZero() {
		measure = last // no VM measured: all of it was precondition
	}
	measure = clamp(measure, first)
	last = clamp(last, measure)
	return []StepTime{
		{Step: StepStartWait, Wall: first.Sub(begin)},
		{Step: StepPrecondition, Wall: measure.Sub(first), Workload: true},
		{Step: StepMeasure, Wall: last.Sub(measure), Workload: true},
		{Step: StepWindDown, Wall: end.Sub(last)}}
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

// Overhead ends the step running and returns the record.
func (t *Timeline) Overhead(completed bool) *Overhead {
	now := t.now()
	t.close(now)
	return t.record(slices.Clone(t.steps), now, completed)
}

// Snapshot is the record so far, the step running counted up to now
// without ending it: what each journal entry keeps, so that a resume
// after a kill still knows what this process took until then. nil
// before the first step.
func (t *Timeline) Snapshot() *Overhead {
	if t.start.IsZero() {
		return nil
	}
	now := t.now()
	return t.record(append(slices.Clone(t.steps), t.running(now)...), now, false)
}

// record is the Overhead of steps at now, the provisioning's VM steps
// added to its step.
func (t *Timeline) record(steps []StepTime, now time.Time, completed bool) *Overhead {
	o := &Overhead{Steps: steps, Total: now.Sub(t.start), Completed: completed}
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := slices.IndexFunc(o.Steps, func(s StepTime) bool { return s.Step == StepProvision }); i >= 0 {
		o.Steps[i].VMSteps = slices.Clone(t.vmSteps)
	}
	return o
}
