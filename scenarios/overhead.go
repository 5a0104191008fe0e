package scenarios

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"vmbench/oltp"
)

// Overhead is the harness's own time in a VM campaign: the wall time of
// each step the engine took, in order, from the start of Run to the end
// of teardown, and which of them are the workload's window (precondition
// and measure). Everything else is what the harness costs around the
// measurement. It is recorded in run.json (RunInfo.Overhead).
type Overhead struct {
	// Steps are the steps in the order they ran; their Walls add up to
	// Total.
	Steps []StepTime `json:"steps"`
	// Total is the wall time from the start of Run to the end of
	// teardown, ns. Writing run.json and the reports once more at the
	// end, with this record, comes after it.
	Total time.Duration `json:"total_ns"`
	// Completed says the campaign ran to its end; a campaign that
	// stopped records the steps it took.
	Completed bool `json:"completed,omitempty"`
	// Processes are, for a campaign that `campaign resume` went on with,
	// the processes that worked on it in order (the `campaign run`, then
	// each resume), each step (StepTime.Process) one of theirs; their
	// Totals add up to Total, and the time between them (after a kill,
	// before the resume) is no one's. Empty for a campaign one process
	// ran.
	Processes []ProcessTime `json:"processes,omitempty"`
}

// ProcessTime is one process that worked on a resumed campaign.
type ProcessTime struct {
	// Command is "campaign run" or "campaign resume".
	Command string `json:"command"`
	// Total is its wall time, ns: from its start to its end, or, for a
	// process that stopped (a kill, a crash), to the last step its
	// journal recorded (JournalEntry.Overhead).
	Total time.Duration `json:"total_ns"`
	// Stopped, for a process that stopped before the campaign's end, is
	// the last step its journal recorded as finished: what it did after
	// that is not known.
	Stopped string `json:"stopped,omitempty"`
}

// StepTime is one step of a campaign.
type StepTime struct {
	// Step is the step's name (StepSetup ... StepTeardown).
	Step string `json:"step"`
	// Wall is its wall time, ns.
	Wall time.Duration `json:"wall_ns"`
	// Workload marks the workload's window: the precondition and measure
	// phases, from the earliest VM's start to the latest VM's end.
	Workload bool `json:"workload,omitempty"`
	// VMSteps are, for the provisioning, what each VM's own steps took,
	// summed over the VMs (they run in parallel, so they add up to more
	// than the step's wall time).
	VMSteps []VMStepTime `json:"vm_steps,omitempty"`
	// Process, in a resumed campaign's record, is the process that took
	// the step: 1 for the first of Overhead.Processes; 0 otherwise.
	Process int `json:"process,omitempty"`
}

// VMStepTime is one per-VM step (vsphere.StepClone...) over all VMs.
type VMStepTime struct {
	Step string `json:"step"`
	VMs  int    `json:"vms"`
	// Sum is the step's time summed over the VMs, Slowest the longest
	// one VM took; ns.
	Sum     time.Duration `json:"sum_ns"`
	Slowest time.Duration `json:"slowest_ns"`
}

// Names of the campaign steps (StepTime.Step). The run step (StepRun) is
// recorded split at the workload's own phase boundaries, into
// StepStartWait, StepPrecondition, StepMeasure and StepWindDown, once a VM
// returned a Result.
const (
	StepSetup        = "setup"
	StepConnect      = "connect"
	StepPreflight    = "preflight"
	StepProvision    = "provision"
	StepDatabases    = "databases"
	StepAgents       = "agents"
	StepPrepare      = "prepare"
	StepRun          = "run"
	StepStartWait    = "start wait"
	StepPrecondition = "precondition"
	StepMeasure      = "measure"
	StepWindDown     = "wind-down"
	StepCounters     = "counters"
	StepChecks       = "checks"
	StepCollect      = "collect"
	StepReport       = "report"
	StepTeardown     = "teardown"
)

// Workload is the time of the workload's window: the Steps marked
// Workload.
func (o *Overhead) Workload() time.Duration {
	var d time.Duration
	for _, s := range o.Steps {
		if s.Workload {
			d += s.Wall
		}
	}
	return d
}

// Harness is the time that is not the workload's window: Total less
// Workload.
func (o *Overhead) Harness() time.Duration { return o.Total - o.Workload() }

// timeline times a campaign's steps with the campaign's clock. begin and
// end are called from the goroutine that runs the campaign; vmStep from
// the provisioning's goroutines.
type timeline struct {
	now   func() time.Time
	start time.Time // the first step's start
	steps []StepTime
	cur   string // the step running, "" when none
	at    time.Time
	// results are the run step's Results (endRun).
	results []*oltp.Result

	mu      sync.Mutex
	vmSteps []VMStepTime
}

func newTimeline(now func() time.Time) *timeline {
	if now == nil {
		now = time.Now
	}
	return &timeline{now: now}
}

// begin ends the step running and starts step; nothing when step is
// running already.
func (t *timeline) begin(step string) {
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
func (t *timeline) close(now time.Time) {
	t.steps = append(t.steps, t.running(now)...)
	t.cur = ""
}

// running is the step running as it would end at now (the run step as
// its parts); none when no step runs.
func (t *timeline) running(now time.Time) []StepTime {
	switch t.cur {
	case "":
		return nil
	case StepRun:
		return t.split(t.at, now)
	}
	return []StepTime{{Step: t.cur, Wall: now.Sub(t.at)}}
}

// vmStep records that VM step step took d (vsphere ProvisionSpec.OnStep).
func (t *timeline) vmStep(_, step string, d time.Duration) {
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

// endRun gives the Results of the run step (StepRun, the workload on
// every VM; nil for a VM that returned none). When the run step ends it
// is recorded as its parts at the workload's own boundaries (see split).
func (t *timeline) endRun(results []*oltp.Result) { t.results = results }

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
func (t *timeline) split(begin, end time.Time) []StepTime {
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

// overhead ends the step running and returns the record.
func (t *timeline) overhead(completed bool) *Overhead {
	now := t.now()
	t.close(now)
	return t.record(slices.Clone(t.steps), now, completed)
}

// snapshot is the record so far, the step running counted up to now
// without ending it: what each journal entry keeps, so that a resume
// after a kill still knows what this process took until then. nil
// before the first step.
func (t *timeline) snapshot() *Overhead {
	if t.start.IsZero() {
		return nil
	}
	now := t.now()
	return t.record(append(slices.Clone(t.steps), t.running(now)...), now, false)
}

// record is the Overhead of steps at now, the provisioning's VM steps
// added to its step.
func (t *timeline) record(steps []StepTime, now time.Time, completed bool) *Overhead {
	o := &Overhead{Steps: steps, Total: now.Sub(t.start), Completed: completed}
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := slices.IndexFunc(o.Steps, func(s StepTime) bool { return s.Step == StepProvision }); i >= 0 {
		o.Steps[i].VMSteps = slices.Clone(t.vmSteps)
	}
	return o
}

// joinOverheads is the record of a resumed campaign: the processes before
// this one (prior, as the journal recorded them) and then own, this
// `campaign resume`'s record, each step marked with its process.
func joinOverheads(prior []priorProcess, own *Overhead) *Overhead {
	out := &Overhead{Completed: own.Completed}
	add := func(p ProcessTime, steps []StepTime) {
		out.Processes = append(out.Processes, p)
		for _, s := range steps {
			s.Process = len(out.Processes)
			out.Steps = append(out.Steps, s)
		}
		out.Total += p.Total
	}
	for _, p := range prior {
		pt := ProcessTime{Command: p.command, Stopped: cmp.Or(p.last, "none")}
		var steps []StepTime
		if p.o != nil {
			pt.Total, steps = p.o.Total, p.o.Steps
		}
		add(pt, steps)
	}
	add(ProcessTime{Command: commandResume, Total: own.Total}, own.Steps)
	return out
}
