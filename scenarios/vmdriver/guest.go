package vmdriver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"vmbench/agent"
	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/scenarios/spec"
	"vmbench/target"
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

// StopGrace is how long a stopped agent (Ctrl-C, another VM's failure)
// has to write its partial Result before the campaign stops waiting for
// it, and how long a killed process is given to end.
const StopGrace = 15 * time.Second

// GuestOptions is what a Guest driver takes from its campaign.
type GuestOptions struct {
	// Logf writes one line of the campaign's log (no trailing newline).
	Logf func(format string, args ...any)
	// MaxClockOffset is the most a guest's clock may be off the
	// harness's (guest.max-clock-offset); a guest further off is refused.
	MaxClockOffset time.Duration
	// AgentBinary is the vmbench executable uploaded as the agent; ""
	// uploads this process's own executable.
	AgentBinary string
	// Tool and Workload name the campaign's workload (workload.Tool's
	// name and the workload's), written into every job.
	Tool, Workload string
	// GuestDatabases says each VM's database runs in its own guest: the
	// agent then connects to 127.0.0.1, not to the VM's IP.
	GuestDatabases bool
}

// Guest runs each VM's workload in its guest through the vmbench agent:
// upload, a job per step, start, poll, download.
type Guest struct {
	opts    GuestOptions
	targets []target.Target
	offsets []time.Duration // each guest's clock minus the harness's
	agents  []string        // the agent's path on each target

	mu      sync.Mutex
	running map[int]target.Process
}

// NewGuest checks every guest's clock against opts.MaxClockOffset and
// uploads the agent to each, on targets opened by the caller, one per VM
// in VM order; it owns them from then on. On an error (a guest of another
// OS or architecture than the agent, a clock too far off, a failed
// upload) it has closed them and removed what it put there.
func NewGuest(ctx context.Context, opts GuestOptions, targets []target.Target) (*Guest, error) {
	d := &Guest{opts: opts, targets: targets, running: map[int]target.Process{}}
	if err := d.setup(ctx); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// setup measures every guest's clock and uploads the agent binary: the
// harness's own executable, or Options.AgentBinary.
func (d *Guest) setup(ctx context.Context) error {
	bin, err := d.agentBinary()
	if err != nil {
		return err
	}
	bound := d.opts.MaxClockOffset
	start := time.Now()
	d.offsets = make([]time.Duration, len(d.targets))
	d.agents = make([]string, len(d.targets))
	binOS, binArch, err := ExecutablePlatform(bin)
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
	d.opts.Logf("agent %s (%.1f MB) uploaded to %d guests, checksums checked, in %s; clock offsets within %s",
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

func (d *Guest) agentBinary() (string, error) {
	if b := d.opts.AgentBinary; b != "" {
		return b, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding this vmbench's executable to upload as the agent: %w (give one with --agent-binary)", err)
	}
	return exe, nil
}

// Where is DriverGuest for every VM.
func (d *Guest) Where(int) spec.Driver { return spec.DriverGuest }

// Prepare runs the agent's prepare step on VM vm (Step), its progress
// lines to log.
func (d *Guest) Prepare(ctx context.Context, vm int, cfg workload.Config, log io.Writer) error {
	_, err := d.Step(ctx, vm, d.work(cfg), workload.VerbPrepare, workload.Env{Log: log})
	return err
}

// Check runs the agent's check step; the agent's own lines (its
// log.txt) are copied to log.
func (d *Guest) Check(ctx context.Context, vm int, cfg workload.Config, log io.Writer) error {
	_, err := d.Step(ctx, vm, d.work(cfg), workload.VerbCheck, workload.Env{Log: log})
	b, rerr := d.targets[vm].ReadFileMax(ctx, string(workload.VerbCheck)+"/"+agent.LogFile, agent.MaxLogSize)
	switch {
	case rerr == nil:
		_, _ = log.Write(b)
	case refusedFile(rerr):
		fmt.Fprintf(log, "the agent's check log was not copied: %v\n", rerr)
	}
	return err
}

// Run runs the agent's run step on VM vm (Step) from env's common start,
// on the guest's clock, and returns the Result the agent wrote.
func (d *Guest) Run(ctx context.Context, vm int, cfg workload.Config, env workload.Env) (*workload.Output, error) {
	return d.Step(ctx, vm, d.work(cfg), workload.VerbRun, env)
}

// Work is what one agent job runs: a tool's workload by name with its
// Config, and for a block suite in a real guest the data disks the agent
// finds by their SCSI address and UUID (the Config's targets are then
// placeholders, and the job carries no target flag).
type Work struct {
	Tool, Name string
	Config     workload.Config
	Disks      []agent.Disk
}

// work is the campaign's own workload with cfg.
func (d *Guest) work(cfg workload.Config) Work {
	return Work{Tool: d.opts.Tool, Name: d.opts.Workload, Config: cfg}
}

// Close kills the agents still running and removes every guest's
// working directory; a simulated guest's processes (target.Local) all
// end with it, as a VM's do: a hook's background ones too.
func (d *Guest) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d.mu.Lock()
	for vm, p := range d.running {
		if err := p.Kill(ctx); err != nil {
			d.opts.Logf("stopping the agent on %s: %v", d.targets[vm].Name(), err)
		}
	}
	clear(d.running)
	d.mu.Unlock()
	Release(ctx, d.targets, d.opts.Logf)
}

// Targets are the guests, one per VM in VM order; they stay the
// driver's (Close closes them).
func (d *Guest) Targets() []target.Target { return d.targets }

// Release removes each target's working directory and closes it, a
// simulated guest's processes (target.Local) ended first, as a VM's end
// with it; logf says what could not be done.
func Release(ctx context.Context, targets []target.Target, logf func(string, ...any)) {
	for _, t := range targets {
		if l, ok := t.(*target.Local); ok {
			if err := l.Shutdown(); err != nil {
				logf("ending the processes of the simulated guest of %s: %v", t.Name(), err)
			}
		}
		if err := t.RemoveAll(ctx, "."); err != nil {
			logf("removing the agent's files on %s: %v", t.Name(), err)
		}
		t.Close()
	}
}

// StopLeftAgents stops the agents a killed campaign left running in the
// guests (targets, one per VM) and removes their run directories, up to
// four guests at once; the targets stay the caller's. An error names the
// guest.
func StopLeftAgents(ctx context.Context, opts GuestOptions, targets []target.Target) error {
	d := &Guest{opts: opts, targets: targets, agents: make([]string, len(targets))}
	for i, t := range targets {
		info, err := t.Info(ctx)
		if err != nil {
			return fmt.Errorf("guest of %s: %w", t.Name(), err)
		}
		d.agents[i] = agentPath(info)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(agentUploads)
	for i := range targets {
		g.Go(func() error { return d.clearRunDirs(gctx, i) })
	}
	return g.Wait()
}

// job is the agent's job for one step of w on VM vm.
func (d *Guest) job(vm int, w Work, verb workload.Verb, env workload.Env) (*agent.Job, string) {
	j := &agent.Job{Version: agent.JobVersion, Tool: w.Tool, Workload: w.Name,
		Flags: workload.RecordedFlags(w.Config), Steps: []workload.Verb{verb}, Labels: env.Labels}
	if len(w.Disks) > 0 {
		delete(j.Flags, "target") // the agent passes the devices it finds
		j.Disks = w.Disks
	}
	var password string
	if conn, ok := w.Config.(workload.Connector); ok {
		for _, f := range conn.ConnectionFlags() {
			delete(j.Flags, f)
		}
		db := conn.Database()
		password, db.Password = db.Password, ""
		if d.opts.GuestDatabases && db.Driver != dialect.SQLite && db.Socket == "" {
			db.Host = "127.0.0.1" // the agent drives the database of its own VM
		}
		j.Database = &db
	}
	if !env.StartAt.IsZero() {
		j.StartAt = env.StartAt.Add(d.offsets[vm]) // the same instant on the guest's clock
	}
	return j, password
}

// Step runs one agent job (w's verb step) on VM vm and follows it to its
// end: the job written, the agent started with the database password in
// its environment, its intervals passed to env's observer. A run step
// returns the agent's Result (and a partial one beside an error); a run
// step not ended agentOverrun after its planned end is stopped and is an
// error, as is an agent that failed or ended without a final status.
func (d *Guest) Step(ctx context.Context, vm int, w Work, verb workload.Verb, env workload.Env) (*workload.Output, error) {
	t, cfg := d.targets[vm], w.Config
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
func (d *Guest) clearRunDirs(ctx context.Context, vm int) error {
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
func (d *Guest) stopLeftAgent(ctx context.Context, vm int, dir string) error {
	t := d.targets[vm]
	if _, err := t.ReadFileMax(ctx, dir+"/"+agent.LockFile, agent.MaxStatusSize); err != nil {
		return nil // no lock: no agent runs there
	}
	info, err := t.Info(ctx)
	if err != nil {
		return err
	}
	out := dir + ".stop.out"
	p, err := t.Start(ctx, target.Command{Path: d.agents[vm], Args: []string{"agent", "stop", guestJoin(info, dir), "--grace", StopGrace.String()}, Output: out})
	if err != nil {
		return fmt.Errorf("stopping the agent left in %s on %s: %w", dir, t.Name(), err)
	}
	code, err := WaitProcess(ctx, p, StopGrace+time.Minute, "the agent's stop grace")
	said, _ := t.ReadFileMax(ctx, out, agent.MaxLogSize)
	if err != nil {
		return fmt.Errorf("stopping the agent left in %s on %s: %w: %s", dir, t.Name(), err, bytes.TrimSpace(said))
	}
	if code != 0 {
		return fmt.Errorf("stopping the agent left in %s on %s: exit %d: %s", dir, t.Name(), code, bytes.TrimSpace(said))
	}
	d.opts.Logf("%s: %s", t.Name(), bytes.TrimSpace(said))
	return nil
}

// partial downloads the run step's Result, if the agent wrote one, and
// the tool's Record beside it when cfg reads one back
// (workload.OutputMerger).
func (d *Guest) partial(t target.Target, dir string, verb workload.Verb, cfg workload.Config) *workload.Output {
	if verb != workload.VerbRun {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := t.ReadFileMax(ctx, dir+"/"+agent.ResultFile, oltp.MaxResultFileSize)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			d.opts.Logf("downloading the Result from %s: %v", t.Name(), err)
		}
		return nil
	}
	r, err := agent.ParseResult(t.Name()+":"+dir+"/"+agent.ResultFile, b)
	if err != nil {
		d.opts.Logf("%v", err)
		return nil
	}
	out := &workload.Output{Result: r}
	if m, ok := cfg.(workload.OutputMerger); ok {
		name := t.Name() + ":" + dir + "/" + agent.RecordFile
		if b, err := t.ReadFileMax(ctx, dir+"/"+agent.RecordFile, oltp.MaxResultFileSize); err != nil {
			d.opts.Logf("downloading %s: %v", name, err)
		} else if out.Record, err = m.DecodeRecord(name, b); err != nil {
			d.opts.Logf("%v", err)
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
