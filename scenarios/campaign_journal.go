package scenarios

import (
	"vmbench/oltp"
	"vmbench/scenarios/rundir"
	"vmbench/vsphere"
)

// The campaign's journal entries: each step recorded once it finished.

// record appends e to the campaign's journal with this process's
// overhead so far (Timeline.Snapshot). Nothing without a journal.
func (c *campaign) record(e rundir.JournalEntry) error {
	if c.rec.journal == nil {
		return nil
	}
	if c.tl != nil {
		e.Overhead = c.tl.Snapshot()
	}
	return c.rec.journal.Record(e)
}

// finished records step as finished in the campaign's journal.
func (c *campaign) finished(step rundir.Step) error {
	return c.record(rundir.JournalEntry{Step: step})
}

// preflighted records the preflight with the placement it resolved.
func (c *campaign) preflighted() error {
	p := c.vc.placement
	return c.record(rundir.JournalEntry{Step: rundir.StepPreflight, Placement: &p})
}

// provisioned records the VMs as provisioned (c.vc.vmRecords) and writes
// campaign.yaml already: a resume reads both, and the databases and
// agents steps may yet be killed. The later writeResolved writes the same.
func (c *campaign) provisioned(vms []vsphere.VM) error {
	if c.rec.journal == nil || !c.kind.resumable() {
		return nil
	}
	var measurable []vsphere.VM // as writeResolved is called later
	for _, vm := range vms {
		if vm.IPErr == nil {
			measurable = append(measurable, vm)
		}
	}
	if err := c.writeResolved(measurable); err != nil {
		return err
	}
	return c.record(rundir.JournalEntry{Step: rundir.StepProvision, VMs: c.vc.vmRecords, Simulated: c.env.simulated(),
		InProcess: c.vc.simHosts > 0, VSphereURL: c.vc.vsphereURL, Datacenter: c.vc.placementDC})
}

// measured writes every VM's measure-phase Result (platform counters
// added) as vms/<vm>.json and then records the run step as finished with
// their names: a resume then collects them and does not run again.
func (c *campaign) measured(results []*oltp.Result) error {
	if c.rec.journal == nil {
		return nil
	}
	names := make([]string, 0, len(results))
	for _, r := range results {
		if err := c.writeVMResult(r); err != nil {
			return err
		}
		names = append(names, r.Labels["vm"])
	}
	return c.record(rundir.JournalEntry{Step: rundir.StepRun, Measured: names})
}
