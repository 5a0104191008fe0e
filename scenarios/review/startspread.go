package review

import (
	"fmt"
	"time"

	"vmbench/oltp"
	"vmbench/scenarios/spec"
)

// LateStartSlack is how long after the common start a VM's first phase
// may begin before the campaign reports it late (and, the guests' clock
// offset added, how long after the earliest VM's before the review
// does): the scheduling noise of a busy harness, well under one report
// interval.
const LateStartSlack = 100 * time.Millisecond

// startSpread names the VMs of results whose first phase (the
// precondition, or the measure phase without one) began more than
// LateStartSlack plus DefaultMaxClockOffset (the guests' clocks) after
// the earliest VM's, with how much later: their windows are shifted from
// the others', so part of each ran with fewer VMs loading the server.
// The report reads it from the Results alone (run.json does not hold the
// common start).
func startSpread(results []*oltp.Result) []string {
	first := func(r *oltp.Result) time.Time {
		if r.Precondition != nil && !r.Precondition.Start.IsZero() {
			return r.Precondition.Start
		}
		return r.Start
	}
	var earliest time.Time
	for _, r := range results {
		if r != nil && !first(r).IsZero() && (earliest.IsZero() || first(r).Before(earliest)) {
			earliest = first(r)
		}
	}
	var late []string
	for _, r := range results {
		if r == nil || first(r).IsZero() {
			continue
		}
		if d := first(r).Sub(earliest); d > LateStartSlack+spec.DefaultMaxClockOffset {
			late = append(late, fmt.Sprintf("%s %.3f s", r.Labels["vm"], d.Seconds()))
		}
	}
	return late
}
