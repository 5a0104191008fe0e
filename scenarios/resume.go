package scenarios

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/scenarios/teardown"
	"vmbench/scenarios/vmdriver"
	"vmbench/vsphere"
)

// This file resumes a campaign that stopped (kill -9, a crash, a lost
// connection) from its results directory: the journal (JournalFile) says
// which steps finished, the manifest (ManifestFile) what exists.

// Resumable is a results directory whose campaign stopped after its VMs
// were provisioned, as OpenResume found it.
type Resumable struct {
	// Dir is the results directory (with its .incomplete suffix).
	Dir string
	// ID is the campaign's id (the directory's name without the suffix).
	ID string
	// Spec is the campaign as it ran (Dir/campaign.yaml).
	Spec *spec.Campaign
	// Simulated says the campaign ran with --simulate (against a vcsim
	// given with --url: the in-process one's VMs are gone).
	Simulated bool
	// VSphereURL is the recorded vSphere URL, without credentials.
	VSphereURL string
	// Journal is the directory's journal.
	Journal *rundir.Journal
	// provisioned is the journal's provision entry (the VMs).
	provisioned *rundir.JournalEntry
}

// OpenResume reads results directory dir and says whether its campaign
// can be resumed. Every error is bad input naming dir and why: dir is not
// a directory, is complete (no .incomplete suffix), lacks its manifest,
// journal or campaign.yaml, its campaign stopped before its VMs were
// provisioned, its VMs were in the in-process simulator (gone with the
// process), or its VMs were removed already. Each says what to do
// instead (usually `vmbench campaign teardown DIR`). It does not check
// the run lock: Resume does, as it takes it.
func OpenResume(dir string) (*Resumable, error) {
	dir = filepath.Clean(dir)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory: name the results directory of a campaign that did not complete (results/<name>-<time>-<id>.incomplete)", dir)
	}
	if !strings.HasSuffix(dir, ".incomplete") {
		return nil, fmt.Errorf("%s is complete (a campaign's results directory loses its .incomplete suffix once the campaign has finished): there is nothing to resume", dir)
	}
	teardown := "remove what it left with: vmbench campaign teardown " + dir
	left, err := rundir.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	j, err := rundir.ReadJournal(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: its campaign recorded no finished step (it stopped in its preflight, or a vmbench without resume ran it); %s", dir, rundir.JournalFile, teardown)
	}
	if err != nil {
		return nil, err
	}
	p := j.Provisioned()
	if p == nil {
		done := "none"
		if s := j.Steps(); len(s) > 0 {
			done = stepList(s)
		}
		return nil, fmt.Errorf("%s: its campaign stopped before its VMs were all provisioned (steps finished: %s): there is nothing to resume; %s, and run the campaign again", dir, done, teardown)
	}
	if p.InProcess {
		return nil, fmt.Errorf("%s: its VMs were in the in-process vSphere simulator of the process that ran it (--simulate without --url) and ended with that process: there is nothing to resume (a simulated campaign resumes only when it ran against a vcsim of its own, given with --url); %s", dir, teardown)
	}
	vmsLeft := 0
	for _, e := range left {
		if e.Kind == rundir.KindVM {
			vmsLeft++
		}
	}
	if vmsLeft == 0 {
		return nil, fmt.Errorf("%s: its VMs were removed (%s marks them so): there is nothing to resume; run the campaign again", dir, rundir.ManifestFile)
	}
	cf, err := spec.Load(filepath.Join(dir, "campaign.yaml"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no campaign.yaml: it is not the results directory of a VM campaign that provisioned its VMs; %s", dir, teardown)
	}
	if err != nil {
		return nil, err
	}
	return &Resumable{Dir: dir, ID: strings.TrimSuffix(filepath.Base(dir), ".incomplete"), Spec: cf,
		Simulated: p.Simulated, VSphereURL: p.VSphereURL, Journal: j, provisioned: p}, nil
}

// stepList lists steps for a message: "preflight, provision".
func stepList(steps []rundir.Step) string {
	names := make([]string, len(steps))
	for i, s := range steps {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// Check completes opts for resuming r and checks the campaign as Check
// does for a run: opts.Simulate is the recorded one, and an empty vSphere
// URL is the recorded one (its credentials from GOVC_USERNAME and
// GOVC_PASSWORD or the flags: the record holds none). It returns the
// campaign checked, for CheckData and Resume. Errors are bad input.
func (r *Resumable) Check(opts Options) (*Checked, error) {
	opts.Simulate = r.Simulated
	if opts.VSphere.URL == "" {
		opts.VSphere.URL = withoutPassword(r.VSphereURL)
	}
	if r.Simulated && opts.VSphere.URL == "" {
		return nil, fmt.Errorf("%s: no vSphere URL is recorded: give the vcsim's with --url", r.Dir)
	}
	return Check(r.Spec, opts)
}

// withoutPassword is a recorded (redacted) URL without its placeholder
// password, so that GOVC_PASSWORD or --password supply it.
func withoutPassword(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = url.User(u.User.Username())
	return u.String()
}

// withoutUser is a URL without its user and password.
func withoutUser(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}

// Resume goes on with the campaign of r, k as r.Check returned it:
// it takes the run lock (an error wrapping ErrRunning when the campaign
// is still running), reconnects to the same vSphere, finds the
// campaign's VMs by its tag and checks they are the recorded ones (name
// and MoRef), then redoes what did not finish. When the run step had
// finished on every VM, it collects the Results it wrote; otherwise the
// databases are made afresh (a killed prepare or run leaves data that is
// not the protocol's), the agents set up again (they belonged to the
// stopped process) and the data prepared and run again from a common
// start. Nothing is provisioned again. It then collects, reports,
// completes the directory and tears down as Run does (unless KeepVMs).
func Resume(ctx context.Context, r *Resumable, k *Checked) (*Outcome, error) {
	lock, err := rundir.Lock(r.Dir)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	c := k.c
	c.rec.resumed, c.rec.prior = true, r.Journal.Processes()
	c.driver, c.log, c.id, c.dir = vmdriver.Harness{}, &syncWriter{w: c.opts.Log}, r.ID, r.Dir
	if c.rec.manifest, err = rundir.ReopenManifest(r.Dir, r.ID); err != nil {
		return nil, err
	}
	defer c.rec.manifest.Close()
	if c.rec.journal, err = rundir.OpenJournal(r.Dir); err != nil {
		return nil, err
	}
	defer c.rec.journal.Close()
	if err := c.rec.journal.Record(rundir.JournalEntry{Step: rundir.StepResumed}); err != nil {
		return nil, err
	}
	rd := &rundir.ResultsDir{ID: r.ID, Path: r.Dir, Final: strings.TrimSuffix(r.Dir, ".incomplete")}
	fmt.Fprintf(c.log, "resuming campaign %s (steps finished: %s), results in %s\n", c.id, stepList(r.Journal.Steps()), rd.Final)
	res, err := c.resume(ctx, r)
	return c.conclude(rd, res, err)
}

// CheckData checks, before anything is touched, that a campaign that
// restores a pre-built data set (data.source: prebuilt) and has its run
// to do again finds its data set (FindData); k is r's campaign, checked
// (Resumable.Check).
func (r *Resumable) CheckData(ctx context.Context, k *Checked) error {
	if r.Journal.Last(rundir.StepRun) != nil {
		return nil
	}
	return FindData(ctx, k)
}

// resume is Resume's steps, once the directory is locked.
func (c *campaign) resume(ctx context.Context, r *Resumable) (*Outcome, error) {
	sess, closeSess, err := c.openSession(ctx)
	if err != nil {
		return nil, err
	}
	defer closeSess()
	c.vc.placement, c.vc.template = c.spec.VSphere, c.spec.VMs.Template
	c.vc.vmRecords = r.provisioned.VMs
	names := make([]string, len(c.vc.vmRecords))
	for i, vm := range c.vc.vmRecords {
		names[i] = vm.Name
	}
	if r.Journal.Last(rundir.StepRun) == nil { // the run is done again: data.source: prebuilt restores again
		if err := c.findData(ctx); err != nil {
			return nil, err // before the VMs are touched: they stay for another resume
		}
	}
	vms, err := c.findVMs(ctx)
	if err != nil {
		return nil, err
	}
	defer c.teardown(sess, names)
	if tmp := tempDirName(c.id); c.rec.manifest.Holds(rundir.KindTempDir, tmp) {
		if _, err := os.Stat(tmp); err == nil {
			c.data.tmp = tmp // the SQLite files and simulated guests
		}
	}
	if e := r.Journal.Last(rundir.StepRun); e != nil {
		c.tl.Begin(rundir.StepCollect)
		c.stepf(rundir.StepCollect, "collect and aggregate (the run had finished on every VM)")
		results, err := rundir.ReadMeasured(c.dir, e.Measured)
		if err != nil {
			return nil, err
		}
		c.rec.checks = r.Journal.Checks() // they ran after the run, in the process that ran it
		out, err := c.aggregate(results)
		c.removeLeftovers(ctx, vms)
		return out, err
	}
	c.logf("the run had not finished on every VM: the databases are made and prepared again, and the run is done again from a common start")
	if err := c.stopLeftAgents(ctx, vms); err != nil { // before any database or data disk is touched
		return nil, err
	}
	if err := c.restoreAgain(ctx, vms); err != nil {
		return nil, err
	}
	return c.measure(ctx, vms)
}

// findVMs lists the campaign's VMs by its tag and checks they are the
// recorded ones (name, MoRef, powered on); it returns them in the
// recorded order, a VM left out of the measurement with its IPErr set.
func (c *campaign) findVMs(ctx context.Context) ([]vsphere.VM, error) {
	listed, err := c.vc.sess.List(ctx, c.id)
	if err != nil {
		return nil, fmt.Errorf("listing the VMs of campaign %s: %w", c.id, err)
	}
	byName := make(map[string]vsphere.VM, len(listed))
	for _, vm := range listed {
		byName[vm.Name] = vm
	}
	gone := func(format string, args ...any) error {
		return fmt.Errorf("%s: cannot resume; remove what is left with: vmbench campaign teardown %s", fmt.Sprintf(format, args...), c.dir)
	}
	vms := make([]vsphere.VM, 0, len(c.vc.vmRecords))
	for _, rec := range c.vc.vmRecords {
		l, ok := byName[rec.Name]
		switch {
		case !ok:
			return nil, gone("VM %s of campaign %s is not on %s", rec.Name, c.id, c.vc.where)
		case l.MoRef != rec.MoRef:
			return nil, gone("VM %s is %s on %s, and the campaign recorded %s", rec.Name, l.MoRef, c.vc.where, rec.MoRef)
		case rec.LeftOut == "" && l.PowerState != "poweredOn":
			return nil, gone("VM %s is %s", rec.Name, l.PowerState)
		}
		delete(byName, rec.Name)
		vm := vsphere.VM{Name: rec.Name, MoRef: rec.MoRef, Datastore: rec.Datastore, IP: rec.IP, Role: l.Role,
			CampaignID: l.CampaignID, PowerState: l.PowerState, Disks: vmDisks(rec.Disks), Host: rec.Host, Config: vsphere.VMConfig(rec.Config)}
		if rec.LeftOut != "" {
			vm.IPErr = errors.New(rec.LeftOut)
		} else if l.IP != "" && l.IP != rec.IP {
			c.logf("%s: IP %s (it was %s when provisioned)", vm.Name, l.IP, rec.IP)
			vm.IP = l.IP
		}
		vms = append(vms, vm)
	}
	for name := range byName {
		c.logf("warning: %s carries the tag of campaign %s and is not among its recorded VMs: left alone", name, c.id)
	}
	c.logf("found the %d VMs of campaign %s as recorded", len(vms), c.id)
	return vms, nil
}

// removeLeftovers removes the databases and temporary directory the
// manifest still lists (a resume that only collected did not make them
// again), as `campaign teardown` does, unless KeepVMs: once the agents
// left in vms' guests are stopped (stopLeftAgents), or, when they could
// not be, nothing.
func (c *campaign) removeLeftovers(ctx context.Context, vms []vsphere.VM) {
	if c.opts.KeepVMs {
		return
	}
	left, err := rundir.ReadManifest(c.dir)
	if err != nil {
		c.logf("%v", err)
		return
	}
	if slices.ContainsFunc(left, func(e rundir.Created) bool { return e.Kind == rundir.KindDatabase }) {
		if err := c.stopLeftAgents(ctx, vms); err != nil {
			c.logf("%v; its databases are left: remove them with: vmbench campaign teardown %s", err, c.finalDir())
			return
		}
	}
	for _, e := range left {
		switch e.Kind {
		case rundir.KindDatabase:
			err = teardown.DropDatabase(ctx, e, c.opts.Getenv)
		case rundir.KindTempDir:
			err = teardown.RemoveTempDir(e)
		default:
			continue
		}
		if err != nil {
			c.logf("%v; remove it with: vmbench campaign teardown %s", err, c.finalDir())
			continue
		}
		c.removed(e.Kind, []string{e.Name}, "")
	}
}

// stopLeftAgents stops the agents a stopped guest-driven campaign may
// have left running in the guests of vms, before a resume touches a
// database or a data disk under them: every guest is reached as the
// agents step reaches it, and the agent holding each of its run
// directories is stopped (`vmbench agent stop`) and the directory
// removed (clearRunDirs). A simulated guest's agents die with the
// process that started them (target.Local), so only another process's
// are found there. Nothing for a campaign driven from the harness, or a
// simulated one whose guests' directory is gone.
func (c *campaign) stopLeftAgents(ctx context.Context, vms []vsphere.VM) error {
	if d, _ := driverName(c.spec, c.opts, c.env); d != spec.DriverGuest || (c.env.local() && c.data.tmp == "") {
		return nil
	}
	var measured []vsphere.VM // a VM left out had no agent
	for _, vm := range vms {
		if vm.IPErr == nil {
			measured = append(measured, vm)
		}
	}
	targets, _, err := c.openGuests(ctx, measured)
	if err != nil {
		return fmt.Errorf("reaching the guests to stop the agents the stopped campaign left: %w", err)
	}
	defer func() {
		for _, t := range targets {
			t.Close()
		}
	}()
	return vmdriver.StopLeftAgents(ctx, c.guestOptions(), targets)
}
