package scenarios

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/scenarios/dataset"
	"vmbench/scenarios/review"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/scenarios/vmdriver"
	"vmbench/vsphere"
	"vmbench/workload"
)

// Options are the campaign's run-time choices, from the command line.
type Options struct {
	// Simulate runs against an in-process vcsim, with each VM's database
	// an embedded SQLite file, or a database on DBServer when set, and the
	// campaign's simulate: sizes. It chooses the campaign's environment
	// (newEnvironment), which the engine asks from then on.
	Simulate bool
	// DBServer, in simulation, is a database server (from --db-dsn) on
	// which each VM gets a database named after it.
	DBServer *dialect.Config
	// Guests, in simulation, says what each VM's guest is (--guests):
	// GuestsLocal (or "") a directory of this host, GuestsContainer a
	// container of the guest image with the VM's database inside.
	Guests Guests
	// GuestImage, with GuestsContainer, is the guests' docker image; ""
	// takes $VMBENCH_GUEST_IMAGE, else the tag of the recipe in
	// images/guest (internal/guestimage).
	GuestImage string
	// VSphere is the connection and placement for a real vCenter (GOVC_*
	// environment and flags); ignored in simulation.
	VSphere vsphere.Config
	// VcsimGuestIP, on a vcsim (only vcsim understands it), is the guest
	// IP every VM reports (vsphere.ProvisionSpec.SimulatedIP): with
	// 127.0.0.1 a test runs the vSphere path of a campaign, without
	// Simulate, against a vcsim of its own and local databases.
	// Simulation sets it itself.
	VcsimGuestIP string
	// Force, for PrepareData, makes the data set again even when one of
	// its key is there (prepare-data --force).
	Force bool
	// ResultsDir is the parent of the campaign's results directory
	// (default "results").
	ResultsDir string
	// KeepVMs leaves the VMs (and databases) in place at the end.
	KeepVMs bool
	// Out receives the review table; Log receives progress lines.
	Out, Log io.Writer
	// Getenv reads the environment (database password variable).
	Getenv func(string) string
	// Version is the vmbench version recorded with the results.
	Version string
	// StartDelay is the margin between the end of prepare and the common
	// start of all VMs; 0 for the default (see campaign.startDelay).
	StartDelay time.Duration
	// Driver, when set, overrides the campaign file's driver: (harness
	// or guest; --driver).
	Driver spec.Driver
	// AgentBinary is the vmbench executable uploaded to guests whose
	// OS/arch differ from this one's (--agent-binary); default this
	// executable.
	AgentBinary string
	// Clock times the campaign's steps (the overhead table) and sets the
	// common start; default time.Now. Tests give a clock of their own.
	Clock func() time.Time
	// Plan says the campaign is only planned (campaign plan): nothing
	// connects to its databases, so their password need not be set.
	Plan bool
}

// Outcome is what a finished campaign leaves.
type Outcome struct {
	Dir string // the results directory
	// HarnessCPU is this process's own CPU time (user + system) over the
	// run step: with driver: guest the agents' is not in it.
	HarnessCPU time.Duration
	Review     *review.Review
	Merged     *oltp.Result
}

// Check validates everything about a campaign that can be checked without
// touching anything: the spec, the workload's tool (workload.Lookup) and
// flags, parsed once, both as the protocol sets them and, with Simulate,
// as the simulate block overrides them, that the run ends (Bounds), that
// the tool runs on the database, and the VM layout. It is what makes bad
// input exit 2 with nothing created. cf is the file as loaded (not
// Simulated); errors name its file and line. It returns the campaign
// checked, which Run, PlanCampaign, FindData and PrepareData take, so
// that a campaign is checked once per process; the timing of its setup
// step starts here (Options.Clock).
func Check(cf *spec.Campaign, opts Options) (*Checked, error) {
	tl := rundir.NewTimeline(opts.Clock)
	tl.Begin(rundir.StepSetup)
	c, err := checked(cf, opts)
	if err != nil {
		return nil, err
	}
	c.tl = tl
	return &Checked{c: c}, nil
}

// Checked is a campaign Check passed: in the environment its Options
// choose, the file as it runs there, its workload parsed and its VM
// layout. It holds the run's state: Run, Resume, PlanCampaign or
// PrepareData use it once.
type Checked struct{ c *campaign }

// Config is the workload Config the campaign runs: the simulated one in
// simulation.
func (k *Checked) Config() workload.Config { return k.c.cfg }

// Layout is the campaign's VM layout (its role with the vms: block
// applied).
func (k *Checked) Layout() vsphere.Layout { return k.c.layout }

// checked checks cf (as loaded) as Check does and returns the campaign
// it makes: in the environment opts choose, cf as it runs there, its
// workload parsed and its layout.
func checked(cf *spec.Campaign, opts Options) (*campaign, error) {
	env := newEnvironment(opts)
	cfg, layout, err := check(cf, opts, env)
	if err != nil {
		return nil, err
	}
	return &campaign{spec: runSpec(cf, env), opts: opts, env: env, cfg: cfg, layout: layout, kind: vmWorkload{}}, nil
}

// check is Check in environment env.
func check(cf *spec.Campaign, opts Options, env environment) (workload.Config, vsphere.Layout, error) {
	var errs []error
	src := cf.Origin
	cfg, err := checkTool(cf, env)
	errs = append(errs, err)
	if _, err := driverName(cf, opts, env); err != nil {
		errs = append(errs, err)
	}
	if b := opts.AgentBinary; b != "" {
		errs = append(errs, checkAgentBinary(cf, opts, env))
	}
	errs = append(errs, checkConnLimit(cf, opts, env, cfg), checkHooks(cf, opts, env))
	layout, err := vsphere.LayoutFor(cf.VMs.Role)
	if err != nil {
		errs = append(errs, src.Errorf("vms.role", "vms.role: %w", err))
	} else if c := cf.VMs.CoresPerSocket; c > 0 && layout.NumCPU%c != 0 {
		errs = append(errs, src.Errorf("vms.cores-per-socket", "vms.cores-per-socket: %d does not divide the %s role's %d vCPUs", c, cf.VMs.Role, layout.NumCPU))
	} else if layout = applyVMs(layout, cf.VMs); layout.Validate() != nil {
		errs = append(errs, src.Errorf("vms.role", "vms.role %s with this vms: block: %w", cf.VMs.Role, layout.Validate()))
	} else {
		errs = append(errs, dataset.Check(cf, cfg, layout))
	}
	errs = append(errs, env.check(cf, opts))
	return cfg, layout, errors.Join(errs...)
}

// campaign is one run's state: what it runs and where (spec, opts, env,
// cfg, layout, driver, suite), its identity and log, and three groups
// each kept by a few files: vc (the vSphere side), rec (what the results
// directory records) and data (the data it restores and its temporary
// files).
type campaign struct {
	spec *spec.Campaign
	opts Options
	// env is where it runs (newEnvironment): the engine asks it, never
	// opts.Simulate.
	env    environment
	cfg    workload.Config // the workload, parsed once; each VM runs a copy (vmConfig)
	layout vsphere.Layout
	driver vmdriver.Driver // where each VM's workload runs (driver:)
	// kind is what it measures: the workload (vmWorkload) or a block
	// suite's profiles in place of cfg (vmSuite).
	kind kind
	id   string
	dir  string // results directory, while incomplete
	log  io.Writer
	// tl times the steps (Overhead).
	tl    *rundir.Timeline
	hooks hookState // the hooks: block's guests and saved output (hooks.go)
	vc    vcState
	rec   records
	data  dataState
}

// vcState is the campaign's vSphere side: the session, the simulator,
// where the VMs went and what they are.
type vcState struct {
	// sess is the vSphere session, once connected (guest operations
	// reach the guests through it); sim is the in-process simulator,
	// when the campaign started one.
	sess *vsphere.Session
	sim  *vsphere.Simulator
	// template is the template cloned; placement is where the VMs went,
	// as resolved by the preflight.
	template  string
	placement spec.VSphere
	// vsphereURL (without a password) and placementDC say where the VMs
	// are; where says which vSphere it was, for the log.
	vsphereURL, placementDC, where string
	// simHosts and simDatastores shape the in-process simulator (0 when
	// another vSphere was used); simHostNames are the simulator's hosts
	// that stand for the file's vms.hosts.
	simHosts, simDatastores int
	simHostNames            []string
	// provisionFailed says Provision returned an error, having removed
	// the VMs it made: the campaign's teardown then only checks.
	provisionFailed bool
	// vmRecords are the VMs as provisioned and read back (run.json).
	vmRecords []rundir.VMRecord
}

// records is what the campaign keeps for its results directory beyond
// the files each step writes.
type records struct {
	// manifest records what the campaign creates.
	manifest *rundir.Manifest
	// journal records the steps finished (JournalFile; resume.go);
	// resumed says this is `campaign resume` of a stopped campaign, and
	// prior are the processes that worked on it before (their steps
	// join this one's in the overhead record).
	journal *rundir.JournalWriter
	resumed bool
	prior   []rundir.Process
	// vmResults counts the per-VM measure-phase Results written (also
	// partial ones after a failure or Ctrl-C); a precondition's are not
	// measurements and are neither written nor counted.
	vmResults int
	// completed is set once the results are merged and reported;
	// overhead once teardown ended.
	completed bool
	overhead  *rundir.Overhead
	// report is a VM campaign's review, rendered once (aggregate) from
	// the files it wrote; its report.md, report.csv and report.html are
	// written after the teardown, with the overhead (finishOverhead).
	report *review.Report
	// checks are the consistency checks' verdicts after the run
	// (checks.go), one per measured VM; nil for a tool without checks.
	checks []rundir.CheckVerdict
	// harnessCPU is this process's CPU time over the run step.
	harnessCPU time.Duration
}

// dataState is the data the campaign restores and where it keeps its
// temporary files.
type dataState struct {
	// set is the data set restored into every VM (data.source:
	// prebuilt), found before anything is created; disk is the layout
	// disk it is restored onto.
	set  *dataset.Set
	disk vsphere.VDisk
	tmp  string // the campaign's temporary directory, once made (tempDir)
}

// finalDir is the results directory once the campaign has finished.
func (c *campaign) finalDir() string { return strings.TrimSuffix(c.dir, ".incomplete") }

func (c *campaign) logf(format string, args ...any) {
	fmt.Fprintf(c.log, "    "+format+"\n", args...)
}

// Run runs a whole campaign, checked by Check (with Options.Simulate its
// simulate block applies), and returns where its results are. On success the results directory is
// <ResultsDir>/<name>-<time>; until then it is named with ".incomplete",
// so a crash never leaves a directory that looks finished. VMs are
// destroyed at the end, on failure and on Ctrl-C, unless KeepVMs.
func Run(ctx context.Context, k *Checked) (out *Outcome, err error) {
	return runCampaign(ctx, k.c)
}

// runCampaign runs c, checked (spec, opts, cfg or suite, layout and
// timeline set): the results directory, the manifest, the steps, and
// what is left after a failure (see Run).
func runCampaign(ctx context.Context, c *campaign) (out *Outcome, err error) {
	cf, opts := c.spec, &c.opts
	if opts.ResultsDir == "" {
		opts.ResultsDir = "results"
	}
	rd, err := rundir.CreateResultsDir(opts.ResultsDir, cf.Name, time.Now())
	if err != nil {
		return nil, err
	}
	lock, err := rundir.Lock(rd.Path) // teardown refuses the directory while it is held
	if err != nil {
		rd.Discard()
		return nil, err
	}
	defer lock.Release()
	c.driver, c.log, c.id, c.dir = vmdriver.Harness{}, &syncWriter{w: opts.Log}, rd.ID, rd.Path
	final := rd.Final
	if err := os.Mkdir(filepath.Join(c.dir, "vms"), 0o755); err != nil {
		return nil, err
	}
	m, err := rundir.CreateManifest(c.dir, c.id)
	if err != nil {
		return nil, err
	}
	c.rec.manifest = m
	defer m.Close()
	if c.kind.resumable() {
		if c.rec.journal, err = rundir.OpenJournal(c.dir); err != nil {
			return nil, err
		}
		defer c.rec.journal.Close()
	}
	fmt.Fprintln(c.log, c.kind.announce(c, final))

	res, err := c.run(ctx)
	return c.conclude(rd, res, err)
}

// conclude ends a campaign whose steps returned res and err: the
// overhead, then either the error (what it left, where its results are)
// or the completed results directory rd.
func (c *campaign) conclude(rd *rundir.ResultsDir, res *Outcome, err error) (*Outcome, error) {
	cf, m := c.spec, c.rec.manifest
	if oerr := c.finishOverhead(err); err == nil {
		err = oerr
	}
	if err != nil {
		left := m.Outstanding()
		switch {
		case c.rec.vmResults == 0 && left == 0 && !c.rec.resumed && !c.hooks.saved.Load(): // a resume keeps the first attempt's directory, a hook's output is kept
			rd.Discard() // nothing measured, nothing left: leave nothing behind
			return nil, fmt.Errorf("campaign %s: %w", cf.Name, err)
		case left > 0:
			err = fmt.Errorf("%w; %d object(s) it created may be left (listed in %s): remove them with vmbench campaign teardown %s",
				err, left, filepath.Join(c.dir, rundir.ManifestFile), c.dir)
		}
		if c.rec.vmResults == 0 {
			return nil, &keptDirError{dir: c.dir, err: fmt.Errorf("campaign %s: %w (it stopped before measuring anything)", cf.Name, err)}
		}
		return nil, &keptDirError{dir: c.dir, err: fmt.Errorf("campaign %s: %w (the %d %s measured until then are in %s)", cf.Name, err, c.rec.vmResults, c.kind.measured(), c.dir)}
	}
	if err := rd.Complete(); err != nil {
		return nil, err
	}
	res.Dir = rd.Final
	return res, nil
}

func (c *campaign) run(ctx context.Context) (*Outcome, error) {
	sess, closeSess, err := c.openSession(ctx)
	if err != nil {
		return nil, err
	}
	defer closeSess()

	if err := c.findData(ctx); err != nil {
		return nil, err
	}
	pspec, err := c.preflight(ctx, sess)
	if err != nil {
		return nil, err
	}
	if err := c.restoreSpec(ctx, sess, &pspec); err != nil {
		return nil, fmt.Errorf("preflight: %w", err)
	}
	if err := c.preflighted(); err != nil {
		return nil, err
	}

	c.tl.Begin(rundir.StepProvision)
	c.stepf(rundir.StepProvision, "provision %d VMs (%s layout: %d vCPU, %d GB RAM, %s, %d vDisks)", pspec.Count, c.layout.Role,
		c.layout.NumCPU, c.layout.MemoryMB/1024, c.layout.Controller, len(c.layout.Disks))
	if err := c.recordVMs(pspec); err != nil {
		return nil, err
	}
	// Registered before the first clone: after a failed Provision (which
	// removes what it made) it checks that nothing is left.
	defer c.teardown(sess, pspec.VMNames())
	vms, err := sess.Provision(ctx, pspec, c.provisionLog)
	if err != nil {
		c.vc.provisionFailed = true
		return nil, fmt.Errorf("provision: %w", err)
	}
	c.vc.vmRecords = vmRecords(vms)
	if err := c.provisioned(vms); err != nil {
		return nil, err
	}
	return c.measure(ctx, vms)
}

// measure runs the campaign's kind on its provisioned VMs that reported
// an IP, up to its results; `campaign resume` starts here too.
func (c *campaign) measure(ctx context.Context, vms []vsphere.VM) (*Outcome, error) {
	var err error
	if vms, err = c.measurable(vms); err != nil {
		return nil, err
	}
	return c.kind.measure(ctx, c, vms)
}

// measureWorkload is vmWorkload's measure: the databases, the agents
// (driver guest), prepare, the run, the checks and the review.
func (c *campaign) measureWorkload(ctx context.Context, vms []vsphere.VM) (*Outcome, error) {

	cfgs, undo, err := c.placeWorkload(ctx, vms)
	defer undo()
	defer c.closeHooks() // before undo: the guest driver's targets outlive the hooks'
	if err != nil {
		return nil, err
	}
	if err := c.writeResolved(vms); err != nil {
		return nil, err
	}
	if err := c.writeRunInfo(false); err != nil {
		return nil, err
	}

	if err := c.runHooks(ctx, spec.HookBeforePrepare, vms); err != nil {
		return nil, err
	}
	c.tl.Begin(rundir.StepPrepare)
	c.stepf(rundir.StepPrepare, "%s %d VMs", c.dataWords(), len(vms))
	if err := c.prepare(ctx, vms, cfgs); err != nil {
		return nil, err
	}
	if err := c.finished(rundir.StepPrepare); err != nil {
		return nil, err
	}

	if err := c.runHooks(ctx, spec.HookBeforeRun, vms); err != nil {
		return nil, err
	}
	c.tl.Begin(rundir.StepRun)
	c.stepf(rundir.StepRun, "run %s on %d VMs from a common start", c.spec.Workload.Name, len(vms))
	results, err := c.runAll(ctx, vms, cfgs)
	c.tl.EndRun(results)
	if err != nil {
		return nil, err
	}
	c.tl.Begin(rundir.StepCounters)
	c.recordPlatform(ctx, vms, results)
	if err := c.measured(results); err != nil {
		return nil, err
	}
	if err := c.checkAfterRun(ctx, vms, cfgs); err != nil {
		return nil, err
	}
	if err := c.runHooks(ctx, spec.HookAfterRun, vms); err != nil {
		return nil, err
	}

	c.tl.Begin(rundir.StepCollect)
	c.stepf(rundir.StepCollect, "collect and aggregate")
	return c.aggregate(results)
}

// placeWorkload gives every VM its database and its driver (here, or the
// agent in its guest) and returns each VM's Config with the function that
// undoes it all at teardown, in reverse order: agents, databases, the
// temporary directory. undo is to be called also when err is not nil.
func (c *campaign) placeWorkload(ctx context.Context, vms []vsphere.VM) (cfgs []workload.Config, undo func(), err error) {
	var steps []func()
	undo = func() {
		c.tl.Begin(rundir.StepTeardown)
		for _, f := range slices.Backward(steps) {
			f()
		}
	}
	steps = append(steps, c.removeTempDir)
	c.tl.Begin(rundir.StepDatabases)
	c.stepf(rundir.StepDatabases, "a database per VM")
	cfgs, dropDBs, err := c.databases(ctx, vms)
	if err != nil {
		return nil, undo, err
	}
	steps = append(steps, dropDBs)
	if err := c.finished(rundir.StepDatabases); err != nil {
		return nil, undo, err
	}
	if err := c.startDriver(ctx, vms); err != nil {
		return nil, undo, err
	}
	steps = append(steps, c.driver.Close)
	if _, guest := c.driver.(*vmdriver.Guest); guest {
		if err := c.finished(rundir.StepAgents); err != nil {
			return nil, undo, err
		}
	}
	return cfgs, undo, nil
}

func (c *campaign) provisionSpec(sess *vsphere.Session) vsphere.ProvisionSpec {
	cfg := sess.Config()
	ds := c.spec.VMs.Datastores
	if d := cfg.Datastores(); len(d) > 0 {
		ds = d // GOVC_DATASTORE / --datastore win over the file
	}
	tmpl := c.spec.VMs.Template
	if cfg.Template != "" {
		tmpl = cfg.Template
	}
	c.vc.template = tmpl
	p := vsphere.ProvisionSpec{CampaignID: c.id, Layout: c.layout, Count: c.spec.VMs.Count, NamePrefix: c.spec.VMs.Role,
		Template: tmpl, Datastores: ds, ResourcePool: firstNonEmpty(cfg.ResourcePool, c.spec.VSphere.ResourcePool),
		Folder: firstNonEmpty(cfg.Folder, c.spec.VSphere.Folder), Network: firstNonEmpty(cfg.Network, c.spec.VSphere.Network),
		Parallel: c.spec.VMs.Parallel, PowerOn: true, Hosts: c.spec.VMs.Hosts,
		IPTimeout: time.Duration(c.spec.VMs.IPTimeout), KeepGoingWithoutIP: c.spec.VMs.OnIPTimeout == spec.OnIPTimeoutContinue,
		OnStep: c.tl.VMStep, Clock: c.tl.Now}
	if c.data.set != nil {
		p.Restore = &vsphere.DiskRestore{Disk: c.data.disk.Name, File: c.data.set.VDisk}
	}
	c.env.provision(c, &p)
	return p
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// prepare loads every VM's database in parallel, or restores the data set
// into each (restore); progress goes to the log, prefixed with the VM
// name, one line at a time.
func (c *campaign) prepare(ctx context.Context, vms []vsphere.VM, cfgs []workload.Config) error {
	if c.data.set != nil {
		return c.restore(ctx, vms, cfgs)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(2, min(len(vms), 8)))
	start := time.Now()
	for i, vm := range vms {
		g.Go(func() error {
			w := &prefixWriter{prefix: "    " + vm.Name + ": ", w: c.log}
			if err := c.driver.Prepare(gctx, i, cfgs[i], w); err != nil {
				return fmt.Errorf("prepare on %s: %w", vm.Name, err)
			}
			w.Flush()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	c.logf("prepared %d databases in %s", len(vms), time.Since(start).Round(time.Millisecond))
	return nil
}
