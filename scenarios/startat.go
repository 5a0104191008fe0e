package scenarios

import (
	"fmt"
	"strings"
	"time"

	"vmbench/oltp"
	"vmbench/scenarios/review"
	"vmbench/scenarios/vmdriver"
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
	// StartDelayContainer, and StartDelayContainerPerVM for each VM, is
	// the margin for agents in container guests (--guests container):
	// vcsim starts each with about ten docker execs (its job written and
	// checked, the agent started), all VMs' at once on one docker daemon
	// (4 VMs' took up to 22 s on a 2-core machine at load 15).
	StartDelayContainer      = 10 * time.Second
	StartDelayContainerPerVM = 5 * time.Second
)

// startDelayLocalPerVM is the in-process margin per VM: each VM's driver
// opens its connections and checks its data in it, all on the harness's
// cores (16 simulated VMs began up to 0.87 s late on a loaded 2-core
// machine with a flat 0.5 s).
const startDelayLocalPerVM = 125 * time.Millisecond

// startDelay is Options.StartDelay, or the default for where the drivers
// run.
func (c *campaign) startDelay() time.Duration {
	if c.opts.StartDelay > 0 {
		return c.opts.StartDelay
	}
	_, guest := c.driver.(*vmdriver.Guest)
	return c.env.startDelay(guest, c.spec.VMs.Count)
}

// localStartDelay is the margin for vms VMs' drivers in this process.
func localStartDelay(vms int) time.Duration {
	return max(StartDelayLocal, time.Duration(vms)*startDelayLocalPerVM)
}

// lateStarts logs the VMs whose first phase (the precondition, or the
// measure phase without one) began more than review.LateStartSlack after
// startAt (plus, with guest drivers, the clock offset their clocks may
// have): their windows are shifted from the others' by that much. It
// returns the lines it logged.
func (c *campaign) lateStarts(startAt time.Time, vms []vsphere.VM, results []*oltp.Result) []string {
	slack := review.LateStartSlack
	if _, guest := c.driver.(*vmdriver.Guest); guest {
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
