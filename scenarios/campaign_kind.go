package scenarios

import (
	"context"
	"fmt"
	"slices"

	"vmbench/scenarios/review"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/vsphere"
)

// kind is what a campaign measures in the VMs it provisions: a workload
// with a database per VM (vmWorkload), or a block suite's profiles on
// the VMs' own vDisks (vmSuite). The engine's steps around it (connect,
// preflight, provision, teardown) are the same for both.
type kind interface {
	// steps are its numbered steps, in the order they run ("==> [n/N]"
	// is a step's place in this list); guest says the workload runs in
	// the guests, through the agent.
	steps(guest bool) []rundir.Step
	// announce is the line that opens the campaign's log; final is the
	// results directory it will have.
	announce(c *campaign, final string) string
	// resumable says its steps are journaled for `campaign resume`.
	resumable() bool
	// measure runs it on the provisioned VMs that reported an IP, up to
	// its results (not the teardown, which the engine runs).
	measure(ctx context.Context, c *campaign, vms []vsphere.VM) (*Outcome, error)
	// measured names what records.vmResults counts, for an error that
	// keeps the results directory.
	measured() string
	// recordRun fills in run.json's kind and what it alone records.
	recordRun(c *campaign, ri *rundir.RunInfo)
}

var (
	_ kind = vmWorkload{}
	_ kind = (*vmSuite)(nil)
)

// vmWorkload is a VM campaign: the file's workload against a database
// per VM, from a common start, aggregated across the VMs.
type vmWorkload struct{}

func (vmWorkload) steps(guest bool) []rundir.Step {
	s := []rundir.Step{rundir.StepPreflight, rundir.StepProvision, rundir.StepDatabases}
	if guest {
		s = append(s, rundir.StepAgents)
	}
	return append(s, rundir.StepPrepare, rundir.StepRun, rundir.StepCollect, rundir.StepTeardown)
}

func (vmWorkload) announce(c *campaign, final string) string {
	cf := c.spec
	return fmt.Sprintf("campaign %s: %d x %s VMs, workload %s %s, results in %s",
		c.id, cf.VMs.Count, cf.VMs.Role, cf.Workload.Tool, cf.Workload.Name, final)
}

func (vmWorkload) resumable() bool { return true }

func (vmWorkload) measure(ctx context.Context, c *campaign, vms []vsphere.VM) (*Outcome, error) {
	return c.measureWorkload(ctx, vms)
}

func (vmWorkload) measured() string { return "VM results" }

func (vmWorkload) recordRun(c *campaign, ri *rundir.RunInfo) {
	ri.Kind = rundir.VMCampaignKind
	c.env.recordRun(c, ri)
}

func (*vmSuite) steps(bool) []rundir.Step {
	return []rundir.Step{rundir.StepPreflight, rundir.StepProvision, rundir.StepAgents, rundir.StepRun, rundir.StepTeardown}
}

func (s *vmSuite) announce(c *campaign, final string) string {
	return fmt.Sprintf("block suite %s: %s, %d profile(s) in every VM at once, results in %s",
		c.id, review.DescribeSuiteVMs(s.Suite), len(s.Profiles), final)
}

// resumable is false: a block suite is run again, not resumed.
func (*vmSuite) resumable() bool { return false }

func (*vmSuite) measured() string { return "profile(s)" }

func (s *vmSuite) recordRun(_ *campaign, ri *rundir.RunInfo) {
	ri.Kind, ri.Started = rundir.SuiteRunKind, s.started
}

// guestDriven says the campaign's workload runs in the guests (driver:
// guest), which adds the agents step.
func (c *campaign) guestDriven() bool {
	d, _ := driverName(c.spec, c.opts, c.env)
	return d == spec.DriverGuest
}

// stepf begins numbered step step in the log: "==> [n/N] " and the
// line, n its place in the kind's steps and N their count.
func (c *campaign) stepf(step rundir.Step, format string, args ...any) {
	steps := c.kind.steps(c.guestDriven())
	fmt.Fprintf(c.log, "==> [%d/%d] %s\n", slices.Index(steps, step)+1, len(steps), fmt.Sprintf(format, args...))
}
