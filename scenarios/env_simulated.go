package scenarios

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"vmbench/dialect"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/target"
	"vmbench/vsphere"
)

// simulated is the environment of --simulate, all on this host: the
// in-process vcsim shaped by the campaign file (or a vSphere given with
// --url: a vcsim of one's own, or a lab vCenter for the provisioning
// steps alone), each VM's guest a directory of the campaign's temporary
// directory with processes of this one (target.Local), and each VM's
// database an SQLite file there or, with --db-dsn, a database on that
// server.
type simulated struct {
	// db is the --db-dsn server, nil for SQLite files.
	db *dialect.Config
}

func (simulated) simulated() bool { return true }

// guestObject is "": a simulated guest is a directory of the campaign's
// temporary directory, recorded with it.
func (simulated) guestObject() rundir.ObjectKind { return "" }

func (simulated) releaseGuests(context.Context, *campaign, []string) {}

// check finds nothing: the simulator needs no connection or placement,
// and the databases no password variable (--db-dsn's is checked when the
// command line is read).
func (simulated) check(*spec.Campaign, Options) error { return nil }

// connect starts the in-process vcsim (start), unless a vSphere URL was
// given: that one is connected to.
func (s simulated) connect(ctx context.Context, c *campaign, cfg vsphere.Config) (*vsphere.Session, error) {
	if cfg.URL != "" {
		return vsphere.Connect(ctx, cfg)
	}
	return s.start(ctx, c, "")
}

// VcsimLogFile is the file in a --guests container campaign's results
// directory that takes the in-process simulator's own log
// (vsphere.SimOptions.Log).
const VcsimLogFile = "vcsim.log"

// start starts the in-process vcsim, shaped by the file's datastores
// and simulate block, with every VM it clones backed by a container of
// image when that is not "" (SimOptions.GuestImage), records its
// directory in the manifest (and its removal when it closes) and logs in
// to it.
func (simulated) start(ctx context.Context, c *campaign, image string) (*vsphere.Session, error) {
	n := 8
	if len(c.spec.VMs.Datastores) > 0 {
		n = len(c.spec.VMs.Datastores)
	}
	hosts := max(1, len(c.spec.VMs.Hosts)) // a review measures one server
	shape := vsphere.SimOptions{}
	if s := c.spec.Simulate; s != nil {
		shape = vsphere.SimOptions{DatastoreGB: s.DatastoreGB, HostCores: s.HostCores, HostMemoryGB: s.HostMemoryGB}
		if s.Datastores > 0 {
			n = s.Datastores
		}
		if s.Hosts > 0 {
			hosts = max(s.Hosts, len(c.spec.VMs.Hosts)) // one simulated host per pinned host
		}
	}
	shape.Hosts, shape.Datastores, shape.GuestImage = hosts, n, image
	var vcsimLog *os.File
	if image != "" {
		// vcsim logs each guest operation that failed in a container (a
		// file the agent has not written yet): kept in the results
		// directory, off the terminal.
		f, err := os.OpenFile(filepath.Join(c.dir, VcsimLogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		vcsimLog, shape.Log = f, f
	}
	sess, sim, err := vsphere.StartSimulatedSession(ctx, shape,
		func(sim *vsphere.Simulator) (func(), error) {
			home := sim.Home()
			if err := c.rec.manifest.Record(rundir.Created{Op: rundir.OpCreate, Kind: rundir.KindSimDir, Name: home, Note: "the in-process vSphere simulator's datastores"}); err != nil {
				return nil, err
			}
			return func() {
				c.removed(rundir.KindSimDir, []string{home}, "")
				if vcsimLog != nil {
					_ = vcsimLog.Close() // its lines are diagnostics; the log package is restored already
				}
			}, nil
		})
	if err != nil {
		if vcsimLog != nil {
			_ = vcsimLog.Close()
		}
		return nil, fmt.Errorf("starting the vSphere simulator: %w", err)
	}
	cfg := sim.Config()
	c.vc.sim = sim
	c.vc.simHosts, c.vc.simDatastores, c.vc.where = hosts, n, "in-process simulator (vcsim)"
	if len(c.spec.VMs.Hosts) > 0 { // pinned hosts become the simulator's
		c.vc.simHostNames = sim.Hosts()[:min(len(c.spec.VMs.Hosts), hosts)]
	}
	c.vc.vsphereURL, c.vc.placementDC = cfg.RedactedURL(), cfg.Datacenter
	fmt.Fprintf(c.log, "vSphere: in-process simulator (vcsim), %d host(s), datastores %s\n", hosts, strings.Join(sim.Datastores(), ", "))
	return sess, nil
}

// provision has every VM report vsphere.SimulatedIP, and puts the VMs
// pinned to the file's hosts on the simulator's hosts that stand for
// them.
func (simulated) provision(c *campaign, p *vsphere.ProvisionSpec) {
	p.SimulatedIP = vsphere.SimulatedIP
	if c.vc.simHostNames != nil {
		p.Hosts = c.vc.simHostNames
	}
}

func (s simulated) server() *dialect.Config { return s.db }

func (simulated) guestDatabases() bool { return false }

// awaitDatabases has nothing to wait for: an SQLite file is made on
// demand, and the --db-dsn server answered when the command line was
// read.
func (simulated) awaitDatabases(context.Context, *campaign, []vsphere.VM, []dialect.Config) error {
	return nil
}

// database is VM vm's database on the --db-dsn server (named after the
// campaign and the VM), or its SQLite file in the campaign's temporary
// directory (made here, recorded first).
func (s simulated) database(c *campaign, vm vsphere.VM) (dialect.Config, error) {
	if s.db != nil {
		return s.db.WithDatabase(databaseName(c.id, vm.Name)), nil
	}
	tmp, err := c.tempDir()
	if err != nil {
		return dialect.Config{}, err
	}
	return dialect.Config{Driver: dialect.SQLite, SQLitePath: filepath.Join(tmp, vm.Name+".db")}, nil
}

// startDelay is StartDelayRemote for agents, else the margin of drivers
// in this process.
func (simulated) startDelay(guest bool, vms int) time.Duration {
	if guest {
		return StartDelayRemote
	}
	return localStartDelay(vms)
}

// guests opens each VM's guest as a local directory (target.Local) under
// the campaign's temporary directory.
func (simulated) guests(_ context.Context, c *campaign) (guestOpener, string, error) {
	tmp, err := c.tempDir()
	if err != nil {
		return nil, "", err
	}
	open := func(vm vsphere.VM) (target.Target, error) {
		return target.NewLocal(vm.Name, filepath.Join(tmp, "guests", vm.Name))
	}
	return open, "simulated guests: a local process per VM, each in its own directory under " + filepath.Join(tmp, "guests"), nil
}

func (simulated) login() bool { return false }

func (simulated) local() bool { return true }

// recordRun records the vSphere when it was not the in-process simulator
// (without its user) and where the databases were.
func (s simulated) recordRun(c *campaign, ri *rundir.RunInfo) {
	if c.vc.simHosts == 0 {
		ri.VSphere = withoutUser(c.vc.vsphereURL)
	}
	ri.Databases = "an embedded SQLite database per VM"
	if s.db != nil {
		ri.Databases = "a database per VM on " + describeDB(*s.db)
	}
}

// recordSpec moves the driver into the simulate: block, with the
// simulator's shape and the database server, so that the file runs the
// same simulation again; the header names the vSphere and the databases
// and gives the command that runs it again.
func (s simulated) recordSpec(c *campaign, r *spec.Campaign) string {
	s.recordSim(c, r)
	note := " (vSphere: " + c.vc.where + "; databases: "
	if s.db != nil {
		note += "one per VM on " + s.db.Host + ")"
	} else {
		note += "an embedded SQLite file per VM)"
	}
	return note + rerunNote(c, c.vsphereFlags())
}

// recordSim moves the driver of r (campaign.yaml) into its simulate:
// block, with the simulator's shape and the database server.
func (s simulated) recordSim(c *campaign, r *spec.Campaign) {
	sim := &spec.Sim{Hosts: c.vc.simHosts, Datastores: c.vc.simDatastores, Driver: r.Driver}
	r.Driver = ""
	if f := c.spec.Simulate; f != nil {
		sim.DatastoreGB, sim.HostCores, sim.HostMemoryGB = f.DatastoreGB, f.HostCores, f.HostMemoryGB
	}
	if s.db != nil {
		sim.DBServer = serverDSN(*s.db)
	}
	if *sim != (spec.Sim{}) {
		r.Simulate = sim
	}
}

// rerunNote is the line of campaign.yaml's header that gives the command
// running it again: --simulate and flags.
func rerunNote(c *campaign, flags string) string {
	return "\n# rerun it with: vmbench campaign run " + filepath.Join(c.finalDir(), "campaign.yaml") + " --simulate" + flags
}
