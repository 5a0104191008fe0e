package oltp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// series makes a 3-sample platform series starting at t0.
func series(entity, kind, counter string, values ...float64) CounterSeries {
	c := CounterSeries{Entity: entity, EntityKind: kind, EntityName: entity + "-name", Counter: counter, Unit: "%", Interval: 20 * time.Second}
	for i, v := range values {
		c.Times = append(c.Times, t0.Add(time.Duration(i+1)*20*time.Second))
		c.Values = append(c.Values, v)
	}
	return c
}

// Merging the results of two VMs on one host: each VM's series is kept,
// the host's series that both carry is kept once, in part order; the hosts
// of both parts are kept, a host's facts from the first part.
func TestMergePlatformCounters(t *testing.T) {
	host := series("host-1", "host", "cpu.usage.average", 40, 50, 60)
	a, b := result("w", t0, 1, 2), result("w", t0, 3, 4)
	a.PlatformCounters = []CounterSeries{host, series("vm-1", "vm", "cpu.ready.summation", 1, 2, 3)}
	b.PlatformCounters = []CounterSeries{series("vm-2", "vm", "cpu.ready.summation", 4, 5, 6), host}
	a.Hosts = map[string]map[string]string{"esx1": {"model": "R760", "cores": "64"}}
	b.Hosts = map[string]map[string]string{"esx1": {"model": "other"}, "esx2": {"model": "R660"}}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range m.PlatformCounters {
		got = append(got, c.Entity+" "+c.Counter)
	}
	if want := []string{"host-1 cpu.usage.average", "vm-1 cpu.ready.summation", "vm-2 cpu.ready.summation"}; !slices.Equal(got, want) {
		t.Errorf("merged series %q, want %q", got, want)
	}
	if len(m.Hosts) != 2 || m.Hosts["esx1"]["model"] != "R760" || m.Hosts["esx1"]["cores"] != "64" || m.Hosts["esx2"]["model"] != "R660" {
		t.Errorf("merged hosts %v", m.Hosts)
	}
	m.Hosts["esx1"]["model"] = "changed"
	if a.Hosts["esx1"]["model"] != "R760" {
		t.Error("the merge shares its parts' host maps")
	}

	// The same host over another window is another series: kept.
	later := series("host-1", "host", "cpu.usage.average", 70, 80, 90)
	later.Times[0] = later.Times[0].Add(time.Second)
	b.PlatformCounters = []CounterSeries{later}
	if m, err = Merge(a, b); err != nil || len(m.PlatformCounters) != 3 {
		t.Errorf("host series over two windows: %v, %d series, want 3", err, len(m.PlatformCounters))
	}
	// Parts without any: none, and no hosts.
	if m, err = Merge(result("w", t0, 1), result("w", t0, 2)); err != nil || m.PlatformCounters != nil || m.Hosts != nil {
		t.Errorf("parts without platform figures: %v %v %v", err, m.PlatformCounters, m.Hosts)
	}
}

// The platform figures survive a write and a strict read; a result without
// them writes neither key; a series whose times and values differ in
// number is refused.
func TestPlatformCountersFile(t *testing.T) {
	dir := t.TempDir()
	r := result("w", t0, 1, 2)
	r.PlatformCounters = []CounterSeries{series("host-1", "host", "cpu.usage.average", 12.5, 50, 99.75)}
	r.PlatformCounters[0].Instance, r.PlatformCounters[0].InstanceName = "ds-uuid", "nvme0"
	r.Hosts = map[string]map[string]string{"esx1": {"model": "R760"}}
	path := filepath.Join(dir, "r.json")
	if err := r.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := ReadResultFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, want := got.PlatformCounters[0], r.PlatformCounters[0]
	if len(got.PlatformCounters) != 1 || !c.same(&want) || !slices.Equal(c.Values, want.Values) || c.Unit != "%" ||
		c.Interval != 20*time.Second || c.InstanceName != "nvme0" || c.EntityName != "host-1-name" || got.Hosts["esx1"]["model"] != "R760" {
		t.Errorf("read back %+v %v", got.PlatformCounters, got.Hosts)
	}

	plain := filepath.Join(dir, "plain.json")
	if err := result("w", t0, 1).WriteFile(plain); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(plain); strings.Contains(string(b), "platform_counters") || strings.Contains(string(b), `"hosts"`) {
		t.Errorf("a result without platform figures writes them:\n%s", b)
	}

	r.PlatformCounters[0].Values = r.PlatformCounters[0].Values[:2]
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "3 times, 2 values") {
		t.Errorf("Validate of a ragged series: %v", err)
	}
	r.PlatformCounters[0].Unit = ""
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "no counter name or unit") {
		t.Errorf("Validate of a series without unit: %v", err)
	}
}
