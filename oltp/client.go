package oltp

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ClientCost is what the client process itself spent over a phase, read
// from getrusage(RUSAGE_SELF) at the phase's edges: CPU time and context
// switches of the whole vmbench process (every thread, the Go runtime's
// included), so that a reader can tell whether the client, not the system
// under test, was the bottleneck. On a machine the client shares with the
// server, every CPU second here was taken from the server.
//
// The figures are of the process, not of one workload: parts of a merged
// Result that ran in one process at once (the SDs of a block run, the VMs
// of a simulated campaign) each saw the whole process, and Merge keeps the
// largest of them rather than adding them up (see MergeClientCost).
type ClientCost struct {
	// Process names the process that measured: "host/pid/start" (start in
	// Unix ns), the same for every Result one process writes.
	Process string `json:"process"`
	// Processes is how many distinct client processes the figures add up
	// (1 for a run; the number of VMs' agents for a campaign merge).
	Processes int `json:"processes"`
	// Cores is the number of logical CPUs the client's machine has (summed
	// over the hosts of the processes, each host once): CPU / (Elapsed ×
	// Cores) is the share of the client's machines it used.
	Cores     int           `json:"cores"`
	UserCPU   time.Duration `json:"user_cpu_ns"`
	SystemCPU time.Duration `json:"system_cpu_ns"`
	// VoluntaryCtxSwitches counts the times a thread of the client gave up
	// its CPU to wait (a blocking read, a futex); InvoluntaryCtxSwitches
	// the times the kernel took it away (time slice used up, a wake-up of
	// a higher-priority thread): the latter is the client competing for
	// the cores.
	VoluntaryCtxSwitches   int64 `json:"voluntary_ctx_switches"`
	InvoluntaryCtxSwitches int64 `json:"involuntary_ctx_switches"`
	// Shares names what else ran inside the process, whose work is in
	// these figures (an embedded SQLite database engine); empty when the
	// process was the client alone.
	Shares string `json:"shares,omitempty"`
	// PeakUtilization is the highest share (0..1) of its cores the client
	// used in one report interval (IntervalCPU.Utilization), over the
	// intervals at least half the median interval's length; 0 when the
	// intervals carry no CPU figures (files before version 4). Bound does
	// not read it: a client-bound run is one whose whole-run average is
	// past ClientBoundShare.
	PeakUtilization float64 `json:"peak_interval_utilization,omitempty"`
	// Start and End bound the window the figures cover.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// CPU is the client's user plus system CPU time.
func (c *ClientCost) CPU() time.Duration { return c.UserCPU + c.SystemCPU }

// PerEvent returns the client's CPU time per event (µs as a Duration) and
// its context switches (voluntary, involuntary) per event for n events;
// zeros when n is 0.
func (c *ClientCost) PerEvent(n int64) (cpu time.Duration, vcs, ics float64) {
	if n <= 0 {
		return 0, 0, 0
	}
	return c.CPU() / time.Duration(n), float64(c.VoluntaryCtxSwitches) / float64(n), float64(c.InvoluntaryCtxSwitches) / float64(n)
}

// Utilization returns the share (0..1, more when the cores were counted
// short) of the client machine's cores the client used over its window.
func (c *ClientCost) Utilization() float64 {
	w := c.End.Sub(c.Start)
	if w <= 0 || c.Cores <= 0 {
		return 0
	}
	return c.CPU().Seconds() / (w.Seconds() * float64(c.Cores))
}

// ClientBoundShare is the share of its cores above which a client is
// marked client-bound: past it, the client's own CPU, not the system
// under test, may be what limits the figures.
const ClientBoundShare = 0.8

// Bound reports whether the client used more than ClientBoundShare of the
// cores available to it over its window.
func (c *ClientCost) Bound() bool { return c.Utilization() > ClientBoundShare }

// Summary says the client's cost in one sentence for events events of
// the kind noun ("transaction", "I/O"), e.g. "Client: 7.27 s CPU (43.6 µs
// per transaction, 36% of 2 cores, peak interval 83%), 1.42 voluntary and
// 0.49 involuntary context switches per transaction" (the peak only when
// PeakUtilization is recorded), ending with a CLIENT-BOUND warning when
// Bound.
func (c *ClientCost) Summary(events int64, noun string) string {
	cpu, vcs, ics := c.PerEvent(events)
	procs := ""
	if c.Processes > 1 {
		procs = fmt.Sprintf(" in %d processes", c.Processes)
	}
	shares := ""
	if c.Shares != "" {
		shares = "; the process also ran " + c.Shares + ", whose work is included, so this is not the client's cost alone"
	}
	peak := ""
	if c.PeakUtilization > 0 {
		peak = fmt.Sprintf(", peak interval %.0f%%", 100*c.PeakUtilization)
	}
	bound := ""
	if c.Bound() {
		bound = fmt.Sprintf("; CLIENT-BOUND: the client used more than %.0f%% of its cores, so these figures may be the client's limit, not the server's", 100*ClientBoundShare)
	}
	return fmt.Sprintf("Client%s: %.2f s CPU (%s per %s, %.0f%% of %d cores%s), %.2f voluntary and %.2f involuntary context switches per %s%s%s",
		procs, c.CPU().Seconds(), microseconds(cpu), noun, 100*c.Utilization(), c.Cores, peak, vcs, ics, noun, shares, bound)
}

func microseconds(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', 1, 64) + " µs"
}

// MeasureProcess starts measuring this process's own cost (getrusage
// RUSAGE_SELF: every goroutine and runtime thread, no child processes)
// and returns the function that ends it: the ClientCost since the call,
// nil where the platform has no getrusage.
func MeasureProcess() func() *ClientCost {
	a := readUsage()
	return func() *ClientCost { return clientCost(a, readUsage()) }
}

// usage is one getrusage reading of this process.
type usage struct {
	at         time.Time
	user, sys  time.Duration
	nvcs, nivc int64
	ok         bool
}

// clientCost returns the cost between two readings; nil when either
// failed (getrusage is unavailable on the platform).
func clientCost(a, b usage) *ClientCost {
	if !a.ok || !b.ok {
		return nil
	}
	return &ClientCost{
		Process: processID(), Processes: 1, Cores: runtime.NumCPU(),
		UserCPU: b.user - a.user, SystemCPU: b.sys - a.sys,
		VoluntaryCtxSwitches: b.nvcs - a.nvcs, InvoluntaryCtxSwitches: b.nivc - a.nivc,
		Start: a.at, End: b.at,
	}
}

// mergedProcess is the Process of a cost added up over processes.
const mergedProcess = "merged"

var processID = sync.OnceValue(func() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/%d", host, os.Getpid(), time.Now().UnixNano())
})

// MergeClientCost combines the client costs of merged parts (nil entries
// are parts that recorded none; the result is nil when any part has none,
// so a merged figure never silently leaves a part out). Parts measured by
// one process whose windows overlap saw the same process-wide counters,
// so the largest of them (by CPU) stands for the group; windows of one
// process that do not overlap, and different processes, are added up.
func MergeClientCost(cs []*ClientCost) *ClientCost {
	if len(cs) == 0 || slices.Contains(cs, nil) {
		return nil
	}
	byProc := map[string][]*ClientCost{}
	var order []string
	for i, c := range cs {
		key := c.Process
		if key == mergedProcess {
			key = fmt.Sprintf("%s#%d", key, i) // already a sum over processes: add it
		}
		if _, ok := byProc[key]; !ok {
			order = append(order, key)
		}
		byProc[key] = append(byProc[key], c)
	}
	m := &ClientCost{Process: cs[0].Process, Start: cs[0].Start, End: cs[0].End}
	for _, c := range cs {
		if m.Shares == "" {
			m.Shares = c.Shares
		}
	}
	if len(order) > 1 {
		m.Process = mergedProcess
	}
	hosts := map[string]bool{}
	for _, p := range order {
		for _, c := range overlapMax(byProc[p]) {
			m.add(c)
		}
		// Processes count each process once, Cores each host once:
		// processes on one host (the agents of a simulated campaign) share
		// its cores.
		first := byProc[p][0]
		if h := hostOf(first.Process); h == "" || !hosts[h] {
			m.Cores += first.Cores
			hosts[h] = true
		}
		m.Processes += max(first.Processes, 1)
	}
	return m
}

// hostOf is the host part of a Process ("host/pid/start"); "" for a
// merged cost, whose hosts are not known.
func hostOf(process string) string {
	h, _, ok := strings.Cut(process, "/")
	if !ok {
		return ""
	}
	return h
}

// overlapMax returns one cost per run of overlapping windows of one
// process: the figures of the one with the most CPU, over the union of
// the run's windows. The inputs are not changed.
func overlapMax(cs []*ClientCost) []*ClientCost {
	s := slices.Clone(cs)
	slices.SortFunc(s, func(a, b *ClientCost) int { return a.Start.Compare(b.Start) })
	var out []*ClientCost
	for _, c := range s {
		if n := len(out); n > 0 && c.Start.Before(out[n-1].End) {
			last := out[n-1]
			start, end := last.Start, last.End
			if c.CPU() > last.CPU() {
				cp := *c
				last = &cp
			}
			last.Start, last.End = start, end
			if c.End.After(end) {
				last.End = c.End
			}
			out[n-1] = last
			continue
		}
		cp := *c
		out = append(out, &cp)
	}
	return out
}

// maxClientCPU bounds the CPU time a ClientCost may hold (100 years of
// one core's time): sums of parts stay far from int64's limit.
const maxClientCPU = 100 * 366 * 24 * time.Hour

// Validate checks what a reader relies on: counts and times not negative,
// at least one process and one core, a window that does not end before it
// starts, and no more CPU time than the window's cores could give (with
// a second of slack for the readings' own skew).
func (c *ClientCost) Validate() error {
	switch {
	case c.UserCPU < 0 || c.SystemCPU < 0 || c.VoluntaryCtxSwitches < 0 || c.InvoluntaryCtxSwitches < 0:
		return fmt.Errorf("client cost has a negative figure (user %d ns, system %d ns, switches %d/%d)",
			c.UserCPU, c.SystemCPU, c.VoluntaryCtxSwitches, c.InvoluntaryCtxSwitches)
	case c.Processes < 1 || c.Cores < 1:
		return fmt.Errorf("client cost of %d processes on %d cores (both must be at least 1)", c.Processes, c.Cores)
	case c.End.Before(c.Start):
		return fmt.Errorf("client cost window ends (%s) before it starts (%s)", c.End.Format(time.RFC3339Nano), c.Start.Format(time.RFC3339Nano))
	case !(c.PeakUtilization >= 0): // NaN too
		return fmt.Errorf("client peak interval utilization %g is not a share (0 or more)", c.PeakUtilization)
	case c.UserCPU > maxClientCPU || c.SystemCPU > maxClientCPU:
		return fmt.Errorf("client CPU time %v + %v is beyond %v", c.UserCPU, c.SystemCPU, maxClientCPU)
	}
	if w := c.End.Sub(c.Start); c.CPU() > w*time.Duration(c.Cores)+time.Second {
		return fmt.Errorf("client CPU time %v is more than %d cores could give in its %v window", c.CPU(), c.Cores, w)
	}
	return nil
}

func (c *ClientCost) add(o *ClientCost) {
	c.UserCPU += o.UserCPU
	c.SystemCPU += o.SystemCPU
	c.VoluntaryCtxSwitches += o.VoluntaryCtxSwitches
	c.InvoluntaryCtxSwitches += o.InvoluntaryCtxSwitches
	if o.Start.Before(c.Start) {
		c.Start = o.Start
	}
	if o.End.After(c.End) {
		c.End = o.End
	}
}
