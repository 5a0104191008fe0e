package dataset

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

	"vmbench/internal/atomicfile"
	"vmbench/vsphere"
)

// This file is the vSphere half of a data set: the loader VM's data
// vDisk, once its guest is shut down, copied to every datastore with the
// key file beside it (Save), the check that datastores hold it
// (MissingOn) and the copies to those that lack it (Complete); and, with
// the in-process simulator, its datastores' files kept in the data
// directory between processes (SimDir, SeedSim).

// ShutdownTimeout bounds the shutdown of a VM's guest before its data
// vDisk is saved (Save) or restored again (vsphere.Session.RestoreRunning).
const ShutdownTimeout = 10 * time.Minute

// Save shuts the loader VM's guest down (its database server stops with
// it, so the files are consistent), copies its data disk (the layout's
// vDisk disk) to each of datastores as the data set's vDisk and writes
// the key file beside each copy; ds gets VDisk and Datastores. logf gets
// a line per step. Errors are vSphere's; a loader without disk is one
// naming it.
func Save(ctx context.Context, sess *vsphere.Session, ds *Set, loader vsphere.VM, disk vsphere.VDisk, datastores []string, logf func(format string, args ...any)) error {
	var slot *vsphere.Disk
	for i := range loader.Disks {
		if loader.Disks[i].Name == disk.Name {
			slot = &loader.Disks[i]
		}
	}
	if slot == nil {
		return fmt.Errorf("the loader VM %s has no disk %s", loader.Name, disk.Name)
	}
	logf("shutting down %s's guest (its database server stops with it)", loader.Name)
	if err := sess.ShutDown(ctx, loader.MoRef, ShutdownTimeout); err != nil {
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
		logf("%s saved to %s in %s", disk.Name, vsphere.DataFile(name, ds.VDisk), time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// MissingOn returns the datastores, of datastores, that lack ds: its
// vDisk, or its key file. A key file there whose key differs is an
// error: it is refused, not used, and not overwritten; a data set
// without a vDisk (made before they were saved on the datastores) is an
// error saying to make it again. The errors of several datastores are
// joined.
func MissingOn(ctx context.Context, sess *vsphere.Session, ds *Set, datastores []string) ([]string, error) {
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
		there, err := decode(keyFile, b)
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

// Complete puts ds on the datastores that lack it (missing, from
// MissingOn): its vDisk copied from a datastore that has it, its key
// file beside it; ds then lists them in Datastores, and its key file on
// each of them says so (its key file in the data directory is the
// caller's to write again: Write). logf gets a line per copy. No
// datastore holding its vDisk any more is an error saying so; the others
// are vSphere's.
func Complete(ctx context.Context, sess *vsphere.Session, ds *Set, missing []string, logf func(format string, args ...any)) error {
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
		logf("data set %s copied from %s to %s in %s", ds.Key.ID(), from, name, time.Since(start).Round(time.Millisecond))
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
	return nil
}

// SimDir is where the in-process simulator's data set files are kept
// between runs (the simulator's datastores end with its process):
// <dataDir>/simulated/<datastore>.
func SimDir(dataDir, datastore string) string {
	return filepath.Join(dataDir, "simulated", datastore)
}

// keepSim copies the data set files of the simulated datastores to the
// data directory (SimDir), for the runs of later processes.
func keepSim(sim *vsphere.Simulator, dataDir string, ds *Set) error {
	for _, name := range ds.Datastores {
		from := filepath.Join(sim.DatastoreDir(name), vsphere.DataDir)
		if err := copyFiles(from, SimDir(dataDir, name), ds.Key.ID()); err != nil {
			return fmt.Errorf("keeping the simulated data set: %w", err)
		}
	}
	return nil
}

// SeedSim puts the data set files of ds kept in dataDir (Write with a
// simulator: SimDir) back on the datastores of the same names of sim, the
// in-process simulator. A datastore with none kept is passed over;
// errors name the datastore.
func SeedSim(sim *vsphere.Simulator, dataDir string, ds *Set) error {
	for _, name := range sim.Datastores() {
		from := SimDir(dataDir, name)
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
