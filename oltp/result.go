// Package oltp is the driver core shared by every workload: the Runner
// (closed loop and open loop), phases (precondition, then measure), the
// versioned Result with its exact Merge, and text formatting of results.
// It knows nothing of SQL or of any particular workload.
package oltp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"vmbench/internal/atomicfile"
	"vmbench/internal/boundedread"
	"vmbench/oltp/hist"
)

// ResultVersion is the schema version of the Result JSON that this vmbench
// writes. Version 2 added Status, Error, Planned, Overruns, BacklogAtEnd,
// BacklogDropped, CatchUp and Interval.Planned; version 3 added Client;
// version 4 added Interval.CPU and Client.PeakUtilization; version 5
// added PlatformCounters and Hosts; version 6 added Stopped.
//
// Readers (ReadResultFile, Validate) read versions OldestResultVersion to
// ResultVersion: a version 1 file has none of those fields and reads as
// complete unless Interrupted is set (version 1 could not mark a failed
// run: such a file may hide one), with no overruns or backlog recorded.
// A newer version is refused with an error naming it, before any other
// check, so an old vmbench never half-reads a newer file.
const ResultVersion = 6

// OldestResultVersion is the oldest Result version readers accept.
const OldestResultVersion = 1

// Loop says how operation starts were scheduled.
type Loop string

const (
	// ClosedLoop means each of N threads starts its next event as soon as
	// the previous one ends (sysbench without --rate, vdbench iorate=max).
	// Latency is service time.
	ClosedLoop Loop = "closed"
	// OpenLoop means event starts are scheduled at absolute times at a
	// fixed rate (sysbench --rate, vdbench iorate=N). Latency is recorded
	// both as service time and from the intended start, so queueing is
	// never hidden (no coordinated omission).
	OpenLoop Loop = "open"
	// TerminalLoop means emulated terminals (TPC-C clause 5.2) key an
	// event, submit it to a queue served by a pool of connections, wait
	// for its end, think, and key the next. Latency is recorded as service
	// time and as response time from the submission (OpResult.Intended).
	TerminalLoop Loop = "terminals"
)

// Phase names a phase of a run: PhasePrecondition (the warm-up, when
// the run has one) or PhaseMeasure, written as a Result's "phase"
// (Result.Phase) and an interval's (IntervalReport.Phase, the agent's
// intervals/NNNNNN.json).
type Phase string

// Phase names.
const (
	PhaseMeasure      Phase = "measure"
	PhasePrecondition Phase = "precondition"
)

// Result is the outcome of one phase of one run, or of several merged runs.
// It is what --result-file holds, what a campaign collects per VM and what
// reports read. Durations in JSON are integer nanoseconds.
type Result struct {
	Version  int               `json:"version"`
	Workload string            `json:"workload"`
	Flags    map[string]string `json:"flags"`            // the options that shaped the run (never passwords)
	Labels   map[string]string `json:"labels,omitempty"` // vm, role, datastore, host...
	Phase    Phase             `json:"phase"`
	Loop     Loop              `json:"loop"`
	// Measured says in words what the latency figures are, e.g.
	// "service time of each event, closed loop, 32 threads".
	Measured string  `json:"measured"`
	Threads  int     `json:"threads"`
	Rate     float64 `json:"rate,omitempty"` // requested events/s in open loop
	// Terminals is the number of terminals of a terminal-driven run, whose
	// Threads is the number of connections they share.
	Terminals int `json:"terminals,omitempty"`

	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Elapsed is the measured wall time. For a single run it is End-Start;
	// for a merged result it is the mean of the parts' Elapsed, so that
	// Count/Elapsed equals the sum of the parts' rates when the parts ran
	// for equal times (a campaign's common start and fixed --time).
	Elapsed time.Duration `json:"elapsed_ns"`
	// Stopped is when the run really ended: the events still in flight
	// at End had returned, finished (not counted) or cancelled when the
	// graceful stop ran out (RunConfig.GracefulStop). Stopped - Start is
	// the time the run took (TotalTime; sysbench's "total time"), the
	// rates are over Elapsed. Zero before version 6; a merge keeps the
	// latest of its parts', zero when a part has none.
	Stopped time.Time `json:"stopped,omitzero"`
	// Parts is how many single runs this result combines (1 for a run).
	Parts int `json:"parts"`
	// Interrupted is set when the run was stopped early (Ctrl-C); kept
	// beside Status for version 1 readers.
	Interrupted bool `json:"interrupted,omitempty"`
	// Status says how the phase ended: StatusComplete, StatusInterrupted
	// or StatusFailed, with Error the error that stopped it. Empty reads as
	// complete (see State). Merge refuses parts that are not complete
	// unless MergeOptions.Incomplete.
	Status Status `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
	// Planned is the phase's planned length (--time, --warmup-time; 0 when
	// none was set). Overruns lists the phase or report intervals that ran
	// longer than planned (the runner was late: a starved host): their
	// figures are still exact over the time they covered, but a reader
	// must know the window was not the one asked for.
	Planned  time.Duration `json:"planned_ns,omitempty"`
	Overruns []Overrun     `json:"overruns,omitempty"`
	// BacklogAtEnd (open loop and terminal-driven) is the number of events
	// due but not started when the phase ended: sysbench's queue length at
	// the end. BacklogDropped (the precondition of an open-loop run) is how
	// many of them the measure phase did not inherit: it starts with an
	// empty schedule, its first intended start at its own start, so a slow
	// warm-up cannot push its queue into the measured figures. (In a
	// terminal-driven run the queue is carried: each terminal has at most
	// one event outstanding, and it stays so.)
	BacklogAtEnd   int64 `json:"backlog_at_end,omitempty"`
	BacklogDropped int64 `json:"backlog_dropped,omitempty"`
	// CatchUp names the open loop's policy for arrivals that fell due
	// while no thread was free (CatchUpFullSpeed); see CatchUpWords.
	CatchUp string `json:"catch_up,omitempty"`

	Ops      []OpResult       `json:"ops"`
	Counters map[string]int64 `json:"counters,omitempty"` // errors by class, retries, reconnects, queries...
	// Client is the client process's own CPU time and context switches
	// over the phase (nil in files before version 3 and on platforms
	// without getrusage).
	Client *ClientCost `json:"client,omitempty"`

	Intervals    []Interval `json:"intervals,omitempty"`
	Precondition *Result    `json:"precondition,omitempty"`

	// PlatformCounters are what the platform under the run (the
	// hypervisor's hosts and VMs) measured over the phase, e.g. host CPU,
	// VM CPU ready, datastore latency: filled by the campaign from
	// vSphere's PerformanceManager, empty for a run on its own. Merge
	// concatenates the parts' series, each series once.
	PlatformCounters []CounterSeries `json:"platform_counters,omitempty"`
	// Hosts are facts about the physical hosts the run used, by host
	// name: model, CPU, memory, hypervisor version and build (keys as
	// vsphere.HostFacts.Map gives them). Filled by the campaign; Merge
	// keeps every part's hosts.
	Hosts map[string]map[string]string `json:"hosts,omitempty"`
}

// OpResult is one operation's figures (an event kind: "transaction",
// "newOrder", "read"...).
type OpResult struct {
	Name string `json:"name"`
	// Latency is the service time: from the actual start of each completed
	// event to its end, including retries of the whole event.
	Latency hist.Snapshot `json:"latency"`
	// Intended is the latency from the intended start (open loop), or the
	// response time from the submission (terminal-driven); nil otherwise.
	Intended *hist.Snapshot `json:"intended,omitempty"`
}

// Interval is one report interval of the measure phase (or of the
// precondition phase, in its own Result).
type Interval struct {
	// At is the end of the interval, measured from the phase start.
	At     time.Duration `json:"at_ns"`
	Length time.Duration `json:"length_ns"`
	// Planned is how long the interval was meant to run from its actual
	// start: to the next report edge (start + k × report interval) or the
	// planned end of the phase; 0 when nothing was planned. Length above
	// Planned means the runner handled the edge late.
	Planned  time.Duration    `json:"planned_ns,omitempty"`
	Ops      []OpResult       `json:"ops"`
	Counters map[string]int64 `json:"counters,omitempty"`
	// CPU is the client's and its machine's CPU over the interval (nil
	// before version 4, on platforms without getrusage, and in a merge
	// with a part that had none).
	CPU *IntervalCPU `json:"cpu,omitempty"`
}

// Op returns the named operation's result, or nil.
func (r *Result) Op(name string) *OpResult {
	for i := range r.Ops {
		if r.Ops[i].Name == name {
			return &r.Ops[i]
		}
	}
	return nil
}

// TotalTime is the time the run took, from Start to Stopped: Elapsed and
// the wait for the events in flight at the end. Without Stopped (a file
// before version 6) it is Elapsed.
func (r *Result) TotalTime() time.Duration {
	if r.Stopped.IsZero() {
		return r.Elapsed
	}
	return r.Stopped.Sub(r.Start)
}

// PerSecond returns count per second over Elapsed (0 when Elapsed is 0).
func (r *Result) PerSecond(count int64) float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(count) / r.Elapsed.Seconds()
}

// Histogram decodes the named op's service-time histogram.
func (r *Result) Histogram(op string) (*hist.Histogram, error) {
	o := r.Op(op)
	if o == nil {
		return nil, fmt.Errorf("oltp: result of %s has no operation %q", r.Workload, op)
	}
	return o.Latency.Histogram()
}

// Validate checks what a reader relies on: version, workload, status, ops
// and their histograms (service time and, where there is one, intended),
// which must decode to the counts of their exact figures
// (hist.Snapshot.Histogram). The intervals' histograms are checked where
// they are decoded (a merge).
func (r *Result) Validate() error {
	if err := checkVersion(r.Version); err != nil {
		return err
	}
	switch r.Status {
	case "", StatusComplete, StatusInterrupted, StatusFailed:
	default:
		return fmt.Errorf("result status %q is not known (%s, %s or %s)", r.Status, StatusComplete, StatusInterrupted, StatusFailed)
	}
	if r.Workload == "" {
		return fmt.Errorf("result has no workload name")
	}
	if err := r.checkElapsed(); err != nil {
		return err
	}
	for _, o := range r.Ops {
		if _, err := o.Latency.Histogram(); err != nil {
			return fmt.Errorf("result op %s: %w", o.Name, err)
		}
		if o.Intended == nil {
			continue
		}
		if _, err := o.Intended.Histogram(); err != nil {
			return fmt.Errorf("result op %s (intended): %w", o.Name, err)
		}
	}
	if r.Client != nil {
		if err := r.Client.Validate(); err != nil {
			return err
		}
	}
	for i := range r.PlatformCounters {
		if err := r.PlatformCounters[i].Validate(); err != nil {
			return err
		}
	}
	for i, iv := range r.Intervals {
		if iv.CPU != nil {
			if err := iv.CPU.Validate(); err != nil {
				return fmt.Errorf("interval %d: %w", i+1, err)
			}
		}
	}
	if r.Precondition != nil {
		if err := r.Precondition.Validate(); err != nil {
			return fmt.Errorf("precondition: %w", err)
		}
	}
	return nil
}

// elapsedSlack is how far a single run's Elapsed may be from End-Start
// when read back: one second plus 0.1% of End-Start. Elapsed is read on
// the monotonic clock and Start and End on the wall clock, which NTP
// slews by at most 500 ppm (0.05%, doubled here) and may step once (ntpd
// steps offsets above 128 ms; VMware Tools' sync after a resume): a
// genuine run stays within it, an elapsed_ns of 0 or an edited one that
// changes the rates by more than about 1% over a window of minutes does
// not.
func elapsedSlack(span time.Duration) time.Duration { return time.Second + span/1000 }

// checkElapsed checks that Elapsed is a measured time that agrees with
// Start and End: positive, and End-Start (elapsedSlack) for a single
// run; for a merged result (the mean or the longest of its parts') at
// most End-Start, the span from its first part's start to its last
// part's end.
func (r *Result) checkElapsed() error {
	span := r.End.Sub(r.Start)
	switch {
	case r.Elapsed <= 0:
		return fmt.Errorf("elapsed_ns %d is not a measured time: it must be positive (start %s, end %s: %s)",
			int64(r.Elapsed), r.Start.Format(time.RFC3339Nano), r.End.Format(time.RFC3339Nano), span)
	case span < 0:
		return fmt.Errorf("end %s is before start %s", r.End.Format(time.RFC3339Nano), r.Start.Format(time.RFC3339Nano))
	case r.Parts > 1 && r.Elapsed > span+elapsedSlack(span):
		return fmt.Errorf("elapsed_ns %d (%s) is longer than end - start (%s): a merged result's elapsed is the mean or the longest of its parts'",
			int64(r.Elapsed), r.Elapsed, span)
	case r.Parts <= 1 && (r.Elapsed-span).Abs() > elapsedSlack(span):
		return fmt.Errorf("elapsed_ns %d (%s) does not agree with end - start (%s): a run's elapsed is its measured window, end - start within %s",
			int64(r.Elapsed), r.Elapsed, span, elapsedSlack(span))
	case !r.Stopped.IsZero() && r.End.Sub(r.Stopped) > elapsedSlack(span):
		return fmt.Errorf("stopped %s is before end %s: a run stops after its measured window", r.Stopped.Format(time.RFC3339Nano), r.End.Format(time.RFC3339Nano))
	}
	return nil
}

// WriteFile writes r as indented JSON to path atomically: a temporary file
// in the same directory, fsync, then rename, so a crash never leaves a
// partial file under path.
func (r *Result) WriteFile(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'))
}

// MaxResultFileSize bounds a Result file as ReadResultFile reads it (and
// a campaign a guest's result.json): 384 MiB, half as much again as the
// largest a vmbench run writes. Measured on the Results of simulated
// campaigns, their intervals given HDR histograms of realistic rates and
// repeated to the shipped protocols with 1 s report intervals in both
// phases (--report-interval 1: 10,800 intervals): a sysbench VM's Result
// (3,000 TPS) is 27 MiB and 16 VMs' merged.json 66 MiB; a TPC-C VM's
// (service and response time of 5 transactions, 1,300 New-Orders/s) 111
// MiB and 8 VMs' merged.json 260 MiB. At the shipped 60 s intervals they
// are about 60 times smaller. Reading one costs about four times its size
// in memory (1 GiB for that merged.json).
const MaxResultFileSize = 384 << 20

// ReadResultFile reads and validates a Result written by WriteFile: a
// regular file (not a symlink, a FIFO or a device) of at most
// MaxResultFileSize bytes, checked before it is read
// (boundedread.ReadFile); its errors start with path (DecodeResult's,
// boundedread's), and a missing file's wraps fs.ErrNotExist.
func ReadResultFile(path string) (*Result, error) {
	b, err := boundedread.ReadFile(path, MaxResultFileSize)
	if err != nil {
		return nil, err
	}
	return DecodeResult(path, b)
}

// DecodeResult decodes and validates the Result JSON b, as WriteFile
// writes it, read from the file name (a path, or a name in a run
// directory): the version first, so a newer file is refused by its
// version, then strictly (an unknown field is an error), then Validate.
// Every error starts with name.
func DecodeResult(name string, b []byte) (*Result, error) {
	// The version first, leniently: a newer file is refused by its
	// version, not by the first field this reader does not know.
	var v struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("%s: not a vmbench result: %w", name, err)
	}
	if err := checkVersion(v.Version); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var r Result
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: not a vmbench result: %w", name, err)
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &r, nil
}

func checkVersion(v int) error {
	if v < OldestResultVersion || v > ResultVersion {
		return fmt.Errorf("result version %d is not supported (this vmbench reads versions %d to %d)", v, OldestResultVersion, ResultVersion)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
