package scenarios

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"golang.org/x/sync/errgroup"

	"vmbench/oltp"
	"vmbench/scenarios/live"
	"vmbench/scenarios/review"
	"vmbench/scenarios/rundir"
	"vmbench/vsphere"
	"vmbench/workload"
)

// runAll starts the workload on every VM with a common start time and
// returns one measure-phase Result per VM, in VM order. A failure on one
// VM stops all of them; the Results returned with its error are those
// the VMs returned (nil for a VM that returned none), to be timed only.
func (c *campaign) runAll(ctx context.Context, vms []vsphere.VM, cfgs []workload.Config) ([]*oltp.Result, error) {
	startAt := c.tl.Now().Add(c.startDelay())
	c.logf("common start at %s", startAt.Format("15:04:05.000"))
	names := make([]string, len(vms))
	for i, vm := range vms {
		names[i] = vm.Name
	}
	view := live.New(c.log, names)
	defer view.Close()
	defer c.harnessCost(oltp.MeasureProcess())
	results := make([]*oltp.Result, len(vms))
	g, gctx := errgroup.WithContext(ctx)
	for i, vm := range vms {
		g.Go(func() error {
			obs := vmObserver{live: view, vm: i}
			if i == 0 {
				obs.phase = func(p oltp.Phase, d time.Duration) { c.logf("phase %s (%s)", p, phaseLength(d)) }
			}
			w := &prefixWriter{prefix: "    " + vm.Name + ": ", w: c.log}
			out, err := c.driver.Run(gctx, i, cfgs[i], workload.Env{Log: w, Observer: obs, StartAt: startAt,
				Labels: vmLabels(vm, c.id, "driver", string(c.driver.Where(i)))})
			w.Flush()
			view.Done(i)
			if out != nil {
				results[i] = out.Result // a partial Result comes back with an interrupt
			}
			if err != nil {
				return fmt.Errorf("run on %s: %w", vm.Name, err)
			}
			return nil
		})
	}
	err := g.Wait()
	c.lateStarts(startAt, vms, results)
	if err != nil {
		// Keep what was measured until the failure or Ctrl-C, marked
		// interrupted in each Result, for the post-mortem. A Result of
		// another phase (a precondition cut short) measured nothing and
		// is not kept.
		for _, r := range results {
			if r != nil && r.Phase == oltp.PhaseMeasure && c.writeVMResult(r) == nil {
				c.rec.vmResults++
			}
		}
		return results, err
	}
	return results, nil
}

// harnessCost logs this process's own CPU time over the run step, per VM
// and per measured minute: what driving the VMs cost the harness (with
// driver: guest, the polling and downloads only; the agents are other
// processes).
func (c *campaign) harnessCost(stop func() *oltp.ClientCost) {
	hc := stop()
	if hc == nil {
		return
	}
	c.rec.harnessCPU = hc.CPU()
	perVM := hc.CPU() / time.Duration(max(1, c.spec.VMs.Count))
	line := fmt.Sprintf("harness CPU over the run step: %.3f s, %.3f s per VM", hc.CPU().Seconds(), perVM.Seconds())
	if m := c.cfg.Bounds().Time; m > 0 {
		line += fmt.Sprintf(", %.3f s per VM per measured minute", perVM.Seconds()/m.Minutes())
	}
	c.logf("%s (driver: %s)", line, c.driver.Where(0))
}

func (c *campaign) writeVMResult(r *oltp.Result) error {
	return r.WriteFile(filepath.Join(c.dir, "vms", r.Labels["vm"]+".json"))
}

func phaseLength(d time.Duration) string {
	if d == 0 {
		return "until the event limit"
	}
	return d.String()
}

// aggregate writes one Result per VM and the merged Result, renders the
// review (c.rec.report) and prints it.
func (c *campaign) aggregate(results []*oltp.Result) (*Outcome, error) {
	for _, r := range results {
		if err := c.writeVMResult(r); err != nil {
			return nil, err
		}
		c.rec.vmResults++
	}
	merged, err := oltp.Merge(results...)
	if err != nil {
		return nil, fmt.Errorf("merging the VMs' results: %w", err)
	}
	merged.Labels = map[string]string{"campaign": c.id, "role": c.spec.VMs.Role}
	if err := merged.WriteFile(filepath.Join(c.dir, "merged.json")); err != nil {
		return nil, err
	}
	if err := c.writeRunInfo(true); err != nil {
		return nil, err
	}
	c.rec.completed = true
	// The review is rendered from the files just written, as `vmbench
	// report DIR` renders it, once: its reports are written after the
	// teardown, with the overhead (finishOverhead).
	c.tl.Begin(rundir.StepReport)
	rep, err := review.Render(c.dir)
	if err != nil {
		return nil, err
	}
	c.rec.report = rep
	fmt.Fprintln(c.opts.Out)
	if err := rep.WriteText(c.opts.Out); err != nil {
		return nil, err
	}
	c.logf("wrote %d VM results and merged.json; report.md, report.csv and report.html follow the teardown", len(results))
	if err := c.finished(rundir.StepCollect); err != nil {
		return nil, err
	}
	return &Outcome{Review: rep.Review, Merged: merged, HarnessCPU: c.rec.harnessCPU}, nil
}

// vmLabels are the labels of vm's Results: vm, role, datastore, host
// (when known), campaign, and the pairs in more (key, value, ...).
func vmLabels(vm vsphere.VM, campaign string, more ...string) map[string]string {
	l := map[string]string{"vm": vm.Name, "role": vm.Role, "datastore": vm.Datastore, "campaign": campaign}
	if vm.Host != "" {
		l["host"] = vm.Host
	}
	for i := 0; i+1 < len(more); i += 2 {
		l[more[i]] = more[i+1]
	}
	return l
}
