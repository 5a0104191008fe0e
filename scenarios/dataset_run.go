package scenarios

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"vmbench/dialect"
	"vmbench/scenarios/dataset"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/teardown"
	"vmbench/scenarios/vmdriver"
	"vmbench/vsphere"
	"vmbench/workload"
)

// This file runs the data set's part of a campaign (package dataset):
// making one (PrepareData) and restoring it into each VM's database
// before a run (campaign.restore).

// PrepareData makes the data set of the campaign in cf (as loaded; with
// opts.Simulate its simulate: sizes apply, as in a --simulate run) and
// records it by its key file in data.dir, written last:
//
//  1. a loader VM of the campaign's layout is provisioned on its first
//     datastore;
//  2. the workload's data is loaded (from this process) into the loader
//     VM's database and checked with the workload's consistency checks
//     (workload.Checker); the key gets the engine's version. In
//     simulation the database stands apart, as a campaign's do: an
//     SQLite file in data.dir or a database on opts.DBServer, which is
//     what a restore copies;
//  3. the loader VM's guest is shut down (its database server stops with
//     it) and its data disk (data.disk) copied, thin, to every datastore
//     of the campaign as vmbench-data/<id>.vmdk with the key file beside
//     it; in simulation they are kept in data.dir/simulated/<datastore>
//     too, for the simulators of later runs;
//  4. the loader VM is destroyed.
//
// A data set of the same key, present with its data and on every
// datastore, is kept and returned as it is. A failure drops what it
// loaded and destroys the loader VM. Progress goes to the Options' Log.
// k is the campaign, checked (Check).
func PrepareData(ctx context.Context, k *Checked) (*dataset.Set, error) {
	c := k.c
	cf := c.spec
	disk, err := dataset.Disk(cf, c.layout)
	if err != nil {
		return nil, err
	}
	dir := cf.DataDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, cf.Origin.Errorf("data.dir", "data.dir %s: %w", dir, err)
	}
	lock, err := rundir.Lock(dir) // one prepare-data at a time per data directory
	if err != nil {
		if errors.Is(err, rundir.ErrRunning) {
			return nil, fmt.Errorf("data.dir %s is in use by another prepare-data (pid %s); wait for it to end", dir, rundir.LockPid(filepath.Join(dir, rundir.LockFile)))
		}
		return nil, err
	}
	defer lock.Release()
	c.driver, c.log, c.tl = vmdriver.Harness{}, &syncWriter{w: c.opts.Log}, rundir.NewTimeline(c.opts.Clock)
	c.id = "data-" + vsphere.NewCampaignID(time.Now())
	if !cf.Prebuilt() {
		fmt.Fprintf(c.log, "note: %s has no data: {source: prebuilt}: its runs load their data and do not use this data set\n", cf.Origin.File)
	}
	c.cleanStale(ctx, dir)
	closeWork, err := c.workDir(dir)
	if err != nil {
		return nil, err
	}
	defer closeWork()
	sess, closeSess, err := c.openSession(ctx)
	if err != nil {
		return nil, err
	}
	defer closeSess()
	return c.prepareData(ctx, sess, disk)
}

// cleanStale removes what earlier prepare-data runs, stopped before
// their end (kill -9), left: the objects their work directories' manifests
// list (the loader VM, a partly loaded database, the simulator's
// directory), then the directories. It holds data.dir's lock, so no work
// directory there is a running one's. Failures are logged: the new data
// set does not depend on them.
func (c *campaign) cleanStale(ctx context.Context, dataDir string) {
	dirs, _ := filepath.Glob(filepath.Join(dataDir, "data-*"))
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, rundir.ManifestFile)); err != nil {
			continue
		}
		fmt.Fprintf(c.log, "a stopped prepare-data left %s: removing what it lists\n", d)
		if _, err := teardown.Run(ctx, d, teardown.Options{VSphere: c.opts.VSphere, Getenv: c.opts.Getenv, Log: &prefixWriter{prefix: "    ", w: c.log}}); err != nil {
			fmt.Fprintf(c.log, "    warning: %v; remove it with vmbench campaign teardown %s\n", err, d)
			continue
		}
		if left, err := rundir.ReadManifest(d); err == nil && len(left) == 0 {
			_ = os.RemoveAll(d)
		}
	}
}

// workDir makes prepare-data's own directory in the data directory,
// <data.dir>/<id>, with the manifest of what it creates (the loader VM);
// the function it returns removes it, unless something is left to
// remove (vmbench campaign teardown DIR then finds it there).
func (c *campaign) workDir(dataDir string) (func(), error) {
	c.dir = filepath.Join(dataDir, c.id)
	if err := os.Mkdir(c.dir, 0o755); err != nil {
		return nil, err
	}
	m, err := rundir.CreateManifest(c.dir, c.id)
	if err != nil {
		_ = os.RemoveAll(c.dir)
		return nil, err
	}
	c.rec.manifest = m
	return func() {
		m.Close()
		if m.Outstanding() == 0 {
			_ = os.RemoveAll(c.dir)
			return
		}
		fmt.Fprintf(c.log, "objects prepare-data created may be left: remove them with vmbench campaign teardown %s\n", c.dir)
	}, nil
}

// prepareData is PrepareData once connected: it keeps a data set of the
// same key or makes it (see PrepareData).
func (c *campaign) prepareData(ctx context.Context, sess *vsphere.Session, disk vsphere.VDisk) (*dataset.Set, error) {
	opts, dir := c.opts, c.spec.DataDir()
	key, err := c.dataKey(ctx, disk)
	if err != nil {
		return nil, err
	}
	if ds, ok, err := c.keptDataSet(ctx, sess, key); err != nil || ok {
		return ds, err
	}
	loader, datastores, teardown, err := c.loaderVM(ctx, sess)
	defer teardown()
	if err != nil {
		return nil, err
	}
	ds, drop, err := c.loadDataSet(ctx, key, loader)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*dataset.Set, error) {
		if derr := drop(); derr != nil {
			err = errors.Join(err, derr)
		}
		return nil, fmt.Errorf("data set %s: %w", ds.Key.ID(), err)
	}
	if err := dataset.Save(ctx, sess, ds, loader, disk, datastores, c.logf); err != nil {
		return fail(err)
	}
	if err := dataset.Write(dir, ds, c.vc.sim); err != nil {
		return fail(err)
	}
	if ds.Database != "" {
		c.removed(rundir.KindDatabase, []string{ds.Database}, "kept: the data set's database")
	}
	fmt.Fprintf(opts.Log, "data set %s ready: %s\n", ds.Key.ID(), filepath.Join(dir, ds.Key.ID()+".json"))
	return ds, nil
}

// keptDataSet returns the data set of key (its engine unknown outside
// simulation) when it can be kept: its data there and, in simulation,
// passing the workload's checks, its vDisk on at least one datastore of
// the campaign (it is copied to those that lack it). One that cannot is
// dropped (its key file removed, logging why) and made again; so is
// every one with opts.Force.
func (c *campaign) keptDataSet(ctx context.Context, sess *vsphere.Session, key rundir.DataKey) (*dataset.Set, bool, error) {
	ds, err := c.lookupDataSet(key)
	if err != nil {
		return nil, false, nil
	}
	if c.vc.sim != nil {
		if err := dataset.SeedSim(c.vc.sim, c.spec.DataDir(), ds); err != nil {
			fmt.Fprintf(c.log, "%v\n", err)
		}
	}
	why := c.unkept(ctx, sess, ds)
	if why == nil {
		fmt.Fprintf(c.opts.Log, "data set %s exists already (%s, made %s): kept\n", ds.Key.ID(), ds.Key, ds.Created.Format(time.RFC3339))
		return ds, true, nil
	}
	fmt.Fprintf(c.opts.Log, "data set %s: %v: making it again\n", ds.Key.ID(), why)
	if err := os.Remove(filepath.Join(c.spec.DataDir(), ds.Key.ID()+".json")); err != nil {
		return nil, false, err
	}
	return nil, false, nil
}

// unkept says why ds cannot be kept (see keptDataSet), or completes it
// on the campaign's datastores and returns nil.
func (c *campaign) unkept(ctx context.Context, sess *vsphere.Session, ds *dataset.Set) error {
	if c.opts.Force {
		return errors.New("--force")
	}
	if err := ds.Present(ctx, c.env.server(), c.serverName()); err != nil {
		return err
	}
	if !c.env.guestDatabases() { // the data set's own database: check it
		cfg, err := c.vmConfig(ds.Config(c.env.server()))
		if err != nil {
			return err
		}
		if ch, ok := cfg.(workload.Checker); ok {
			if err := ch.Check(ctx, workload.Env{Log: io.Discard}); err != nil {
				return fmt.Errorf("its data fails the checks (%w)", err)
			}
		}
	}
	datastores := c.provisionSpec(sess).Datastores
	missing, err := dataset.MissingOn(ctx, sess, ds, datastores)
	if err != nil {
		return err
	}
	if len(missing) == len(datastores) {
		return fmt.Errorf("no datastore of the campaign holds its vDisk (%s)", strings.Join(missing, ", "))
	}
	if len(missing) > 0 {
		return c.complete(ctx, sess, ds, missing)
	}
	return nil
}

// dataKey is the key of the campaign's data set on disk. Where the
// databases are in the guests its engine is left empty: it is read from
// a VM once one is up (the loader VM's, or each VM's before its run).
func (c *campaign) dataKey(ctx context.Context, disk vsphere.VDisk) (rundir.DataKey, error) {
	return dataset.NewKey(ctx, c.spec.Workload.Tool, c.cfg, disk, c.env.server(), !c.env.guestDatabases())
}

// lookupDataSet finds the data set of key in data.dir: by its name where
// the databases stand apart, and the engine is known; by tool, shape and
// disk where they are in the guests (dataset.FindAnyEngine), and the
// engine is read once a VM is up.
func (c *campaign) lookupDataSet(key rundir.DataKey) (*dataset.Set, error) {
	if !c.env.guestDatabases() {
		return dataset.Find(c.spec.DataDir(), key)
	}
	return dataset.FindAnyEngine(c.spec.DataDir(), key)
}

// serverName names the environment's database server in errors, without
// its password; "" where there is none.
func (c *campaign) serverName() string {
	if s := c.env.server(); s != nil {
		return describeDB(*s)
	}
	return ""
}

// recordDataDB records the data set's database on a server in the
// manifest before it is made, so that a stopped prepare-data's is dropped
// (cleanStale); once the data set is made it is marked kept.
func (c *campaign) recordDataDB(loc dialect.Config) error {
	if loc.Driver == dialect.SQLite {
		return nil // made again over a partial file of the same key
	}
	return c.rec.manifest.Record(rundir.Created{Op: rundir.OpCreate, Kind: rundir.KindDatabase, Name: loc.Database, Tool: c.spec.Workload.Tool,
		DB: &rundir.CreatedDB{Driver: string(loc.Driver), Host: loc.Host, Port: loc.Port, User: loc.User, PasswordEnv: ServerPasswordEnv(string(loc.Driver))}})
}

// loadDataSet loads and checks the data: where the databases stand apart
// into the data set's own database (key complete), else into the loader
// VM's database (the key gets its engine). drop removes what it loaded
// where it is not on the loader VM (which goes anyway).
func (c *campaign) loadDataSet(ctx context.Context, key rundir.DataKey, loader vsphere.VM) (*dataset.Set, func() error, error) {
	opts, server := c.opts, c.env.server()
	ds := dataset.New(key, c.spec.Name, c.spec.DataDir())
	var loc dialect.Config
	drop := func() error { return nil }
	if !c.env.guestDatabases() {
		if server != nil {
			ds.Database, ds.Server = unsafeName.ReplaceAllString("vmbench_data_"+key.ID(), "_"), serverDSN(*server)
		} else {
			ds.SQLiteFile = key.ID() + ".db"
		}
		loc = ds.Config(server)
		if err := c.recordDataDB(loc); err != nil {
			return nil, nil, err
		}
		_ = dialect.DropDatabase(ctx, loc) // a data set whose key file was never written is not one
		drop = func() error {
			if err := dialect.DropDatabase(context.WithoutCancel(ctx), loc); err != nil {
				return fmt.Errorf("dropping the partial data set %s: %w", describeDB(loc), err)
			}
			if loc.Driver != dialect.SQLite {
				c.removed(rundir.KindDatabase, []string{loc.Database}, "the partial data set, dropped")
			}
			return nil
		}
	} else {
		dbs, err := c.placeDatabases([]vsphere.VM{loader})
		if err != nil {
			return nil, nil, err
		}
		loc = dbs[0]
	}
	dcfg, err := c.vmConfig(loc)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(opts.Log, "loading data set %s into %s\n", key, describeDB(loc))
	if err := dataset.Load(ctx, dcfg, opts.Log); err != nil {
		if derr := drop(); derr != nil {
			err = errors.Join(err, derr)
		}
		return nil, nil, fmt.Errorf("data set %s: %w", key, err)
	}
	_, ds.Checked = dcfg.(workload.Checker)
	if c.env.guestDatabases() {
		engine, err := dialect.ServerVersion(ctx, loc.WithDatabase(""))
		if err != nil {
			return nil, nil, fmt.Errorf("reading the loader VM's engine: %w", err)
		}
		ds.Key.Engine = engine
	}
	return ds, drop, nil
}

// FindData checks, before anything is created, that a campaign with
// data.source: prebuilt has its data set (same key) in data.dir; k is
// the campaign, checked (Check). It connects to Options.DBServer, if
// any, to read the engine's version. Without prebuilt it returns nil.
func FindData(ctx context.Context, k *Checked) error {
	if k.c.log == nil {
		k.c.log = io.Discard // the campaign's log is set when it runs
	}
	return k.c.findData(ctx)
}

// findData finds the campaign's data set before anything is created (its
// key: the workload's data shape and the engine the VMs' databases are
// on). It is a no-op unless data.source is prebuilt.
func (c *campaign) findData(ctx context.Context) error {
	if !c.spec.Prebuilt() {
		return nil
	}
	disk, err := dataset.Disk(c.spec, c.layout)
	if err != nil {
		return err
	}
	key, err := c.dataKey(ctx, disk)
	if err != nil {
		return err
	}
	ds, err := c.lookupDataSet(key)
	if err != nil {
		return err
	}
	if err := ds.Present(ctx, c.env.server(), c.serverName()); err != nil {
		return err
	}
	c.data.set, c.data.disk = ds, disk
	fmt.Fprintf(c.log, "data: each VM's %s is restored from data set %s (%s), not loaded\n", disk.Name, ds.Key.ID(), ds.Key)
	return nil
}

// restore copies the data set into every VM's database (made empty by
// the databases step) in parallel, then runs the workload's checks on
// each copy before anything is measured; progress and check lines go to
// the log, prefixed with the VM name.
func (c *campaign) restore(ctx context.Context, vms []vsphere.VM, cfgs []workload.Config) error {
	server, inGuests := c.env.server(), c.env.guestDatabases()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(2, min(len(vms), 8)))
	start := time.Now()
	for i, vm := range vms {
		g.Go(func() error {
			dst := cfgs[i].(workload.Connector).Database()
			if err := c.data.set.Restore(gctx, server, dst, inGuests); err != nil {
				return fmt.Errorf("restore on %s: %w", vm.Name, err)
			}
			ch, ok := cfgs[i].(workload.Checker)
			if !ok {
				return nil
			}
			w := &prefixWriter{prefix: "    " + vm.Name + ": ", w: c.log}
			defer w.Flush()
			if err := ch.Check(gctx, workload.Env{Log: w}); err != nil {
				return fmt.Errorf("the data restored on %s: %w", vm.Name, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	c.logf("restored data set %s into %d databases and checked them in %s", c.data.set.Key.ID(), len(vms), time.Since(start).Round(time.Millisecond))
	return nil
}

// dataWords names where the data of a run comes from, for the step line.
func (c *campaign) dataWords() string {
	if c.data.set != nil {
		return "restore " + c.data.set.Key.ID() + " into"
	}
	return "prepare " + strings.TrimSpace(c.spec.Workload.Name) + " data on"
}
