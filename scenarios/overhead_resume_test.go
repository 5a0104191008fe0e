package scenarios

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"vmbench/internal/golden"
)

// The journal's processes: the campaign run up to the first resume
// marker, then each resume, each with the record of its last entry that
// holds one and the last step it recorded.
func TestJournalProcesses(t *testing.T) {
	s := time.Second
	rec := func(d time.Duration) *Overhead {
		return &Overhead{Total: d, Steps: []StepTime{{Step: StepSetup, Wall: d}}}
	}
	for _, tc := range []struct {
		name    string
		entries []JournalEntry
		want    []priorProcess
	}{
		{"killed in measure", []JournalEntry{{Step: StepPreflight, Overhead: rec(s)}, {Step: StepProvision, Overhead: rec(2 * s)},
			{Step: StepDatabases, Overhead: rec(3 * s)}, {Step: StepPrepare, Overhead: rec(4 * s)}},
			[]priorProcess{{commandRun, StepPrepare, rec(4 * s)}}},
		{"a resume killed before it recorded a step", []JournalEntry{{Step: StepProvision, Overhead: rec(2 * s)}, {Step: StepResumed}},
			[]priorProcess{{commandRun, StepProvision, rec(2 * s)}, {commandResume, "", nil}}},
		{"an older vmbench's journal: no records", []JournalEntry{{Step: StepPreflight}, {Step: StepProvision}, {Step: StepResumed},
			{Step: StepDatabases, Overhead: rec(5 * s)}, {Step: StepPrepare}},
			[]priorProcess{{commandRun, StepProvision, nil}, {commandResume, StepPrepare, rec(5 * s)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := (&Journal{Entries: tc.entries}).processes()
			if len(got) != len(tc.want) {
				t.Fatalf("processes %+v, want %+v", got, tc.want)
			}
			for i, w := range tc.want {
				if g := got[i]; g.command != w.command || g.last != w.last || (g.o == nil) != (w.o == nil) || (g.o != nil && g.o.Total != w.o.Total) {
					t.Errorf("process %d: %+v, want %+v", i+1, g, w)
				}
			}
		})
	}
}

// The checks a resume reports are those recorded after the last run step.
func TestJournalChecks(t *testing.T) {
	v := []CheckVerdict{{VM: "sysbench-01", Passed: true}}
	for _, tc := range []struct {
		name    string
		entries []JournalEntry
		want    int
	}{
		{"after the run", []JournalEntry{{Step: StepRun}, {Step: StepChecks, Checks: v}, {Step: StepCollect}}, 1},
		{"none after the run", []JournalEntry{{Step: StepRun}}, 0},
		{"an earlier run's", []JournalEntry{{Step: StepChecks, Checks: v}, {Step: StepRun}}, 0},
	} {
		if got := (&Journal{Entries: tc.entries}).checks(); len(got) != tc.want {
			t.Errorf("%s: checks %+v, want %d", tc.name, got, tc.want)
		}
	}
}

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
	prior := []priorProcess{{command: commandRun, last: StepCollect, o: &Overhead{Total: firstTotal, Steps: first}}}
	own := &Overhead{Completed: true, Total: 9 * s, Steps: []StepTime{{Step: StepSetup, Wall: s}, {Step: StepConnect, Wall: s},
		{Step: StepCollect, Wall: s}, {Step: StepReport, Wall: s}, {Step: StepTeardown, Wall: 5 * s}}}
	o := joinOverheads(prior, own)
	if len(o.Processes) != 2 || o.Total != firstTotal+9*s || o.Workload() != 70*s || !o.Completed {
		t.Fatalf("joined: processes %+v, total %s, workload %s, completed %v; want 2 processes, %s, 70s, true",
			o.Processes, o.Total, o.Workload(), o.Completed, firstTotal+9*s)
	}
	if len(o.Steps) != len(first)+len(own.Steps) || o.Steps[3].Step != StepProvision || o.Steps[3].Process != 1 ||
		len(o.Steps[3].VMSteps) != 2 || o.Steps[len(o.Steps)-1].Process != 2 {
		t.Errorf("joined steps: %+v", o.Steps)
	}
	var txt, md bytes.Buffer
	if err := o.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if err := o.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "overhead-resumed.txt.golden"), txt.Bytes())
	golden.Check(t, filepath.Join("testdata", "overhead-resumed.md.golden"), md.Bytes())
}
