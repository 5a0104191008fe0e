package scenarios

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/scenarios/vmdriver"
	"vmbench/vsphere"
)

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
		c.driver = vmdriver.Harness{}
		return nil
	}
	c.tl.Begin(rundir.StepAgents)
	c.stepf(rundir.StepAgents, "the vmbench agent in each VM's guest")
	d, err := c.newGuestDriver(ctx, vms)
	if err != nil {
		return err
	}
	c.driver = d
	return nil
}

// newGuestDriver reaches every VM's guest (openGuests) and starts the
// guest driver on them: clocks checked, the agent uploaded.
func (c *campaign) newGuestDriver(ctx context.Context, vms []vsphere.VM) (*vmdriver.Guest, error) {
	targets, how, err := c.openGuests(ctx, vms)
	if err != nil {
		return nil, err
	}
	c.logf("%s", how)
	return vmdriver.NewGuest(ctx, c.guestOptions(), targets)
}

// guestOptions is what the guest driver takes from the campaign.
func (c *campaign) guestOptions() vmdriver.GuestOptions {
	return vmdriver.GuestOptions{Logf: c.logf, MaxClockOffset: c.maxClockOffset(), AgentBinary: c.opts.AgentBinary,
		Tool: c.spec.Workload.Tool, Workload: c.spec.Workload.Name, GuestDatabases: c.env.guestDatabases()}
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
	goos, goarch, err := vmdriver.ExecutablePlatform(b)
	if err != nil {
		return fmt.Errorf("--agent-binary: %w", err)
	}
	if env.local() && (goos != runtime.GOOS || goarch != runtime.GOARCH) {
		return fmt.Errorf("--agent-binary: %s is built for %s/%s, and the simulated guests are this %s/%s host", b, goos, goarch, runtime.GOOS, runtime.GOARCH)
	}
	return nil
}
