package scenarios

import (
	"fmt"
	"strings"
	"time"

	"vmbench/oltp"
	"vmbench/scenarios/spec"
	"vmbench/vsphere"
)

// The default margins between the end of prepare and the common start
// (Options.StartDelay 0). In the margin each VM's driver opens its
// connections and checks its data; a driver not ready by the common
// start begins late and lateStarts says so.
const (
	// StartDelayRemote is the margin for drivers that reach their
	// databases over the network or run as agents in the guests.
	StartDelayRemote = 2 * time.Second
	// StartDelayLocal is the least margin in simulation with the drivers
	// in this process (driver: harness), where nothing crosses a network:
	// 125 ms a VM, at least this.
	StartDelayLocal = 500 * time.Millisecond
)

// startDelayLocalPerVM is the in-process margin per VM: each VM's driver
// opens its connections and checks its data in it, all on the harness's
// cores (16 simulated VMs began up to 0.87 s late on a loaded 2-core
// machine with a flat 0.5 s).
const startDelayLocalPerVM = 125 * time.Millisecond

// lateStartSlack is how long after the common start a VM's first phase
// may begin before lateStarts reports it: the scheduling noise of a busy
// harness, well under one report interval.
const lateStartSlack = 100 * time.Millisecond

// startDelay is Options.StartDelay, or the default for where the drivers
// run.
func (c *campaign) startDelay() time.Duration {
	if c.opts.StartDelay > 0 {
		return c.opts.StartDelay
	}
	if _, guest := c.driver.(*guestDriver); c.env.simulated() && !guest {
		return max(StartDelayLocal, time.Duration(c.spec.VMs.Count)*startDelayLocalPerVM)
	}
	return StartDelayRemote
}

// lateStarts logs the VMs whose first phase (the precondition, or the
// measure phase without one) began more than lateStartSlack after
// startAt (plus, with guest drivers, the clock offset their clocks may
// have): their windows are shifted from the others' by that much. It
// returns the lines it logged.
func (c *campaign) lateStarts(startAt time.Time, vms []vsphere.VM, results []*oltp.Result) []string {
	slack := lateStartSlack
	if _, guest := c.driver.(*guestDriver); guest {
		slack += c.maxClockOffset()
	}
	var lines []string
	for i, r := range results {
		if r == nil {
			continue
		}
		first := r.Start
		if r.Precondition != nil && !r.Precondition.Start.IsZero() {
			first = r.Precondition.Start
		}
		if late := first.Sub(startAt); !first.IsZero() && late > slack {
			lines = append(lines, fmt.Sprintf("%s began %.3f s after the common start", vms[i].Name, late.Seconds()))
		}
	}
	if len(lines) > 0 {
		c.logf("warning: %s (its driver was not ready within the %s margin): those windows are shifted from the others' by as much",
			strings.Join(lines, "; "), c.startDelay())
	}
	return lines
}

// startSpread names the VMs of results whose first phase (the
// precondition, or the measure phase without one) began more than
// lateStartSlack plus DefaultMaxClockOffset (the guests' clocks) after
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
		if d := first(r).Sub(earliest); d > lateStartSlack+spec.DefaultMaxClockOffset {
			late = append(late, fmt.Sprintf("%s %.3f s", r.Labels["vm"], d.Seconds()))
		}
	}
	return late
}
