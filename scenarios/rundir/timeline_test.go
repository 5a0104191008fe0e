package rundir

import (
	"testing"
	"time"

	"vmbench/oltp"
)

var tlT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// EndRun splits the run step at the workload's boundaries, across VMs
// that start and end a little apart, and keeps the parts inside the step.
func TestEndRunSplitsAtTheWorkloadsBoundaries(t *testing.T) {
	s := time.Second
	at := func(d time.Duration) time.Time { return tlT0.Add(d) }
	res := func(pre, start, end time.Duration) *oltp.Result {
		r := &oltp.Result{Start: at(start), End: at(end)}
		if pre >= 0 {
			r.Precondition = &oltp.Result{Start: at(pre), End: at(start)}
		}
		return r
	}
	// pre is what oltp's run returns when it stopped in its precondition:
	// the precondition's Result, with no measure phase.
	pre := func(start, end time.Duration) *oltp.Result {
		return &oltp.Result{Phase: oltp.PhasePrecondition, Status: oltp.StatusInterrupted, Start: at(start), End: at(end)}
	}
	for _, tc := range []struct {
		name    string
		results []*oltp.Result
		want    []StepTime // the run step runs from tlT0+1s to tlT0+100s
	}{
		{"precondition and measure, two VMs a little apart", []*oltp.Result{res(3*s, 13*s, 73*s), res(3*s+5e6, 13*s+5e6, 73*s+7e6)}, []StepTime{
			{Step: StepStartWait, Wall: 2 * s}, {Step: StepPrecondition, Wall: 10 * s, Workload: true},
			{Step: StepMeasure, Wall: 60*s + 7e6, Workload: true}, {Step: StepWindDown, Wall: 27*s - 7e6}}},
		{"no precondition; a VM that returned nothing", []*oltp.Result{nil, res(-1, 3*s, 63*s)}, []StepTime{
			{Step: StepStartWait, Wall: 2 * s}, {Step: StepPrecondition, Workload: true},
			{Step: StepMeasure, Wall: 60 * s, Workload: true}, {Step: StepWindDown, Wall: 37 * s}}},
		{"times outside the step are moved to its edges", []*oltp.Result{res(0, 50*s, 200*s)}, []StepTime{
			{Step: StepStartWait}, {Step: StepPrecondition, Wall: 49 * s, Workload: true},
			{Step: StepMeasure, Wall: 50 * s, Workload: true}, {Step: StepWindDown}}},
		{"interrupted in the precondition: all of it is precondition, measure 0", []*oltp.Result{pre(3*s, 8*s), nil, pre(3*s+5e6, 8*s+2e6)}, []StepTime{
			{Step: StepStartWait, Wall: 2 * s}, {Step: StepPrecondition, Wall: 5*s + 2e6, Workload: true},
			{Step: StepMeasure, Workload: true}, {Step: StepWindDown, Wall: 92*s - 2e6}}},
		{"one VM still in its precondition, another measuring", []*oltp.Result{pre(3*s, 20*s), res(3*s, 13*s, 20*s+1e6)}, []StepTime{
			{Step: StepStartWait, Wall: 2 * s}, {Step: StepPrecondition, Wall: 10 * s, Workload: true},
			{Step: StepMeasure, Wall: 7*s + 1e6, Workload: true}, {Step: StepWindDown, Wall: 80*s - 1e6}}},
		{"a precondition past the step's end is cut at it", []*oltp.Result{pre(50*s, 200*s)}, []StepTime{
			{Step: StepStartWait, Wall: 49 * s}, {Step: StepPrecondition, Wall: 50 * s, Workload: true},
			{Step: StepMeasure, Workload: true}, {Step: StepWindDown}}},
		{"nothing measured: one step", []*oltp.Result{nil}, []StepTime{{Step: StepRun, Wall: 99 * s}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reads := []time.Time{at(s), at(100 * s)}
			tl := NewTimeline(func() time.Time { r := reads[0]; reads = reads[1:]; return r })
			tl.Begin(StepRun)
			tl.EndRun(tc.results)
			steps := tl.Overhead(false).Steps
			if len(steps) != len(tc.want) {
				t.Fatalf("steps %+v, want %+v", steps, tc.want)
			}
			var sum time.Duration
			for i, w := range tc.want {
				if g := steps[i]; g.Step != w.Step || g.Wall != w.Wall || g.Workload != w.Workload {
					t.Errorf("step %d: %+v, want %+v", i, g, w)
				}
				sum += steps[i].Wall
			}
			if sum != 99*s {
				t.Errorf("the parts add up to %s, want the run step's 99s", sum)
			}
		})
	}
}
