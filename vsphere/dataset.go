package vsphere

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"time"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// This file keeps the files of a pre-built data set on the datastores: the
// vDisk copied from the VM that loaded it (SaveDisk), its key file
// (PutFile, GetFile) and the guest shutdown that comes before the copy
// (ShutDown). RestoreDisk (restore.go) puts the vDisk back under a VM.

// DataDir is the folder, on each datastore, of the pre-built data sets:
// "[ds] vmbench-data/<id>.vmdk" and its key file "<id>.json".
const DataDir = "vmbench-data"

// DataFile is the datastore path of a data set's file on ds:
// "[ds] vmbench-data/<name>".
func DataFile(ds, name string) string { return "[" + ds + "] " + path.Join(DataDir, name) }

// DiskRestore asks Provision to restore a vDisk of every VM from a
// pre-built data set, after the reconfigure and before the power-on.
type DiskRestore struct {
	// Disk names the layout's vDisk to replace ("db-test"); not the boot
	// disk.
	Disk string
	// File is the data set's vDisk, a file name in DataDir on each VM's
	// datastore ("sysbench-0123abcd.vmdk"): every datastore the VMs go to
	// must hold it.
	File string
}

// StepRestore names the restore of a DiskRestore in StepError and OnStep.
const StepRestore = "restore data"

// SaveDisk copies the vDisk of the powered-off VM moref at SCSI bus and
// unit to dst ("[ds] vmbench-data/<id>.vmdk"), thin provisioned, making
// its folder when missing and deleting an older file of that name first
// (vSphere refuses an existing destination whatever CopyVirtualDisk's
// force says). A VM that is not powered off is refused: a running
// guest's file systems would be copied mid-write. Errors name the VM, the
// disk and the step.
func (s *Session) SaveDisk(ctx context.Context, moref string, bus, unit int32, dst string) error {
	ref := types.ManagedObjectReference{Type: "VirtualMachine", Value: moref}
	fail := func(step string, err error) error {
		return fmt.Errorf("save %s's disk at SCSI %d:%d to %s: %s: %w", moref, bus, unit, dst, step, s.cfg.redact(err))
	}
	var m mo.VirtualMachine
	if err := s.Client.RetrieveOne(ctx, ref, []string{"runtime.powerState", "config.hardware.device"}, &m); err != nil {
		return fail("read the VM", err)
	}
	if m.Runtime.PowerState != types.VirtualMachinePowerStatePoweredOff {
		return fail("check", fmt.Errorf("the VM is %s; shut it down first", m.Runtime.PowerState))
	}
	disk := findSlot(object.VirtualDeviceList(m.Config.Hardware.Device), diskSlot{name: "saved", bus: bus, unit: unit})
	if disk == nil {
		return fail("find the disk", errors.New("no disk there"))
	}
	backing, ok := disk.Backing.(*types.VirtualDiskFlatVer2BackingInfo)
	if !ok {
		return fail("find the disk", fmt.Errorf("a %T backing, want a flat one", disk.Backing))
	}
	if err := s.CopyDisk(ctx, backing.FileName, dst); err != nil {
		return fail("copy", err)
	}
	return nil
}

// PutFile writes data to the datastore file p ("[ds] dir/name"), through
// the datastore's HTTP file service (as govc datastore.upload), making
// its folder first.
func (s *Session) PutFile(ctx context.Context, p string, data []byte) error {
	ds, rel, err := s.datastoreOf(ctx, p)
	if err != nil {
		return err
	}
	dir := object.DatastorePath{Datastore: ds.Name(), Path: path.Dir(rel)}
	if err := object.NewFileManager(s.Client.Client).MakeDirectory(ctx, dir.String(), s.Datacenter, true); err != nil {
		return fmt.Errorf("make %s: %w", dir, s.cfg.redact(err))
	}
	up := soap.DefaultUpload
	up.ContentLength = int64(len(data))
	if err := ds.Upload(ctx, bytes.NewReader(data), rel, &up); err != nil {
		return fmt.Errorf("upload %s: %w", p, s.cfg.redact(err))
	}
	return nil
}

// GetFile reads the datastore file p ("[ds] dir/name"), at most 1 MiB (a
// key file). A file that is not there is an error wrapping
// ErrNoFile.
func (s *Session) GetFile(ctx context.Context, p string) ([]byte, error) {
	ds, rel, err := s.datastoreOf(ctx, p)
	if err != nil {
		return nil, err
	}
	if _, err := ds.Stat(ctx, rel); err != nil {
		if errors.As(err, new(object.DatastoreNoSuchFileError)) || errors.As(err, new(object.DatastoreNoSuchDirectoryError)) || isFileNotFound(err) {
			return nil, fmt.Errorf("%s: %w", p, ErrNoFile)
		}
		return nil, fmt.Errorf("%s: %w", p, s.cfg.redact(err))
	}
	r, _, err := ds.Download(ctx, rel, &soap.DefaultDownload)
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", p, s.cfg.redact(err))
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", p, s.cfg.redact(err))
	}
	return b, nil
}

// FileExists says whether the datastore file p ("[ds] dir/name") is
// there.
func (s *Session) FileExists(ctx context.Context, p string) (bool, error) {
	ds, rel, err := s.datastoreOf(ctx, p)
	if err != nil {
		return false, err
	}
	if _, err := ds.Stat(ctx, rel); err != nil {
		if errors.As(err, new(object.DatastoreNoSuchFileError)) || errors.As(err, new(object.DatastoreNoSuchDirectoryError)) || isFileNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("%s: %w", p, s.cfg.redact(err))
	}
	return true, nil
}

// CopyDisk copies a data set's vDisk from one datastore path to another
// ("[ds] vmbench-data/<id>.vmdk"), thin, making the destination's folder
// and deleting an older file of that name first (vSphere refuses an
// existing destination). prepare-data uses it to put a data set on a
// datastore that lacks it.
func (s *Session) CopyDisk(ctx context.Context, src, dst string) error {
	var p object.DatastorePath
	if !p.FromString(dst) {
		return fmt.Errorf("%q is not a datastore path ([ds] dir/file.vmdk)", dst)
	}
	dir := object.DatastorePath{Datastore: p.Datastore, Path: path.Dir(p.Path)}
	if err := object.NewFileManager(s.Client.Client).MakeDirectory(ctx, dir.String(), s.Datacenter, true); err != nil {
		return fmt.Errorf("make %s: %w", dir, s.cfg.redact(err))
	}
	vdm := object.NewVirtualDiskManager(s.Client.Client)
	if err := wait(ctx, func() (*object.Task, error) { return vdm.DeleteVirtualDisk(ctx, dst, s.Datacenter) }); err != nil && !isFileNotFound(err) {
		return fmt.Errorf("delete the older %s: %w", dst, s.cfg.redact(err))
	}
	spec := &types.VirtualDiskSpec{DiskType: string(types.VirtualDiskTypeThin), AdapterType: string(types.VirtualDiskAdapterTypeLsiLogic)}
	if err := wait(ctx, func() (*object.Task, error) {
		return vdm.CopyVirtualDisk(ctx, src, s.Datacenter, dst, s.Datacenter, spec, false)
	}); err != nil {
		return fmt.Errorf("copy %s to %s: %w", src, dst, plainFault(s.cfg.redact(err)))
	}
	return nil
}

// plainFault says a FileNotFound fault in words (vcsim's message is the
// fault's Go type name).
func plainFault(err error) error {
	if isFileNotFound(err) {
		return fmt.Errorf("the file is not there (%w)", err)
	}
	return err
}

// ErrNoFile is what GetFile's error wraps for a file that is not there.
var ErrNoFile = errors.New("no such file on the datastore")

// datastoreOf splits "[ds] dir/name" into the datastore and the path in it.
func (s *Session) datastoreOf(ctx context.Context, p string) (*object.Datastore, string, error) {
	var dp object.DatastorePath
	if !dp.FromString(p) || dp.Path == "" {
		return nil, "", fmt.Errorf("%q is not a datastore path ([ds] dir/file)", p)
	}
	ds, err := s.Finder.Datastore(ctx, dp.Datastore)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", p, s.cfg.redact(err))
	}
	return ds, dp.Path, nil
}

// ShutDown asks VMware Tools in the guest of VM moref to shut it down and
// waits, up to timeout, for the VM to be powered off: the database's
// files are then consistent on its vDisks. A VM already off returns at
// once. Without Tools running the request fails; past timeout the error
// says the VM is still on (it is not powered off by force: a forced
// power-off is the crash the shutdown is there to avoid).
func (s *Session) ShutDown(ctx context.Context, moref string, timeout time.Duration) error {
	ref := types.ManagedObjectReference{Type: "VirtualMachine", Value: moref}
	state := func() (types.VirtualMachinePowerState, error) {
		var m mo.VirtualMachine
		err := s.Client.RetrieveOne(ctx, ref, []string{"runtime.powerState"}, &m)
		return m.Runtime.PowerState, err
	}
	st, err := state()
	if err != nil {
		return fmt.Errorf("shut down %s: %w", moref, s.cfg.redact(err))
	}
	if st == types.VirtualMachinePowerStatePoweredOff {
		return nil
	}
	if err := object.NewVirtualMachine(s.Client.Client, ref).ShutdownGuest(ctx); err != nil {
		return fmt.Errorf("shut down %s's guest (VMware Tools must run in it): %w", moref, s.cfg.redact(err))
	}
	deadline := time.Now().Add(timeout)
	for delay := 50 * time.Millisecond; ; delay = min(2*delay, ipPoll) {
		if st, err = state(); err != nil {
			return fmt.Errorf("shut down %s: %w", moref, s.cfg.redact(err))
		}
		if st == types.VirtualMachinePowerStatePoweredOff {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("shut down %s: still %s after %s", moref, st, timeout)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("shut down %s: %w", moref, ctx.Err())
		case <-time.After(delay):
		}
	}
}

// validate checks r against the layout: a data disk of it, and a file
// name (not a path) ending in .vmdk. A nil r is valid.
func (r *DiskRestore) validate(l Layout) error {
	if r == nil {
		return nil
	}
	if r.File == "" || path.Base(r.File) != r.File || path.Ext(r.File) != ".vmdk" {
		return fmt.Errorf("restore: file %q must be a .vmdk file name in %s", r.File, DataDir)
	}
	var names []string
	for i, d := range l.Disks {
		if i > 0 && d.Name == r.Disk {
			return nil
		}
		if i > 0 {
			names = append(names, d.Name)
		}
	}
	return fmt.Errorf("restore: layout %q has no data disk %q (its data disks: %v)", l.Role, r.Disk, names)
}

// restoreSlot restores r onto the VM's disk of r.Disk (slots from the
// reconfigure) from the data set on datastore ds.
func (s *Session) restoreSlot(ctx context.Context, moref string, slots []diskSlot, r *DiskRestore, ds string) error {
	for _, sl := range slots {
		if sl.name == r.Disk && !sl.boot {
			_, err := s.RestoreDisk(ctx, moref, sl.bus, sl.unit, DataFile(ds, r.File))
			return err
		}
	}
	return fmt.Errorf("no disk %q on the VM", r.Disk)
}

// RestoreRunning restores the data set r onto vm's disk r.Disk while
// the VM is in use, as a resumed campaign must (its stopped run changed
// the data): the guest is shut down (up to shutdown; a guest that does
// not shut down is powered off, its data disk being replaced anyway),
// the disk restored from the data set on its own datastore
// (RestoreDisk), the VM powered on again, and its new IP waited for (up
// to ipTimeout, 0 for DefaultIPTimeout) and returned. Errors name the VM
// and the step.
func (s *Session) RestoreRunning(ctx context.Context, vm VM, r DiskRestore, shutdown, ipTimeout time.Duration) (string, error) {
	var disk *Disk
	for i := range vm.Disks {
		if i > 0 && vm.Disks[i].Name == r.Disk {
			disk = &vm.Disks[i]
		}
	}
	if disk == nil {
		return "", fmt.Errorf("vm %s: %s: no disk %q", vm.Name, StepRestore, r.Disk)
	}
	ref := types.ManagedObjectReference{Type: "VirtualMachine", Value: vm.MoRef}
	obj := object.NewVirtualMachine(s.Client.Client, ref)
	if err := s.ShutDown(ctx, vm.MoRef, shutdown); err != nil {
		if err := wait(ctx, func() (*object.Task, error) { return obj.PowerOff(ctx) }); err != nil && !isPoweredOff(err) {
			return "", fmt.Errorf("vm %s: power off: %w", vm.Name, s.cfg.redact(err))
		}
	}
	if _, err := s.RestoreDisk(ctx, vm.MoRef, disk.Bus, disk.Unit, DataFile(disk.Datastore, r.File)); err != nil {
		return "", fmt.Errorf("vm %s: %s: %w", vm.Name, StepRestore, err)
	}
	if err := wait(ctx, func() (*object.Task, error) { return obj.PowerOn(ctx) }); err != nil {
		return "", fmt.Errorf("vm %s: %s: %w", vm.Name, StepPowerOn, s.cfg.redact(err))
	}
	if ipTimeout <= 0 {
		ipTimeout = DefaultIPTimeout
	}
	ip, err := s.waitIP(ctx, ref, ipTimeout)
	if err != nil {
		return "", fmt.Errorf("vm %s: %s: %w", vm.Name, StepWaitIP, err)
	}
	return ip, nil
}

// isPoweredOff reports the InvalidPowerState fault of a power-off of a VM
// that is off already.
func isPoweredOff(err error) bool { return fault.Is(err, &types.InvalidPowerState{}) }
