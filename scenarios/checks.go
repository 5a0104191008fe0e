package scenarios

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sync/errgroup"

	"vmbench/internal/atomicfile"
	"vmbench/scenarios/review"
	"vmbench/scenarios/rundir"
	"vmbench/vsphere"
	"vmbench/workload"
)

// This file runs the workload's consistency checks on every VM's
// database once the run has ended, as TPC-C asks after a measurement
// (clause 3.3.2: the checks hold after the run too) and sysbench's row
// counts allow, and keeps their verdicts with the results.

// checkAfterRun runs the workload's checks (workload.Checker) on every
// measured VM's database at once (at most 8 at a time), through the
// campaign's driver (the agent's check step in a guest). Each VM's lines
// go to checks/<vm>.txt and its verdict to c.rec.checks. A failed check does
// not fail the campaign, whose measurement stands: the review shows it.
// Nothing is done for a tool without checks.
func (c *campaign) checkAfterRun(ctx context.Context, vms []vsphere.VM, cfgs []workload.Config) error {
	if len(cfgs) == 0 {
		return nil
	}
	if _, ok := cfgs[0].(workload.Checker); !ok {
		return nil
	}
	c.tl.Begin(rundir.StepChecks)
	c.logf("consistency checks after the run on %d VMs", len(vms))
	if err := os.MkdirAll(filepath.Join(c.dir, rundir.ChecksDir), 0o755); err != nil {
		return err
	}
	start := time.Now()
	verdicts := make([]rundir.CheckVerdict, len(vms))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(2, min(len(vms), 8)))
	for i, vm := range vms {
		g.Go(func() error {
			var out bytes.Buffer
			err := c.driver.Check(gctx, i, cfgs[i], &out)
			verdicts[i] = rundir.CheckVerdict{VM: vm.Name, Passed: err == nil}
			status := "passed"
			if err != nil {
				verdicts[i].Error = err.Error()
				status = "FAILED: " + err.Error()
				c.logf("%s: consistency checks after the run %s", vm.Name, status)
			}
			text := fmt.Sprintf("# %s's consistency checks after the run, campaign %s\n%s# %s\n", vm.Name, c.id, out.String(), status)
			return atomicfile.Write(filepath.Join(c.dir, rundir.ChecksDir, vm.Name+".txt"), []byte(text))
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.rec.checks = verdicts
	if err := c.record(rundir.JournalEntry{Step: rundir.StepChecks, Checks: verdicts}); err != nil {
		return err
	}
	c.logf("%s in %s (%s)", review.CheckSummary(verdicts), time.Since(start).Round(time.Millisecond), filepath.Join(c.finalDir(), rundir.ChecksDir))
	return nil
}
