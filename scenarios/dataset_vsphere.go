package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"vmbench/internal/atomicfile"
	"vmbench/scenarios/spec"
	"vmbench/vsphere"
)

// This file is the vSphere half of a data set: the loader VM whose data
// vDisk, once its guest is shut down, is copied to every datastore with
// the key file beside it (prepare-data), and the check, before anything
// is created, that every datastore of a campaign holds it (run).

// dataShutdown bounds the loader VM's guest shutdown.
const dataShutdown = 10 * time.Minute

// dataDiskDefaults are the data disks of the built-in roles: the disk
// that holds the database under test.
var dataDiskDefaults = []string{"db-test", "data-log"}

// dataDisk is the layout vDisk that holds the database under test
// (data.disk, or the role's default). Errors name data.disk and the
// layout's data disks.
func dataDisk(s *spec.Campaign, l vsphere.Layout) (vsphere.VDisk, error) {
	want := ""
	if s.Data != nil {
		want = s.Data.Disk
	}
	var names []string
	for _, d := range l.Disks[min(1, len(l.Disks)):] {
		if d.Name == want || want == "" && slices.Contains(dataDiskDefaults, d.Name) {
			return d, nil
		}
		names = append(names, d.Name)
	}
	if want == "" {
		return vsphere.VDisk{}, s.Origin.Errorf("data", "data.disk: name the vDisk of layout %s that holds the database under test (one of %s)", l.Role, strings.Join(names, ", "))
	}
	return vsphere.VDisk{}, s.Origin.Errorf("data.disk", "data.disk: layout %s has no data disk %q (its data disks: %s)", l.Role, want, strings.Join(names, ", "))
}

// diskKey is a DataKey's Disk: "db-test 270GB".
func diskKey(d vsphere.VDisk) string { return fmt.Sprintf("%s %dGB", d.Name, d.SizeGB) }

// loaderVMs provisions the loader VM of prepare-data: the campaign's
// layout, one VM named <role>-data-01 on the first datastore, powered
// on. It returns the VM, every datastore the campaign may use, and the
// teardown to defer.
func (c *campaign) loaderVM(ctx context.Context, sess *vsphere.Session) (vsphere.VM, []string, func(), error) {
	pspec := c.provisionSpec(sess)
	datastores := pspec.Datastores
	pspec.Count, pspec.NamePrefix = 1, c.spec.VMs.Role+"-data"
	if len(pspec.Datastores) > 0 {
		pspec.Datastores = pspec.Datastores[:1]
	}
	pspec.KeepGoingWithoutIP = false
	rep, err := sess.Preflight(ctx, pspec)
	if err != nil {
		return vsphere.VM{}, nil, func() {}, fmt.Errorf("preflight: %w", err)
	}
	for _, l := range strings.Split(strings.TrimRight(rep.String(), "\n"), "\n") {
		c.logf("%s", l)
	}
	if err := c.recordVMs(pspec); err != nil {
		return vsphere.VM{}, nil, func() {}, err
	}
	teardown := func() { c.teardown(sess, pspec.VMNames()) }
	vms, err := sess.Provision(ctx, pspec, c.provisionLog)
	if err != nil {
		c.provisionFailed = true
		return vsphere.VM{}, nil, teardown, fmt.Errorf("provision the loader VM: %w", err)
	}
	return vms[0], datastores, teardown, nil
}

// saveVDisks shuts the loader VM's guest down (its database server
// stops with it, so the files are consistent), copies its data disk to
// every datastore as the data set's vDisk and writes the key file beside
// each copy; ds gets VDisk and Datastores.
func (c *campaign) saveVDisks(ctx context.Context, sess *vsphere.Session, ds *DataSet, loader vsphere.VM, disk vsphere.VDisk, datastores []string) error {
	var slot *vsphere.Disk
	for i := range loader.Disks {
		if loader.Disks[i].Name == disk.Name {
			slot = &loader.Disks[i]
		}
	}
	if slot == nil {
		return fmt.Errorf("the loader VM %s has no disk %s", loader.Name, disk.Name)
	}
	c.logf("shutting down %s's guest (its database server stops with it)", loader.Name)
	if err := sess.ShutDown(ctx, loader.MoRef, dataShutdown); err != nil {
		return err
	}
	ds.VDisk, ds.Datastores = ds.Key.ID()+".vmdk", datastores
	key, err := json.MarshalIndent(ds, "", "  ")
	if err != nil {
		return err
	}
	for _, name := range datastores {
		start := time.Now()
		if err := sess.SaveDisk(ctx, loader.MoRef, slot.Bus, slot.Unit, vsphere.DataFile(name, ds.VDisk)); err != nil {
			return err
		}
		if err := sess.PutFile(ctx, vsphere.DataFile(name, ds.Key.ID()+".json"), append(key, '\n')); err != nil {
			return err
		}
		c.logf("%s saved to %s in %s", disk.Name, vsphere.DataFile(name, ds.VDisk), time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// onDatastores checks that each of datastores holds ds: its key file,
// with the same key, beside its vDisk. A datastore without them is an
// error naming it and saying how to put it there.
func (c *campaign) onDatastores(ctx context.Context, sess *vsphere.Session, ds *DataSet, datastores []string) error {
	missing, err := missingOn(ctx, sess, ds, datastores)
	if err != nil || len(missing) == 0 {
		return err
	}
	return fmt.Errorf("data set %s is not on datastore(s) %s: %s; put it there with: vmbench campaign prepare-data %s%s",
		ds.Key.ID(), strings.Join(missing, ", "), c.simWhere(missing), c.spec.Origin.File, simFlag(c.env.simulated()))
}

// simWhere says, in simulation with the in-process simulator, where the
// datastore files it lacks are kept.
func (c *campaign) simWhere(missing []string) string {
	if c.sim == nil {
		return "no " + vsphere.DataDir + "/<id>.json and .vmdk there"
	}
	return "no <id>.json and .vmdk in " + simDataDir(c.spec.DataDir(), missing[0]) + " (the simulated datastore's files)"
}

// simFlag is " --simulate" for simulated runs.
func simFlag(sim bool) string {
	if sim {
		return " --simulate"
	}
	return ""
}

// missingOn returns the datastores that lack ds: its vDisk, or its key
// file. A key file there whose key differs is an error: it is refused,
// not used, and not overwritten.
func missingOn(ctx context.Context, sess *vsphere.Session, ds *DataSet, datastores []string) ([]string, error) {
	if ds.VDisk == "" {
		return nil, fmt.Errorf("data set %s has no vDisk (made before data sets were saved on the datastores); make it again with vmbench campaign prepare-data --force", ds.Key.ID())
	}
	var missing []string
	var errs []error
	for _, name := range datastores {
		keyFile := vsphere.DataFile(name, ds.Key.ID()+".json")
		b, err := sess.GetFile(ctx, keyFile)
		if errors.Is(err, vsphere.ErrNoFile) {
			missing = append(missing, name)
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		there, err := decodeDataSet(keyFile, b)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if d := ds.differences(there); len(d) > 0 {
			errs = append(errs, fmt.Errorf("%s differs from the data set's key file (%s): refused, not used", keyFile, strings.Join(d, ", ")))
			continue
		}
		if ok, err := sess.FileExists(ctx, vsphere.DataFile(name, ds.VDisk)); err != nil {
			errs = append(errs, err)
		} else if !ok {
			missing = append(missing, name)
		}
	}
	return missing, errors.Join(errs...)
}

// complete puts ds on the datastores of the campaign that lack it
// (missing): its vDisk copied from a datastore that has it, its key file
// beside it; ds then lists them, and its key file in data.dir (and, with
// the in-process simulator, the kept files) say so.
func (c *campaign) complete(ctx context.Context, sess *vsphere.Session, ds *DataSet, missing []string) error {
	var from string
	for _, name := range ds.Datastores {
		if !slices.Contains(missing, name) {
			if ok, _ := sess.FileExists(ctx, vsphere.DataFile(name, ds.VDisk)); ok {
				from = name
				break
			}
		}
	}
	if from == "" {
		return fmt.Errorf("data set %s: no datastore holds its vDisk any more", ds.Key.ID())
	}
	for _, name := range missing {
		start := time.Now()
		if err := sess.CopyDisk(ctx, vsphere.DataFile(from, ds.VDisk), vsphere.DataFile(name, ds.VDisk)); err != nil {
			return err
		}
		if !slices.Contains(ds.Datastores, name) {
			ds.Datastores = append(ds.Datastores, name)
		}
		c.logf("data set %s copied from %s to %s in %s", ds.Key.ID(), from, name, time.Since(start).Round(time.Millisecond))
	}
	key, err := json.MarshalIndent(ds, "", "  ")
	if err != nil {
		return err
	}
	for _, name := range ds.Datastores {
		if err := sess.PutFile(ctx, vsphere.DataFile(name, ds.Key.ID()+".json"), append(key, '\n')); err != nil {
			return err
		}
	}
	if c.sim != nil {
		if err := keepSimData(c.sim, c.spec.DataDir(), ds); err != nil {
			return err
		}
	}
	return writeDataSet(c.spec.DataDir(), ds)
}

// usedDatastores are the datastores the campaign's VMs go to: the first
// vms.count of pspec's (round-robin).
func usedDatastores(p vsphere.ProvisionSpec) []string {
	return p.Datastores[:min(len(p.Datastores), max(p.Count, 1))]
}

// simDataDir is where the in-process simulator's data set files are
// kept between runs (the simulator's datastores end with its process):
// <data.dir>/simulated/<datastore>.
func simDataDir(dataDir, datastore string) string {
	return filepath.Join(dataDir, "simulated", datastore)
}

// keepSimData copies the data set files of the simulated datastores to
// the data directory (simDataDir), for the runs of later processes.
func keepSimData(sim *vsphere.Simulator, dataDir string, ds *DataSet) error {
	for _, name := range ds.Datastores {
		from := filepath.Join(sim.DatastoreDir(name), vsphere.DataDir)
		if err := copyFiles(from, simDataDir(dataDir, name), ds.Key.ID()); err != nil {
			return fmt.Errorf("keeping the simulated data set: %w", err)
		}
	}
	return nil
}

// seedSimData puts the kept data set files (keepSimData) back on the
// simulated datastores of the same names.
func seedSimData(sim *vsphere.Simulator, dataDir string, ds *DataSet) error {
	for _, name := range sim.Datastores() {
		from := simDataDir(dataDir, name)
		if _, err := os.Stat(from); err != nil {
			continue
		}
		if err := copyFiles(from, filepath.Join(sim.DatastoreDir(name), vsphere.DataDir), ds.Key.ID()); err != nil {
			return fmt.Errorf("putting the data set on the simulated datastore %s: %w", name, err)
		}
	}
	return nil
}

// copyFiles copies the files of dir from whose names start with prefix
// into dir to (made when missing), each written atomically.
func copyFiles(from, to, prefix string) error {
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return err
		}
		if err := atomicfile.Write(filepath.Join(to, e.Name()), b); err != nil {
			return err
		}
	}
	return nil
}

// restoreSpec, for a campaign that restores a data set (provisionSpec
// has Provision restore each VM's data disk from it before the VM powers
// on), checks that every datastore its VMs go to holds it: in
// simulation, once the kept files are put on the simulator's datastores.
func (c *campaign) restoreSpec(ctx context.Context, sess *vsphere.Session, pspec *vsphere.ProvisionSpec) error {
	ds := c.dataSet
	if ds == nil {
		return nil
	}
	if c.sim != nil {
		if err := seedSimData(c.sim, c.spec.DataDir(), ds); err != nil {
			return err
		}
	}
	if err := c.onDatastores(ctx, sess, ds, usedDatastores(*pspec)); err != nil {
		return err
	}
	c.logf("each VM's %s is restored from %s on its datastore before it powers on", c.dataDisk.Name, vsphere.DataFile("<datastore>", ds.VDisk))
	return nil
}

// restoreAgain, when a resumed campaign restores a data set, restores
// each measured VM's data disk again (its stopped run changed the data):
// shut down, restored, powered on, its new IP in vms. The datastores are
// checked first, so that nothing is shut down for a data set that is not
// there.
func (c *campaign) restoreAgain(ctx context.Context, vms []vsphere.VM) error {
	ds := c.dataSet
	if ds == nil {
		return nil
	}
	var datastores []string
	for _, vm := range vms {
		for _, d := range vm.Disks {
			if d.Name == c.dataDisk.Name && !slices.Contains(datastores, d.Datastore) {
				datastores = append(datastores, d.Datastore)
			}
		}
	}
	if err := c.onDatastores(ctx, c.sess, ds, datastores); err != nil {
		return err
	}
	r := vsphere.DiskRestore{Disk: c.dataDisk.Name, File: ds.VDisk}
	g, gctx := errgroup.WithContext(ctx)
	n := c.spec.VMs.Parallel // the provisioning's bound on tasks in flight
	if n <= 0 {
		n = vsphere.DefaultParallel
	}
	g.SetLimit(n)
	for i := range vms {
		if vms[i].IPErr != nil {
			continue
		}
		g.Go(func() error {
			ip, err := c.sess.RestoreRunning(gctx, vms[i], r, dataShutdown, time.Duration(c.spec.VMs.IPTimeout))
			if err != nil {
				return err
			}
			c.logf("%s: %s restored again from data set %s, up again at %s", vms[i].Name, r.Disk, ds.Key.ID(), ip)
			vms[i].IP = ip
			return nil
		})
	}
	return g.Wait()
}
