package review

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"vmbench/internal/golden"
	"vmbench/scenarios/rundir"
)

// A resumed campaign's record holds every process's steps, each marked
// with its process, and adds up their times: the first process's
// provisioning and measured window stay in it. The table shows each
// process with its own time above its steps.
func TestResumedOverheadJoinsTheProcesses(t *testing.T) {
	s := time.Second
	first := sampleOverhead().Steps[:11] // to the report, killed before its teardown
	var firstTotal time.Duration
	for _, st := range first {
		firstTotal += st.Wall
	}
	prior := []rundir.Process{{Command: rundir.CommandRun, Last: rundir.StepCollect, Overhead: &rundir.Overhead{Total: firstTotal, Steps: first}}}
	own := &rundir.Overhead{Completed: true, Total: 9 * s, Steps: []rundir.StepTime{{Step: rundir.StepSetup, Wall: s}, {Step: rundir.StepConnect, Wall: s},
		{Step: rundir.StepCollect, Wall: s}, {Step: rundir.StepReport, Wall: s}, {Step: rundir.StepTeardown, Wall: 5 * s}}}
	o := rundir.JoinOverheads(prior, own)
	if len(o.Processes) != 2 || o.Total != firstTotal+9*s || o.Workload() != 70*s || !o.Completed {
		t.Fatalf("joined: processes %+v, total %s, workload %s, completed %v; want 2 processes, %s, 70s, true",
			o.Processes, o.Total, o.Workload(), o.Completed, firstTotal+9*s)
	}
	if len(o.Steps) != len(first)+len(own.Steps) || o.Steps[3].Step != rundir.StepProvision || o.Steps[3].Process != 1 ||
		len(o.Steps[3].VMSteps) != 2 || o.Steps[len(o.Steps)-1].Process != 2 {
		t.Errorf("joined steps: %+v", o.Steps)
	}
	var txt, md bytes.Buffer
	if err := (overheadView{o}).writeText(&txt); err != nil {
		t.Fatal(err)
	}
	if err := (overheadView{o}).writeMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "overhead-resumed.txt.golden"), txt.Bytes())
	golden.Check(t, filepath.Join("testdata", "overhead-resumed.md.golden"), md.Bytes())
}
