package scenarios

import (
	"context"
	"fmt"

	"vmbench/scenarios/spec"
	"vmbench/scenarios/vmdriver"
	"vmbench/target"
	"vmbench/vsphere"
	"vmbench/vsphere/guest"
)

// openGuests opens a target on every VM's guest, in VM order, as the
// campaign's environment opens them (environment.guests), and says how
// they are reached. On an error it has closed those it opened.
func (c *campaign) openGuests(ctx context.Context, vms []vsphere.VM) ([]target.Target, string, error) {
	open, how, err := c.env.guests(ctx, c)
	if err != nil {
		return nil, "", err
	}
	targets := make([]target.Target, 0, len(vms))
	for _, vm := range vms {
		t, err := open(vm)
		if err != nil {
			vmdriver.Release(ctx, targets, c.logf) // removes their directories too
			return nil, "", fmt.Errorf("guest of %s: %w", vm.Name, err)
		}
		targets = append(targets, t)
	}
	return targets, how, nil
}

// loginGuests opens each VM's guest by logging in to it as the guest:
// block says: VMware Tools guest operations (guest.via: tools), or SSH
// to the VM's IP; how says which, as whom, in which directory.
func (c *campaign) loginGuests(ctx context.Context) (open guestOpener, how string, err error) {
	if c.spec.Guest.Via == spec.GuestViaTools {
		auth, err := guestLogin(c.spec, c.opts.Getenv)
		if err != nil {
			return nil, "", err
		}
		open, how := c.toolsGuests(ctx, auth)
		return open, how, nil
	}
	open, how = c.sshGuests(ctx, c.spec.Guest.User, func(vm vsphere.VM) (target.SSHConfig, error) { return c.sshConfig(vm), nil })
	return open, how, nil
}

// toolsGuests opens each VM's guest through VMware Tools guest
// operations as auth, in the campaign's guest directory; how says so.
func (c *campaign) toolsGuests(ctx context.Context, auth guest.Auth) (open guestOpener, how string) {
	open = func(vm vsphere.VM) (target.Target, error) {
		return c.vc.sess.GuestTarget(ctx, vm.MoRef, guest.Config{Name: vm.Name, Auth: auth, Dir: c.guestDir()})
	}
	return open, fmt.Sprintf("guests reached by VMware Tools guest operations as %s, working directory %s", auth.User, c.guestDir())
}

// sshGuests opens each VM's guest by SSH as user, as config says for
// the VM; how says so.
func (c *campaign) sshGuests(ctx context.Context, user string, config func(vsphere.VM) (target.SSHConfig, error)) (open guestOpener, how string) {
	open = func(vm vsphere.VM) (target.Target, error) {
		cfg, err := config(vm)
		if err != nil {
			return nil, err
		}
		return target.NewSSH(ctx, cfg)
	}
	return open, fmt.Sprintf("guests reached by SSH as %s, working directory %s", user, c.guestDir())
}
