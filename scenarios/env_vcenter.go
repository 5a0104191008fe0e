package scenarios

import (
	"context"
	"errors"
	"fmt"
	"time"

	"vmbench/dialect"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/vsphere"
)

// vcenter is the environment of a real vCenter or ESXi (GOVC_* and the
// vSphere flags): each VM's database runs inside it, at its IP, as the
// file's database: block says, and its guest is reached by logging in to
// it (guest:). A test runs this path against a vcsim of its own with
// guestIP set.
type vcenter struct {
	// guestIP is the guest IP every VM reports when the vCenter is a
	// vcsim (Options.VcsimGuestIP); "" for a real one.
	guestIP string
}

func (vcenter) simulated() bool { return false }

// guestObject is "": a real VM's guest goes with the VM.
func (vcenter) guestObject() rundir.ObjectKind { return "" }

func (vcenter) releaseGuests(context.Context, *campaign, []string) {}

// check validates the vSphere connection and placement options and,
// unless the campaign is only planned, that database.password-env's
// variable is set.
func (vcenter) check(cf *spec.Campaign, opts Options) error {
	var errs []error
	if err := opts.VSphere.Validate(); err != nil {
		errs = append(errs, err)
	}
	if cf.Database.PasswordEnv != "" && opts.Getenv(cf.Database.PasswordEnv) == "" && !opts.Plan {
		errs = append(errs, cf.Origin.Errorf("database.password-env", "database.password-env: environment variable %s is empty", cf.Database.PasswordEnv))
	}
	return errors.Join(errs...)
}

// connect logs in to the vCenter.
func (vcenter) connect(ctx context.Context, _ *campaign, cfg vsphere.Config) (*vsphere.Session, error) {
	return vsphere.Connect(ctx, cfg)
}

// provision sets the guest IP a vcsim's VMs report, if any.
func (v vcenter) provision(_ *campaign, p *vsphere.ProvisionSpec) { p.SimulatedIP = v.guestIP }

func (vcenter) server() *dialect.Config { return nil }

func (vcenter) guestDatabases() bool { return true }

// database is the database: block's database in VM vm, at its IP, with
// the password from database.password-env.
func (vcenter) database(c *campaign, vm vsphere.VM) (dialect.Config, error) {
	db := c.spec.Database
	d, err := guestDatabase(c.spec, vm)
	if err != nil {
		return d, err
	}
	d.Port, d.User = db.Port, db.User
	if db.PasswordEnv != "" {
		d.Password = c.opts.Getenv(db.PasswordEnv)
	}
	return d, nil
}

// guestDatabase is cf's database: block's database (its driver and name)
// in VM vm, at the VM's IP; the port and the account are the caller's to
// set.
func guestDatabase(cf *spec.Campaign, vm vsphere.VM) (dialect.Config, error) {
	drv, err := dialect.ParseDriver(cf.Database.Driver)
	if err != nil {
		return dialect.Config{}, fmt.Errorf("database.driver: %w", err)
	}
	return dialect.Config{Driver: drv, Host: vm.IP, Database: cf.Database.DB}, nil
}

// awaitDatabases waits for nothing: a VM's database starts at its boot,
// and the VM reported its IP (VMware Tools) once booted.
func (vcenter) awaitDatabases(context.Context, *campaign, []vsphere.VM, []dialect.Config) error {
	return nil
}

// startDelay is StartDelayRemote: every driver reaches a VM over the
// network, or is an agent in it.
func (vcenter) startDelay(bool, int) time.Duration { return StartDelayRemote }

// guests logs in to each VM's guest (loginGuests).
func (vcenter) guests(ctx context.Context, c *campaign) (guestOpener, string, error) {
	return c.loginGuests(ctx)
}

func (vcenter) login() bool { return true }

func (vcenter) local() bool { return false }

// recordRun records nothing more: the VMs' records say where they were.
func (vcenter) recordRun(*campaign, *rundir.RunInfo) {}

// recordSpec leaves the campaign as it is: the file runs it again.
func (vcenter) recordSpec(*campaign, *spec.Campaign) string { return "" }
