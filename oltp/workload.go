package oltp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"vmbench/oltp/hist"
)

// Worker runs the events of one thread. The Runner calls Event from a
// single goroutine per Worker and Close once at the end.
type Worker interface {
	// Event runs one event (a transaction, an I/O) and returns the index,
	// into Spec.Ops, of the operation it was. Retryable failures are the
	// workload's business (retry the whole event and count it); a returned
	// error is fatal and stops the run, unless the run is already stopping.
	// ctx ends when the run is interrupted or the graceful stop runs out.
	Event(ctx context.Context) (op int, err error)
	// Close releases the worker's resources (its connection).
	Close() error
}

// Spec is what a workload hands the Runner.
type Spec struct {
	// Workload is the name stored in the Result (e.g. "oltp_read_write").
	Workload string
	// Ops names the operations Event may return, by index.
	Ops []string
	// Counters names the counters workers add to through their Handle, by
	// index (e.g. "errors.deadlock", "retries", "reconnects").
	Counters []string
	// NewWorker makes the worker of thread t (0-based) that records
	// counters through h. The Runner records latencies itself; workers
	// only add counters. An error aborts the run before it starts.
	NewWorker func(ctx context.Context, t int, h *hist.Handle) (Worker, error)
	// NewPipeline, when set, drives a closed-loop run (Rate 0, no
	// Terminals) from one goroutine: it gets the run's workers, made by
	// NewWorker as usual, before the start, and returns the Pipeline that
	// starts and reaps their events (an io_uring per block device: fio's
	// iodepth on one thread). An error aborts the run before it starts.
	// Open-loop and terminal-driven runs ignore it and call each worker's
	// Event from its own goroutine.
	NewPipeline func(ctx context.Context, workers []Worker) (Pipeline, error)
	// NewTerminal makes terminal i (0-based) of a terminal-driven run
	// (RunConfig.Terminals > 0), whose workers must then be Executors.
	NewTerminal func(i int) Terminal
}

// Arrival is the distribution of intended start gaps in open loop.
type Arrival string

const (
	// Exponential draws gaps from an exponential distribution with mean
	// 1/rate, i.e. Poisson arrivals (sysbench --rate, vdbench default).
	Exponential Arrival = "exponential"
	// Uniform draws gaps uniformly from [0, 2/rate), mean 1/rate (vdbench
	// distribution=uniform).
	Uniform Arrival = "uniform"
	// Deterministic spaces starts exactly 1/rate apart (vdbench
	// distribution=deterministic).
	Deterministic Arrival = "deterministic"
)

// DefaultGracefulStop is RunConfig.GracefulStop when none is set: events
// in flight when the measure phase ends get this long to finish before
// their context is cancelled (a database statement is then cancelled on
// the server: KILL QUERY, a CancelRequest, an interrupt).
const DefaultGracefulStop = 10 * time.Second

// TimeHelp is the help of a tool's --time flag, its events named by the
// plural noun (e.g. "transactions"): the measured length, and the
// graceful stop after it (DefaultGracefulStop).
func TimeHelp(noun string) string {
	return fmt.Sprintf(`length of the measured run ("60" = 60 s, or "1m"); 0 = no limit. %s still running at its end are not counted; they get up to %s to finish, then are cancelled, and the summary's total time includes that wait`,
		noun, DefaultGracefulStop)
}

// RunConfig is how the Runner drives a Spec. Times are wall-clock
// durations; zero values mean "not set" as documented per field.
type RunConfig struct {
	// Threads is the number of workers (sysbench --threads), at least 1.
	// In a terminal-driven run it is the number of Executors, i.e. of
	// connections the terminals share (--conns).
	Threads int
	// Terminals, when above 0, makes the run terminal-driven (TPC-C clause
	// 5.2): that many terminals, made by Spec.NewTerminal, each key an
	// event, submit it to a queue that the Threads Executors serve, wait
	// for its end, think, and key the next. Latency is recorded as service
	// time and as response time from the submission, so time spent waiting
	// for a free connection is never hidden. Rate must be 0.
	Terminals int
	// Time is the length of the measure phase (sysbench --time); 0 means no
	// limit, in which case Events or the context must end the run.
	Time time.Duration
	// Events ends the measure phase once it has counted this many events
	// (sysbench --events): exactly this many, those in flight at its start
	// after a warm-up and ending in it included (each takes one of the
	// Events; one that finds none left is not counted); 0 means no limit.
	Events int64
	// WarmupTime is the precondition phase before the measure phase
	// (sysbench --warmup-time). Its figures go to Result.Precondition only.
	WarmupTime time.Duration
	// ReportInterval is the interval between reports (sysbench
	// --report-interval); 0 means none, but the Result still gets one
	// final interval covering the phase.
	ReportInterval time.Duration
	// Rate is the open-loop target in events per second (sysbench --rate);
	// 0 means closed loop.
	Rate float64
	// Arrival is the distribution of gaps in open loop (default Exponential).
	Arrival Arrival
	// Seed seeds the arrival process of the open loop.
	Seed int64
	// StartAt, when set, is a common start time: the Runner waits until
	// then after its workers are ready (campaigns start all VMs together).
	StartAt time.Time
	// WorkersKeepTime makes the workers themselves end the measure phase at
	// its planned end (Time after the measure start): an event that
	// completes after it is discarded and no new one starts, even while the
	// Runner's own goroutine is starved of CPU (more busy threads than
	// cores) and handles the end late. The phase then ends exactly at its
	// planned end. Only for workloads whose events have no effect counted
	// outside the Runner (block I/O): a workload that reads the database at
	// the phase's edges (TPC-C's NOPM) lets the Runner end it.
	WorkersKeepTime bool
	// GracefulStop is how long events in flight at the end of the
	// measure phase may run before their context is cancelled (0:
	// DefaultGracefulStop). They are never counted, but the run lasts
	// until they have returned: Result.Stopped.
	GracefulStop time.Duration
	// Flags and Labels are copied into the Result.
	Flags  map[string]string
	Labels map[string]string
	// ClientShares names what else runs inside this process and so is in
	// its CPU figures (ClientCost.Shares), e.g. "the SQLite database
	// engine"; empty when the process is the client alone.
	ClientShares string
	// OnInterval, if set, is called after every report interval, from the
	// Runner's own goroutine (never concurrently).
	OnInterval func(IntervalReport)
	// OnPhase, if set, is called when a phase starts.
	OnPhase func(phase Phase, length time.Duration)
}

// IntervalReport is handed to RunConfig.OnInterval. The histograms are
// owned by the Runner and valid only during the call.
type IntervalReport struct {
	Phase   Phase
	At      time.Duration // end of the interval since the phase start
	End     time.Time     // the interval's end: the instant of its registry swap
	Length  time.Duration
	Threads int
	Ops     []string
	// Latency and Intended (open loop: from the intended start; terminal-
	// driven: response time from the submission; else nil) hold this
	// interval's histograms per op; Counters this interval's counter deltas.
	Latency  []*hist.Histogram
	Intended []*hist.Histogram
	Counters map[string]int64
	// Backlog is the number of open-loop events whose intended start has
	// passed but that have not started (sysbench's "queue length"), or in
	// a terminal-driven run the number of submitted events waiting for an
	// Executor.
	Backlog int64
	// CPU is the CPU spent over the interval (nil where getrusage is
	// unavailable); see IntervalCPU.
	CPU *IntervalCPU
}

// Validate returns every problem with c at once, naming sysbench's flags.
func (c RunConfig) Validate() error {
	var errs []error
	if c.Threads < 1 {
		errs = append(errs, fmt.Errorf("--threads: %d is not valid (at least 1)", c.Threads))
	}
	if c.Time < 0 {
		errs = append(errs, fmt.Errorf("--time: %s is negative", c.Time))
	}
	if c.Events < 0 {
		errs = append(errs, fmt.Errorf("--events: %d is negative", c.Events))
	}
	if c.WarmupTime < 0 {
		errs = append(errs, fmt.Errorf("--warmup-time: %s is negative", c.WarmupTime))
	}
	if c.ReportInterval < 0 {
		errs = append(errs, fmt.Errorf("--report-interval: %s is negative", c.ReportInterval))
	}
	if c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0) {
		errs = append(errs, fmt.Errorf("--rate: %g is not valid (0 for a closed loop, or events per second)", c.Rate))
	}
	if c.Terminals < 0 {
		errs = append(errs, fmt.Errorf("--terminals: %d is negative", c.Terminals))
	}
	if c.Terminals > 0 && c.Rate != 0 {
		errs = append(errs, errors.New("--rate: a terminal-driven run is paced by its terminals' keying and think times, not by a rate"))
	}
	switch c.Arrival {
	case "", Exponential, Uniform, Deterministic:
	default:
		errs = append(errs, fmt.Errorf("arrival %q is not valid (exponential, uniform or deterministic)", c.Arrival))
	}
	return errors.Join(errs...)
}

// StopWords says when a run of c ends, naming its events by noun, e.g.
// "Running for 1m0s", "Stopping after 30s or 1000 transactions" or
// "Running until interrupted (--time=0, --events=0)".
func (c RunConfig) StopWords(noun string) string {
	switch {
	case c.Time > 0 && c.Events > 0:
		return fmt.Sprintf("Stopping after %s or %d %s", c.Time, c.Events, noun)
	case c.Time > 0:
		return fmt.Sprintf("Running for %s", c.Time)
	case c.Events > 0:
		return fmt.Sprintf("Stopping after %d %s", c.Events, noun)
	}
	return "Running until interrupted (--time=0, --events=0)"
}
