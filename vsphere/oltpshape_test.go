package vsphere_test

import (
	"encoding/json"
	"testing"
	"time"

	"vmbench/oltp"
	"vmbench/vsphere"
)

// The campaign saves ReadCounters' series in oltp.Result.PlatformCounters
// with a plain conversion (the two types have the same fields), and both
// write the same JSON; HostFacts.Map is the shape of oltp.Result.Hosts.
// (Only this test imports oltp: package vsphere itself does not.)
func TestCounterSeriesConvertsToOltp(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 0, 0, 20, 0, time.UTC)
	v := vsphere.CounterSeries{Entity: "host-21", EntityKind: vsphere.KindHost, EntityName: "esx1", Counter: vsphere.CounterDatastoreReadLatency,
		Instance: "5c3a-uuid", InstanceName: "nvme0", Unit: vsphere.UnitMillisecond, Interval: vsphere.PerfInterval,
		Times: []time.Time{at, at.Add(vsphere.PerfInterval)}, Values: []float64{0.4, 1.5}}
	o := oltp.CounterSeries(v)
	vb, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	ob, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if string(vb) != string(ob) {
		t.Errorf("JSON differs:\nvsphere %s\noltp    %s", vb, ob)
	}
	r := oltp.Result{Hosts: map[string]map[string]string{"esx1": vsphere.HostFacts{Cores: 64}.Map()}}
	if r.Hosts["esx1"]["cores"] != "64" {
		t.Errorf("hosts %v", r.Hosts)
	}
}
