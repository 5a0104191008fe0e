package scenarios

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"vmbench/internal/atomicfile"
	"vmbench/internal/boundedread"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/scenarios/vmdriver"
	"vmbench/target"
	"vmbench/vsphere"
)

// This file runs a campaign's hooks: shell commands in every VM's guest
// at points of the campaign (the hooks: block), their output kept in the
// results directory.

// hookParallel bounds the VMs one hook command runs on at once.
const hookParallel = 8

// maxHookOutput bounds the output of one command kept in the results: its
// last MiB.
const maxHookOutput = 1 << 20

// maxHookRead bounds the output file read back from a guest, of which the
// last maxHookOutput bytes are kept: a larger one is not read at all.
const maxHookRead = 64 << 20

// checkHooks refuses hooks that cannot reach the guests: where env logs
// in to them (environment.login) and the campaign is driven from the
// harness, they log in to each guest as driver guest does, so the guest:
// block must say how (driver guest, and guests reached without a login,
// need nothing more).
func checkHooks(cf *spec.Campaign, opts Options, env environment) error {
	if !cf.Hooks.Any() || !env.login() {
		return nil
	}
	if d, err := driverName(cf, opts, env); err != nil || d == spec.DriverGuest {
		return nil // driverName's own error is reported by Check
	}
	if g := cf.Guest; g == nil || (g.Via != spec.GuestViaTools && g.User == "") {
		return cf.Origin.Errorf("hooks", "hooks: their commands run in each VM's guest, and this campaign has no way to log in to the guests: add guest.user (with guest.key-file, guest.agent or guest.password-env) to reach them by SSH, or guest.via: tools with a guest login")
	}
	o := opts
	o.Driver = spec.DriverGuest // the same login as driver guest's, checked the same way
	_, err := driverName(cf, o, env)
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
func hookStep(hook spec.Hook) rundir.Step { return rundir.Step("hooks: " + hook) }

// runHooks runs hook's commands on every VM, one command after another,
// each on every VM at once (at most hookParallel): see spec.Hooks. A
// failure stops the campaign unless hooks.on-failure is continue.
func (c *campaign) runHooks(ctx context.Context, hook spec.Hook, vms []vsphere.VM) error {
	cmds := c.spec.Hooks.Commands(hook)
	if len(cmds) == 0 {
		return nil
	}
	c.tl.Begin(hookStep(hook))
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
		case c.spec.Hooks.OnFailure == spec.HookFailureContinue:
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
	if d, ok := c.driver.(*vmdriver.Guest); ok {
		h.targets = d.Targets()
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
	for _, hook := range spec.HookNames() {
		for _, vm := range vms {
			h.files[string(hook)+"/"+vm.Name] = new(bytes.Buffer)
		}
	}
	return nil
}

// closeHooks closes the targets opened for the hooks alone and removes
// their working directories; the guest driver closes its own.
func (c *campaign) closeHooks() {
	h := &c.hooks
	if h.own {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		vmdriver.Release(ctx, h.targets, c.logf)
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
func (c *campaign) hookOn(ctx context.Context, hook spec.Hook, n int, cmd string, vm int, name string) error {
	h := &c.hooks
	t, info := h.targets[vm], h.infos[vm]
	env := []string{"VMBENCH_CAMPAIGN=" + c.id, "VMBENCH_VM=" + name, "VMBENCH_HOOK=" + string(hook)}
	r := runOnTarget(ctx, t, info, cmd, env, fmt.Sprintf("hooks/%s-%d.out", hook, n+1), c.spec.Hooks.CommandTimeout())

	rel := filepath.Join("hooks", string(hook), name+".txt")
	buf := h.files[string(hook)+"/"+name] // this goroutine's alone
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
	r.code, r.err = vmdriver.WaitProcess(ctx, p, timeout, "hooks.timeout")
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
