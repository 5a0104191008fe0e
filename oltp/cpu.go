package oltp

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// IntervalCPU is the CPU spent over one report interval, read at the
// interval's edges (just after its registry swap): the client process's
// own CPU (getrusage RUSAGE_SELF, user plus system, every thread) and, on
// Linux, the whole machine's from the "cpu" line of /proc/stat. In a guest
// VM the machine is the guest, so the host figures are the guest's total
// CPU: what the agent's client took of it shows beside what the guest's
// other processes (a database server sharing it) took.
//
// The readings are chained: each interval starts at the previous one's
// end reading, so the intervals' ClientCPU adds up to the phase's
// Result.Client CPU (less a sliver of a last interval too short to keep).
type IntervalCPU struct {
	// ClientCPU is the client process's user plus system CPU time (ns).
	ClientCPU time.Duration `json:"client_cpu_ns"`
	// Cores is the number of logical CPUs of the client's machine (summed
	// over hosts, each once, in a merge): ClientCPU / (Length × Cores) is
	// the share of them the client used in the interval.
	Cores int `json:"cores"`
	// HostBusyCPU is the CPU time (ns) every core of the machine spent on
	// anything but idling: user, nice, system, irq, softirq and steal of
	// /proc/stat (proc(5)); guest and guest_nice are already inside user
	// and nice. HostCPU is that plus idle and iowait: all the machine's
	// CPU time over the interval, about Length × its cores. Both come in
	// ticks of USER_HZ, 100 per second on Linux (10 ms each; proc(5)), so
	// they are exact to ±10 ms per core.
	HostBusyCPU time.Duration `json:"host_busy_cpu_ns,omitempty"`
	HostCPU     time.Duration `json:"host_cpu_ns,omitempty"`
	// Hosts is how many machines' /proc/stat the host figures add up (1
	// for a run on Linux). 0 means none was read (another platform, or a
	// merge with a part that had none): the host figures are absent, not
	// zero.
	Hosts int `json:"hosts,omitempty"`
}

// Utilization returns the share (0..1) of its cores the client used over
// an interval of length; 0 when length or Cores is not positive.
func (c *IntervalCPU) Utilization(length time.Duration) float64 {
	if length <= 0 || c.Cores <= 0 {
		return 0
	}
	return c.ClientCPU.Seconds() / (length.Seconds() * float64(c.Cores))
}

// Validate checks what a reader relies on: no negative figure, at least
// one core, and the machine's busy time within its total.
func (c *IntervalCPU) Validate() error {
	switch {
	case c.ClientCPU < 0 || c.HostBusyCPU < 0 || c.HostCPU < 0 || c.Hosts < 0:
		return fmt.Errorf("interval CPU has a negative figure (client %d ns, host busy %d ns of %d ns, %d hosts)",
			c.ClientCPU, c.HostBusyCPU, c.HostCPU, c.Hosts)
	case c.Cores < 1:
		return fmt.Errorf("interval CPU on %d cores (must be at least 1)", c.Cores)
	case c.HostBusyCPU > c.HostCPU:
		return fmt.Errorf("interval CPU: host busy %d ns is more than the host's total %d ns", c.HostBusyCPU, c.HostCPU)
	}
	return nil
}

// userHZ is the unit of /proc/stat's times: USER_HZ ticks per second,
// 100 on every Linux architecture (proc(5), sysconf(_SC_CLK_TCK)).
const userHZ = 100

// parseProcStat reads the aggregate "cpu" line of /proc/stat's text: busy
// is user+nice+system+irq+softirq+steal, total is busy+idle+iowait (the
// guest fields are inside user and nice, so they are not added again).
// Kernels before 2.6.11 lack the later fields, which read as 0. The error
// says what is missing or not a number.
func parseProcStat(s string) (busy, total time.Duration, err error) {
	var line string
	for l := range strings.Lines(s) {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "cpu" {
			line = l
			break
		}
	}
	if line == "" {
		return 0, 0, fmt.Errorf("/proc/stat has no aggregate \"cpu\" line")
	}
	f := strings.Fields(line)[1:]
	if len(f) < 4 {
		return 0, 0, fmt.Errorf("/proc/stat \"cpu\" line has %d fields, want at least 4 (user nice system idle)", len(f))
	}
	var v [8]int64 // user nice system idle iowait irq softirq steal
	for i := range min(len(f), len(v)) {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil || n < 0 {
			return 0, 0, fmt.Errorf("/proc/stat \"cpu\" field %d is %q, not a count of ticks", i+1, f[i])
		}
		v[i] = n
	}
	tick := time.Second / userHZ
	b := v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
	return time.Duration(b) * tick, time.Duration(b+v[3]+v[4]) * tick, nil
}

// readProcStat returns /proc/stat's text; a variable so tests can give
// their own (there is no other way to make a machine's counters known).
var readProcStat = func() (string, error) {
	b, err := os.ReadFile("/proc/stat")
	return string(b), err
}

// cpuReading is one reading of the process's usage and the machine's
// /proc/stat counters (hostOK false when they could not be read).
type cpuReading struct {
	u                 usage
	hostBusy, hostAll time.Duration
	hostOK            bool
}

func readCPU() cpuReading {
	c := cpuReading{u: readUsage()}
	if runtime.GOOS != "linux" {
		return c
	}
	if s, err := readProcStat(); err == nil {
		if b, t, err := parseProcStat(s); err == nil {
			c.hostBusy, c.hostAll, c.hostOK = b, t, true
		}
	}
	return c
}

// cpuChain hands out chained readings: each interval's figures run from
// the previous reading to a new one.
type cpuChain struct{ first, prev cpuReading }

func newCPUChain() *cpuChain {
	r := readCPU()
	return &cpuChain{first: r, prev: r}
}

// next reads again and returns the CPU since the last reading; nil when
// getrusage is unavailable.
func (c *cpuChain) next() *IntervalCPU {
	cur := readCPU()
	a := c.prev
	c.prev = cur
	if !a.u.ok || !cur.u.ok {
		return nil
	}
	iv := &IntervalCPU{ClientCPU: cur.u.user + cur.u.sys - a.u.user - a.u.sys, Cores: runtime.NumCPU()}
	if a.hostOK && cur.hostOK && cur.hostAll >= a.hostAll && cur.hostBusy >= a.hostBusy {
		iv.HostBusyCPU, iv.HostCPU, iv.Hosts = cur.hostBusy-a.hostBusy, cur.hostAll-a.hostAll, 1
		iv.HostBusyCPU = min(iv.HostBusyCPU, iv.HostCPU)
	}
	return iv
}

// whole is the client's cost from the first reading to the last.
func (c *cpuChain) whole() *ClientCost { return clientCost(c.first.u, c.prev.u) }

// mergeIntervalCPU merges one interval's CPU figures of merged parts,
// procs[i] naming the process of cs[i] (ClientCost.Process; "" when
// unknown): parts of one process saw the same process-wide counters, so
// the largest stands; different processes add up. Cores and host figures
// count each host once and add across hosts; host figures are dropped
// when a host has none, so a partial sum never passes for the whole. nil
// when any part has none.
func mergeIntervalCPU(procs []string, cs []*IntervalCPU) *IntervalCPU {
	if len(cs) == 0 || slices.Contains(cs, nil) {
		return nil
	}
	byProc := map[string]*IntervalCPU{}
	var order []string
	for i, c := range cs {
		key := procs[i]
		if key == "" || key == mergedProcess {
			key = fmt.Sprintf("%s#%d", key, i) // unknown or already a sum: add it
		}
		if b, ok := byProc[key]; !ok {
			order = append(order, key)
			byProc[key] = c
		} else if c.ClientCPU > b.ClientCPU {
			byProc[key] = c
		}
	}
	m := &IntervalCPU{}
	hosts, hostless := map[string]bool{}, false
	for _, p := range order {
		c := byProc[p]
		m.ClientCPU += c.ClientCPU
		if h := hostOf(p); h != "" && hosts[h] {
			continue
		} else if h != "" {
			hosts[h] = true
		}
		m.Cores += c.Cores
		hostless = hostless || c.Hosts == 0
		m.HostBusyCPU += c.HostBusyCPU
		m.HostCPU += c.HostCPU
		m.Hosts += c.Hosts
	}
	if hostless {
		m.HostBusyCPU, m.HostCPU, m.Hosts = 0, 0, 0
	}
	return m
}

// peakUtilization is the highest share of its cores the client used in
// one interval of ivs (IntervalCPU.Utilization), over the intervals with
// CPU figures at least half the median such interval's length, so a
// sliver at a phase's end cannot stand for a peak; 0 when none has CPU.
func peakUtilization(ivs []Interval) float64 {
	var lengths []time.Duration
	for _, iv := range ivs {
		if iv.CPU != nil && iv.Length > 0 {
			lengths = append(lengths, iv.Length)
		}
	}
	if len(lengths) == 0 {
		return 0
	}
	slices.Sort(lengths)
	median := lengths[len(lengths)/2]
	peak := 0.0
	for _, iv := range ivs {
		if iv.CPU != nil && iv.Length > 0 && 2*iv.Length >= median {
			peak = max(peak, iv.CPU.Utilization(iv.Length))
		}
	}
	return peak
}
