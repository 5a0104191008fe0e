package rundir

import (
	"testing"
	"time"
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
		want    []Process
	}{
		{"killed in measure", []JournalEntry{{Step: StepPreflight, Overhead: rec(s)}, {Step: StepProvision, Overhead: rec(2 * s)},
			{Step: StepDatabases, Overhead: rec(3 * s)}, {Step: StepPrepare, Overhead: rec(4 * s)}},
			[]Process{{CommandRun, StepPrepare, rec(4 * s)}}},
		{"a resume killed before it recorded a step", []JournalEntry{{Step: StepProvision, Overhead: rec(2 * s)}, {Step: StepResumed}},
			[]Process{{CommandRun, StepProvision, rec(2 * s)}, {CommandResume, "", nil}}},
		{"an older vmbench's journal: no records", []JournalEntry{{Step: StepPreflight}, {Step: StepProvision}, {Step: StepResumed},
			{Step: StepDatabases, Overhead: rec(5 * s)}, {Step: StepPrepare}},
			[]Process{{CommandRun, StepProvision, nil}, {CommandResume, StepPrepare, rec(5 * s)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := (&Journal{Entries: tc.entries}).Processes()
			if len(got) != len(tc.want) {
				t.Fatalf("processes %+v, want %+v", got, tc.want)
			}
			for i, w := range tc.want {
				if g := got[i]; g.Command != w.Command || g.Last != w.Last || (g.Overhead == nil) != (w.Overhead == nil) || (g.Overhead != nil && g.Overhead.Total != w.Overhead.Total) {
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
		if got := (&Journal{Entries: tc.entries}).Checks(); len(got) != tc.want {
			t.Errorf("%s: checks %+v, want %d", tc.name, got, tc.want)
		}
	}
}
