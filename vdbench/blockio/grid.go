package blockio

import (
	"fmt"
	"time"

	"vmbench/vdbench/parmfile"
)

// PointGap is the time the planned grid of a run with a common start
// (Options.StartAt, workload.Env.StartAt) leaves between the planned end
// of one point and the planned start of the next: time to close a point
// (the graceful stop, merging its Results) and open the next (its SDs'
// threads), so that independent processes (one per VM) keep their
// points on the same instants.
const PointGap = 2 * time.Second

// pointGrid plans the starts of a run's points on a grid from a common
// start: point 0 at the start, point k+1 at point k's planned start plus
// its planned length (warmup + elapsed, as phases gives them) plus
// PointGap. A point never shifts the grid, so a late point does not make
// the later ones late.
type pointGrid struct {
	next time.Time // the planned start of the next point
}

// take plans the next point of planned length length when it is ready at
// now: its planned start, the start it gets (the planned one, or
// now+startDelay when that is later, so its SDs still start together)
// and how late that is versus the planned start (0 when on time).
func (g *pointGrid) take(now time.Time, length time.Duration) (planned, start time.Time, late time.Duration) {
	planned = g.next
	g.next = planned.Add(length + PointGap)
	start = planned
	if ready := now.Add(startDelay); ready.After(planned) {
		start, late = ready, ready.Sub(planned)
	}
	return planned, start, late
}

// lateWarning says that point label started late versus its planned
// start on the common grid.
func lateWarning(label string, planned time.Time, late time.Duration) string {
	return fmt.Sprintf("point %s started %s late versus its planned start %s on the common grid (the previous point overran, or the run began after the common start): points of other VMs may not overlap it",
		label, late.Round(time.Millisecond), planned.UTC().Format("15:04:05.000"))
}

// PlanLength is how long the grid of run r takes: each point's planned
// length (warmup + elapsed, as the engine runs them) plus PointGap. A
// campaign's deadline of StartAt plus the runs' PlanLength covers every
// point and the gaps between them.
func PlanLength(r parmfile.Run) time.Duration {
	eof := false
	for _, wd := range r.WDs {
		eof = eof || wd.Seek.EOF
	}
	measure, warmup, _ := phases(r.RD, eof)
	return parmfile.TimesDuration(r.PointCount(), parmfile.AddDuration(parmfile.AddDuration(warmup, measure), PointGap))
}
