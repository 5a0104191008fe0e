package review

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vmbench/internal/golden"
	"vmbench/scenarios/rundir"
)

// sampleOverhead is an Overhead with every kind of row (its VM steps
// named as vsphere's StepClone and StepWaitIP name them).
func sampleOverhead() *rundir.Overhead {
	s := time.Second
	return &rundir.Overhead{Total: 100 * s, Completed: true, Steps: []rundir.StepTime{
		{Step: rundir.StepSetup, Wall: 10e6}, {Step: rundir.StepConnect, Wall: 990e6}, {Step: rundir.StepPreflight, Wall: s},
		{Step: rundir.StepProvision, Wall: 6 * s, VMSteps: []rundir.VMStepTime{
			{Step: "clone", VMs: 4, Sum: 8 * s, Slowest: 2500e6}, {Step: "wait for IP", VMs: 4, Sum: 2 * s, Slowest: s}}},
		{Step: rundir.StepPrepare, Wall: 12 * s}, {Step: rundir.StepStartWait, Wall: 2 * s},
		{Step: rundir.StepPrecondition, Wall: 20 * s, Workload: true}, {Step: rundir.StepMeasure, Wall: 50 * s, Workload: true},
		{Step: rundir.StepWindDown, Wall: 1 * s}, {Step: rundir.StepCollect, Wall: 1 * s}, {Step: rundir.StepReport, Wall: 1 * s},
		{Step: rundir.StepTeardown, Wall: 5 * s}}}
}

func TestOverheadTableGolden(t *testing.T) {
	o := sampleOverhead()
	if o.Workload() != 70*time.Second || o.Harness() != 30*time.Second {
		t.Errorf("workload %s, harness %s; want 70s, 30s", o.Workload(), o.Harness())
	}
	var txt, md bytes.Buffer
	if err := (overheadView{o}).writeText(&txt); err != nil {
		t.Fatal(err)
	}
	if err := (overheadView{o}).writeMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "overhead.txt.golden"), txt.Bytes())
	golden.Check(t, filepath.Join("testdata", "overhead.md.golden"), md.Bytes())
}

// A run stopped in its precondition says so: the window is precondition
// only, with a note that nothing was measured; a run that measured keeps
// the usual label.
func TestOverheadTableSaysPreconditionOnly(t *testing.T) {
	s := time.Second
	o := &rundir.Overhead{Total: 20 * s, Steps: []rundir.StepTime{{Step: rundir.StepSetup, Wall: 10 * s}, {Step: rundir.StepStartWait, Wall: 2 * s},
		{Step: rundir.StepPrecondition, Wall: 5 * s, Workload: true}, {Step: rundir.StepMeasure, Workload: true}, {Step: rundir.StepWindDown, Wall: 3 * s}}}
	var txt bytes.Buffer
	if err := (overheadView{o}).writeText(&txt); err != nil {
		t.Fatal(err)
	}
	words := strings.Join(strings.Fields(txt.String()), " ") // the columns' widths aside
	for _, want := range []string{"run: precondition (workload) 5.000 25.0%", "run: measure (workload) 0.000 0.0%",
		"workload window (precondition only, nothing measured) 5.000 25.0%", "no VM reached its measure phase",
		"harness overhead: 15.000 s of 20.000 s (75.0%)"} {
		if !strings.Contains(words, want) {
			t.Errorf("the table lacks %q:\n%s", want, txt.String())
		}
	}
	txt.Reset()
	if err := (overheadView{sampleOverhead()}).writeText(&txt); err != nil || strings.Contains(txt.String(), "nothing measured") {
		t.Errorf("a measured run's table (err %v):\n%s", err, txt.String())
	}
}

// A run.json written now says its version and holds the overhead record
// as the report reads it back.
func TestOverheadRecordRoundTrip(t *testing.T) {
	b, _ := json.Marshal(rundir.RunInfo{Version: rundir.RunInfoVersion, Overhead: sampleOverhead()})
	var back rundir.RunInfo
	if err := json.Unmarshal(b, &back); err != nil || back.Overhead.Total != 100*time.Second || len(back.Overhead.Steps[3].VMSteps) != 2 {
		t.Errorf("round trip: %v %+v", err, back.Overhead)
	}
}
