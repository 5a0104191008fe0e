package vsphere

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vmware/govmomi/performance"
	"github.com/vmware/govmomi/vim25/types"
)

// PerfInterval is the sampling interval ReadCounters reads: vSphere's
// real-time statistics (PerfQuerySpec.IntervalId 20), which ESXi and
// vCenter keep for about an hour. Read a run's counters soon after it ends.
const PerfInterval = 20 * time.Second

// Units of CounterSeries.Unit, after ReadCounters' conversion.
const (
	// UnitPercent: percent, 0 to 100.
	UnitPercent = "%"
	// UnitPercentPerVCPU: percent of the sample's time, averaged over the
	// VM's vCPUs (0 to 100): what vSphere's guidance on CPU ready
	// ("above 5% per vCPU") means.
	UnitPercentPerVCPU = "% per vCPU"
	// UnitMillisecond: milliseconds.
	UnitMillisecond = "ms"
	// UnitKB: kilobytes (KiB, 1,024 bytes), as vSphere's kiloBytes unit.
	UnitKB = "KB"
	// UnitIOPS: I/O commands per second.
	UnitIOPS = "IOPS"
)

// Entity kinds of CounterSeries.EntityKind.
const (
	KindHost = "host"
	KindVM   = "vm"
)

// The vSphere counters ReadCounters reads (name group.counter.rollup, as
// PerformanceManager names them), where, and in which unit it returns them.
// Every one is read at the 20 s real-time interval.
const (
	// CounterCPUUsage: host cpu.usage.average (rollup average, unit
	// percent in hundredths) -> UnitPercent of the host's CPU capacity.
	CounterCPUUsage = "cpu.usage.average"
	// CounterCPUReady: VM cpu.ready.summation (rollup summation, unit ms:
	// time the VM's vCPUs were ready but not scheduled in the sample,
	// summed over vCPUs) -> UnitPercentPerVCPU = ms / (20,000 ms × vCPUs)
	// × 100.
	CounterCPUReady = "cpu.ready.summation"
	// CounterCPUCostop: VM cpu.costop.summation (rollup summation, unit
	// ms: co-scheduling stop time, summed over vCPUs) ->
	// UnitPercentPerVCPU, as CounterCPUReady.
	CounterCPUCostop = "cpu.costop.summation"
	// CounterMemUsage: host and VM mem.usage.average (rollup average,
	// unit percent in hundredths: the host's consumed memory, or the VM's
	// active memory, over its memory size) -> UnitPercent.
	CounterMemUsage = "mem.usage.average"
	// CounterMemBalloon: host and VM mem.vmmemctl.average (rollup
	// average, unit kiloBytes: memory reclaimed by the balloon driver)
	// -> UnitKB.
	CounterMemBalloon = "mem.vmmemctl.average"
	// CounterDatastoreReadLatency and CounterDatastoreWriteLatency: host
	// datastore.totalReadLatency.average and .totalWriteLatency.average
	// (rollup average, unit ms: average time of a read or write command
	// to the datastore, one series per datastore) -> UnitMillisecond.
	CounterDatastoreReadLatency  = "datastore.totalReadLatency.average"
	CounterDatastoreWriteLatency = "datastore.totalWriteLatency.average"
	// CounterDatastoreReadIOPS and CounterDatastoreWriteIOPS: host
	// datastore.numberReadAveraged.average and .numberWriteAveraged.average
	// (rollup average, unit number: commands per second, one series per
	// datastore) -> UnitIOPS.
	CounterDatastoreReadIOPS  = "datastore.numberReadAveraged.average"
	CounterDatastoreWriteIOPS = "datastore.numberWriteAveraged.average"
	// CounterVDiskReadLatency and CounterVDiskWriteLatency: VM
	// virtualDisk.totalReadLatency.average and .totalWriteLatency.average
	// (rollup average, unit ms, one series per vDisk, instance "scsi0:1")
	// -> UnitMillisecond.
	CounterVDiskReadLatency  = "virtualDisk.totalReadLatency.average"
	CounterVDiskWriteLatency = "virtualDisk.totalWriteLatency.average"
	// CounterVDiskReadIOPS and CounterVDiskWriteIOPS: VM
	// virtualDisk.numberReadAveraged.average and .numberWriteAveraged.average
	// (rollup average, unit number: commands per second, one series per
	// vDisk) -> UnitIOPS.
	CounterVDiskReadIOPS  = "virtualDisk.numberReadAveraged.average"
	CounterVDiskWriteIOPS = "virtualDisk.numberWriteAveraged.average"
)

// perfCounter is one row of perfCounters.
type perfCounter struct {
	name string
	kind string // KindHost or KindVM
	// instances: false reads the aggregate instance "" only; true reads
	// every other instance (one per datastore or vDisk).
	instances bool
	unit      string
}

// perfCounters is what ReadCounters reads (see the Counter* constants).
var perfCounters = []perfCounter{
	{CounterCPUUsage, KindHost, false, UnitPercent},
	{CounterMemUsage, KindHost, false, UnitPercent},
	{CounterMemBalloon, KindHost, false, UnitKB},
	{CounterDatastoreReadLatency, KindHost, true, UnitMillisecond},
	{CounterDatastoreWriteLatency, KindHost, true, UnitMillisecond},
	{CounterDatastoreReadIOPS, KindHost, true, UnitIOPS},
	{CounterDatastoreWriteIOPS, KindHost, true, UnitIOPS},
	{CounterCPUReady, KindVM, false, UnitPercentPerVCPU},
	{CounterCPUCostop, KindVM, false, UnitPercentPerVCPU},
	{CounterMemUsage, KindVM, false, UnitPercent},
	{CounterMemBalloon, KindVM, false, UnitKB},
	{CounterVDiskReadLatency, KindVM, true, UnitMillisecond},
	{CounterVDiskWriteLatency, KindVM, true, UnitMillisecond},
	{CounterVDiskReadIOPS, KindVM, true, UnitIOPS},
	{CounterVDiskWriteIOPS, KindVM, true, UnitIOPS},
}

// CounterSeries is one counter of one host or VM (one instance of it)
// over a measured window, converted to Unit. Its fields match those of
// oltp.CounterSeries one for one, so a campaign converts it with a plain
// type conversion.
type CounterSeries struct {
	// Entity is the MoRef value of the host or VM ("host-21", "vm-42"),
	// EntityKind KindHost or KindVM, EntityName its inventory name.
	Entity     string `json:"entity"`
	EntityKind string `json:"entity_kind"`
	EntityName string `json:"entity_name"`
	// Counter is the vSphere counter name (a Counter* constant).
	Counter string `json:"counter"`
	// Instance is vSphere's instance: "" for the whole host or VM, a
	// datastore's UUID (or MoRef value) for datastore.* counters, a vDisk
	// ("scsi0:1") for virtualDisk.* counters. InstanceName is the
	// datastore's name for datastore.* counters, else Instance.
	Instance     string `json:"instance,omitempty"`
	InstanceName string `json:"instance_name,omitempty"`
	// Unit is one of the Unit* constants.
	Unit string `json:"unit"`
	// Interval is the length of each sample (PerfInterval).
	Interval time.Duration `json:"interval_ns"`
	// Times are the samples' ends, ascending; sample i covers
	// (Times[i]-Interval, Times[i]] and Values[i] is its value in Unit.
	Times  []time.Time `json:"times"`
	Values []float64   `json:"values"`
}

// SeriesSummary is the mean and maximum of one series' values, in the
// series' Unit, over Samples samples (all of equal length, so the mean is
// also the time-weighted mean).
type SeriesSummary struct {
	Mean    float64 `json:"mean"`
	Max     float64 `json:"max"`
	Samples int     `json:"samples"`
}

// Summary returns the mean and maximum of the values (zeros when there
// are none).
func (c CounterSeries) Summary() SeriesSummary {
	if len(c.Values) == 0 {
		return SeriesSummary{}
	}
	sum, hi := 0.0, c.Values[0]
	for _, v := range c.Values {
		sum += v
		hi = max(hi, v)
	}
	return SeriesSummary{Mean: sum / float64(len(c.Values)), Max: hi, Samples: len(c.Values)}
}

// MissingCounter is a counter ReadCounters could not read on some
// entities: the server does not define it, does not offer it on them at
// the 20 s interval, or returned no sample for the window. It is not an
// error: the other counters are read.
type MissingCounter struct {
	Counter    string `json:"counter"`
	EntityKind string `json:"entity_kind"`
	// Entities are the MoRef values it is missing on, in the order read.
	Entities []string `json:"entities"`
	Reason   string   `json:"reason"`
}

func (m MissingCounter) String() string {
	return fmt.Sprintf("%s on %s %s: %s", m.Counter, m.EntityKind, strings.Join(m.Entities, ", "), m.Reason)
}

// Reasons of MissingCounter.Reason.
const (
	ReasonUnknown     = "the server does not define this counter"
	ReasonUnavailable = "not offered at the 20 s interval"
	ReasonNoSamples   = "no sample in the window"
	// ReasonMisaligned: the server returned a different number of values
	// than of sample times, so no value can be given its time. vSphere
	// sends one value per sample (-1 for none); vcsim drops the zeros
	// (PerfMetricIntSeries.Value is encoded with omitempty).
	ReasonMisaligned = "value count differs from sample count"
)

// PerfQuery says what ReadCounters reads.
type PerfQuery struct {
	// Start and End bound the measured window. Only samples lying wholly
	// inside it are kept: a sample ending at T covers (T-20s, T], so the
	// first kept sample ends at Start+20s or later and the last at End or
	// earlier.
	Start, End time.Time
	// VMs are MoRef values ("vm-42"). Their hosts are read too.
	VMs []string
	// Hosts are further hosts' MoRef values ("host-21") to read.
	Hosts []string
}

// PerfReport is what ReadCounters read.
type PerfReport struct {
	Start    time.Time     `json:"start"`
	End      time.Time     `json:"end"`
	Interval time.Duration `json:"interval_ns"`
	// Series are the non-empty series, hosts first, then VMs, each in
	// entity name, counter and instance order.
	Series []CounterSeries `json:"series"`
	// Missing are the counters not read, in the order of the table above.
	Missing []MissingCounter `json:"missing,omitempty"`
}

// perfEntity is one host or VM to read.
type perfEntity struct {
	ref   types.ManagedObjectReference
	kind  string
	name  string
	vcpus int
}

// ReadCounters reads, through vSphere's PerformanceManager at the 20 s
// real-time interval, the counters named by the Counter* constants over
// [q.Start, q.End]: on the hosts of q.VMs and on q.Hosts, and on the VMs,
// converted to the units the constants state. Counters the server lacks
// or has no samples of are listed in PerfReport.Missing, never an error;
// a VM or host that does not exist, or a failed query, is.
func (s *Session) ReadCounters(ctx context.Context, q PerfQuery) (PerfReport, error) {
	if !q.End.After(q.Start) {
		return PerfReport{}, fmt.Errorf("perf counters: the window ends (%s) before it starts (%s)", q.End.Format(time.RFC3339), q.Start.Format(time.RFC3339))
	}
	if len(q.VMs)+len(q.Hosts) == 0 {
		return PerfReport{}, errors.New("perf counters: no VM and no host to read")
	}
	p, err := s.readPlacement(ctx, q.VMs, q.Hosts)
	if err != nil {
		return PerfReport{}, fmt.Errorf("perf counters: %w", err)
	}
	var entities []perfEntity
	for _, h := range p.hosts {
		entities = append(entities, perfEntity{ref: hostRef(h), kind: KindHost, name: p.hostNames[h]})
	}
	for _, v := range p.vms {
		entities = append(entities, perfEntity{ref: types.ManagedObjectReference{Type: "VirtualMachine", Value: v.VM},
			kind: KindVM, name: v.Name, vcpus: p.vcpus[v.VM]})
	}
	pm := performance.NewManager(s.Client.Client)
	info, err := pm.CounterInfoByName(ctx)
	if err != nil {
		return PerfReport{}, fmt.Errorf("perf counters: read the counter list: %w", s.cfg.redact(err))
	}
	r := PerfReport{Start: q.Start, End: q.End, Interval: PerfInterval}
	miss := missing{}
	for _, e := range entities {
		series, err := s.readEntity(ctx, pm, info, e, q, p.dsNames, miss)
		if err != nil {
			return PerfReport{}, err
		}
		r.Series = append(r.Series, series...)
	}
	slices.SortStableFunc(r.Series, func(a, b CounterSeries) int {
		return cmp.Or(cmp.Compare(kindRank(a.EntityKind), kindRank(b.EntityKind)), cmp.Compare(a.EntityName, b.EntityName),
			cmp.Compare(a.Entity, b.Entity), cmp.Compare(a.Counter, b.Counter), cmp.Compare(a.Instance, b.Instance))
	})
	r.Missing = miss.list()
	return r, nil
}

func kindRank(kind string) int {
	if kind == KindHost {
		return 0
	}
	return 1
}

// readEntity reads e's counters: it asks which metrics e offers at the
// 20 s interval, queries those of perfCounters, and converts them. What
// it cannot read goes to miss.
func (s *Session) readEntity(ctx context.Context, pm *performance.Manager, info map[string]*types.PerfCounterInfo,
	e perfEntity, q PerfQuery, dsNames map[string]string, miss missing) ([]CounterSeries, error) {
	offered, err := pm.AvailableMetric(ctx, e.ref, int32(PerfInterval/time.Second))
	if err != nil {
		return nil, fmt.Errorf("perf counters: metrics of %s %s: %w", e.kind, e.ref.Value, s.cfg.redact(err))
	}
	ids, want := askedMetrics(info, e, offered, miss)
	if len(ids) == 0 {
		return nil, nil
	}
	start, end := q.Start, q.End
	spec := types.PerfQuerySpec{Entity: e.ref, MetricId: ids, IntervalId: int32(PerfInterval / time.Second), StartTime: &start, EndTime: &end}
	raw, err := pm.Query(ctx, []types.PerfQuerySpec{spec})
	if err != nil {
		return nil, fmt.Errorf("perf counters: query %s %s: %w", e.kind, e.ref.Value, s.cfg.redact(err))
	}
	ems, err := pm.ToMetricSeries(ctx, raw)
	if err != nil {
		return nil, fmt.Errorf("perf counters: %s %s: %w", e.kind, e.ref.Value, s.cfg.redact(err))
	}
	return entitySeries(ems, want, e, q, dsNames, miss), nil
}

// askedMetrics returns, of perfCounters for e's kind, the metrics e
// offers (ids, from offered) and the counters they stand for (want, by
// name). A counter that vSphere does not know (info has none) or that e
// does not offer goes to miss.
func askedMetrics(info map[string]*types.PerfCounterInfo, e perfEntity, offered []types.PerfMetricId, miss missing) (ids []types.PerfMetricId, want map[string]perfCounter) {
	want = map[string]perfCounter{}
	for _, c := range perfCounters {
		if c.kind != e.kind {
			continue
		}
		ci, ok := info[c.name]
		if !ok {
			miss.add(c, e.ref.Value, ReasonUnknown)
			continue
		}
		n := len(ids)
		for _, m := range offered {
			if m.CounterId == ci.Key && (m.Instance != "") == c.instances {
				ids = append(ids, m)
			}
		}
		if len(ids) == n {
			miss.add(c, e.ref.Value, ReasonUnavailable)
			continue
		}
		want[c.name] = c
	}
	return ids, want
}

// entitySeries converts the series ems queried for e into CounterSeries,
// those of the counters in want, with each datastore instance's name from
// dsNames. A counter whose values do not line up with the samples, or that
// has no sample in q's window, goes to miss.
func entitySeries(ems []performance.EntityMetric, want map[string]perfCounter, e perfEntity, q PerfQuery, dsNames map[string]string, miss missing) []CounterSeries {
	done, misaligned := map[string]bool{}, map[string]bool{}
	var out []CounterSeries
	for _, em := range ems {
		for _, ms := range em.Value {
			c, ok := want[ms.Name]
			if !ok {
				continue
			}
			if len(ms.Value) != len(em.SampleInfo) {
				if !misaligned[c.name] {
					miss.add(c, e.ref.Value, ReasonMisaligned)
				}
				misaligned[c.name] = true
				continue
			}
			cs := convertSeries(c, e, em.SampleInfo, ms, q)
			if len(cs.Values) == 0 {
				continue
			}
			if c.instances {
				cs.InstanceName = cmp.Or(dsNames[cs.Instance], cs.Instance)
			}
			done[c.name] = true
			out = append(out, cs)
		}
	}
	for _, c := range perfCounters {
		if _, asked := want[c.name]; asked && c.kind == e.kind && !done[c.name] && !misaligned[c.name] {
			miss.add(c, e.ref.Value, ReasonNoSamples)
		}
	}
	return out
}

// convertSeries pairs ms's values with the samples' times, drops vSphere's
// "no value" (-1) and the samples not wholly inside q's window, sorts by
// time (vcsim returns the newest first) and converts to c.unit.
func convertSeries(c perfCounter, e perfEntity, samples []types.PerfSampleInfo, ms performance.MetricSeries, q PerfQuery) CounterSeries {
	cs := CounterSeries{Entity: e.ref.Value, EntityKind: e.kind, EntityName: e.name, Counter: c.name,
		Instance: ms.Instance, Unit: c.unit, Interval: PerfInterval}
	type sample struct {
		t time.Time
		v float64
	}
	var kept []sample
	for i, raw := range ms.Value {
		if raw < 0 {
			continue
		}
		iv := time.Duration(cmp.Or(samples[i].Interval, int32(PerfInterval/time.Second))) * time.Second
		t := samples[i].Timestamp
		if t.Add(-iv).Before(q.Start) || t.After(q.End) {
			continue
		}
		kept = append(kept, sample{t, convertValue(c.unit, raw, iv, e.vcpus)})
	}
	slices.SortFunc(kept, func(a, b sample) int { return a.t.Compare(b.t) })
	for _, k := range kept {
		cs.Times = append(cs.Times, k.t)
		cs.Values = append(cs.Values, k.v)
	}
	return cs
}

// convertValue turns a raw sample of length iv into unit: hundredths of a
// percent into percent; milliseconds summed over a VM's vcpus into percent
// of the sample per vCPU; the rest (ms, KB, commands per second) as is.
func convertValue(unit string, raw int64, iv time.Duration, vcpus int) float64 {
	switch unit {
	case UnitPercent:
		return float64(raw) / 100
	case UnitPercentPerVCPU:
		return float64(raw) / (float64(iv.Milliseconds()) * float64(max(vcpus, 1))) * 100
	}
	return float64(raw)
}

// missing collects MissingCounters by counter, entity kind and reason.
type missing map[[3]string]*MissingCounter

func (m missing) add(c perfCounter, entity, reason string) {
	k := [3]string{c.name, c.kind, reason}
	if m[k] == nil {
		m[k] = &MissingCounter{Counter: c.name, EntityKind: c.kind, Reason: reason}
	}
	m[k].Entities = append(m[k].Entities, entity)
}

// list returns the missing counters in perfCounters' order, then reason.
func (m missing) list() []MissingCounter {
	var out []MissingCounter
	for _, c := range perfCounters {
		for _, reason := range []string{ReasonUnknown, ReasonUnavailable, ReasonMisaligned, ReasonNoSamples} {
			if mc := m[[3]string{c.name, c.kind, reason}]; mc != nil {
				out = append(out, *mc)
			}
		}
	}
	return out
}
