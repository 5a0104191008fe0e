package scenarios

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"go.yaml.in/yaml/v3"
	"golang.org/x/sync/errgroup"

	"vmbench/agent"
	"vmbench/internal/atomicfile"
	"vmbench/oltp"
	"vmbench/scenarios/blocksuite"
	"vmbench/scenarios/review"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/scenarios/vmdriver"
	"vmbench/vsphere"
	"vmbench/workload"
)

// vmSuite is a block suite in VMs as it runs: the suite (simulated in
// simulation) and its profiles, checked.
type vmSuite struct {
	*spec.Suite
	// plans are the profiles as checked, on placeholder targets; each VM
	// runs its own Configs (vmPlans).
	plans   []spec.SuitePlan
	started time.Time
	// results are the VMs' measured Results (every curve point's), for
	// the overhead table's workload window.
	results []*oltp.Result
}

// checkVMSuite checks a suite in VMs (as loaded) before anything is
// created: the suite as it runs (simulated with opts.Simulate), its
// profiles against this host's bounds, the block-worker layout, the
// guests (driver guest: guest.user outside simulation), --agent-binary
// and the vSphere options. Errors name the file and line.
func checkVMSuite(s *spec.Suite, opts Options) (*campaign, error) {
	env := newEnvironment(opts)
	run := s
	if env.simulated() {
		if s.Simulate == nil {
			return nil, fmt.Errorf("%s: --simulate needs a simulate: block (size, elapsed, interval, warmup, curve)", s.File())
		}
		run = s.Simulated("")
		run.Targets = nil
		if err := run.Validate(); err != nil {
			return nil, fmt.Errorf("%s (simulate: block): %w", s.File(), err)
		}
	}
	var errs []error
	plans, err := run.ForVM(checkTargetsDir()).Configs()
	errs = append(errs, err)
	if err == nil {
		errs = append(errs, blocksuite.CheckHost(run, plans))
	}
	cf := run.Campaign()
	if opts.Driver == spec.DriverHarness {
		errs = append(errs, errors.New("--driver harness: a block suite in VMs always runs in each VM's guest, against the VM's own vDisks (leave --driver out)"))
	} else if _, err := driverName(cf, opts, env); err != nil {
		errs = append(errs, err)
	}
	if opts.AgentBinary != "" {
		errs = append(errs, checkAgentBinary(cf, opts, env))
	}
	layout, err := suiteLayout(run)
	if err != nil {
		errs = append(errs, s.Errorf("vms", "vms", "%v", err))
	}
	errs = append(errs, env.check(cf, opts))
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	c := &campaign{spec: cf, opts: opts, env: env, layout: layout, kind: &vmSuite{Suite: run, plans: plans}}
	return c, nil
}

// runVMSuite runs a suite in VMs: the VM campaign's preflight and
// provisioning of block workers, the agent in every guest, then each
// profile in every VM at once from a common start, merged across the
// VMs point by point (workload.OutputMerger) and written as a block
// suite's results (the merged profile's files at the top, each VM's in
// vms/<vm>/), then teardown.
func runVMSuite(ctx context.Context, s *spec.Suite, opts Options) (*Outcome, error) {
	tl := rundir.NewTimeline(opts.Clock)
	tl.Begin(rundir.StepSetup)
	c, err := checkVMSuite(s, opts)
	if err != nil {
		return nil, err
	}
	c.tl = tl
	c.kind.(*vmSuite).started = time.Now()
	return runCampaign(ctx, c)
}

// measure is the suite's steps after provisioning: the agents, the
// profiles, the reports.
func (s *vmSuite) measure(ctx context.Context, c *campaign, vms []vsphere.VM) (*Outcome, error) {
	defer c.removeTempDir()
	if err := c.startDriver(ctx, vms); err != nil {
		return nil, err
	}
	defer func() { c.tl.Begin(rundir.StepTeardown); c.driver.Close() }()
	gd, ok := c.driver.(*vmdriver.Guest)
	if !ok {
		return nil, errors.New("a block suite in VMs runs in the guests (driver: guest)")
	}
	if err := s.writeFiles(c, vms); err != nil {
		return nil, err
	}
	plans, disks, err := s.vmPlans(ctx, c, gd, vms)
	if err != nil {
		return nil, err
	}
	c.tl.Begin(rundir.StepRun)
	c.stepf(rundir.StepRun, "run %d profile(s) in all %d VMs at once", len(s.plans), len(vms))
	defer func() { c.tl.EndRun(s.results) }()
	for k := range s.plans {
		if err := s.profile(ctx, c, gd, vms, k, plans, disks); err != nil {
			return nil, err
		}
	}
	c.rec.completed = true
	return &Outcome{}, nil
}

// writeFiles writes suite.yaml (the suite as it runs, with the
// template, the datastores the VMs went to and the placement as
// resolved) and run.json.
func (s *vmSuite) writeFiles(c *campaign, vms []vsphere.VM) error {
	r := *s.Suite
	v := *r.VMs
	r.VMs = &v
	v.Template, v.Datastores = c.vc.template, nil
	seen := map[string]bool{}
	for _, vm := range vms {
		if !seen[vm.Datastore] {
			seen[vm.Datastore] = true
			v.Datastores = append(v.Datastores, vm.Datastore)
		}
	}
	r.VSphere = c.vc.placement
	if c.env.simulated() {
		r.Simulate = &spec.SuiteSim{Hosts: c.vc.simHosts, Datastores: c.vc.simDatastores, Size: r.Size}
	}
	b, err := yaml.Marshal(&r)
	if err != nil {
		return err
	}
	hdr := fmt.Sprintf("# block suite %s in %d VMs as run by vmbench %s; simulate: %v\n", c.id, len(vms), c.opts.Version, c.env.simulated())
	if err := atomicfile.Write(filepath.Join(c.dir, "suite.yaml"), []byte(hdr+string(b))); err != nil {
		return err
	}
	return c.writeRunInfo(false)
}

// vmPlans are each VM's profiles (plans[vm][profile]): the suite's on
// the VM's own data disks. In simulation they are files in the VM's
// guest directory, created by the agent's prepare; in a real guest the
// agent finds each data vDisk by its SCSI address and UUID (disks[vm]),
// read back from vSphere after provisioning.
func (s *vmSuite) vmPlans(ctx context.Context, c *campaign, gd *vmdriver.Guest, vms []vsphere.VM) ([][]spec.SuitePlan, [][]agent.Disk, error) {
	plans := make([][]spec.SuitePlan, len(vms))
	disks := make([][]agent.Disk, len(vms))
	for i, vm := range vms {
		dir := ""
		if s.SimulatedTargets {
			info, err := gd.Targets()[i].Info(ctx)
			if err != nil {
				return nil, nil, fmt.Errorf("guest of %s: %w", vm.Name, err)
			}
			dir = info.Dir
		} else {
			d, err := c.dataDisks(vm)
			if err != nil {
				return nil, nil, err
			}
			disks[i] = d
		}
		p, err := s.ForVM(dir).Configs()
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", vm.Name, err)
		}
		plans[i] = p
	}
	return plans, disks, nil
}

// dataDisks are vm's data vDisks as the agent finds them: every disk
// but the boot disk, in bus and unit order, with the UUID vSphere gave
// it. A disk without a UUID cannot be found safely, and is refused.
func (c *campaign) dataDisks(vm vsphere.VM) ([]agent.Disk, error) {
	var out []agent.Disk
	for _, d := range vm.Disks {
		if d.Name == c.layout.Disks[0].Name {
			continue
		}
		if d.UUID == "" {
			return nil, fmt.Errorf("%s: data vDisk %s (SCSI %d:%d) has no UUID in vSphere, so its guest cannot tell it from another disk", vm.Name, d.Name, d.Bus, d.Unit)
		}
		out = append(out, agent.Disk{Name: d.Name, Bus: d.Bus, Unit: d.Unit, UUID: d.UUID, SizeBytes: d.CapacityBytes})
	}
	if want := len(c.layout.Disks) - 1; len(out) != want {
		return nil, fmt.Errorf("%s has %d data vDisks and the block-worker layout gave it %d", vm.Name, len(out), want)
	}
	return out, nil
}

// profile runs profile k in every VM at once from a common start
// and writes its results: each VM's Output in vms/<vm>/, the merge at the
// top, then the reports. A failure in one VM stops the profile in all
// of them, as in a VM campaign; what was measured until then is merged
// and kept, and the suite stops with the error.
func (s *vmSuite) profile(ctx context.Context, c *campaign, gd *vmdriver.Guest, vms []vsphere.VM, k int, plans [][]spec.SuitePlan, disks [][]agent.Disk) error {
	p := s.plans[k]
	plan := p.Profile
	if pf, ok := p.Config.(workload.Preflighter); ok {
		plan = pf.Plan()
	}
	c.logf("[%d/%d] %s, in each of %d VMs at once, about %s", k+1, len(s.plans), plan, len(vms), p.Config.Bounds().Time.Round(time.Second))
	work := func(i int) vmdriver.Work {
		return vmdriver.Work{Tool: spec.SuiteTool, Name: p.Profile, Config: plans[i][k].Config, Disks: disks[i]}
	}
	if s.SimulatedTargets {
		begin := time.Now()
		if err := c.suitePrepare(ctx, gd, vms, work); err != nil {
			return err
		}
		c.logf("%s: prepared in %s", p.Profile, time.Since(begin).Round(time.Millisecond))
	}
	begin := time.Now()
	start := c.tl.Now().Add(c.startDelay())
	outs := make([]*workload.Output, len(vms))
	g, gctx := errgroup.WithContext(ctx)
	for i, vm := range vms {
		g.Go(func() error {
			labels := vmLabels(vm, c.id, "suite", s.Name, "driver", string(spec.DriverGuest))
			out, err := gd.Step(gctx, i, work(i), workload.VerbRun, workload.Env{StartAt: start, Labels: labels})
			outs[i] = out
			if err != nil {
				return fmt.Errorf("%s on %s: %w", p.Profile, vm.Name, err)
			}
			return nil
		})
	}
	runErr := g.Wait()
	c.logf("%s: ran in %d VMs in %s", p.Profile, len(vms), time.Since(begin).Round(time.Millisecond))
	if err := s.writeProfile(c, p, vms, outs); err != nil {
		return errors.Join(runErr, err)
	}
	return runErr
}

// suitePrepare runs the agent's prepare step of every VM (a simulated
// guest's files are created there), in parallel.
func (c *campaign) suitePrepare(ctx context.Context, gd *vmdriver.Guest, vms []vsphere.VM, work func(int) vmdriver.Work) error {
	g, gctx := errgroup.WithContext(ctx)
	for i, vm := range vms {
		g.Go(func() error {
			w := &prefixWriter{prefix: "    " + vm.Name + ": ", w: c.log}
			defer w.Flush()
			if _, err := gd.Step(gctx, i, work(i), workload.VerbPrepare, workload.Env{Log: w}); err != nil {
				return fmt.Errorf("prepare on %s: %w", vm.Name, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// writeProfile writes profile p's files: each VM's Output (those
// that returned one) in vms/<vm>/ and their merge in the results
// directory, then the reports (review.WriteReports); the merged curve goes to
// Out. With no Output at all it writes nothing.
func (s *vmSuite) writeProfile(c *campaign, p spec.SuitePlan, vms []vsphere.VM, outs []*workload.Output) error {
	rw, ok := p.Config.(workload.ResultWriter)
	m, ok2 := p.Config.(workload.OutputMerger)
	if !ok || !ok2 {
		return fmt.Errorf("the suite's tool %s neither writes nor merges results (workload.ResultWriter, workload.OutputMerger)", spec.SuiteTool)
	}
	names := make([]string, len(vms))
	measured := false
	for i, vm := range vms {
		names[i] = vm.Name
		if outs[i] == nil || outs[i].Record == nil {
			outs[i] = nil
			continue
		}
		measured = true
		dir := filepath.Join(c.dir, "vms", vm.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if _, err := rw.WriteResults(dir, p.Profile, outs[i]); err != nil {
			return fmt.Errorf("%s: writing %s's results: %w", p.Profile, vm.Name, err)
		}
	}
	if !measured {
		return nil
	}
	merged, err := m.MergeOutputs(names, outs)
	if err != nil {
		return fmt.Errorf("%s: merging the VMs' curves: %w", p.Profile, err)
	}
	for _, o := range outs {
		if o != nil {
			s.results = append(s.results, m.Results(o)...)
		}
	}
	if _, err := rw.WriteResults(c.dir, p.Profile, merged); err != nil {
		return err
	}
	c.rec.vmResults++
	if _, err := review.WriteReports(c.dir); err != nil {
		return err
	}
	if r, ok := p.Config.(workload.Reporter); ok {
		out := cmp.Or[io.Writer](c.opts.Out, io.Discard)
		fmt.Fprintf(out, "\n%s, merged over %d VMs:\n", p.Profile, len(vms))
		return r.WriteReport(out, merged)
	}
	return nil
}
