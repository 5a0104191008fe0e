package vsphere

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/simulator/vpx"
	"github.com/vmware/govmomi/vim25/types"
)

// perfWindow returns a 300 s window (a fixed date, aligned to 20 s) in
// which vcsim's canned host cpu.usage.average samples all stay at or
// under 50% before its noise. vcsim serves, for a window starting at S,
// its canned values from index S/20 on and adds Gaussian noise of a fifth
// of the value: from 50% that passes 100% only at five standard
// deviations, so the test's [0, 100] check cannot flake in practice.
func perfWindow(t *testing.T) (time.Time, time.Time) {
	t.Helper()
	points := vpx.HostMetricData[2] // cpu.usage.average's key in vcsim's VPX model
	const n = 16                    // vcsim's samples in 300 s: end, end-20s, ..., start
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).Unix() / 20 / int64(len(points)) * int64(len(points))
	for k := range len(points) {
		low := true
		for i := range n {
			if points[(k+i)%len(points)] > 5000 {
				low = false
			}
		}
		if low {
			start := time.Unix((base+int64(k))*20, 0).UTC()
			return start, start.Add(300 * time.Second)
		}
	}
	t.Fatal("vcsim's canned host cpu.usage has no 300 s stretch under 50%")
	return time.Time{}, time.Time{}
}

// ReadCounters against vcsim: every host of the VMs has a host CPU series
// in percent within [0, 100], with exactly the 15 samples that lie wholly
// inside the 300 s window (vcsim honours StartTime/EndTime but also
// returns a sample ending at the start, which covers time before the
// window, and returns them newest first); VM CPU ready is in percent per
// vCPU; datastore series name their datastore; the vDisk counters, which
// vcsim defines but does not offer on VMs, are listed as missing, and
// nothing else is.
func TestReadCountersSimulator(t *testing.T) {
	t.Parallel()
	s, _, vms := simVMs(t)
	start, end := perfWindow(t)
	r, err := s.ReadCounters(t.Context(), PerfQuery{Start: start, End: end, VMs: vms})
	if err != nil {
		t.Fatal(err)
	}
	if r.Interval != 20*time.Second || !r.Start.Equal(start) || !r.End.Equal(end) {
		t.Errorf("report window %s..%s interval %s", r.Start, r.End, r.Interval)
	}
	f, err := s.Facts(t.Context(), vms, nil)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string][]CounterSeries{}
	for _, cs := range r.Series {
		byKey[cs.EntityKind+" "+cs.Counter] = append(byKey[cs.EntityKind+" "+cs.Counter], cs)
		if len(cs.Times) != 15 || len(cs.Values) != 15 {
			t.Errorf("%s %s %q: %d times, %d values, want 15", cs.Entity, cs.Counter, cs.Instance, len(cs.Times), len(cs.Values))
		}
		if cs.Interval != PerfInterval {
			t.Errorf("%s %s: interval %s", cs.Entity, cs.Counter, cs.Interval)
		}
		for i, at := range cs.Times {
			if at.Add(-cs.Interval).Before(start) || at.After(end) || (i > 0 && !at.After(cs.Times[i-1])) {
				t.Errorf("%s %s: sample %d ends at %s: outside [%s+20s, %s] or not ascending", cs.Entity, cs.Counter, i, at, start, end)
			}
		}
		for _, v := range cs.Values {
			if v < 0 {
				t.Errorf("%s %s: negative value %g", cs.Entity, cs.Counter, v)
			}
		}
	}

	cpu := byKey["host "+CounterCPUUsage]
	if len(cpu) != len(f.Hosts) || len(cpu) == 0 {
		t.Fatalf("host cpu.usage series for %d hosts, the VMs run on %d", len(cpu), len(f.Hosts))
	}
	for i, cs := range cpu {
		if cs.Unit != UnitPercent || cs.Entity != f.Hosts[i].Ref || cs.EntityName != f.Hosts[i].Name || cs.Instance != "" {
			t.Errorf("host cpu series %+v, host %+v", cs, f.Hosts[i])
		}
		sum := cs.Summary()
		if sum.Samples != 15 || sum.Max > 100 || sum.Mean <= 0 || sum.Mean > sum.Max {
			t.Errorf("host cpu %s: values %v summary %+v: want in [0, 100], mean > 0", cs.Entity, cs.Values, sum)
		}
	}
	for _, key := range []string{"vm " + CounterCPUReady} {
		if got := byKey[key]; len(got) != len(vms) {
			t.Errorf("%s: %d series, want one per VM", key, len(got))
		}
		for _, cs := range byKey[key] {
			if cs.Unit != UnitPercentPerVCPU || cs.Summary().Max > 100 || !slices.Contains(vms, cs.Entity) {
				t.Errorf("%s %s: unit %q max %g", key, cs.Entity, cs.Unit, cs.Summary().Max)
			}
		}
	}
	for key, unit := range map[string]string{"host " + CounterMemUsage: UnitPercent, "vm " + CounterMemUsage: UnitPercent,
		"host " + CounterMemBalloon: UnitKB} {
		if got := byKey[key]; len(got) != len(f.Hosts) && len(got) != len(vms) || firstUnit(got) != unit {
			t.Errorf("%s: %d series (unit %q), want one per entity in %q", key, len(got), firstUnit(got), unit)
		}
	}

	// What vcsim does not give: the vDisk counters are defined but not
	// offered on VMs; and every series with a zero in the window comes
	// back shorter than its sample times (vcsim encodes the values with
	// omitempty, so zeros vanish and the rest cannot be placed in time):
	// VM cpu.costop and mem.vmmemctl (its canned data is mostly or all
	// zeros) and the host datastore counters (it has no data for them).
	hosts := make([]string, len(f.Hosts))
	for i, h := range f.Hosts {
		hosts[i] = h.Ref
	}
	type miss struct{ counter, kind, reason string }
	want := []miss{
		{CounterDatastoreReadLatency, KindHost, ReasonMisaligned}, {CounterDatastoreWriteLatency, KindHost, ReasonMisaligned},
		{CounterDatastoreReadIOPS, KindHost, ReasonMisaligned}, {CounterDatastoreWriteIOPS, KindHost, ReasonMisaligned},
		{CounterCPUCostop, KindVM, ReasonMisaligned}, {CounterMemBalloon, KindVM, ReasonMisaligned},
		{CounterVDiskReadLatency, KindVM, ReasonUnavailable}, {CounterVDiskWriteLatency, KindVM, ReasonUnavailable},
		{CounterVDiskReadIOPS, KindVM, ReasonUnavailable}, {CounterVDiskWriteIOPS, KindVM, ReasonUnavailable},
	}
	var got []miss
	for _, m := range r.Missing {
		got = append(got, miss{m.Counter, m.EntityKind, m.Reason})
		if on := map[string][]string{KindHost: hosts, KindVM: vms}[m.EntityKind]; !slices.Equal(m.Entities, on) {
			t.Errorf("missing %s: want it named on %v", m, on)
		}
		if byKey[m.EntityKind+" "+m.Counter] != nil {
			t.Errorf("missing %s has series", m)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("missing\n%v\nwant\n%v", got, want)
	}
}

func firstUnit(l []CounterSeries) string {
	if len(l) == 0 {
		return ""
	}
	return l[0].Unit
}

// A counter the server does not define (removed from vcsim's counter
// list) is skipped and named; the rest are still read.
func TestReadCountersUnknownCounter(t *testing.T) {
	t.Parallel()
	s, sim, vms := simVMs(t)
	reg := sim.model.Map()
	pm := reg.Get(*s.Client.ServiceContent.PerfManager).(*simulator.PerformanceManager)
	reg.WithLock(sim.model.Service.Context, pm, func() {
		pm.PerfCounter = slices.DeleteFunc(slices.Clone(pm.PerfCounter), func(c types.PerfCounterInfo) bool { return c.Name() == CounterCPUCostop })
	})
	start, end := perfWindow(t)
	r, err := s.ReadCounters(t.Context(), PerfQuery{Start: start, End: end, VMs: vms[:1]})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range r.Missing {
		if m.Counter == CounterCPUCostop {
			found = m.Reason == ReasonUnknown && slices.Equal(m.Entities, vms[:1])
		}
	}
	if !found {
		t.Errorf("missing %v: want %s named as unknown on %s", r.Missing, CounterCPUCostop, vms[0])
	}
	for _, cs := range r.Series {
		if cs.Counter == CounterCPUCostop {
			t.Errorf("a %s series was read: %+v", CounterCPUCostop, cs)
		}
	}
	if !slices.ContainsFunc(r.Series, func(cs CounterSeries) bool { return cs.Counter == CounterCPUReady }) {
		t.Error("cpu.ready was not read")
	}
}

// A window shorter than one sample holds no whole sample: every counter is
// listed as missing (no sample, or one of vcsim's gaps; see
// TestReadCountersSimulator), and that is not an error. A reversed window, no
// entity and an unknown VM are errors.
func TestReadCountersEdges(t *testing.T) {
	t.Parallel()
	s, _, vms := simVMs(t)
	start, _ := perfWindow(t)
	r, err := s.ReadCounters(t.Context(), PerfQuery{Start: start, End: start.Add(10 * time.Second), VMs: vms[:1]})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Series) != 0 || len(r.Missing) == 0 {
		t.Fatalf("10 s window: %d series, missing %v", len(r.Series), r.Missing)
	}
	for _, m := range r.Missing {
		if m.Reason == ReasonUnknown {
			t.Errorf("10 s window: %s", m)
		}
	}
	ctx := context.Background()
	_, err = s.ReadCounters(ctx, PerfQuery{Start: start, End: start, VMs: vms})
	mustContain(t, err, "before it starts")
	_, err = s.ReadCounters(ctx, PerfQuery{Start: start, End: start.Add(time.Minute)})
	mustContain(t, err, "no VM and no host")
	_, err = s.ReadCounters(ctx, PerfQuery{Start: start, End: start.Add(time.Minute), VMs: []string{"vm-424242"}})
	mustContain(t, err, "vm-424242")
}

// The conversions the Counter* constants state.
func TestConvertValue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		unit  string
		raw   int64
		iv    time.Duration
		vcpus int
		want  float64
	}{
		{UnitPercent, 5000, PerfInterval, 0, 50},            // hundredths of a percent
		{UnitPercent, 10000, PerfInterval, 0, 100},          //
		{UnitPercentPerVCPU, 1000, PerfInterval, 1, 5},      // 1 s ready of 20 s on one vCPU
		{UnitPercentPerVCPU, 1000, PerfInterval, 4, 1.25},   // the same spread over 4 vCPUs
		{UnitPercentPerVCPU, 20000, PerfInterval, 0, 100},   // vCPUs unknown: counted as one
		{UnitPercentPerVCPU, 3000, 300 * time.Second, 1, 1}, // a 5-minute sample
		{UnitMillisecond, 7, PerfInterval, 0, 7},            //
		{UnitKB, 1048576, PerfInterval, 0, 1048576},         //
		{UnitIOPS, 250, PerfInterval, 0, 250},               //
	} {
		if got := convertValue(c.unit, c.raw, c.iv, c.vcpus); got != c.want {
			t.Errorf("convertValue(%q, %d, %s, %d) = %g, want %g", c.unit, c.raw, c.iv, c.vcpus, got, c.want)
		}
	}
}

func TestSeriesSummary(t *testing.T) {
	t.Parallel()
	if got := (CounterSeries{Values: []float64{2, 8, 5}}).Summary(); got != (SeriesSummary{Mean: 5, Max: 8, Samples: 3}) {
		t.Errorf("summary %+v", got)
	}
	if got := (CounterSeries{}).Summary(); got != (SeriesSummary{}) {
		t.Errorf("empty summary %+v", got)
	}
}
