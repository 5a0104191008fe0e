package scenarios

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"vmbench/dialect"
	"vmbench/scenarios/rundir"
	"vmbench/vsphere"
	"vmbench/workload"
)

// What a campaign creates besides its results: VMs, databases and a
// temporary directory, each recorded in the manifest before it is made
// and marked removed once it is gone.

// recordVMs records the VMs Provision is about to clone.
func (c *campaign) recordVMs(p vsphere.ProvisionSpec) error {
	where := &rundir.CreatedVSphere{URL: c.vc.vsphereURL, Datacenter: c.vc.placementDC, InProcess: c.vc.simHosts > 0}
	for _, name := range p.VMNames() {
		if err := c.rec.manifest.Record(rundir.Created{Op: rundir.OpCreate, Kind: rundir.KindVM, Name: name, VSphere: where}); err != nil {
			return err
		}
		if k := c.env.guestObject(); k != "" {
			if err := c.rec.manifest.Record(rundir.Created{Op: rundir.OpCreate, Kind: k, Name: name}); err != nil {
				return err
			}
		}
	}
	return nil
}

// teardown destroys the campaign's VMs with its own context, so that a
// cancelled campaign still cleans up, and marks them removed; then the
// environment removes what it made for them (releaseGuests).
func (c *campaign) teardown(sess *vsphere.Session, names []string) {
	c.tl.Begin(rundir.StepTeardown)
	inProcess := c.vc.simHosts > 0
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	switch {
	case c.opts.KeepVMs && inProcess:
		c.stepf(rundir.StepTeardown, "teardown skipped (--keep-vms); the simulated VMs end with the in-process simulator")
		c.removed(rundir.KindVM, names, "ended with the in-process simulator")
		c.env.releaseGuests(ctx, c, names)
		return
	case c.opts.KeepVMs:
		c.stepf(rundir.StepTeardown, "teardown skipped (--keep-vms): the VMs of campaign %s stay; remove them with: vmbench campaign teardown %s", c.id, c.finalDir())
		return
	}
	if c.vc.provisionFailed {
		// Provision removed what it made (its own "teardown:" lines); this
		// pass only checks that nothing is left.
		c.stepf(rundir.StepTeardown, "teardown: checking that no VM of campaign %s is left", c.id)
	} else {
		c.stepf(rundir.StepTeardown, "teardown: destroying the VMs of campaign %s", c.id)
	}
	n, err := sess.DestroyVMs(ctx, c.id, names, func(m string) { c.logf("%s", m) })
	if err != nil {
		fmt.Fprintf(c.log, "    teardown FAILED after %d VMs: %v\n    remove what is left with: vmbench campaign teardown %s\n", n, err, c.dir)
		if inProcess { // its VMs end with the simulator; their containers would not
			c.env.releaseGuests(ctx, c, names)
		}
		return
	}
	c.removed(rundir.KindVM, names, "")
	c.logf("%s", destroyedWords(n, len(names)))
	c.env.releaseGuests(ctx, c, names)
}

// destroyedWords says what a teardown pass that destroyed n of the
// campaign's count VMs did: the others were gone already (removed by a
// failed provisioning, or never made).
func destroyedWords(n, count int) string {
	switch {
	case n == 0:
		return "no VM was left to destroy"
	case n < count:
		return fmt.Sprintf("destroyed %d VMs (the other %d were gone already)", n, count-n)
	}
	return fmt.Sprintf("destroyed %d VMs", n)
}

// removed marks objects of kind removed in the manifest; a failure to
// record is logged (the objects are gone; a later teardown finds that).
func (c *campaign) removed(kind rundir.ObjectKind, names []string, note string) {
	for _, n := range names {
		if err := c.rec.manifest.Record(rundir.Created{Op: rundir.OpRemoved, Kind: kind, Name: n, Note: note}); err != nil {
			c.logf("%v", err)
			return
		}
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_]`)

// databaseName is the database a campaign creates for a VM on a shared
// server: vmbench_<campaign id>_<vm>, at most 63 characters
// (PostgreSQL's limit, under MySQL's 64; a longer name keeps its end and
// gets a hash of the whole).
func databaseName(campaignID, vm string) string {
	const maxDatabaseName = 63 // PostgreSQL's NAMEDATALEN-1; MySQL and SQL Server take more
	n := unsafeName.ReplaceAllString("vmbench_"+campaignID+"_"+vm, "_")
	if len(n) <= maxDatabaseName {
		return n
	}
	h := fnv.New32a()
	h.Write([]byte(n))
	return fmt.Sprintf("vmbench_%08x_%s", h.Sum32(), n[len(n)-maxDatabaseName+17:])
}

// tempDirName is the directory of a simulated campaign's SQLite files:
// vmbench-<campaign id> in the system's temporary directory, named in
// advance so that the manifest can list it before it exists.
func tempDirName(campaignID string) string {
	return filepath.Join(os.TempDir(), "vmbench-"+campaignID)
}

// tempDir returns the campaign's temporary directory (tempDirName; the
// VMs' SQLite files, the simulated guests), made and recorded on first
// use; removeTempDir removes it at the end.
func (c *campaign) tempDir() (string, error) {
	if c.data.tmp != "" {
		return c.data.tmp, nil
	}
	tmp := tempDirName(c.id)
	if err := c.rec.manifest.Record(rundir.Created{Op: rundir.OpCreate, Kind: rundir.KindTempDir, Name: tmp, Note: "the VMs' SQLite files and simulated guests"}); err != nil {
		return "", err
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		if rerr := c.rec.manifest.Record(rundir.Created{Op: rundir.OpFailed, Kind: rundir.KindTempDir, Name: tmp, Note: err.Error()}); rerr != nil {
			return "", errors.Join(err, rerr)
		}
		return "", err
	}
	c.data.tmp = tmp
	return tmp, nil
}

// removeTempDir removes the temporary directory, if one was made, unless
// --keep-vms keeps it.
func (c *campaign) removeTempDir() {
	switch {
	case c.data.tmp == "":
	case c.opts.KeepVMs:
		c.logf("kept %s (--keep-vms)", c.data.tmp)
	default:
		if err := os.RemoveAll(c.data.tmp); err != nil {
			c.logf("removing %s: %v", c.data.tmp, err)
			return
		}
		c.removed(rundir.KindTempDir, []string{c.data.tmp}, "")
	}
}

// ServerPasswordEnv is the variable a database server's password is read
// from when its DSN (--db-dsn, simulate.db-server) has none, at run time
// and by teardown: the clients' own, MYSQL_PWD (mysql), SQLCMDPASSWORD
// (sqlcmd) and PGPASSWORD (psql, libpq).
func ServerPasswordEnv(driver string) string {
	switch driver {
	case "sqlserver":
		return "SQLCMDPASSWORD"
	case "postgres":
		return dialect.EnvPGPassword
	}
	return "MYSQL_PWD"
}

// databases decides where each VM's database is, waits for their
// servers where the environment starts them with the VMs, makes each
// VM's Config on it (vmConfig) and creates the database (DatabaseOwner).
func (c *campaign) databases(ctx context.Context, vms []vsphere.VM) ([]workload.Config, func(), error) {
	dbs, err := c.placeDatabases(vms)
	if err != nil {
		return nil, nil, err
	}
	if err := c.env.awaitDatabases(ctx, c, vms, dbs); err != nil {
		return nil, nil, err
	}
	cfgs := make([]workload.Config, len(vms))
	var created []int // VMs whose database on a shared server was created
	drop := func() {
		if c.opts.KeepVMs {
			for _, i := range created {
				c.logf("kept database %s (--keep-vms)", describeDB(dbs[i]))
			}
			return
		}
		dctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, i := range created {
			if err := cfgs[i].(workload.DatabaseOwner).DropDatabase(dctx); err != nil {
				c.logf("dropping %s: %v", describeDB(dbs[i]), err)
				continue
			}
			c.removed(rundir.KindDatabase, []string{dbs[i].Database}, "")
		}
	}
	shared := c.env.server() != nil
	for i, d := range dbs {
		cfg, err := c.vmConfig(d)
		if err != nil {
			drop()
			return nil, nil, fmt.Errorf("database for %s (%s): %w", vms[i].Name, describeDB(d), err)
		}
		cfgs[i] = cfg
		owner, ok := cfg.(workload.DatabaseOwner)
		if !ok {
			continue
		}
		made, err := c.createDatabase(ctx, owner, d, shared)
		if err != nil {
			drop()
			return nil, nil, fmt.Errorf("database for %s (%s): %w", vms[i].Name, describeDB(d), err)
		}
		if made && shared {
			created = append(created, i)
		}
		c.logf("%s: %s", vms[i].Name, describeDB(d))
	}
	return cfgs, drop, nil
}

// createDatabase makes the database d through owner and says whether it
// did. One on a shared server (shared) is recorded in the manifest before
// it is made, and its failure after; one inside a VM goes with the VM. A
// database restored with the VM's data vDisk is not made; in a resume the
// one a killed prepare or run left is dropped first, to start afresh.
func (c *campaign) createDatabase(ctx context.Context, owner workload.DatabaseOwner, d dialect.Config, shared bool) (bool, error) {
	if shared {
		e := rundir.Created{Op: rundir.OpCreate, Kind: rundir.KindDatabase, Name: d.Database, Tool: c.spec.Workload.Tool,
			DB: &rundir.CreatedDB{Driver: string(d.Driver), Host: d.Host, Port: d.Port, User: d.User, PasswordEnv: ServerPasswordEnv(string(d.Driver))}}
		if err := c.rec.manifest.Record(e); err != nil {
			return false, err
		}
	}
	if c.data.set != nil && c.env.guestDatabases() {
		return false, nil // the database is on the VM's restored vDisk (restore checks it)
	}
	if c.rec.resumed {
		if err := owner.DropDatabase(ctx); err != nil {
			return false, fmt.Errorf("dropping the database the stopped campaign left: %w", err)
		}
	}
	if err := owner.CreateDatabase(ctx); err != nil {
		if shared {
			if rerr := c.rec.manifest.Record(rundir.Created{Op: rundir.OpFailed, Kind: rundir.KindDatabase, Name: d.Database, Note: err.Error()}); rerr != nil {
				return false, errors.Join(err, rerr)
			}
		}
		return false, err
	}
	return true, nil
}

// placeDatabases says where each VM's database is, as the campaign's
// environment places it (environment.database): on the --db-dsn server
// (a database named after the VM), in an SQLite file of the temporary
// directory, or in the VM at its IP.
func (c *campaign) placeDatabases(vms []vsphere.VM) ([]dialect.Config, error) {
	dbs := make([]dialect.Config, len(vms))
	for i, vm := range vms {
		db, err := c.env.database(c, vm)
		if err != nil {
			return nil, err
		}
		dbs[i] = db
	}
	return dbs, nil
}
