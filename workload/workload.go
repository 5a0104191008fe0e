// Package workload is the contract every benchmark tool of vmbench
// implements (sysbench, tpcc, the vdbench block suite) and the registry
// that holds them. The CLI (cmd/vmbench), the campaign engine (scenarios)
// and the in-guest agent (agent) reach a tool through this contract and
// nothing else: they name it by tool, workload name and flags, and ask a
// Config what it can do by interface assertion, never by its tool's name.
//
// The core is small: a Tool (Describe, NewConfig) and its Config
// (BindFlags, Complete, Validate, Bounds, Prepare, Run, Cleanup); a run
// reports to an Observer (Phase, Interval). A tool registers itself from
// init():
//
//	func init() { workload.Register(Tool{}) }
//
// and a caller runs it in four steps, the same everywhere:
//
//	cfg := tool.NewConfig()          // the tool's defaults
//	cfg.BindFlags(fs)                // every option, once, into the typed config
//	fs.Parse(args)                   // or workload.Parse for a campaign's flags: map
//	cfg.Complete(name, getenv, fs.Changed); cfg.Validate()
//	out, err := cfg.Run(ctx, env)    // ticks go to env.Observer; Run prints nothing
//
// What a run records of its options (Results, campaign.yaml, an agent's
// job) is derived from the flag set BindFlags binds (RecordedFlags,
// record.go): every option at its value, but those the tool marks where
// it binds them (Alias, NotRecorded, RecordAs).
//
// The optional parts are each documented where they are declared
// (optional.go; Announcer and PartialRecord here, RecordedValue in
// record.go). A tool asserts each one it implements at compile time
// (var _ workload.Reporter = (*toolConfig)(nil)), and its test pins the
// list (Optional names the ones a value implements). Who asks for which:
//
//	all callers    Reporter (the peer tool's own text formats; its
//	               IntervalWriter may be an Announcer, to print the
//	               peer tool's header), FlagScoper (options that only
//	               some commands take, and their help there)
//	the campaign   Connector (each VM's database), DatabaseOwner (create and
//	               drop it), Reviewer (review columns read from each VM's
//	               Result: tpcc's tpmC and NOPM), TableReporter (a report
//	               of the merged Result that adds to the review: tpcc's),
//	               RowReviewer (one review row and the curves read from a
//	               whole Output: the block suite's), Preflighter (host and
//	               target checks before anything is created), ResultWriter
//	               and ResultReader (a tool's own files in a results
//	               directory, read back by vmbench report), OutputMerger
//	               (one run in several VMs merged into one Output: the
//	               block suite's curve, point by point; its Record may be
//	               a PartialRecord), DataShaper (pre-built data)
//	the CLI        Checker (tpcc check; a campaign's check step too),
//	               ConnectionCounter (the open-file limit), Commander
//	               (commands with options and arguments of their own),
//	               Informer (commands that only show information),
//	               DirRunner (a run that writes its own results
//	               directory: vmbench vdbench run -o)
//
// A tool implements the ones it needs: sysbench six, tpcc eight, vdbench
// (the block suite) nine.
// The in-guest agent (package agent) runs a tool through the same contract.
//
// The shape follows CockroachDB's pkg/workload (a registry of generators
// with a small core and optional interfaces) and vegeta's split of attack
// from report, simpler than both: one Config per run, no generator state.
package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"vmbench/oltp"
)

// Tool is one benchmark tool. It is stateless: every run gets its own
// Config from NewConfig.
type Tool interface {
	// Describe returns what the CLI lists and what campaigns name.
	Describe() Descriptor
	// NewConfig returns a Config holding the tool's defaults.
	NewConfig() Config
}

// Descriptor says what a tool is and offers.
type Descriptor struct {
	// Name is the tool's name in commands and campaign files: "sysbench",
	// "tpcc", "vdbench".
	Name string
	// Short is one line for `vmbench --help`; Long and Example are the
	// command group's help.
	Short, Long, Example string
	// Usage is the group's cobra Use line ("sysbench prepare|run|cleanup
	// [WORKLOAD]"); empty means Name.
	Usage string
	// Workloads are the workload names the tool offers; the first is the
	// default when none is named.
	Workloads []string
	// Commands are the group's commands, in the order the CLI lists them.
	Commands []Command
	// HelpOnly makes the group run nothing itself, as a plain cobra
	// group: with no command, or an unknown one, it prints its help and
	// exits 0 (vdbench's). Otherwise an unknown command is a usage error
	// that names the commands (exit 2).
	HelpOnly bool
}

// Command is one subcommand of a tool (prepare, run, check, cleanup).
type Command struct {
	// Name is the verb: one of the Verb constants, or a verb of the
	// tool's own for a command that only shows information (an
	// Informer's: vdbench's "profiles", "parse").
	Name Verb
	// Short, Long and Example are its help.
	Short, Long, Example string
	// Workload is set when the command takes an optional WORKLOAD
	// argument (sysbench's); otherwise it takes none, or Arg.
	Workload bool
	// Arg, when its Name is set, is the optional argument the command
	// takes that is not a WORKLOAD: vdbench's parameter FILE or profile
	// NAME. The Config must be a Commander: the CLI hands it every
	// positional argument (SetCommand), and it refuses more than one.
	Arg Arg
}

// Arg is a command's positional argument other than a WORKLOAD, as its
// usage line shows it. It is optional.
type Arg struct {
	// Name is the argument in the usage line: "FILE", "NAME".
	Name string
	// Flag, when set, is a flag that gives the argument instead ("-f",
	// as vdbench -f FILE): the usage line shows "[FILE | -f FILE]".
	Flag string
}

// Usage is how a usage line shows a: "[NAME]", "[FILE | -f FILE]"; ""
// for no argument.
func (a Arg) Usage() string {
	switch {
	case a.Name == "":
		return ""
	case a.Flag != "":
		return "[" + a.Name + " | " + a.Flag + " " + a.Name + "]"
	}
	return "[" + a.Name + "]"
}

// Verb names what a command does with a Config.
type Verb string

// The verbs a tool's commands may have.
const (
	VerbPrepare Verb = "prepare"
	VerbRun     Verb = "run"
	VerbCheck   Verb = "check"
	VerbCleanup Verb = "cleanup"
)

// Config is one run's typed configuration, and the operations on it.
// BindFlags is called once; Complete and Validate after the flags are
// parsed; then any of Prepare, Run and Cleanup.
type Config interface {
	// BindFlags binds every option of the tool to fs, with its name, its
	// peer tool's aliases (marked with Alias) and, as its default, the
	// Config's current value, so that binding changes no option: the
	// recorded flags (RecordedFlags) are read back from a second flag set
	// bound to a complete Config. Options that cannot change what is run
	// or measured are marked NotRecorded.
	BindFlags(fs *pflag.FlagSet)
	// Complete sets what flags do not: the workload by name ("" keeps the
	// default; an unknown name is an error listing the valid ones) and a
	// password from the environment (getenv) unless changed reports its
	// flag as set.
	Complete(name string, getenv func(string) string, changed func(flag string) bool) error
	// Validate returns every problem at once (errors.Join), each naming
	// its flag and what would be valid. It touches nothing.
	Validate() error
	// Bounds is how the run is timed: its Time, Events, Warmup and Rate,
	// so a campaign can refuse a run that never ends, and say how long
	// it takes.
	Bounds() oltp.RunConfig
	// Prepare creates and loads the workload's data, writing progress to
	// env.Log.
	Prepare(ctx context.Context, env Env) error
	// Run runs the precondition and measure phases and returns what was
	// measured. Interval ticks and phase changes go to env.Observer; Run
	// writes nothing itself. After an interrupt or a failure mid-run it
	// returns the partial Output beside the error, its Result marked so.
	Run(ctx context.Context, env Env) (*Output, error)
	// Cleanup removes the workload's data, writing what it drops to
	// env.Log.
	Cleanup(ctx context.Context, env Env) error
}

// Env is what a caller lends a Prepare, Run or Cleanup.
type Env struct {
	// Log receives progress lines (prepare's load, cleanup's drops);
	// nil discards them.
	Log io.Writer
	// Terminal says Log is a terminal: progress may redraw in place.
	Terminal bool
	// Observer receives Run's interval ticks and phase changes; nil
	// discards them.
	Observer Observer
	// StartAt, when set, is the common start of all the runs of a
	// campaign: Run waits for it before its first phase.
	StartAt time.Time
	// Labels are added to every Result (vm, role, datastore, campaign).
	Labels map[string]string
}

// Observer receives a run's progress as it happens. Calls come from the
// run's reporting goroutine, one at a time.
type Observer interface {
	// Phase is called when a phase (oltp.PhasePrecondition,
	// oltp.PhaseMeasure) starts; length is its planned length, 0 when it
	// ends by an event limit.
	Phase(name oltp.Phase, length time.Duration)
	// Interval is called at the end of each report interval.
	Interval(r oltp.IntervalReport)
}

// Announcer is an Observer that also takes a run's header: what the run
// is about to do, in the peer tool's words (sysbench's "Running the test
// with following options:"), once the run's checks have passed and
// before its first phase. A Reporter's IntervalWriter may be one; a tool
// sends the header through Env.Announce.
type Announcer interface {
	Observer
	// Announce is called once, with the whole header (lines ending in
	// newlines).
	Announce(header string)
}

// Output is what a Run measured.
type Output struct {
	// Result is the measure phase's Result, with the precondition's
	// inside it. For a run of several points (a vdbench curve) it is the
	// point the review leads with (the max run).
	Result *oltp.Result
	// Record is the tool's own record when Result alone does not hold
	// the run (vdbench's RunRecord: every point of a curve); nil for the
	// OLTP tools. It marshals to JSON.
	Record any
}

// PartialRecord is implemented by a tool's Record that can hold a run
// stopped before its end (interrupted or failed after measuring some of
// it): Partial reports whether it does. A review marks such a run
// incomplete even when Output.Result, its first point, is complete.
type PartialRecord interface {
	Partial() bool
}

// Logf writes one progress line to env.Log, if any.
func (e Env) Logf(format string, args ...any) {
	if e.Log != nil {
		fmt.Fprintf(e.Log, format+"\n", args...)
	}
}

// OnPhase sends a phase change to env.Observer, if any.
func (e Env) OnPhase(name oltp.Phase, length time.Duration) {
	if e.Observer != nil {
		e.Observer.Phase(name, length)
	}
}

// Announce sends a run's header to env.Observer when it is an Announcer.
func (e Env) Announce(header string) {
	if a, ok := e.Observer.(Announcer); ok {
		a.Announce(header)
	}
}

// OnInterval sends an interval tick to env.Observer, if any.
func (e Env) OnInterval(r oltp.IntervalReport) {
	if e.Observer != nil {
		e.Observer.Interval(r)
	}
}

// RunConfig returns rc with the Env's common start, labels and observer
// callbacks set: what an OLTP tool passes to the oltp.Runner.
func (e Env) RunConfig(rc oltp.RunConfig) oltp.RunConfig {
	if !e.StartAt.IsZero() {
		rc.StartAt = e.StartAt
	}
	if e.Labels != nil {
		rc.Labels = e.Labels
	}
	if e.Observer != nil {
		rc.OnInterval, rc.OnPhase = e.Observer.Interval, e.Observer.Phase
	}
	return rc
}

// WarmupNotice writes what a peer tool prints at a phase change of a run
// with a precondition (warm > 0): start, a format given the phase's
// length, when the precondition starts, and the line end when the measure
// phase follows it. A Reporter's Observer calls it from Phase.
func WarmupNotice(w io.Writer, warm time.Duration, phase oltp.Phase, length time.Duration, start, end string) {
	if warm <= 0 {
		return
	}
	switch phase {
	case oltp.PhasePrecondition:
		fmt.Fprintf(w, start+"\n", length)
	case oltp.PhaseMeasure:
		fmt.Fprintln(w, end)
	}
}

// CheckEnds refuses a run of cfg that would never end: Bounds with Time 0
// and no Events (it would run until stopped, and nothing would stop it).
// A campaign refuses such a workload, and the agent such a job's run
// step; each names where the flags came from.
func CheckEnds(cfg Config) error {
	if b := cfg.Bounds(); b.Time == 0 && b.Events == 0 {
		return errors.New("time 0 and no events: the run would never end (set time, e.g. 30m, or events)")
	}
	return nil
}
