package scenarios

import (
	"context"
	"fmt"
	"time"

	"vmbench/dialect"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/target"
	"vmbench/vsphere"
)

// environment is where a campaign runs, and what that decides: the
// vSphere its VMs are provisioned in (a simulator it starts, or one it
// connects to) and how their provisioning is shaped, where each VM's
// database is and how the harness, the agents and a pre-built data set
// reach it, how each VM's guest is opened and whether that takes a login,
// what is checked before anything is created, and what the records
// (run.json, the journal, campaign.yaml) say of it.
//
// It is chosen once, from Options, by newEnvironment: Options.Simulate
// and Options.Guests are the command line's choice, and past it the
// engine asks the environment. The environments are simulated
// (env_simulated.go: an in-process vcsim, or one given with --url, each
// VM's guest a directory of this host and its database an SQLite file or
// one on a --db-dsn server), container (env_container.go: the in-process
// vcsim with each VM's guest a container of the guest image, its
// database inside, reached at the container's IP) and vcenter
// (env_vcenter.go: a real vCenter or ESXi, each VM's database and guest
// inside the VM, reached at its IP). Another one is a new type, not a
// branch in the engine.
type environment interface {
	// simulated says the campaign is a simulation on this host: the
	// file's simulate: block applies (VM count, driver, workload flags,
	// the simulator's shape), everything it drives shares this host's
	// cores, and the records say so (run.json's and the journal's
	// Simulated, the "simulate:" of campaign.yaml and suite.yaml, the
	// --simulate of the commands they suggest).
	simulated() bool
	// check returns what is wrong, before anything is created, with what
	// this environment needs of opts for campaign cf (cf as loaded): a
	// real vSphere's connection and placement, the databases' password
	// variable; nil when nothing is.
	check(cf *spec.Campaign, opts Options) error
	// connect opens c's vSphere session on cfg (Options.VSphere with the
	// file's datacenter) and, for a simulator it starts, records its
	// shape, hosts and place in c (c.vc.sim, c.vc.simHosts, c.vc.where, ...).
	connect(ctx context.Context, c *campaign, cfg vsphere.Config) (*vsphere.Session, error)
	// provision shapes c's provisioning spec p: the guest IP a vcsim's
	// VMs report (ProvisionSpec.SimulatedIP) and the simulator's hosts
	// that stand for the file's vms.hosts.
	provision(c *campaign, p *vsphere.ProvisionSpec)

	// server is the database server on which every VM gets a database
	// named after it (--db-dsn); nil when there is none.
	server() *dialect.Config
	// guestDatabases says each VM's database is inside its guest, on its
	// vDisks, at the VM's IP: the harness reaches it over the network and
	// the agent at 127.0.0.1, its password is database.password-env's,
	// and a pre-built data set is the VM's restored data vDisk, made on
	// the VMs' engine (read from them once they are up). Otherwise each
	// VM's database stands apart, an SQLite file of this host or a
	// database on server(), and a data set is a database of its own,
	// copied into each VM's and checked there.
	guestDatabases() bool
	// database says where VM vm's database is, password included.
	database(c *campaign, vm vsphere.VM) (dialect.Config, error)
	// awaitDatabases waits, bounded, until the database server of each
	// of vms (dbs, in VM order, as database placed them) answers, and
	// names the VM whose server did not; nil at once where the servers
	// are up before the campaign needs them (a local file or a --db-dsn
	// server, a real VM's database started at its boot).
	awaitDatabases(ctx context.Context, c *campaign, vms []vsphere.VM, dbs []dialect.Config) error

	// startDelay is the default margin between the end of prepare and
	// the common start (Options.StartDelay 0) for vms VMs whose drivers
	// are agents in the guests (guest) or in this process.
	startDelay(guest bool, vms int) time.Duration

	// guests says how c opens each VM's guest (open, called once per VM
	// in VM order) and how they are reached, for the log.
	guests(ctx context.Context, c *campaign) (open guestOpener, how string, err error)
	// login says each guest is reached by logging in to it as the file's
	// guest: block says (SSH, or VMware Tools guest operations): driver
	// guest and hooks need that login, checked before anything is
	// created.
	login() bool
	// local says each VM's guest is a directory of this host
	// (target.Local) whose processes are this process's children: the
	// agent must be built for this host, it inherits this process's
	// open-file limit, and it ends with this process (a guest whose
	// directory is gone has no agent left to stop).
	local() bool

	// guestObject is the kind of object beyond the VM this environment
	// makes for each VM (rundir.KindContainer: the container of its
	// guest), recorded by the VM's name before the VMs are cloned, so that
	// `campaign teardown` removes it after a kill; "" for none.
	guestObject() rundir.ObjectKind
	// releaseGuests removes what guestObject recorded for the VMs names
	// once the VMs are gone or the simulator ends them (a simulator
	// removes what it made as it destroys a VM; this removes what it
	// left), marking it removed; nothing where guestObject is "".
	releaseGuests(ctx context.Context, c *campaign, names []string)
	// recordRun fills in what a VM campaign's run.json (ri) says of
	// where it ran: the vSphere, when not the in-process simulator, and
	// the VMs' databases; nothing where neither needs saying.
	recordRun(c *campaign, ri *rundir.RunInfo)
	// recordSpec fills in the campaign as it ran (r, campaign.yaml): its
	// driver and simulate: block. It returns what the file's header says
	// after "# simulate: <bool>" (where it ran, how to run it again), ""
	// for nothing.
	recordSpec(c *campaign, r *spec.Campaign) string
}

// guestOpener opens VM vm's guest: the target the agent and the hooks
// run in.
type guestOpener func(vm vsphere.VM) (target.Target, error)

// Guests is what a simulated campaign's guests are (Options.Guests,
// --guests).
type Guests string

const (
	// GuestsLocal says each VM's guest is a directory of this host with
	// processes of this one, its database an SQLite file or one on the
	// --db-dsn server (the default, also for "").
	GuestsLocal Guests = "local"
	// GuestsContainer says each VM's guest is a container of the guest
	// image (images/guest, make guest-image) that vcsim runs for it, with
	// the VM's database inside, reached at the container's IP.
	GuestsContainer Guests = "container"
)

// ParseGuests reads a --guests value: "local" or "container"; anything
// else is an error naming the valid ones.
func ParseGuests(s string) (Guests, error) {
	switch g := Guests(s); g {
	case GuestsLocal, GuestsContainer:
		return g, nil
	}
	return "", fmt.Errorf("--guests: %q is not valid (local: a directory of this host per VM; container: a container of the guest image per VM, with its database inside)", s)
}

// newEnvironment chooses the environment opts ask for: simulated with
// --simulate (its databases on opts.DBServer when set; container with
// --guests container), else vcenter (its VMs reporting
// opts.VcsimGuestIP when that is a vcsim's test run).
func newEnvironment(opts Options) environment {
	if opts.Simulate && opts.Guests == GuestsContainer {
		return newContainer(opts)
	}
	if opts.Simulate {
		return simulated{db: opts.DBServer}
	}
	return vcenter{guestIP: opts.VcsimGuestIP}
}

// runSpec is cf (as loaded) as it runs in env: with the simulate:
// block's sizes, driver and flags in a simulation.
func runSpec(cf *spec.Campaign, env environment) *spec.Campaign {
	if env.simulated() {
		return cf.Simulated()
	}
	return cf
}
