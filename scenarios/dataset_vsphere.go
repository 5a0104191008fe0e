package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"vmbench/scenarios/dataset"
	"vmbench/vsphere"
)

// This file is the vSphere half of a campaign's data set (package
// dataset): the loader VM of prepare-data, whose data vDisk is saved to
// every datastore, and the check, before anything is created, that every
// datastore of a campaign holds it (run).

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
		c.vc.provisionFailed = true
		return vsphere.VM{}, nil, teardown, fmt.Errorf("provision the loader VM: %w", err)
	}
	return vms[0], datastores, teardown, nil
}

// onDatastores checks that each of datastores holds ds: its key file,
// with the same key, beside its vDisk. A datastore without them is an
// error naming it and saying how to put it there.
func (c *campaign) onDatastores(ctx context.Context, sess *vsphere.Session, ds *dataset.Set, datastores []string) error {
	missing, err := dataset.MissingOn(ctx, sess, ds, datastores)
	if err != nil || len(missing) == 0 {
		return err
	}
	return fmt.Errorf("data set %s is not on datastore(s) %s: %s; put it there with: vmbench campaign prepare-data %s%s",
		ds.Key.ID(), strings.Join(missing, ", "), c.simWhere(missing), c.spec.Origin.File, simFlag(c.env.simulated()))
}

// simWhere says, in simulation with the in-process simulator, where the
// datastore files it lacks are kept.
func (c *campaign) simWhere(missing []string) string {
	if c.vc.sim == nil {
		return "no " + vsphere.DataDir + "/<id>.json and .vmdk there"
	}
	return "no <id>.json and .vmdk in " + dataset.SimDir(c.spec.DataDir(), missing[0]) + " (the simulated datastore's files)"
}

// simFlag is " --simulate" for simulated runs.
func simFlag(sim bool) string {
	if sim {
		return " --simulate"
	}
	return ""
}

// complete puts ds on the datastores of the campaign that lack it
// (missing: dataset.Complete); its key file in data.dir (and, with the
// in-process simulator, the kept files) then say so.
func (c *campaign) complete(ctx context.Context, sess *vsphere.Session, ds *dataset.Set, missing []string) error {
	if err := dataset.Complete(ctx, sess, ds, missing, c.logf); err != nil {
		return err
	}
	return dataset.Write(c.spec.DataDir(), ds, c.vc.sim)
}

// usedDatastores are the datastores the campaign's VMs go to: the first
// vms.count of pspec's (round-robin).
func usedDatastores(p vsphere.ProvisionSpec) []string {
	return p.Datastores[:min(len(p.Datastores), max(p.Count, 1))]
}

// restoreSpec, for a campaign that restores a data set (provisionSpec
// has Provision restore each VM's data disk from it before the VM powers
// on), checks that every datastore its VMs go to holds it: in
// simulation, once the kept files are put on the simulator's datastores.
func (c *campaign) restoreSpec(ctx context.Context, sess *vsphere.Session, pspec *vsphere.ProvisionSpec) error {
	ds := c.data.set
	if ds == nil {
		return nil
	}
	if c.vc.sim != nil {
		if err := dataset.SeedSim(c.vc.sim, c.spec.DataDir(), ds); err != nil {
			return err
		}
	}
	if err := c.onDatastores(ctx, sess, ds, usedDatastores(*pspec)); err != nil {
		return err
	}
	c.logf("each VM's %s is restored from %s on its datastore before it powers on", c.data.disk.Name, vsphere.DataFile("<datastore>", ds.VDisk))
	return nil
}

// restoreAgain, when a resumed campaign restores a data set, restores
// each measured VM's data disk again (its stopped run changed the data):
// shut down, restored, powered on, its new IP in vms. The datastores are
// checked first, so that nothing is shut down for a data set that is not
// there.
func (c *campaign) restoreAgain(ctx context.Context, vms []vsphere.VM) error {
	ds := c.data.set
	if ds == nil {
		return nil
	}
	var datastores []string
	for _, vm := range vms {
		for _, d := range vm.Disks {
			if d.Name == c.data.disk.Name && !slices.Contains(datastores, d.Datastore) {
				datastores = append(datastores, d.Datastore)
			}
		}
	}
	if err := c.onDatastores(ctx, c.vc.sess, ds, datastores); err != nil {
		return err
	}
	r := vsphere.DiskRestore{Disk: c.data.disk.Name, File: ds.VDisk}
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
			ip, err := c.vc.sess.RestoreRunning(gctx, vms[i], r, dataset.ShutdownTimeout, time.Duration(c.spec.VMs.IPTimeout))
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
