// Package agent runs one registered workload from files and leaves files
// behind: what `vmbench agent run DIR` does inside a VM's guest, and what a
// campaign reads back through a target.Target. It needs no listening port
// and no network path back to the harness; everything goes through the run
// directory:
//
//	job.json          the job (JobFile): written by the campaign, read here
//	status.json       the agent's state (StatusFile), rewritten atomically at
//	                  every change
//	intervals/NNNNNN.json
//	                  one file per report interval (IntervalFile), numbered
//	                  from 000001 in the order they happened, each written
//	                  atomically; a reader polls for the next number
//	intervals.hlog    the same intervals' latency histograms in the
//	                  HdrHistogram interval-log format (hdrhistogram-go's
//	                  log writer), one line per operation and interval, tag
//	                  "<phase>/<op>", values in nanoseconds, for
//	                  HdrHistogram's own tools; written atomically once the
//	                  run step has ended (the interval files are the live
//	                  view), so the measured guest does no extra I/O for it
//	result.json       the run step's measure-phase oltp.Result (ResultFile),
//	                  written atomically once the run has ended (also after
//	                  an interrupt or a failure, marked so)
//	record.json       the Output's Record when the tool has one (RecordFile)
//	log.txt           the workload's progress lines (Env.Log), appended,
//	                  created at the first line: the one file not written
//	                  atomically
//	agent.lock        while an agent runs (LockFile): its pid and start
//	                  time, created exclusively, removed at the end; a
//	                  second agent on the directory is refused (ErrLocked)
//
// A job that cannot run as written (see ParseJob and Run) leaves job.json
// and status.json alone in the directory; so does a job whose Disks are
// not in the guest as it says (ErrDiskPlacement).
//
// The agent imports the workload contract, never a tool: the tools are
// registered by the binary that links them (cmd/vmbench).
package agent

import (
	"time"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/oltp/hist"
	"vmbench/workload"
)

// Names of the files in a run directory (see the package comment).
const (
	JobFile       = "job.json"
	StatusFile    = "status.json"
	IntervalDir   = "intervals"
	HlogFile      = "intervals.hlog"
	ResultFile    = "result.json"
	RecordFile    = "record.json"
	LogFile       = "log.txt"
	LockFile      = "agent.lock"
	JobVersion    = 1
	StatusVersion = 1
)

// PasswordEnv is the environment variable that carries the database
// password to the agent; a Job never holds it.
const PasswordEnv = "VMBENCH_DB_PASSWORD"

// Job is what one agent invocation does, as JSON in job.json.
type Job struct {
	// Version is JobVersion; a job of another version is refused.
	Version int `json:"version"`
	// Tool, Workload and Flags name the workload as a campaign file does:
	// a registered tool ("sysbench"), its workload ("oltp_read_write"; ""
	// for the tool's default) and its flags (names without dashes, values
	// as the flag parser reads them), parsed by workload.Parse. Connection
	// flags are refused here: the database comes from Database.
	Tool     string            `json:"tool"`
	Workload string            `json:"workload,omitempty"`
	Flags    map[string]string `json:"flags,omitempty"`
	// Database is the connection for a workload.Connector, without its
	// password (which comes from PasswordEnv); nil for a tool without a
	// database (the block suite). In job.json it is an object of
	// snake_case fields (Marshal writes them, ParseJob reads them):
	// "driver" (mysql, postgres, sqlserver, sqlite), "host", "port", "socket",
	// "user", "database", "instance", "sqlite_path" and "params" (an
	// object of strings), each dialect.Config's field of that name; there
	// is no password field (one is refused).
	Database *dialect.Config `json:"database,omitempty"`
	// Disks are the VM's data vDisks for a tool with a TargetFlag (the
	// block suite), in the order the tool's targets take them; then Flags
	// hold no target: the agent finds each disk's block device in the
	// guest (by its UUID, as the SCSI WWN) and sets the flag once per
	// disk. Empty for any other job.
	Disks []Disk `json:"disks,omitempty"`
	// Steps are the verbs to run in order: any of prepare, run, check and
	// cleanup. A campaign runs prepare in one job and run in another, so
	// that the common start is set once every VM is prepared.
	Steps []workload.Verb `json:"steps"`
	// StartAt is the common start of the run step (Env.StartAt), on the
	// guest's clock; zero starts at once. One more than MaxStartAhead
	// after the agent reads the job is refused.
	StartAt time.Time `json:"start_at,omitzero"`
	// Labels go into every Result (vm, role, datastore, campaign, driver).
	Labels map[string]string `json:"labels,omitempty"`
}

// State is where an agent is, as status.json says.
type State string

// The states in the order an agent passes them; Done and Failed are final.
const (
	StateStarting     State = "starting"     // reading the job
	StatePrepare      State = "prepare"      // running the prepare step
	StateWaiting      State = "waiting"      // run step: connecting, waiting for StartAt
	StatePrecondition State = "precondition" // run step: warm-up phase
	StateMeasure      State = "measure"      // run step: measure phase
	StateCheck        State = "check"        // running the check step
	StateCleanup      State = "cleanup"      // running the cleanup step
	StateDone         State = "done"         // every step ended well
	StateFailed       State = "failed"       // a step failed: Error says why
)

// Status is status.json.
type Status struct {
	Version int   `json:"version"`
	State   State `json:"state"`
	// Step is the verb being run (or the one that failed).
	Step workload.Verb `json:"step,omitempty"`
	// Error is the failure's message when State is StateFailed.
	Error string `json:"error,omitempty"`
	// FlagError says the failure was a bad input (IsBadInput: a bad job, a
	// *workload.FlagError, a flag that does not fit the database): nothing
	// was created, and a campaign reports it as a usage error.
	FlagError bool `json:"flag_error,omitempty"`
	// PID is the agent's process id; Updated is when this status was
	// written, on the guest's clock.
	PID     int       `json:"pid"`
	Updated time.Time `json:"updated"`
	// Intervals is how many interval files have been written so far.
	Intervals int `json:"intervals"`
}

// Interval is one intervals/NNNNNN.json: an oltp.IntervalReport in a form
// that survives JSON exactly (histograms as hist.Snapshot, with their
// exact count, sum, min and max). NewInterval and Interval.Report convert.
type Interval struct {
	Version int           `json:"version"` // IntervalVersion
	Seq     int           `json:"seq"`     // 1, 2, ... as the file's number
	Phase   oltp.Phase    `json:"phase"`
	At      time.Duration `json:"at_ns"`
	End     time.Time     `json:"end"`
	Length  time.Duration `json:"length_ns"`
	Threads int           `json:"threads"`
	Ops     []string      `json:"ops"`
	// Latency and Intended are per op, in Ops order; Intended is empty
	// when the report has none.
	Latency  []hist.Snapshot  `json:"latency"`
	Intended []hist.Snapshot  `json:"intended,omitempty"`
	Counters map[string]int64 `json:"counters,omitempty"`
	Backlog  int64            `json:"backlog,omitempty"`
	// CPU is the agent process's own CPU and its guest's total CPU over
	// the interval (oltp.IntervalCPU; since version 2, nil before it and
	// where getrusage is unavailable).
	CPU *oltp.IntervalCPU `json:"cpu,omitempty"`
}
