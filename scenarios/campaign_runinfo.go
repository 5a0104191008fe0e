package scenarios

import (
	"errors"
	"fmt"

	"vmbench/scenarios/review"
	"vmbench/scenarios/rundir"
	"vmbench/vsphere"
)

// vmRecords turns Provision's VMs into run.json's records.
func vmRecords(vms []vsphere.VM) []rundir.VMRecord {
	out := make([]rundir.VMRecord, len(vms))
	for i, vm := range vms {
		out[i] = rundir.VMRecord{Name: vm.Name, MoRef: vm.MoRef, Host: vm.Host, Datastore: vm.Datastore, IP: vm.IP,
			Config: rundir.VMConfig(vm.Config), Disks: diskRecords(vm.Disks)}
		if vm.IPErr != nil {
			out[i].LeftOut = vm.IPErr.Error()
		}
	}
	return out
}

// diskRecords turns a VM's vDisks into run.json's records.
func diskRecords(disks []vsphere.Disk) []rundir.Disk {
	out := make([]rundir.Disk, len(disks))
	for i, d := range disks {
		out[i] = rundir.Disk{Name: d.Name, Bus: d.Bus, Unit: d.Unit, CapacityBytes: d.CapacityBytes, UUID: d.UUID,
			Datastore: d.Datastore, Provisioning: string(d.Provisioning), Controller: d.Controller}
	}
	return out
}

// vmDisks turns run.json's records of a VM's vDisks back into vSphere's
// (a resumed campaign's VMs).
func vmDisks(disks []rundir.Disk) []vsphere.Disk {
	out := make([]vsphere.Disk, len(disks))
	for i, d := range disks {
		out[i] = vsphere.Disk{Name: d.Name, Bus: d.Bus, Unit: d.Unit, CapacityBytes: d.CapacityBytes, UUID: d.UUID,
			Datastore: d.Datastore, Provisioning: vsphere.Provisioning(d.Provisioning), Controller: d.Controller}
	}
	return out
}

// writeRunInfo records run.json for a VM campaign (runInfo).
func (c *campaign) writeRunInfo(completed bool) error {
	return rundir.WriteRunInfo(c.dir, c.runInfo(completed))
}

// runInfo is run.json of a VM campaign: the vmbench version, what the
// environment says of where it ran (environment.recordRun), whether it
// completed and, once teardown ended, its Overhead.
func (c *campaign) runInfo(completed bool) rundir.RunInfo {
	ri := rundir.RunInfo{VMBench: c.opts.Version, Simulated: c.env.simulated(), Completed: completed, Overhead: c.rec.overhead,
		VMs: c.vc.vmRecords}
	if c.data.set != nil {
		ri.DataSet = &c.data.set.Key
	}
	ri.Checks = c.rec.checks
	c.kind.recordRun(c, &ri)
	return ri
}

// finishOverhead ends the timing of the steps (after teardown), prints
// the overhead table to Out and records it in run.json. A campaign that
// completed writes its reports, the review rendered once (c.rec.report) with
// this run.json, so that report.md shows the overhead as `vmbench report
// DIR` renders it; a block suite renders its reports again. One that
// stopped records it only when its directory is kept (it measured
// something), with the reports of a review it rendered before it
// stopped, as rendered then. runErr is the campaign's error, if any.
func (c *campaign) finishOverhead(runErr error) error {
	c.rec.overhead = c.tl.Overhead(runErr == nil && c.rec.completed)
	if c.rec.resumed {
		c.rec.overhead = rundir.JoinOverheads(c.rec.prior, c.rec.overhead)
	}
	fmt.Fprintln(c.opts.Out)
	if err := review.WriteOverheadText(c.opts.Out, c.rec.overhead); err != nil {
		return err
	}
	if runErr != nil {
		if c.rec.vmResults == 0 {
			return nil
		}
		err := c.writeRunInfo(false)
		if c.rec.report != nil {
			err = errors.Join(err, c.rec.report.WriteFiles())
		}
		return err
	}
	if c.rec.report == nil { // a block suite
		if err := c.writeRunInfo(true); err != nil {
			return err
		}
		_, err := review.WriteReports(c.dir)
		return err
	}
	ri := c.runInfo(true)
	if err := rundir.WriteRunInfo(c.dir, ri); err != nil {
		return err
	}
	c.rec.report.Info = &ri
	return c.rec.report.WriteFiles()
}
