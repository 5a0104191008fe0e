package rundir

import (
	"cmp"
	"time"
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
	Command Command `json:"command"`
	// Total is its wall time, ns: from its start to its end, or, for a
	// process that stopped (a kill, a crash), to the last step its
	// journal recorded (JournalEntry.Overhead).
	Total time.Duration `json:"total_ns"`
	// Stopped, for a process that stopped before the campaign's end, is
	// the last step its journal recorded as finished, or "none": what it
	// did after that is not known.
	Stopped Step `json:"stopped,omitempty"`
}

// StepTime is one step of a campaign.
type StepTime struct {
	// Step is the step's name (StepSetup ... StepTeardown).
	Step Step `json:"step"`
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

// Step names a step of a VM campaign, StepSetup ... StepTeardown: the
// overhead table's rows (StepTime.Step, run.json's overhead.steps[].step,
// and overhead.processes[].stopped) and the journal's lines
// (JournalEntry.Step, steps.jsonl's "step"), which also hold
// StepResumed. The table also has a step per hook a campaign runs,
// "hooks: <hook>" (spec.Hook), so the set is not closed.
type Step string

// Names of the campaign steps (StepTime.Step). The run step (StepRun) is
// recorded split at the workload's own phase boundaries, into
// StepStartWait, StepPrecondition, StepMeasure and StepWindDown, once a VM
// returned a Result.
const (
	StepSetup        Step = "setup"
	StepConnect      Step = "connect"
	StepPreflight    Step = "preflight"
	StepProvision    Step = "provision"
	StepDatabases    Step = "databases"
	StepAgents       Step = "agents"
	StepPrepare      Step = "prepare"
	StepRun          Step = "run"
	StepStartWait    Step = "start wait"
	StepPrecondition Step = "precondition"
	StepMeasure      Step = "measure"
	StepWindDown     Step = "wind-down"
	StepCounters     Step = "counters"
	StepChecks       Step = "checks"
	StepCollect      Step = "collect"
	StepReport       Step = "report"
	StepTeardown     Step = "teardown"
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

// JoinOverheads is the record of a resumed campaign: the processes before
// this one (prior, as the journal recorded them) and then own, this
// `campaign resume`'s record, each step marked with its process.
func JoinOverheads(prior []Process, own *Overhead) *Overhead {
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
		pt := ProcessTime{Command: p.Command, Stopped: cmp.Or(p.Last, "none")}
		var steps []StepTime
		if p.Overhead != nil {
			pt.Total, steps = p.Overhead.Total, p.Overhead.Steps
		}
		add(pt, steps)
	}
	add(ProcessTime{Command: CommandResume, Total: own.Total}, own.Steps)
	return out
}
