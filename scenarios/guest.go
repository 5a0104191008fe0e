package scenarios

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"vmbench/agent"
	"vmbench/dialect"
	"vmbench/internal/boundedread"
	"vmbench/oltp"
	"vmbench/scenarios/spec"
	"vmbench/target"
	"vmbench/vsphere"
	"vmbench/workload"
)

// guestPoll is how often the campaign reads each agent's status and new
// interval files.
const guestPoll = 250 * time.Millisecond

// guestUnreachable is how long a guest may fail to answer reads (its
// status, an interval file) before the campaign gives its VM up: a
// network hiccup or a busy guest must not stop a run that goes on inside
// it.
const guestUnreachable = 2 * time.Minute

// agentOverrun is how long past its planned end (common start, warm-up
// and measure) a run step may go on before its agent is taken for hung
// and stopped.
const agentOverrun = 5 * time.Minute

// agentUploads bounds the uploads of the agent in flight at once.
const agentUploads = 4

// agentStopGrace is how long a stopped agent (Ctrl-C, another VM's
// failure) has to write its partial Result before the campaign stops
// waiting for it.
const agentStopGrace = 15 * time.Second

// guestDriver runs each VM's workload in its guest through the vmbench
// agent: upload, a job per step, start, poll, download.
type guestDriver struct {
	c       *campaign
	targets []target.Target
	offsets []time.Duration // each guest's clock minus the harness's
	agents  []string        // the agent's path on each target

	mu      sync.Mutex
	running map[int]target.Process
}

// newGuestDriver reaches every VM's guest (openGuests), checks its clock
// against the bound and uploads the agent.
func newGuestDriver(ctx context.Context, c *campaign, vms []vsphere.VM) (*guestDriver, error) {
	targets, how, err := c.openGuests(ctx, vms)
	if err != nil {
		return nil, err
	}
	c.logf("%s", how)
	return newGuestDriverOn(ctx, c, targets)
}

// newGuestDriverOn is newGuestDriver on the given targets, one per VM in
// VM order; on an error it has closed them and removed what it put there.
func newGuestDriverOn(ctx context.Context, c *campaign, targets []target.Target) (*guestDriver, error) {
	d := &guestDriver{c: c, targets: targets, running: map[int]target.Process{}}
	if err := d.setup(ctx); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// setup measures every guest's clock and uploads the agent binary: the
// harness's own executable, or Options.AgentBinary.
func (d *guestDriver) setup(ctx context.Context) error {
	bin, err := d.agentBinary()
	if err != nil {
		return err
	}
	bound := d.c.maxClockOffset()
	start := time.Now()
	d.offsets = make([]time.Duration, len(d.targets))
	d.agents = make([]string, len(d.targets))
	binOS, binArch, err := executablePlatform(bin)
	if err != nil {
		return err
	}
	for i, t := range d.targets { // every clock before any upload
		info, err := t.Info(ctx)
		if err != nil {
			return fmt.Errorf("guest of %s: %w", t.Name(), err)
		}
		if info.OS != binOS || info.Arch != binArch {
			return fmt.Errorf("guest of %s is %s/%s and the agent %s is built for %s/%s: give a vmbench built for the guest with --agent-binary (make agents builds linux/amd64, linux/arm64 and windows/amd64)",
				t.Name(), info.OS, info.Arch, bin, binOS, binArch)
		}
		if off := info.ClockOffset.Abs(); off > bound {
			return fmt.Errorf("guest of %s: its clock is %s off the harness's (± %s), more than guest.max-clock-offset %s allows; synchronise its clock (NTP or VMware Tools time sync)",
				t.Name(), info.ClockOffset, info.ClockUncertainty, bound)
		}
		d.offsets[i] = info.ClockOffset
		d.agents[i] = agentPath(info)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(agentUploads)
	for i, t := range d.targets {
		g.Go(func() error {
			if err := t.Upload(gctx, bin, d.agents[i], 0o755); err != nil {
				return fmt.Errorf("uploading the agent to %s: %w", t.Name(), err)
			}
			return d.clearRunDirs(gctx, i)
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	var size int64
	if fi, err := os.Stat(bin); err == nil {
		size = fi.Size()
	}
	d.c.logf("agent %s (%.1f MB) uploaded to %d guests, checksums checked, in %s; clock offsets within %s",
		bin, float64(size)/1e6, len(d.targets), time.Since(start).Round(time.Millisecond), bound)
	return nil
}

// agentPath is where the agent is uploaded in a guest (info): its
// working directory's bin/vmbench, with .exe on Windows.
func agentPath(info target.Info) string {
	if info.OS == "windows" {
		return "bin/vmbench.exe"
	}
	return "bin/vmbench"
}

func (d *guestDriver) agentBinary() (string, error) {
	if b := d.c.opts.AgentBinary; b != "" {
		return b, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding this vmbench's executable to upload as the agent: %w (give one with --agent-binary)", err)
	}
	return exe, nil
}

func (d *guestDriver) Where(int) spec.Driver { return spec.DriverGuest }

func (d *guestDriver) Prepare(ctx context.Context, vm int, cfg workload.Config, log io.Writer) error {
	_, err := d.step(ctx, vm, d.work(cfg), workload.VerbPrepare, workload.Env{Log: log})
	return err
}

// Check runs the agent's check step; the agent's own lines (its
// log.txt) are copied to log.
func (d *guestDriver) Check(ctx context.Context, vm int, cfg workload.Config, log io.Writer) error {
	_, err := d.step(ctx, vm, d.work(cfg), workload.VerbCheck, workload.Env{Log: log})
	b, rerr := d.targets[vm].ReadFileMax(ctx, string(workload.VerbCheck)+"/"+agent.LogFile, agent.MaxLogSize)
	switch {
	case rerr == nil:
		_, _ = log.Write(b)
	case refusedFile(rerr):
		fmt.Fprintf(log, "the agent's check log was not copied: %v\n", rerr)
	}
	return err
}

func (d *guestDriver) Run(ctx context.Context, vm int, cfg workload.Config, env workload.Env) (*workload.Output, error) {
	return d.step(ctx, vm, d.work(cfg), workload.VerbRun, env)
}

// guestWork is what one agent job runs: a tool's workload by name with
// its Config, and for a block suite in a real guest the data disks the
// agent finds by their SCSI address and UUID (the Config's targets are
// then placeholders, and the job carries no target flag).
type guestWork struct {
	tool, name string
	cfg        workload.Config
	disks      []agent.Disk
}

// work is the campaign's own workload with cfg.
func (d *guestDriver) work(cfg workload.Config) guestWork {
	return guestWork{tool: d.c.spec.Workload.Tool, name: d.c.spec.Workload.Name, cfg: cfg}
}

// Close kills the agents still running and removes every guest's
// working directory; a simulated guest's processes (target.Local) all
// end with it, as a VM's do: a hook's background ones too.
func (d *guestDriver) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d.mu.Lock()
	for vm, p := range d.running {
		if err := p.Kill(ctx); err != nil {
			d.c.logf("stopping the agent on %s: %v", d.targets[vm].Name(), err)
		}
	}
	clear(d.running)
	d.mu.Unlock()
	for _, t := range d.targets {
		if l, ok := t.(*target.Local); ok {
			if err := l.Shutdown(); err != nil {
				d.c.logf("ending the processes of the simulated guest of %s: %v", t.Name(), err)
			}
		}
		if err := t.RemoveAll(ctx, "."); err != nil {
			d.c.logf("removing the agent's files on %s: %v", t.Name(), err)
		}
		t.Close()
	}
}

// job is the agent's job for one step of w on VM vm.
func (d *guestDriver) job(vm int, w guestWork, verb workload.Verb, env workload.Env) (*agent.Job, string) {
	j := &agent.Job{Version: agent.JobVersion, Tool: w.tool, Workload: w.name,
		Flags: workload.RecordedFlags(w.cfg), Steps: []workload.Verb{verb}, Labels: env.Labels}
	if len(w.disks) > 0 {
		delete(j.Flags, "target") // the agent passes the devices it finds
		j.Disks = w.disks
	}
	var password string
	if conn, ok := w.cfg.(workload.Connector); ok {
		for _, f := range conn.ConnectionFlags() {
			delete(j.Flags, f)
		}
		db := conn.Database()
		password, db.Password = db.Password, ""
		if d.c.env.guestDatabases() && db.Driver != dialect.SQLite && db.Socket == "" {
			db.Host = "127.0.0.1" // the agent drives the database of its own VM
		}
		j.Database = &db
	}
	if !env.StartAt.IsZero() {
		j.StartAt = env.StartAt.Add(d.offsets[vm]) // the same instant on the guest's clock
	}
	return j, password
}

// step runs one agent job on VM vm and follows it to its end.
func (d *guestDriver) step(ctx context.Context, vm int, w guestWork, verb workload.Verb, env workload.Env) (*workload.Output, error) {
	t, cfg := d.targets[vm], w.cfg
	job, password := d.job(vm, w, verb, env)
	b, err := job.Marshal()
	if err != nil {
		return nil, err
	}
	dir := string(verb)
	if err := d.stopLeftAgent(ctx, vm, dir); err != nil {
		return nil, err
	}
	if err := t.RemoveAll(ctx, dir); err != nil {
		return nil, err
	}
	if err := t.WriteFile(ctx, dir+"/"+agent.JobFile, b, 0o600); err != nil {
		return nil, fmt.Errorf("writing the agent's job to %s: %w", t.Name(), err)
	}
	info, err := t.Info(ctx)
	if err != nil {
		return nil, err
	}
	p, err := t.Start(ctx, target.Command{Path: d.agents[vm], Args: []string{"agent", "run", guestJoin(info, dir)},
		Env: []string{agent.PasswordEnv + "=" + password}, Output: dir + "/agent.out"})
	if err != nil {
		return nil, fmt.Errorf("starting the agent on %s: %w", t.Name(), err)
	}
	d.mu.Lock()
	d.running[vm] = p
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.running, vm)
		d.mu.Unlock()
	}()
	f := &follower{t: t, dir: dir, env: env, bounds: cfg.Bounds(), proc: p}
	if b := cfg.Bounds(); verb == workload.VerbRun && b.Time > 0 {
		start := env.StartAt
		if start.IsZero() {
			start = time.Now()
		}
		f.deadline = start.Add(b.WarmupTime + b.Time + agentOverrun)
	}
	st, err := f.follow(ctx)
	if err != nil {
		return d.partial(t, dir, verb, cfg), err
	}
	if verb != workload.VerbRun {
		return nil, nil
	}
	out := d.partial(t, dir, verb, cfg)
	if out == nil {
		return nil, fmt.Errorf("agent on %s is %s but left no %s", t.Name(), st.State, agent.ResultFile)
	}
	return out, nil
}

// clearRunDirs stops the agents a killed campaign left running in VM
// vm's run directories and removes those directories, before any step:
// so that no common start waits for a stop's grace (a step only finds an
// agent of its own campaign, which it never reuses a directory of).
func (d *guestDriver) clearRunDirs(ctx context.Context, vm int) error {
	for _, verb := range []workload.Verb{workload.VerbPrepare, workload.VerbCheck, workload.VerbRun, workload.VerbCleanup} {
		dir := string(verb)
		if err := d.stopLeftAgent(ctx, vm, dir); err != nil {
			return err
		}
		if err := d.targets[vm].RemoveAll(ctx, dir); err != nil {
			return err
		}
	}
	return nil
}

// stopLeftAgent stops an agent that still holds run directory dir on VM
// vm (`vmbench agent stop`): one a killed campaign left running, which
// would otherwise write into the files of the step about to reuse dir.
func (d *guestDriver) stopLeftAgent(ctx context.Context, vm int, dir string) error {
	t := d.targets[vm]
	if _, err := t.ReadFileMax(ctx, dir+"/"+agent.LockFile, agent.MaxStatusSize); err != nil {
		return nil // no lock: no agent runs there
	}
	info, err := t.Info(ctx)
	if err != nil {
		return err
	}
	out := dir + ".stop.out"
	p, err := t.Start(ctx, target.Command{Path: d.agents[vm], Args: []string{"agent", "stop", guestJoin(info, dir), "--grace", agentStopGrace.String()}, Output: out})
	if err != nil {
		return fmt.Errorf("stopping the agent left in %s on %s: %w", dir, t.Name(), err)
	}
	code, err := waitProcess(ctx, p, agentStopGrace+time.Minute)
	said, _ := t.ReadFileMax(ctx, out, agent.MaxLogSize)
	if err != nil {
		return fmt.Errorf("stopping the agent left in %s on %s: %w: %s", dir, t.Name(), err, bytes.TrimSpace(said))
	}
	if code != 0 {
		return fmt.Errorf("stopping the agent left in %s on %s: exit %d: %s", dir, t.Name(), code, bytes.TrimSpace(said))
	}
	d.c.logf("%s: %s", t.Name(), bytes.TrimSpace(said))
	return nil
}

// partial downloads the run step's Result, if the agent wrote one, and
// the tool's Record beside it when cfg reads one back
// (workload.OutputMerger).
func (d *guestDriver) partial(t target.Target, dir string, verb workload.Verb, cfg workload.Config) *workload.Output {
	if verb != workload.VerbRun {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := t.ReadFileMax(ctx, dir+"/"+agent.ResultFile, oltp.MaxResultFileSize)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			d.c.logf("downloading the Result from %s: %v", t.Name(), err)
		}
		return nil
	}
	r, err := agent.ParseResult(t.Name()+":"+dir+"/"+agent.ResultFile, b)
	if err != nil {
		d.c.logf("%v", err)
		return nil
	}
	out := &workload.Output{Result: r}
	if m, ok := cfg.(workload.OutputMerger); ok {
		name := t.Name() + ":" + dir + "/" + agent.RecordFile
		if b, err := t.ReadFileMax(ctx, dir+"/"+agent.RecordFile, oltp.MaxResultFileSize); err != nil {
			d.c.logf("downloading %s: %v", name, err)
		} else if out.Record, err = m.DecodeRecord(name, b); err != nil {
			d.c.logf("%v", err)
		}
	}
	return out
}

// guestJoin is dir's absolute path in the guest's own spelling.
func guestJoin(info target.Info, dir string) string {
	sep := "/"
	if info.OS == "windows" {
		sep = `\`
	}
	return info.Dir + sep + dir
}

// follower follows one agent job: its status, its interval files (passed
// on to the observer as they appear) and its process.
type follower struct {
	t      target.Target
	dir    string
	env    workload.Env
	bounds oltp.RunConfig
	proc   target.Process
	next   int          // the next interval file to read
	phases []oltp.Phase // the phases announced to the observer
	// failing is when reads from the guest started failing (zero while
	// they succeed); reported once.
	failing time.Time
	// now is the clock for failing (time.Now; tests give their own).
	now func() time.Time
	// deadline, when set, is when a run step that has not ended is given
	// up: its planned end plus agentOverrun (an agent stopped or hung).
	deadline time.Time
	// grace is how long stop waits for the agent's final status;
	// agentStopGrace when 0.
	grace time.Duration
}

// follow polls until the agent's status is final, and returns it; an
// agent that failed, or ended without a final status, is an error.
func (f *follower) follow(ctx context.Context) (agent.Status, error) {
	tick := time.NewTicker(guestPoll)
	defer tick.Stop()
	name := f.t.Name()
	for {
		st, err := f.poll(ctx)
		if err != nil {
			if !f.retry(err) {
				return st, err
			}
			if ctx.Err() != nil {
				return f.stop(st)
			}
			<-tick.C
			continue
		}
		switch {
		case st.State == agent.StateDone:
			return st, nil
		case st.State == agent.StateFailed:
			if st.FlagError {
				return st, &workload.FlagError{Err: fmt.Errorf("agent on %s: %s", name, st.Error)}
			}
			return st, fmt.Errorf("agent on %s: %s", name, st.Error)
		}
		running, code, err := f.proc.State(ctx)
		if err == nil && !running {
			// It may have written its final status just before it ended.
			if st, err := f.poll(ctx); err == nil && (st.State == agent.StateDone || st.State == agent.StateFailed) {
				continue
			}
			return st, fmt.Errorf("agent on %s ended (exit code %d) while %s: see %s/agent.out there", name, code, st.State, f.dir)
		}
		if !f.deadline.IsZero() && time.Now().After(f.deadline) {
			st, _ = f.stop(st)
			return st, fmt.Errorf("agent on %s had not finished %s after the run's planned end (state %s): stopped", name, agentOverrun, st.State)
		}
		select {
		case <-ctx.Done():
			return f.stop(st)
		case <-tick.C:
		}
	}
}

// retry says whether a failed read from the guest is to be tried again:
// a read error (the guest unreachable, a file mid-download) for up to
// guestUnreachable, logged once; a file that is there but malformed is
// not retried.
func (f *follower) retry(err error) bool {
	var bad *badFileError
	if errors.As(err, &bad) {
		return false
	}
	now := time.Now
	if f.now != nil {
		now = f.now
	}
	if f.failing.IsZero() {
		f.failing = now()
		if f.env.Log != nil {
			fmt.Fprintf(f.env.Log, "%v; trying again for up to %s\n", err, guestUnreachable)
		}
		return true
	}
	return now().Sub(f.failing) < guestUnreachable
}

// badFileError is a file read from the guest that is not what the agent
// writes: retrying does not mend it.
type badFileError struct{ err error }

func (e *badFileError) Error() string { return e.err.Error() }
func (e *badFileError) Unwrap() error { return e.err }

// refusedFile says whether err refuses a guest's file that is not a
// regular file or is over its bound: a bad file, which reading again does
// not mend, rather than a failed read.
func refusedFile(err error) bool {
	return errors.Is(err, boundedread.ErrTooLarge) || errors.Is(err, boundedread.ErrNotRegular)
}

// stop ends an agent after the campaign was cancelled: the agent writes
// its partial Result on SIGTERM, and the campaign waits for its final
// status at most the grace (agentStopGrace), and no longer than the
// agent's process runs: one that ended without a final status (killed
// before it could write one) has nothing more to say.
func (f *follower) stop(st agent.Status) (agent.Status, error) {
	ctx, cancel := context.WithTimeout(context.Background(), cmp.Or(f.grace, agentStopGrace))
	defer cancel()
	_ = f.proc.Kill(ctx) // one that ended already cannot be killed: the polls below read what it left
	tick := time.NewTicker(guestPoll)
	defer tick.Stop()
	for ctx.Err() == nil {
		if s, err := f.poll(ctx); err == nil {
			st = s
			if st.State == agent.StateDone || st.State == agent.StateFailed {
				break
			}
		}
		if running, _, err := f.proc.State(ctx); err == nil && !running {
			if s, err := f.poll(ctx); err == nil { // what it wrote as it ended
				st = s
			}
			break
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
	return st, context.Canceled
}

// poll reads the status and every interval file written since the last
// poll, and passes the new intervals to the observer in order.
func (f *follower) poll(ctx context.Context) (agent.Status, error) {
	b, err := f.t.ReadFileMax(ctx, f.dir+"/"+agent.StatusFile, agent.MaxStatusSize)
	if errors.Is(err, fs.ErrNotExist) {
		return agent.Status{State: agent.StateStarting}, nil // not written yet
	}
	if refusedFile(err) {
		return agent.Status{}, &badFileError{err}
	}
	if err != nil {
		return agent.Status{}, fmt.Errorf("reading the agent's status on %s: %w", f.t.Name(), err)
	}
	f.failing = time.Time{}
	st, err := agent.ParseStatus(b)
	if err != nil {
		return st, &badFileError{fmt.Errorf("%s:%s/%s: %w", f.t.Name(), f.dir, agent.StatusFile, err)}
	}
	switch st.State {
	case agent.StatePrecondition:
		f.announce(oltp.PhasePrecondition)
	case agent.StateMeasure:
		f.announce(oltp.PhaseMeasure)
	default: // the other states start no phase of the live view
	}
	for ; f.next < st.Intervals; f.next++ {
		b, err := f.t.ReadFileMax(ctx, f.dir+"/"+agent.IntervalPath(f.next+1), agent.MaxIntervalSize)
		if refusedFile(err) {
			return st, &badFileError{fmt.Errorf("%s: interval %d: %w", f.t.Name(), f.next+1, err)}
		}
		if err != nil {
			return st, fmt.Errorf("reading interval %d on %s: %w", f.next+1, f.t.Name(), err)
		}
		iv, err := agent.ParseInterval(b)
		if err != nil {
			return st, &badFileError{fmt.Errorf("%s: interval %d: %w", f.t.Name(), f.next+1, err)}
		}
		r, err := iv.Report()
		if err != nil {
			return st, &badFileError{fmt.Errorf("%s: interval %d: %w", f.t.Name(), f.next+1, err)}
		}
		f.announce(r.Phase)
		f.env.OnInterval(r)
	}
	return st, nil
}

// announce tells the observer that phase has started, once per phase.
func (f *follower) announce(phase oltp.Phase) {
	if slices.Contains(f.phases, phase) {
		return
	}
	f.phases = append(f.phases, phase)
	length := f.bounds.Time
	if phase == oltp.PhasePrecondition {
		length = f.bounds.WarmupTime
	}
	f.env.OnPhase(phase, length)
}
