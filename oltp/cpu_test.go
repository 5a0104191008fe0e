package oltp

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestParseProcStat: busy is user+nice+system+irq+softirq+steal, total
// adds idle and iowait, the guest fields are not added again, and a line
// that is not /proc/stat's is refused naming what is wrong.
func TestParseProcStat(t *testing.T) {
	for _, tc := range []struct {
		name        string
		in          string
		busy, total time.Duration // in ticks of 10 ms
		err         string
	}{
		{"kernel 2.6.33+", "cpu  100 2 30 500 7 1 4 6 50 1\ncpu0 50 1 15 250 3 0 2 3 25 0\nintr 1\n", 143, 650, ""},
		{"four fields", "cpu 10 0 5 85\n", 15, 100, ""},
		{"per-cpu lines only", "cpu0 1 2 3 4\n", 0, 0, `no aggregate "cpu" line`},
		{"empty", "", 0, 0, `no aggregate "cpu" line`},
		{"too few fields", "cpu 1 2 3\n", 0, 0, "has 3 fields, want at least 4"},
		{"not a number", "cpu 1 x 3 4\n", 0, 0, `field 2 is "x"`},
		{"negative", "cpu 1 2 3 -4\n", 0, 0, `field 4 is "-4"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			busy, total, err := parseProcStat(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || busy != tc.busy*10*time.Millisecond || total != tc.total*10*time.Millisecond {
				t.Errorf("busy %v total %v err %v, want %v %v", busy, total, err, tc.busy*10*time.Millisecond, tc.total*10*time.Millisecond)
			}
		})
	}
}

// fakeProcStat replaces /proc/stat's text (a machine's counters cannot be
// made known otherwise) with one that advances 3 busy and 7 idle ticks a
// reading, and returns how many readings were taken.
func fakeProcStat(t *testing.T) *atomic.Int64 {
	var n atomic.Int64
	old := readProcStat
	readProcStat = func() (string, error) {
		k := n.Add(1)
		return fmt.Sprintf("cpu  %d 0 0 %d 0 0 0 0 0 0\n", 3*k, 7*k), nil
	}
	t.Cleanup(func() { readProcStat = old })
	return &n
}

// TestIntervalsRecordCPU: every interval of both phases and every report
// carries the CPU since the previous reading, chained, so the intervals'
// client CPU adds up to the phase's whole-run figure; on Linux the host
// figures are the /proc/stat deltas between readings.
func TestIntervalsRecordCPU(t *testing.T) {
	fakeProcStat(t)
	synctest.Test(t, func(t *testing.T) {
		var reports, withCPU int
		res, err := Run(t.Context(), sleeperSpec(10*time.Millisecond, 0), RunConfig{
			Threads: 2, Time: 3*time.Second + 5*time.Millisecond, WarmupTime: time.Second + 5*time.Millisecond, ReportInterval: time.Second,
			OnInterval: func(r IntervalReport) {
				reports++
				if r.CPU != nil {
					withCPU++
				}
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if reports == 0 || withCPU != reports {
			t.Errorf("%d of %d reports carry CPU", withCPU, reports)
		}
		for _, r := range []*Result{res, res.Precondition} {
			if r.Client == nil || len(r.Intervals) == 0 {
				t.Fatalf("%s: client %v, %d intervals", r.Phase, r.Client, len(r.Intervals))
			}
			var sum time.Duration
			for i, iv := range r.Intervals {
				c := iv.CPU
				if c == nil {
					t.Fatalf("%s interval %d has no CPU", r.Phase, i+1)
				}
				sum += c.ClientCPU
				if c.Cores != runtime.NumCPU() {
					t.Errorf("%s interval %d: %d cores, want %d", r.Phase, i+1, c.Cores, runtime.NumCPU())
				}
				if runtime.GOOS == "linux" && (c.Hosts != 1 || c.HostBusyCPU != 30*time.Millisecond || c.HostCPU != 100*time.Millisecond) {
					t.Errorf("%s interval %d host figures %+v, want 1 host, 30ms busy of 100ms", r.Phase, i+1, c)
				}
			}
			if sum != r.Client.CPU() {
				t.Errorf("%s: intervals' client CPU adds up to %v, whole run %v", r.Phase, sum, r.Client.CPU())
			}
			if err := r.Validate(); err != nil {
				t.Error(err)
			}
		}
	})
}

// TestIntervalCPURoundTrip: the CPU figures survive the Result file, and
// host figures absent stay absent.
func TestIntervalCPURoundTrip(t *testing.T) {
	r := result("w", t0, 1, 2)
	r.Client = cost("h/1/1", 0, 10, 500)
	r.Client.PeakUtilization = 0.83
	want := IntervalCPU{ClientCPU: time.Second, Cores: 2, HostBusyCPU: 3 * time.Second, HostCPU: 20 * time.Second, Hosts: 1}
	r.Intervals = append(r.Intervals, r.Intervals[0], r.Intervals[0])
	r.Intervals[0].CPU = &want
	r.Intervals[1].CPU = &IntervalCPU{ClientCPU: time.Millisecond, Cores: 2}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"cpu":{"client_cpu_ns":1000000000,"cores":2,"host_busy_cpu_ns":3000000000,"host_cpu_ns":20000000000,"hosts":1}`,
		`"cpu":{"client_cpu_ns":1000000,"cores":2}`, `"peak_interval_utilization":0.83`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("JSON lacks %s:\n%s", k, b)
		}
	}
	got, err := DecodeResult("r.json", b)
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Intervals[0].CPU; c == nil || *c != want {
		t.Errorf("interval 1 CPU read back %+v, want %+v", c, want)
	}
	if c := got.Intervals[1].CPU; c == nil || c.Hosts != 0 || c.ClientCPU != time.Millisecond {
		t.Errorf("interval 2 CPU read back %+v", c)
	}
	if got.Intervals[2].CPU != nil || got.Client.PeakUtilization != 0.83 {
		t.Errorf("interval 3 CPU %+v, peak %g", got.Intervals[2].CPU, got.Client.PeakUtilization)
	}
}

// TestIntervalCPUValidate: a reader refuses figures no reading gives.
func TestIntervalCPUValidate(t *testing.T) {
	r := result("w", t0, 1)
	r.Intervals[0].CPU = &IntervalCPU{ClientCPU: time.Second, Cores: 2, HostBusyCPU: 5 * time.Second, HostCPU: 4 * time.Second, Hosts: 1}
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "interval 1: interval CPU: host busy") {
		t.Errorf("busy above total: %v", err)
	}
	r.Intervals[0].CPU = &IntervalCPU{ClientCPU: -1, Cores: 2}
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "negative figure") {
		t.Errorf("negative: %v", err)
	}
	r.Intervals[0].CPU = &IntervalCPU{Cores: 0}
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "on 0 cores") {
		t.Errorf("no cores: %v", err)
	}
}

// TestMergeIntervalCPU: parts of one process are one reading (the largest
// stands); different processes add up; cores and host figures count each
// host once; a host without host figures drops them; a part without CPU
// drops the merged interval's.
func TestMergeIntervalCPU(t *testing.T) {
	c := func(ms int64, hosts int) *IntervalCPU {
		iv := &IntervalCPU{ClientCPU: time.Duration(ms) * time.Millisecond, Cores: 2}
		if hosts > 0 {
			iv.HostBusyCPU, iv.HostCPU, iv.Hosts = time.Second, 2*time.Second, hosts
		}
		return iv
	}
	for _, tc := range []struct {
		name  string
		procs []string
		in    []*IntervalCPU
		want  *IntervalCPU
	}{
		{"one", []string{"h1/1/1"}, []*IntervalCPU{c(5, 1)}, c(5, 1)},
		{"same process", []string{"h1/1/1", "h1/1/1"}, []*IntervalCPU{c(5, 1), c(7, 1)}, c(7, 1)},
		{"two processes one host", []string{"h1/1/1", "h1/2/1"}, []*IntervalCPU{c(5, 1), c(7, 1)},
			&IntervalCPU{ClientCPU: 12 * time.Millisecond, Cores: 2, HostBusyCPU: time.Second, HostCPU: 2 * time.Second, Hosts: 1}},
		{"two hosts", []string{"h1/1/1", "h2/1/1"}, []*IntervalCPU{c(5, 1), c(7, 1)},
			&IntervalCPU{ClientCPU: 12 * time.Millisecond, Cores: 4, HostBusyCPU: 2 * time.Second, HostCPU: 4 * time.Second, Hosts: 2}},
		{"a host without host figures", []string{"h1/1/1", "h2/1/1"}, []*IntervalCPU{c(5, 1), c(7, 0)},
			&IntervalCPU{ClientCPU: 12 * time.Millisecond, Cores: 4}},
		{"merged parts add up", []string{mergedProcess, mergedProcess}, []*IntervalCPU{c(5, 2), c(7, 3)},
			&IntervalCPU{ClientCPU: 12 * time.Millisecond, Cores: 4, HostBusyCPU: 2 * time.Second, HostCPU: 4 * time.Second, Hosts: 5}},
		{"unknown processes add up", []string{"", ""}, []*IntervalCPU{c(5, 0), c(7, 0)}, &IntervalCPU{ClientCPU: 12 * time.Millisecond, Cores: 4}},
		{"a part without", []string{"h1/1/1", "h2/1/1"}, []*IntervalCPU{c(5, 1), nil}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mergeIntervalCPU(tc.procs, tc.in)
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
				t.Errorf("merge = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestMergeKeepsIntervalCPU: Merge merges the intervals' CPU by the parts'
// processes and takes the merged client's peak from the merged intervals.
func TestMergeKeepsIntervalCPU(t *testing.T) {
	a, b := result("w", t0, 1), result("w", t0, 2)
	a.Client, b.Client = cost("h1/1/1", 0, 10, 5000), cost("h2/1/1", 0, 10, 3000)
	a.Intervals[0].CPU = &IntervalCPU{ClientCPU: 10 * time.Second, Cores: 2}
	b.Intervals[0].CPU = &IntervalCPU{ClientCPU: 6 * time.Second, Cores: 2}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Intervals[0].CPU; c == nil || c.ClientCPU != 16*time.Second || c.Cores != 4 {
		t.Errorf("merged interval CPU %+v, want 16s on 4 cores", c)
	}
	if m.Client.PeakUtilization != 0.4 {
		t.Errorf("merged peak %g, want 0.4 (16 s of 4 cores × 10 s)", m.Client.PeakUtilization)
	}
}

// TestPeakUtilization: the highest interval share, ignoring intervals
// shorter than half the median and intervals without CPU figures.
func TestPeakUtilization(t *testing.T) {
	iv := func(length time.Duration, cpu time.Duration) Interval {
		return Interval{Length: length, CPU: &IntervalCPU{ClientCPU: cpu, Cores: 2}}
	}
	for _, tc := range []struct {
		name string
		in   []Interval
		want float64
	}{
		{"none", nil, 0},
		{"no CPU figures", []Interval{{Length: time.Second}}, 0},
		{"highest", []Interval{iv(time.Second, time.Second), iv(time.Second, 1660*time.Millisecond), iv(time.Second, 200*time.Millisecond)}, 0.83},
		{"a sliver at the end is not a peak", []Interval{iv(time.Second, time.Second), iv(time.Second, time.Second), iv(100*time.Millisecond, 200*time.Millisecond)}, 0.5},
		{"half the median counts", []Interval{iv(time.Second, 0), iv(time.Second, 0), iv(500*time.Millisecond, 600*time.Millisecond)}, 0.6},
		{"an interval without CPU is skipped", []Interval{iv(time.Second, time.Second), {Length: time.Second}}, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := peakUtilization(tc.in); got < tc.want-1e-9 || got > tc.want+1e-9 {
				t.Errorf("peak %g, want %g", got, tc.want)
			}
		})
	}
}
