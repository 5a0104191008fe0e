package scenarios

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"go.yaml.in/yaml/v3"
	"golang.org/x/sync/errgroup"

	"vmbench/internal/atomicfile"
	"vmbench/internal/boundedread"
	"vmbench/target"
	"vmbench/vsphere"
)

// This file runs a campaign's hooks: shell commands in every VM's guest
// at points of the campaign (the hooks: block), their output kept in the
// results directory.

// The hooks: the points of a campaign where commands run (HooksSpec).
const (
	// HookBeforePrepare runs right before the prepare step, once every
	// VM has its database (and, with driver guest, its agent).
	HookBeforePrepare = "before-prepare"
	// HookBeforeRun runs after prepare, before the common start.
	HookBeforeRun = "before-run"
	// HookAfterRun runs after the measure phase, before collect.
	HookAfterRun = "after-run"
)

// hookNames are the hooks in the order they run.
var hookNames = []string{HookBeforePrepare, HookBeforeRun, HookAfterRun}

// Values of HooksSpec.OnFailure.
const (
	// HookFailureStop stops the campaign when a hook command fails (the
	// default).
	HookFailureStop = "stop"
	// HookFailureContinue logs the failure and goes on.
	HookFailureContinue = "continue"
)

// Bounds of the hooks' own options.
const (
	// DefaultHookTimeout is how long one hook command may run on a VM
	// before it is stopped and counts as failed (hooks.timeout).
	DefaultHookTimeout = 30 * time.Minute
	// MaxHookTimeout bounds hooks.timeout.
	MaxHookTimeout = 24 * time.Hour
)

// hookParallel bounds the VMs one hook command runs on at once.
const hookParallel = 8

// maxHookOutput bounds the output of one command kept in the results: its
// last MiB.
const maxHookOutput = 1 << 20

// maxHookRead bounds the output file read back from a guest, of which the
// last maxHookOutput bytes are kept: a larger one is not read at all.
const maxHookRead = 64 << 20

// HooksSpec is the hooks: block: shell commands run in every VM's guest,
// through the same target driver: guest uses (SSH, or VMware Tools with
// guest.via: tools; in simulation the local directory that stands in for
// the VM), with /bin/sh -c (cmd.exe /c on Windows). Each command runs on
// every VM at once (at most 8 VMs at a time), the commands of a hook one
// after another, in the guest's working directory, with VMBENCH_CAMPAIGN,
// VMBENCH_VM and VMBENCH_HOOK set. Output, exit status and duration go to
// <results>/hooks/<hook>/<vm>.txt.
//
//	hooks:
//	  before-prepare: ["sync", "echo 3 > /proc/sys/vm/drop_caches"]
//	  before-run: [...]
//	  after-run: [...]
//	  on-failure: continue   # default stop
//	  timeout: 10m           # per command and VM, default 30m
type HooksSpec struct {
	// BeforePrepare, BeforeRun and AfterRun are the commands of each
	// hook (HookBeforePrepare...).
	BeforePrepare []string `yaml:"before-prepare,omitempty"`
	BeforeRun     []string `yaml:"before-run,omitempty"`
	AfterRun      []string `yaml:"after-run,omitempty"`
	// OnFailure is what a command that fails on a VM (an exit status
	// other than 0, or one that could not be run or followed to its end)
	// does: "stop" (the default: the campaign fails, naming the VM, hook,
	// command, exit status and saved output) or "continue" (it is logged).
	OnFailure string `yaml:"on-failure,omitempty"`
	// Timeout bounds one command on one VM (default DefaultHookTimeout).
	Timeout Duration `yaml:"timeout,omitempty"`
}

// commands returns hook's commands; none for a nil HooksSpec.
func (h *HooksSpec) commands(hook string) []string {
	if h == nil {
		return nil
	}
	switch hook {
	case HookBeforePrepare:
		return h.BeforePrepare
	case HookBeforeRun:
		return h.BeforeRun
	case HookAfterRun:
		return h.AfterRun
	}
	return nil
}

// any says whether h holds a command.
func (h *HooksSpec) any() bool {
	for _, name := range hookNames {
		if len(h.commands(name)) > 0 {
			return true
		}
	}
	return false
}

// timeout is hooks.timeout or the default.
func (h *HooksSpec) timeout() time.Duration {
	if h != nil && h.Timeout > 0 {
		return time.Duration(h.Timeout)
	}
	return DefaultHookTimeout
}

// validateHooks checks the hooks: block: every command a non-empty
// string, on-failure and timeout valid. Each problem names its line.
func (s *Spec) validateHooks() error {
	h := s.Hooks
	if h == nil {
		return nil
	}
	var errs []error
	bad := func(path, format string, args ...any) {
		errs = append(errs, s.src.errorf(path, format, args...))
	}
	for _, name := range hookNames {
		cmds := h.commands(name)
		if n := s.src.value("hooks." + name); n != nil && n.Kind == yaml.SequenceNode {
			// yaml drops a null entry ("-" alone) from a []string: read
			// the entries from the file
			cmds = make([]string, len(n.Content))
			for i, e := range n.Content {
				cmds[i] = e.Value
			}
		}
		for i, cmd := range cmds {
			at := fmt.Sprintf("hooks.%s.%d", name, i)
			switch {
			case strings.TrimSpace(cmd) == "":
				bad(at, "hooks.%s: command %d is empty; give a shell command (e.g. sync)", name, i+1)
			case strings.ContainsRune(cmd, 0):
				bad(at, "hooks.%s: command %d holds a NUL byte", name, i+1)
			}
		}
	}
	switch h.OnFailure {
	case "", HookFailureStop, HookFailureContinue:
	default:
		bad("hooks.on-failure", "hooks.on-failure: %q is not valid (stop: a failing command fails the campaign; continue: it is logged and the campaign goes on)", h.OnFailure)
	}
	if d := time.Duration(h.Timeout); d < 0 || d > MaxHookTimeout || (d > 0 && d < time.Second) {
		bad("hooks.timeout", "hooks.timeout: %s is not valid (0 for the default of %s, or 1s..%s)", d, DefaultHookTimeout, MaxHookTimeout)
	}
	return errors.Join(errs...)
}

// checkHooks refuses hooks that cannot reach the guests: in a real
// campaign driven from the harness, they log in to each guest as driver
// guest does, so the guest: block must say how (driver guest, and
// simulation, need nothing more).
func checkHooks(spec *Spec, opts Options) error {
	if !spec.Hooks.any() || opts.Simulate {
		return nil
	}
	if d, err := driverName(spec, opts); err != nil || d == DriverGuest {
		return nil // driverName's own error is reported by Check
	}
	if g := spec.Guest; g == nil || (g.Via != GuestViaTools && g.User == "") {
		return spec.src.errorf("hooks", "hooks: their commands run in each VM's guest, and this campaign has no way to log in to the guests: add guest.user (with guest.key-file, guest.agent or guest.password-env) to reach them by SSH, or guest.via: tools with a guest login")
	}
	o := opts
	o.Driver = DriverGuest // the same login as driver guest's, checked the same way
	_, err := driverName(spec, o)
	return err
}

// hookState is the campaign's hooks while it runs.
type hookState struct {
	// targets are the VMs' guests, in VM order, once a hook ran; infos
	// their Info.
	targets []target.Target
	infos   []target.Info
	// own says the targets were opened for the hooks (not the guest
	// driver's): closeHooks closes them and removes their directories.
	own bool
	// saved says a hook's output is in the results directory, which is
	// then kept after a failure (set from the hooks' goroutines).
	saved atomic.Bool
	// files holds, per hook and VM, the text of hooks/<hook>/<vm>.txt.
	files map[string]*bytes.Buffer
}

// hookStep is the overhead table's step of hook.
func hookStep(hook string) string { return "hooks: " + hook }

// runHooks runs hook's commands on every VM, one command after another,
// each on every VM at once (at most hookParallel): see HooksSpec. A
// failure stops the campaign unless hooks.on-failure is continue.
func (c *campaign) runHooks(ctx context.Context, hook string, vms []vsphere.VM) error {
	cmds := c.spec.Hooks.commands(hook)
	if len(cmds) == 0 {
		return nil
	}
	c.tl.begin(hookStep(hook))
	if err := c.openHookTargets(ctx, vms); err != nil {
		return fmt.Errorf("hook %s: %w", hook, err)
	}
	for n, cmd := range cmds {
		c.logf("hook %s [%d/%d] on %d VMs: %s", hook, n+1, len(cmds), len(vms), cmd)
		errs := make([]error, len(vms))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(hookParallel)
		for i, vm := range vms {
			g.Go(func() error {
				errs[i] = c.hookOn(gctx, hook, n, cmd, i, vm.Name)
				return nil
			})
		}
		_ = g.Wait()
		if err := ctx.Err(); err != nil {
			return err
		}
		err := errors.Join(errs...)
		switch {
		case err == nil:
		case c.spec.Hooks.OnFailure == HookFailureContinue:
			for _, e := range errs {
				if e != nil {
					c.logf("warning: %v; going on (hooks.on-failure: continue)", e)
				}
			}
		default:
			return err
		}
	}
	return nil
}

// openHookTargets opens every VM's guest for the hooks, once: the guest
// driver's when the campaign has one, else targets of their own.
func (c *campaign) openHookTargets(ctx context.Context, vms []vsphere.VM) error {
	h := &c.hooks
	if h.targets != nil {
		return nil
	}
	if d, ok := c.driver.(*guestDriver); ok {
		h.targets = d.targets
	} else {
		ts, how, err := c.openGuests(ctx, vms)
		if err != nil {
			return err
		}
		h.targets, h.own = ts, true
		c.logf("hooks: %s", how)
	}
	h.infos = make([]target.Info, len(h.targets))
	for i, t := range h.targets {
		info, err := t.Info(ctx)
		if err != nil {
			return fmt.Errorf("guest of %s: %w", t.Name(), err)
		}
		h.infos[i] = info
	}
	h.files = map[string]*bytes.Buffer{}
	for _, hook := range hookNames {
		for _, vm := range vms {
			h.files[hook+"/"+vm.Name] = new(bytes.Buffer)
		}
	}
	return nil
}

// closeHooks closes the targets opened for the hooks alone and removes
// their working directories; the guest driver closes its own.
func (c *campaign) closeHooks() {
	h := &c.hooks
	if h.own {
		(&guestDriver{c: c, targets: h.targets}).Close()
	}
	h.targets, h.own = nil, false
}

// hookRun is one hook command's run on one VM.
type hookRun struct {
	code       int // exit status; -1 when unknown
	start, end time.Time
	output     []byte
	truncated  bool  // output holds the last maxHookOutput bytes only
	err        error // it could not be run or followed to its end
}

// status describes how r ended.
func (r hookRun) status() string {
	if r.err != nil {
		return "not run to its end: " + r.err.Error()
	}
	return fmt.Sprintf("exit status %d", r.code)
}

// hookOn runs the n-th command of hook on VM vm (named name), appends its
// record to the VM's hooks/<hook>/<vm>.txt, logs one line, and returns
// the failure, if any, naming VM, hook, command, status and file.
func (c *campaign) hookOn(ctx context.Context, hook string, n int, cmd string, vm int, name string) error {
	h := &c.hooks
	t, info := h.targets[vm], h.infos[vm]
	env := []string{"VMBENCH_CAMPAIGN=" + c.id, "VMBENCH_VM=" + name, "VMBENCH_HOOK=" + hook}
	r := runOnTarget(ctx, t, info, cmd, env, fmt.Sprintf("hooks/%s-%d.out", hook, n+1), c.spec.Hooks.timeout())

	rel := filepath.Join("hooks", hook, name+".txt")
	buf := h.files[hook+"/"+name] // this goroutine's alone
	if buf.Len() == 0 {
		fmt.Fprintf(buf, "# hook %s on %s, campaign %s\n", hook, name, c.id)
	}
	fmt.Fprintf(buf, "\n$ %s\n# %s, %s, from %s to %s\n", cmd, r.status(), r.end.Sub(r.start).Round(time.Millisecond),
		r.start.UTC().Format(time.RFC3339Nano), r.end.UTC().Format(time.RFC3339Nano))
	if r.truncated {
		fmt.Fprintf(buf, "# output: its last %d bytes\n", maxHookOutput)
	}
	buf.Write(r.output)
	if len(r.output) > 0 && !bytes.HasSuffix(r.output, []byte("\n")) {
		buf.WriteString("\n")
	}
	path := filepath.Join(c.dir, rel)
	werr := os.MkdirAll(filepath.Dir(path), 0o755)
	if werr == nil {
		werr = atomicfile.Write(path, buf.Bytes())
	}
	if werr != nil {
		werr = fmt.Errorf("saving the output of hook %s on %s: %w", hook, name, werr)
	} else {
		h.saved.Store(true)
	}
	c.logf("hook %s [%d] %s: %s in %s (%s)", hook, n+1, name, r.status(), r.end.Sub(r.start).Round(time.Millisecond), rel)
	if r.err == nil && r.code == 0 {
		return werr
	}
	if r.err == nil {
		r.err = fmt.Errorf("exit status %d", r.code)
	}
	return errors.Join(fmt.Errorf("hook %s on %s: command %q failed: %w (output in %s)", hook, name, cmd, r.err, path), werr)
}

// runOnTarget runs command with the guest's shell on t (Info info), its
// output to the file out there, and waits for its end, at most timeout:
// on ctx's end or the timeout it is killed.
func runOnTarget(ctx context.Context, t target.Target, info target.Info, command string, env []string, out string, timeout time.Duration) hookRun {
	r := hookRun{code: -1, start: time.Now()}
	prog, args := "/bin/sh", []string{"-c", command}
	if info.OS == "windows" {
		prog, args = `C:\Windows\System32\cmd.exe`, []string{"/d", "/c", command}
	}
	p, err := t.Start(ctx, target.Command{Path: prog, Args: args, Env: env, Output: out})
	if err != nil {
		r.end, r.err = time.Now(), err
		return r
	}
	r.code, r.err = waitProcess(ctx, p, timeout)
	r.end = time.Now()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	b, err := t.ReadFileMax(rctx, out, maxHookRead)
	if errors.Is(err, boundedread.ErrTooLarge) { // a hook that printed without end: keep the run, say so
		b, err = []byte(fmt.Sprintf("(its output is over %s, the bound on a hook's output file: not read)\n", boundedread.Size(maxHookRead))), nil
		r.truncated = true
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.err = errors.Join(r.err, fmt.Errorf("reading its output: %w", err))
	}
	if len(b) > maxHookOutput {
		b, r.truncated = b[len(b)-maxHookOutput:], true
	}
	r.output = b
	return r
}

// hookStateFailures is how many reads of a hook process's state in a row
// may fail (the guest briefly unreachable) before it is given up.
const hookStateFailures = 10

// waitProcess polls p until it ends and returns its exit code, polling
// more slowly as it runs on (10 ms doubling up to 1 s). When ctx ends or
// timeout passes first, it kills p and returns an error.
func waitProcess(ctx context.Context, p target.Process, timeout time.Duration) (int, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	kill := func() {
		kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), agentStopGrace)
		defer cancel()
		_ = p.Kill(kctx)
	}
	poll, failures := 10*time.Millisecond, 0
	for {
		running, code, err := p.State(ctx)
		switch {
		case err == nil && !running:
			return code, nil
		case err != nil && ctx.Err() == nil:
			if failures++; failures >= hookStateFailures {
				kill()
				return -1, err
			}
		default:
			failures = 0
		}
		tick := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			tick.Stop()
			kill()
			return -1, ctx.Err()
		case <-deadline.C:
			tick.Stop()
			kill()
			return -1, fmt.Errorf("still running after hooks.timeout %s: stopped", timeout)
		case <-tick.C:
		}
		poll = min(2*poll, time.Second)
	}
}
