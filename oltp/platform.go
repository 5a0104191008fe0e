package oltp

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// CounterSeries is one time series of a counter that the platform under
// the run measured during it, outside the benchmark process: the host's
// CPU and memory, a VM's CPU ready time, a datastore's or a virtual disk's
// latency and IOPS. The campaign fills it, from vSphere's
// PerformanceManager (vsphere.Session.ReadCounters, whose CounterSeries
// has the same fields and converts to this type with a plain
// conversion); oltp only carries and merges it.
type CounterSeries struct {
	// Entity is the platform's id of the machine measured ("host-21",
	// "vm-42"), EntityKind what it is ("host", "vm"), EntityName its name.
	Entity     string `json:"entity"`
	EntityKind string `json:"entity_kind"`
	EntityName string `json:"entity_name"`
	// Counter is the platform's counter name (e.g. vSphere's
	// "cpu.usage.average"; its rollup is the last part).
	Counter string `json:"counter"`
	// Instance is the part of the entity measured ("" for all of it, a
	// datastore, a virtual disk such as "scsi0:1"), InstanceName its name.
	Instance     string `json:"instance,omitempty"`
	InstanceName string `json:"instance_name,omitempty"`
	// Unit of Values: "%", "% per vCPU", "ms", "KB" or "IOPS".
	Unit string `json:"unit"`
	// Interval is the length of each sample (20 s for vSphere's real-time
	// statistics).
	Interval time.Duration `json:"interval_ns"`
	// Times are the samples' ends, ascending: sample i covers
	// (Times[i]-Interval, Times[i]], and Values[i] is its value in Unit.
	Times  []time.Time `json:"times"`
	Values []float64   `json:"values"`
}

// Validate checks that every sample has one time and one value and that
// the series says its counter and unit.
func (c *CounterSeries) Validate() error {
	switch {
	case c.Counter == "" || c.Unit == "":
		return fmt.Errorf("platform counter of %s %q has no counter name or unit", c.EntityKind, c.Entity)
	case len(c.Times) != len(c.Values):
		return fmt.Errorf("platform counter %s of %s %q: %d times, %d values", c.Counter, c.EntityKind, c.Entity, len(c.Times), len(c.Values))
	}
	return nil
}

// same reports whether a and b are the same series: the same entity,
// counter, instance and sample times (one host's series carried by the
// results of two VMs on it).
func (c *CounterSeries) same(b *CounterSeries) bool {
	return c.Entity == b.Entity && c.EntityKind == b.EntityKind && c.Counter == b.Counter && c.Instance == b.Instance &&
		slices.EqualFunc(c.Times, b.Times, time.Time.Equal)
}

// mergePlatform gives m the parts' platform counters and host facts:
// the counters of every part in part order, a series that an earlier
// part already has (CounterSeries.same) only once; the hosts of every
// part, a host's facts from the first part that has it.
func mergePlatform(m *Result, rs []*Result) {
	for _, r := range rs {
		for i := range r.PlatformCounters {
			c := &r.PlatformCounters[i]
			if !slices.ContainsFunc(m.PlatformCounters, func(k CounterSeries) bool { return c.same(&k) }) {
				m.PlatformCounters = append(m.PlatformCounters, *c)
			}
		}
		for name, facts := range r.Hosts {
			if _, ok := m.Hosts[name]; ok {
				continue
			}
			if m.Hosts == nil {
				m.Hosts = map[string]map[string]string{}
			}
			m.Hosts[name] = maps.Clone(facts)
		}
	}
}
