package oltp

import (
	"strings"
	"testing"
	"time"
)

func cost(proc string, start, end int, cpuMs int64) *ClientCost {
	return &ClientCost{
		Process: proc, Processes: 1, Cores: 2,
		UserCPU: time.Duration(cpuMs) * time.Millisecond, SystemCPU: time.Duration(cpuMs) * time.Millisecond,
		VoluntaryCtxSwitches: cpuMs, InvoluntaryCtxSwitches: 1,
		Start: t0.Add(time.Duration(start) * time.Second), End: t0.Add(time.Duration(end) * time.Second),
	}
}

// TestMergeClientCost: one process's overlapping windows are one reading
// of the process (the largest stands); disjoint windows and different
// processes add up; a part without a cost makes the merge have none.
func TestMergeClientCost(t *testing.T) {
	for _, tc := range []struct {
		name            string
		in              []*ClientCost
		cpuMs           int64 // user+system of the merge
		vcs             int64
		procs, cores    int
		start, end      int
		nilWant, single bool
	}{
		{name: "one", in: []*ClientCost{cost("a", 0, 10, 5)}, cpuMs: 10, vcs: 5, procs: 1, cores: 2, end: 10},
		{name: "same process at once", in: []*ClientCost{cost("a", 0, 10, 5), cost("a", 1, 11, 7), cost("a", 0, 10, 6)},
			cpuMs: 14, vcs: 7, procs: 1, cores: 2, end: 11},
		{name: "same process one after another", in: []*ClientCost{cost("a", 0, 10, 5), cost("a", 10, 20, 7)},
			cpuMs: 24, vcs: 12, procs: 1, cores: 2, end: 20},
		{name: "two processes", in: []*ClientCost{cost("a", 0, 10, 5), cost("b", 0, 10, 7)},
			cpuMs: 24, vcs: 12, procs: 2, cores: 4, end: 10},
		{name: "merged parts add up", in: []*ClientCost{
			{Process: mergedProcess, Processes: 2, Cores: 4, UserCPU: time.Millisecond, Start: t0, End: t0.Add(time.Second)},
			{Process: mergedProcess, Processes: 3, Cores: 6, UserCPU: time.Millisecond, Start: t0, End: t0.Add(time.Second)}},
			cpuMs: 2, procs: 5, cores: 10, end: 1},
		{name: "a part without", in: []*ClientCost{cost("a", 0, 10, 5), nil}, nilWant: true},
		{name: "none", nilWant: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := MergeClientCost(tc.in)
			if tc.nilWant {
				if m != nil {
					t.Fatalf("merge = %+v, want nil", m)
				}
				return
			}
			if m == nil {
				t.Fatal("merge = nil")
			}
			if m.CPU() != time.Duration(tc.cpuMs)*time.Millisecond || m.VoluntaryCtxSwitches != tc.vcs ||
				m.Processes != tc.procs || m.Cores != tc.cores {
				t.Errorf("merge: cpu %v vcs %d processes %d cores %d, want %dms %d %d %d",
					m.CPU(), m.VoluntaryCtxSwitches, m.Processes, m.Cores, tc.cpuMs, tc.vcs, tc.procs, tc.cores)
			}
			if !m.Start.Equal(t0.Add(time.Duration(tc.start)*time.Second)) || !m.End.Equal(t0.Add(time.Duration(tc.end)*time.Second)) {
				t.Errorf("merge window %v..%v", m.Start.Sub(t0), m.End.Sub(t0))
			}
		})
	}
}

// TestClientCostSummary: per-event figures and the share of the cores.
func TestClientCostSummary(t *testing.T) {
	c := &ClientCost{Processes: 1, Cores: 2, UserCPU: 6 * time.Second, SystemCPU: 2 * time.Second,
		VoluntaryCtxSwitches: 150_000, InvoluntaryCtxSwitches: 50_000, Start: t0, End: t0.Add(10 * time.Second)}
	got := c.Summary(100_000, "transaction")
	want := "Client: 8.00 s CPU (80.0 µs per transaction, 40% of 2 cores), 1.50 voluntary and 0.50 involuntary context switches per transaction"
	if got != want {
		t.Errorf("summary\n got %s\nwant %s", got, want)
	}
	if cpu, _, _ := c.PerEvent(0); cpu != 0 {
		t.Errorf("per event of none: %v", cpu)
	}
}

// TestClientCostBound: above 80% of its cores a client is marked
// client-bound, at or below it is not.
func TestClientCostBound(t *testing.T) {
	for _, tc := range []struct {
		cpu   time.Duration // over 10 s on 2 cores
		bound bool
	}{{8 * time.Second, false}, {16 * time.Second, false}, {16*time.Second + time.Millisecond, true}, {20 * time.Second, true}} {
		c := &ClientCost{Processes: 1, Cores: 2, UserCPU: tc.cpu, Start: t0, End: t0.Add(10 * time.Second)}
		s := c.Summary(1000, "transaction")
		if c.Bound() != tc.bound || strings.Contains(s, "CLIENT-BOUND") != tc.bound {
			t.Errorf("%s CPU in 10 s on 2 cores: Bound %v, summary %q; want bound %v", tc.cpu, c.Bound(), s, tc.bound)
		}
	}
}

// TestClientCostShares: a process that also ran the database says so, and
// a merge keeps the note.
func TestClientCostShares(t *testing.T) {
	a, b := cost("a", 0, 10, 5), cost("b", 0, 10, 5)
	b.Shares = "the SQLite database engine"
	m := MergeClientCost([]*ClientCost{a, b})
	if m.Shares != b.Shares {
		t.Errorf("merged shares %q", m.Shares)
	}
	want := "; the process also ran the SQLite database engine, whose work is included, so this is not the client's cost alone"
	if got := m.Summary(100, "transaction"); !strings.HasSuffix(got, want) {
		t.Errorf("summary %q lacks %q", got, want)
	}
}

// TestClientCostValidate: a reader refuses figures no process could have
// measured.
func TestClientCostValidate(t *testing.T) {
	ok := func() *ClientCost { return cost("a", 0, 10, 5) }
	for _, tc := range []struct {
		name string
		edit func(*ClientCost)
		want string // "" for valid
	}{
		{"valid", func(*ClientCost) {}, ""},
		{"negative CPU", func(c *ClientCost) { c.UserCPU = -1 }, "negative figure"},
		{"negative switches", func(c *ClientCost) { c.InvoluntaryCtxSwitches = -1 }, "negative figure"},
		{"no cores", func(c *ClientCost) { c.Cores = -2 }, "on -2 cores"},
		{"no processes", func(c *ClientCost) { c.Processes = 0 }, "of 0 processes"},
		{"backwards window", func(c *ClientCost) { c.End = c.Start.Add(-time.Second) }, "before it starts"},
		{"near int64", func(c *ClientCost) { c.UserCPU = 1<<63 - 1 }, "is beyond"},
		{"more than the cores give", func(c *ClientCost) { c.UserCPU = 21 * time.Second }, "more than 2 cores could give in its 10s window"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok()
			tc.edit(c)
			err := c.Validate()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Validate() = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestMergeClientCostCoresPerHost: processes on one host (a simulated
// campaign's agents) share its cores, which count once; another host's
// add up.
func TestMergeClientCostCoresPerHost(t *testing.T) {
	for _, tc := range []struct {
		procs        []string
		cores, procN int
	}{
		{[]string{"h1/10/1", "h1/11/1", "h1/12/1"}, 2, 3},
		{[]string{"h1/10/1", "h2/10/1"}, 4, 2},
		{[]string{"h1/10/1", "h1/11/1", "h2/10/1"}, 4, 3},
	} {
		var cs []*ClientCost
		for _, p := range tc.procs {
			cs = append(cs, cost(p, 0, 10, 100))
		}
		m := MergeClientCost(cs)
		if m.Cores != tc.cores || m.Processes != tc.procN {
			t.Errorf("%v: %d cores in %d processes, want %d in %d", tc.procs, m.Cores, m.Processes, tc.cores, tc.procN)
		}
	}
}

// TestClientCostSummaryPeak: a recorded peak interval share shows beside
// the average; it does not make the client bound.
func TestClientCostSummaryPeak(t *testing.T) {
	c := &ClientCost{Processes: 1, Cores: 2, UserCPU: 8 * time.Second, PeakUtilization: 0.834,
		Start: t0, End: t0.Add(10 * time.Second)}
	got := c.Summary(100_000, "transaction")
	want := "Client: 8.00 s CPU (80.0 µs per transaction, 40% of 2 cores, peak interval 83%), 0.00 voluntary and 0.00 involuntary context switches per transaction"
	if got != want || c.Bound() {
		t.Errorf("summary\n got %s\nwant %s (bound %v)", got, want, c.Bound())
	}
}
