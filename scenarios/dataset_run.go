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
	"vmbench/vsphere"
	"vmbench/workload"
)

// This file makes a data set (PrepareData) and restores it into each VM's
// database before a run (campaign.restore).

// errPrebuiltOnVSphere is why data.source: prebuilt runs in simulation
// only: on vSphere the data set is a vDisk (VirtualDiskManager's
// CopyVirtualDisk while the VM is off) or a copy made in the guest by the
// agent, and neither is built yet.
var errPrebuiltOnVSphere = errors.New("data.source: prebuilt runs with --simulate only so far (a file or database copy); restoring a pre-built vDisk on vSphere is not built yet: use source: load")

// checkData refuses, before anything is created, a prebuilt data source
// that cannot run: outside simulation, or for a tool whose data has no
// shape (workload.DataShaper).
func checkData(spec *Spec, opts Options, cfg workload.Config) error {
	if fi, err := os.Stat(spec.dataDir()); spec.Data != nil && err == nil && !fi.IsDir() {
		return spec.src.errorf("data.dir", "data.dir: %s is not a directory", spec.dataDir())
	}
	if !spec.prebuilt() {
		return nil
	}
	if !opts.Simulate {
		return spec.src.errorf("data.source", "%w", errPrebuiltOnVSphere)
	}
	if _, ok := cfg.(workload.DataShaper); !ok {
		return spec.src.errorf("data.source", "data.source: prebuilt: workload tool %s has no data shape, so its data cannot be pre-built (use source: load)", spec.Workload.Tool)
	}
	return nil
}

// PrepareData makes the data set of the campaign in spec (as loaded; its
// simulate: sizes apply, as in a --simulate run): the workload's data,
// loaded once into a database of its own (an SQLite file in the data
// directory, or a database on opts.DBServer), checked with the workload's
// consistency checks (workload.Checker) and recorded by its key file,
// written last. A data set of the same key is kept and returned as it is.
// A failure drops what it loaded. Outside simulation it returns
// errPrebuiltOnVSphere. Progress goes to opts.Log.
func PrepareData(ctx context.Context, spec *Spec, opts Options) (*DataSet, error) {
	if !opts.Simulate {
		return nil, errPrebuiltOnVSphere
	}
	cfg, _, err := Check(spec, opts)
	if err != nil {
		return nil, err
	}
	spec = spec.Simulated()
	key, err := dataKey(ctx, spec.Workload.Tool, cfg, opts.DBServer)
	if err != nil {
		return nil, err
	}
	dir := spec.dataDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, spec.src.errorf("data.dir", "data.dir %s: %w", dir, err)
	}
	lock, err := lockRun(dir) // one prepare-data at a time per data directory
	if err != nil {
		if errors.Is(err, ErrRunning) {
			return nil, fmt.Errorf("data.dir %s is in use by another prepare-data (pid %s); wait for it to end", dir, lockPid(filepath.Join(dir, LockFile)))
		}
		return nil, err
	}
	defer lock.release()
	keyFile := filepath.Join(dir, key.ID()+".json")
	if ds, err := readDataSet(keyFile); err == nil {
		perr := ds.present(ctx, opts.DBServer)
		if perr == nil {
			fmt.Fprintf(opts.Log, "data set %s exists already (%s, made %s): kept\n", key.ID(), key, ds.Created.Format(time.RFC3339))
			return ds, nil
		}
		fmt.Fprintf(opts.Log, "%v: making it again\n", perr)
		if err := os.Remove(keyFile); err != nil {
			return nil, err
		}
	}
	ds := &DataSet{Key: key, Created: time.Now().UTC().Truncate(time.Second), Campaign: spec.Name, dir: dir}
	if opts.DBServer != nil {
		ds.Database, ds.Server = unsafeName.ReplaceAllString("vmbench_data_"+key.ID(), "_"), serverDSN(*opts.DBServer)
	} else {
		ds.SQLiteFile = key.ID() + ".db"
	}
	loc := ds.config(opts.DBServer)
	c := &campaign{spec: spec, opts: opts, cfg: cfg}
	dcfg, err := c.vmConfig(loc)
	if err != nil {
		return nil, err
	}
	_ = dialect.DropDatabase(ctx, loc) // a data set whose key file was never written is not one
	fmt.Fprintf(opts.Log, "making data set %s: %s in %s\n", key.ID(), key, describeDB(loc))
	if err := load(ctx, dcfg, opts.Log); err != nil {
		if derr := dialect.DropDatabase(context.WithoutCancel(ctx), loc); derr != nil {
			err = errors.Join(err, fmt.Errorf("dropping the partial data set %s: %w", describeDB(loc), derr))
		}
		return nil, fmt.Errorf("data set %s: %w", key.ID(), err)
	}
	_, ds.Checked = dcfg.(workload.Checker)
	if err := writeDataSet(dir, ds); err != nil {
		return nil, err
	}
	fmt.Fprintf(opts.Log, "data set %s ready: %s\n", key.ID(), filepath.Join(dir, key.ID()+".json"))
	return ds, nil
}

// load creates cfg's database, prepares the data and runs the checks.
func load(ctx context.Context, cfg workload.Config, log io.Writer) error {
	if owner, ok := cfg.(workload.DatabaseOwner); ok {
		if err := owner.CreateDatabase(ctx); err != nil {
			return err
		}
	}
	if err := cfg.Prepare(ctx, workload.Env{Log: log}); err != nil {
		return err
	}
	if ch, ok := cfg.(workload.Checker); ok {
		return ch.Check(ctx, workload.Env{Log: log})
	}
	return nil
}

// FindData checks, before anything is created, that a campaign with
// data.source: prebuilt has its data set (same key) in data.dir; spec is
// the file as loaded, opts as for Run. It connects to opts.DBServer, if
// any, to read the engine's version. Without prebuilt it returns nil.
func FindData(ctx context.Context, spec *Spec, opts Options) error {
	if !spec.prebuilt() {
		return nil
	}
	cfg, _, err := Check(spec, opts)
	if err != nil {
		return err
	}
	if opts.Simulate {
		spec = spec.Simulated()
	}
	c := &campaign{spec: spec, opts: opts, cfg: cfg, log: io.Discard}
	return c.findData(ctx)
}

// findData finds the campaign's data set before anything is created (its
// key: the workload's data shape and the engine the VMs' databases are
// on). It is a no-op unless data.source is prebuilt.
func (c *campaign) findData(ctx context.Context) error {
	if !c.spec.prebuilt() {
		return nil
	}
	key, err := dataKey(ctx, c.spec.Workload.Tool, c.cfg, c.opts.DBServer)
	if err != nil {
		return err
	}
	ds, err := findDataSet(c.spec.dataDir(), key)
	if err != nil {
		return err
	}
	if err := ds.present(ctx, c.opts.DBServer); err != nil {
		return err
	}
	c.dataSet = ds
	fmt.Fprintf(c.log, "data: each VM's database is restored from data set %s (%s), not loaded\n", key.ID(), key)
	return nil
}

// restore copies the data set into every VM's database (made empty by
// the databases step) in parallel, then runs the workload's checks on
// each copy before anything is measured; progress and check lines go to
// the log, prefixed with the VM name.
func (c *campaign) restore(ctx context.Context, vms []vsphere.VM, cfgs []workload.Config) error {
	src := c.dataSet.config(c.opts.DBServer)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(2, min(len(vms), 8)))
	start := time.Now()
	for i, vm := range vms {
		g.Go(func() error {
			dst := cfgs[i].(workload.Connector).Database()
			if err := dialect.CopyDatabase(gctx, src, dst); err != nil {
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
	c.logf("restored data set %s into %d databases and checked them in %s", c.dataSet.Key.ID(), len(vms), time.Since(start).Round(time.Millisecond))
	return nil
}

// dataWords names where the data of a run comes from, for the step line.
func (c *campaign) dataWords() string {
	if c.dataSet != nil {
		return "restore " + c.dataSet.Key.ID() + " into"
	}
	return "prepare " + strings.TrimSpace(c.spec.Workload.Name) + " data on"
}
