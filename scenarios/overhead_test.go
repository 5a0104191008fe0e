package scenarios

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vmbench/scenarios/review"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
)

var ovT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// stepClock is a clock that moves by step at every read, from ovT0.
func stepClock(step time.Duration) func() time.Time {
	now := ovT0
	return func() time.Time {
		now = now.Add(step)
		return now
	}
}

const stubSpecSerial = `name: stub-campaign
vms: {role: sysbench, count: 4, parallel: 1}
database: {driver: mysql}
workload: {tool: stub, name: stub, flags: {threads: 1}}
simulate: {vms: {count: 3}}
`

// A campaign on a clock that moves 1 minute at every read records exact
// figures: each step as many minutes as the clock was read in it, the
// stub's 10 s measure phase from the common start, and the rest as the
// harness's. It prints the table after teardown, records it in run.json,
// and its report.md renders again byte for byte with it.
func TestCampaignRecordsOverhead(t *testing.T) {
	sim := startSim(t)
	cf, err := spec.Parse("stub.yaml", []byte(stubSpecSerial))
	if err != nil {
		t.Fatal(err)
	}
	d := &stubDriver{vms: 3}
	stubNow.Store(d)
	var out, log bytes.Buffer
	res, err := checkAndRun(t.Context(), cf, Options{Simulate: true, VSphere: sim.Config(), ResultsDir: t.TempDir(),
		Out: &out, Log: &log, Getenv: func(string) string { return "" }, StartDelay: time.Millisecond,
		Clock: stepClock(time.Minute)})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	ri, err := rundir.ReadRunInfo(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	o := ri.Overhead
	if o == nil || !o.Completed {
		t.Fatalf("run.json overhead: %+v", o)
	}
	m := time.Minute
	// A step that ends with a journal entry reads the clock once more
	// (the entry's snapshot of the record).
	want := []rundir.StepTime{{Step: rundir.StepSetup, Wall: m}, {Step: rundir.StepConnect, Wall: m}, {Step: rundir.StepPreflight, Wall: 2 * m},
		// 3 VMs, 6 steps each timed from a first read: 21 reads.
		{Step: rundir.StepProvision, Wall: 23 * m}, {Step: rundir.StepDatabases, Wall: 2 * m}, {Step: rundir.StepPrepare, Wall: 2 * m},
		{Step: rundir.StepStartWait, Wall: m + time.Millisecond}, {Step: rundir.StepPrecondition, Workload: true},
		{Step: rundir.StepMeasure, Wall: 10 * time.Second, Workload: true}, {Step: rundir.StepWindDown, Wall: m - 10*time.Second - time.Millisecond},
		{Step: rundir.StepCounters, Wall: 2 * m}, {Step: rundir.StepChecks, Wall: 2 * m}, {Step: rundir.StepCollect, Wall: m}, {Step: rundir.StepReport, Wall: 2 * m}, {Step: rundir.StepTeardown, Wall: m}}
	if len(o.Steps) != len(want) {
		t.Fatalf("steps %+v\nwant %+v", o.Steps, want)
	}
	var sum time.Duration
	for i, w := range want {
		if g := o.Steps[i]; g.Step != w.Step || g.Wall != w.Wall || g.Workload != w.Workload {
			t.Errorf("step %d: %s %s, want %s %s", i, g.Step, g.Wall, w.Step, w.Wall)
		}
		sum += o.Steps[i].Wall
	}
	if o.Total != sum || o.Workload() != 10*time.Second {
		t.Errorf("total %s (steps %s), workload %s; want the steps' sum and 10s", o.Total, sum, o.Workload())
	}
	for _, v := range o.Steps[3].VMSteps {
		if v.VMs != 3 || v.Sum != 3*m || v.Slowest != m {
			t.Errorf("provision, per VM: %+v; want 3 VMs of 1m each", v)
		}
	}
	if len(o.Steps[3].VMSteps) != 6 {
		t.Errorf("provision, per VM: %+v; want 6 steps", o.Steps[3].VMSteps)
	}
	if s := out.String(); !strings.Contains(s, "harness overhead: 2450.000 s of 2460.000 s (99.6%) outside the workload's window") ||
		!strings.Contains(s, "run: measure (workload)                                10.000    0.4%") {
		t.Errorf("the campaign printed:\n%s", s)
	}
	md := reportBytes(t, res.Dir)
	if !bytes.Contains(md, []byte("## Harness overhead\n\nHarness overhead: 2450.000 s of 2460.000 s")) {
		t.Errorf("report.md lacks the overhead section:\n%s", md)
	}
}

// A run.json of version 1 (before Overhead) reads as it did: the report
// has no overhead section.
func TestRunInfoVersion1StillReads(t *testing.T) {
	out, _, err := runStub(t, t.Context(), &stubDriver{}, startSim(t))
	if err != nil {
		t.Fatal(err)
	}
	v1 := `{"version": 1, "kind": "vm-campaign", "vmbench": "0.1.0", "simulated": true, "databases": "an embedded SQLite database per VM", "completed": true}`
	if err := os.WriteFile(filepath.Join(out.Dir, rundir.RunFile), []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := review.Render(out.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := rep.WriteMarkdown(&md); err != nil || rep.Info.Overhead != nil || bytes.Contains(md.Bytes(), []byte("Harness overhead")) {
		t.Errorf("version 1: %v, overhead %+v\n%s", err, rep.Info.Overhead, md.String())
	}
}

// A teardown pass says what it did: a second pass after a failed
// provisioning (which removed its VMs) finds nothing left.
func TestDestroyedWords(t *testing.T) {
	for _, tc := range []struct {
		n, count int
		want     string
	}{
		{8, 8, "destroyed 8 VMs"},
		{0, 8, "no VM was left to destroy"},
		{3, 8, "destroyed 3 VMs (the other 5 were gone already)"},
	} {
		if got := destroyedWords(tc.n, tc.count); got != tc.want {
			t.Errorf("destroyedWords(%d, %d) = %q, want %q", tc.n, tc.count, got, tc.want)
		}
	}
}
