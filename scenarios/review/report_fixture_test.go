package review

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vmbench/internal/golden"
	"vmbench/oltp"
	"vmbench/oltp/hist"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
)

// fixtureDir is where the small results directories of the report's
// golden tests are committed: testdata/results/<name>, each with run.json,
// campaign.yaml, vms/<vm>.json and merged.json as a campaign writes them.
// go test ./scenarios/review/ -run TestReportFixtures -update writes them again
// from fixtureCampaigns.
func fixtureDir(name string) string { return filepath.Join("testdata", "results", name) }

// fixtureCampaign describes one committed results directory: per VM its
// TPS and average latency over 10 s measured after 10 s of precondition
// (1 s intervals, the TPS ramping up over the precondition).
type fixtureCampaign struct {
	name, yaml string
	tps, avgMs []float64
	bound      bool // the first VM's client is client-bound
}

var fixtureCampaigns = []fixtureCampaign{
	{name: "sysbench-2vm", yaml: "name: sysbench-2vm\nvms: {role: sysbench, count: 2}\ndatabase: {driver: mysql}\n" +
		"workload: {tool: sysbench, name: oltp_read_write, flags: {threads: 32, tables: 100, table-size: 10000000}}\n",
		tps: []float64{3600, 3700}, avgMs: []float64{8.8, 8.6}},
	// The same protocol, 34.6% more TPS per VM and lower latency: the
	// comparison's known difference.
	{name: "sysbench-2vm-faster", yaml: "name: sysbench-2vm-faster\nvms: {role: sysbench, count: 2}\ndatabase: {driver: mysql}\n" +
		"workload: {tool: sysbench, name: oltp_read_write, flags: {threads: 32, tables: 100, table-size: 10000000}}\n",
		tps: []float64{3600 * 1.346, 3700 * 1.346}, avgMs: []float64{6.6, 6.45}, bound: true},
	// Another protocol (16 threads): left out of a comparison with the
	// others.
	{name: "sysbench-2vm-16threads", yaml: "name: sysbench-2vm-16threads\nvms: {role: sysbench, count: 2}\ndatabase: {driver: mysql}\n" +
		"workload: {tool: sysbench, name: oltp_read_write, flags: {threads: 16, tables: 100, table-size: 10000000}}\n",
		tps: []float64{3000, 3100}, avgMs: []float64{5.3, 5.1}},
}

// fixtureResult is one VM's measure-phase Result with its precondition:
// tps transactions per second with latencies spread evenly from avgMs/2
// to 3avgMs/2, in 1 s intervals.
func fixtureResult(vm string, threads int, tps, avgMs float64, cpu time.Duration) *oltp.Result {
	phase := func(name oltp.Phase, start time.Time, ramp bool) *oltp.Result {
		all := hist.New()
		var ivs []oltp.Interval
		for s := range 10 {
			n := int(tps)
			if ramp {
				n = int(tps * float64(s+1) / 10)
			}
			h := hist.New()
			for i := range n {
				d := time.Duration(avgMs * (0.5 + float64(i)/float64(n)) * float64(time.Millisecond))
				h.Record(d)
				all.Record(d)
			}
			ivs = append(ivs, oltp.Interval{At: time.Duration(s+1) * time.Second, Length: time.Second,
				Ops: []oltp.OpResult{{Name: "transaction", Latency: h.Snapshot()}}})
		}
		return &oltp.Result{Version: oltp.ResultVersion, Workload: "oltp_read_write", Flags: map[string]string{"threads": fmt.Sprint(threads)},
			Labels: map[string]string{"vm": vm, "datastore": "nvme" + vm[len(vm)-1:], "driver": string(spec.DriverHarness)}, Phase: name, Loop: oltp.ClosedLoop,
			Measured: "closed loop: latency as service time", Threads: threads, Start: start, End: start.Add(10 * time.Second),
			Elapsed: 10 * time.Second, Parts: 1, Ops: []oltp.OpResult{{Name: "transaction", Latency: all.Snapshot()}}, Intervals: ivs}
	}
	r := phase(oltp.PhaseMeasure, t0.Add(10*time.Second), false)
	r.Precondition = phase(oltp.PhasePrecondition, t0, true)
	if cpu > 0 {
		r.Client = &oltp.ClientCost{Process: vm + "/1/0", UserCPU: cpu, Processes: 1, Cores: 2, Start: r.Start, End: r.End}
	}
	return r
}

// writeFixture writes the results directory of c into dir.
func writeFixture(t *testing.T, c fixtureCampaign, dir string) {
	t.Helper()
	threads := 32
	if c.name == "sysbench-2vm-16threads" {
		threads = 16
	}
	if err := os.MkdirAll(filepath.Join(dir, "vms"), 0o755); err != nil {
		t.Fatal(err)
	}
	var vms []*oltp.Result
	for i := range c.tps {
		vm := fmt.Sprintf("sysbench-%02d", i+1)
		var cpu time.Duration // the first VM's client used 95% of 2 cores
		if c.bound {
			cpu = map[bool]time.Duration{true: 19 * time.Second, false: 5 * time.Second}[i == 0]
		}
		r := fixtureResult(vm, threads, c.tps[i], c.avgMs[i], cpu)
		if err := r.WriteFile(filepath.Join(dir, "vms", vm+".json")); err != nil {
			t.Fatal(err)
		}
		vms = append(vms, r)
	}
	merged, err := oltp.Merge(vms...)
	if err != nil {
		t.Fatal(err)
	}
	if err := merged.WriteFile(filepath.Join(dir, "merged.json")); err != nil {
		t.Fatal(err)
	}
	ri, err := json.MarshalIndent(rundir.RunInfo{Version: rundir.RunInfoVersion, Kind: rundir.VMCampaignKind, VMBench: "fixture", Completed: true}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	for f, b := range map[string][]byte{rundir.RunFile: append(ri, '\n'), "campaign.yaml": []byte(c.yaml)} {
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReportFixtures writes the committed results directories with
// -update, and otherwise checks that each is there and renders.
func TestReportFixtures(t *testing.T) {
	for _, c := range fixtureCampaigns {
		if *golden.Update {
			if err := os.RemoveAll(fixtureDir(c.name)); err != nil {
				t.Fatal(err)
			}
			writeFixture(t, c, fixtureDir(c.name))
		}
		if _, err := Render(fixtureDir(c.name)); err != nil {
			t.Errorf("%s: %v (go test -run TestReportFixtures -update writes it)", c.name, err)
		}
	}
}
