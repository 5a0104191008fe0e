package scenarios

import (
	"context"
	"debug/elf"
	"debug/pe"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/vsphere"
	"vmbench/workload"
)

// vmDriver runs the workload's steps on one VM, here or in its guest. The
// engine calls Prepare on every VM, then Run on every VM from a common
// start, then Close once.
type vmDriver interface {
	// Where says where VM vm's driver runs, for the log and the Result's
	// "driver" label: DriverHarness or DriverGuest.
	Where(vm int) spec.Driver
	// Prepare loads VM vm's data with cfg, progress lines to log.
	Prepare(ctx context.Context, vm int, cfg workload.Config, log io.Writer) error
	// Run runs cfg on VM vm as workload.Config.Run does, with env's
	// common start, labels and observer, and returns its Output (a
	// partial one beside the error after an interrupt or a failure).
	Run(ctx context.Context, vm int, cfg workload.Config, env workload.Env) (*workload.Output, error)
	// Check runs cfg's consistency checks (workload.Checker) on VM vm's
	// database, result lines to log; an error is a check that failed or
	// could not run.
	Check(ctx context.Context, vm int, cfg workload.Config, log io.Writer) error
	// Close stops what is still running and removes what the driver put
	// on the VMs; it logs what it could not remove.
	Close()
}

// harnessDriver runs each VM's workload in this process.
type harnessDriver struct{}

func (harnessDriver) Where(int) spec.Driver { return spec.DriverHarness }

func (harnessDriver) Prepare(ctx context.Context, _ int, cfg workload.Config, log io.Writer) error {
	return cfg.Prepare(ctx, workload.Env{Log: log})
}

func (harnessDriver) Check(ctx context.Context, _ int, cfg workload.Config, log io.Writer) error {
	ch, ok := cfg.(workload.Checker)
	if !ok {
		return nil
	}
	return ch.Check(ctx, workload.Env{Log: log})
}

func (harnessDriver) Run(ctx context.Context, _ int, cfg workload.Config, env workload.Env) (*workload.Output, error) {
	return cfg.Run(ctx, env)
}

func (harnessDriver) Close() {}

// driverName returns the campaign's driver in env: Options.Driver, else
// the file's driver: (in a simulation simulate.driver: first), else
// DriverHarness. Driver guest, where env logs in to the guests, checks
// the guest: block's login. The file's own values are checked by its
// validate.
func driverName(cf *spec.Campaign, opts Options, env environment) (spec.Driver, error) {
	d := cf.Driver
	if env.simulated() && cf.Simulate != nil && cf.Simulate.Driver != "" {
		d = cf.Simulate.Driver
	}
	if opts.Driver != "" {
		d = opts.Driver
	}
	switch d {
	case "", spec.DriverHarness:
		return spec.DriverHarness, nil
	case spec.DriverGuest:
		if env.login() {
			if err := checkGuestLogin(cf, opts); err != nil {
				return "", err
			}
		}
		return spec.DriverGuest, nil
	}
	return "", fmt.Errorf("--driver: %q is not valid (harness: from this host over the network; guest: the vmbench agent inside each VM)", d)
}

// checkGuestLogin checks, for driver guest, the guest: block's login to
// each VM's guest: VMware Tools guest operations' account, or an SSH
// user with a readable key file or a set password variable.
func checkGuestLogin(cf *spec.Campaign, opts Options) error {
	g := cf.Guest
	if g != nil && g.Via == spec.GuestViaTools {
		_, err := guestLogin(cf, opts.Getenv)
		return err
	}
	if g == nil || g.User == "" {
		return cf.Origin.Errorf("guest", "driver: guest needs guest.user (and guest.key-file, guest.agent or guest.password-env) to log in to each VM by SSH, or guest.via: tools with a guest login")
	}
	if g.KeyFile != "" {
		if _, err := os.Stat(expandHome(g.KeyFile)); err != nil {
			return cf.Origin.Errorf("guest.key-file", "guest.key-file: %s cannot be read (%v): give the private key that logs in to the guests", g.KeyFile, errors.Unwrap(err))
		}
	}
	if g.PasswordEnv != "" && opts.Getenv(g.PasswordEnv) == "" {
		return cf.Origin.Errorf("guest.password-env", "guest.password-env: environment variable %s is empty", g.PasswordEnv)
	}
	return nil
}

// maxClockOffset is the campaign's guest.max-clock-offset or the default.
func (c *campaign) maxClockOffset() time.Duration {
	if g := c.spec.Guest; g != nil && g.MaxClockOffset > 0 {
		return time.Duration(g.MaxClockOffset)
	}
	return spec.DefaultMaxClockOffset
}

// startDriver sets the campaign's driver: in each guest (the agent
// uploaded, clocks checked) or here.
func (c *campaign) startDriver(ctx context.Context, vms []vsphere.VM) error {
	name, err := driverName(c.spec, c.opts, c.env)
	if err != nil {
		return err
	}
	if name == spec.DriverHarness {
		c.driver = harnessDriver{}
		return nil
	}
	c.tl.begin(rundir.StepAgents)
	c.stepf("the vmbench agent in each VM's guest")
	d, err := newGuestDriver(ctx, c, vms)
	if err != nil {
		return err
	}
	c.driver = d
	return nil
}

// checkAgentBinary checks --agent-binary before anything is created: a
// file, with driver guest only, and where env's guests are this host
// (environment.local) built for this host's OS and architecture.
func checkAgentBinary(cf *spec.Campaign, opts Options, env environment) error {
	b := opts.AgentBinary
	if fi, err := os.Stat(b); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("--agent-binary: %s is not a file (give a vmbench executable built for the guests; make agents builds them)", b)
	}
	if d, err := driverName(cf, opts, env); err == nil && d != spec.DriverGuest {
		return fmt.Errorf("--agent-binary: applies to driver guest only, and this campaign drives from the %s (add --driver guest, or leave --agent-binary out)", d)
	}
	goos, goarch, err := executablePlatform(b)
	if err != nil {
		return fmt.Errorf("--agent-binary: %w", err)
	}
	if env.local() && (goos != runtime.GOOS || goarch != runtime.GOARCH) {
		return fmt.Errorf("--agent-binary: %s is built for %s/%s, and the simulated guests are this %s/%s host", b, goos, goarch, runtime.GOOS, runtime.GOARCH)
	}
	return nil
}

// executablePlatform reads the OS and architecture an executable is
// built for from its ELF or PE header (GOOS/GOARCH spellings); a file that
// is neither, or of another architecture, is an error naming it.
func executablePlatform(path string) (goos, goarch string, err error) {
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		switch f.Machine {
		case elf.EM_X86_64:
			return "linux", "amd64", nil
		case elf.EM_AARCH64:
			return "linux", "arm64", nil
		default: // refused below
		}
		return "", "", fmt.Errorf("agent %s: an ELF executable for %s, which vmbench's agent is not built for (linux/amd64, linux/arm64)", path, f.Machine)
	}
	if f, err := pe.Open(path); err == nil {
		defer f.Close()
		switch f.Machine {
		case pe.IMAGE_FILE_MACHINE_AMD64:
			return "windows", "amd64", nil
		case pe.IMAGE_FILE_MACHINE_ARM64:
			return "windows", "arm64", nil
		}
		return "", "", fmt.Errorf("agent %s: a Windows executable for machine %#x, which vmbench's agent is not built for (windows/amd64)", path, f.Machine)
	}
	return "", "", fmt.Errorf("agent %s: not a Linux (ELF) or Windows (PE) executable; give a vmbench binary (make agents builds them)", path)
}
