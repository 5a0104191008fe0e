package vsphere

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// This file replaces a VM's vDisk with a copy of a pre-built one, the
// vSphere way of restoring a pristine database (a data set made once)
// before each run: VirtualDiskManager's CopyVirtualDisk while the VM is off.

// RestoreDisk replaces the vDisk of the powered-off VM moref at SCSI bus
// and unit with a copy of the vDisk file src ("[ds] vmbench-data/x.vmdk"):
//
//  1. src is copied beside the VM's disk as <disk>-restore.vmdk with the
//     disk's provisioning (a stale copy of an earlier, failed restore is
//     deleted first: vSphere ignores CopyVirtualDisk's force flag and
//     refuses an existing destination);
//  2. one reconfigure removes the disk and deletes its file;
//  3. the copy is moved to the disk's file name and attached at the same
//     bus and unit;
//  4. the disk is read back there, backed by that file.
//
// A missing src or a failed copy fails in step 1, with the VM untouched.
// A VM that is not powered off is an error (vSphere cannot swap a disk a
// running guest uses, and the guest's file systems would be stale).
// Errors name the VM, the disk and the step.
//
// It is the vSphere half of a campaign's data.source: prebuilt
// (ProvisionSpec.Restore); SaveDisk makes src.
func (s *Session) RestoreDisk(ctx context.Context, moref string, bus, unit int32, src string) (Disk, error) {
	ref := types.ManagedObjectReference{Type: "VirtualMachine", Value: moref}
	vm := object.NewVirtualMachine(s.Client.Client, ref)
	fail := func(step string, err error) error {
		return fmt.Errorf("restore %s onto %s's disk at SCSI %d:%d: %s: %w", src, moref, bus, unit, step, s.cfg.redact(err))
	}
	var m mo.VirtualMachine
	if err := s.Client.RetrieveOne(ctx, ref, []string{"name", "runtime.powerState", "config.hardware.device"}, &m); err != nil {
		return Disk{}, fail("read the VM", err)
	}
	if m.Runtime.PowerState != types.VirtualMachinePowerStatePoweredOff {
		return Disk{}, fail("check", fmt.Errorf("the VM is %s; power it off first", m.Runtime.PowerState))
	}
	devices := object.VirtualDeviceList(m.Config.Hardware.Device)
	slot := diskSlot{name: "restored", bus: bus, unit: unit}
	disk := findSlot(devices, slot)
	if disk == nil {
		return Disk{}, fail("find the disk", errors.New("no disk there"))
	}
	backing, ok := disk.Backing.(*types.VirtualDiskFlatVer2BackingInfo)
	if !ok {
		return Disk{}, fail("find the disk", fmt.Errorf("a %T backing, want a flat one", disk.Backing))
	}
	dst := backing.FileName
	tmp := strings.TrimSuffix(dst, ".vmdk") + "-restore.vmdk"
	vdm := object.NewVirtualDiskManager(s.Client.Client)
	if err := wait(ctx, func() (*object.Task, error) { return vdm.DeleteVirtualDisk(ctx, tmp, s.Datacenter) }); err != nil && !isFileNotFound(err) {
		return Disk{}, fail("delete a stale copy", err)
	}
	prov := provisioningOf(disk)
	thin, eager := prov.flags()
	spec := &types.VirtualDiskSpec{DiskType: string(diskType(prov)), AdapterType: string(types.VirtualDiskAdapterTypeLsiLogic)}
	if err := wait(ctx, func() (*object.Task, error) {
		return vdm.CopyVirtualDisk(ctx, src, s.Datacenter, tmp, s.Datacenter, spec, false)
	}); err != nil {
		return Disk{}, fail("copy", plainFault(err))
	}

	remove := types.VirtualMachineConfigSpec{DeviceChange: []types.BaseVirtualDeviceConfigSpec{&types.VirtualDeviceConfigSpec{
		Operation: types.VirtualDeviceConfigSpecOperationRemove, FileOperation: types.VirtualDeviceConfigSpecFileOperationDestroy, Device: disk}}}
	if err := wait(ctx, func() (*object.Task, error) { return vm.Reconfigure(ctx, remove) }); err != nil {
		return Disk{}, fail("remove the old disk", err)
	}
	if err := wait(ctx, func() (*object.Task, error) {
		return vdm.MoveVirtualDisk(ctx, tmp, s.Datacenter, dst, s.Datacenter, false)
	}); err != nil {
		return Disk{}, fail("move the copy into place (the VM now lacks this disk)", err)
	}
	// The capacity is the replaced disk's: vSphere takes an existing
	// file's own capacity, which is the same (a data set is saved from the
	// same layout disk, whose size is in its key), and vcsim, which does
	// not read the file, keeps what the spec says.
	attached := &types.VirtualDisk{CapacityInKB: disk.CapacityInKB, CapacityInBytes: disk.CapacityInBytes, VirtualDevice: types.VirtualDevice{
		Key: -1, ControllerKey: disk.ControllerKey, UnitNumber: disk.UnitNumber,
		Backing: &types.VirtualDiskFlatVer2BackingInfo{DiskMode: string(types.VirtualDiskModePersistent),
			ThinProvisioned: types.NewBool(thin), EagerlyScrub: types.NewBool(eager), // as copied
			VirtualDeviceFileBackingInfo: types.VirtualDeviceFileBackingInfo{FileName: dst, Datastore: backing.Datastore}},
	}}
	add := types.VirtualMachineConfigSpec{DeviceChange: []types.BaseVirtualDeviceConfigSpec{&types.VirtualDeviceConfigSpec{
		Operation: types.VirtualDeviceConfigSpecOperationAdd, Device: attached}}}
	if err := wait(ctx, func() (*object.Task, error) { return vm.Reconfigure(ctx, add) }); err != nil {
		return Disk{}, fail("attach the copy (the VM now lacks this disk)", err)
	}

	var after mo.VirtualMachine
	if err := s.Client.RetrieveOne(ctx, ref, []string{"config.hardware.device"}, &after); err != nil {
		return Disk{}, fail("read back", err)
	}
	got, err := disksFromDevices(object.VirtualDeviceList(after.Config.Hardware.Device), []diskSlot{slot})
	if err != nil {
		return Disk{}, fail("read back", err)
	}
	d := findSlot(object.VirtualDeviceList(after.Config.Hardware.Device), slot)
	if b, ok := d.Backing.(*types.VirtualDiskFlatVer2BackingInfo); !ok || b.FileName != dst {
		return Disk{}, fail("read back", fmt.Errorf("the disk there is not backed by %s", dst))
	}
	return got[0], nil
}

// diskType is the VirtualDiskType of a provisioning.
func diskType(p Provisioning) types.VirtualDiskType {
	switch p {
	case Thin:
		return types.VirtualDiskTypeThin
	case EagerZeroedThick:
		return types.VirtualDiskTypeEagerZeroedThick
	default: // Thick
		return types.VirtualDiskTypePreallocated
	}
}

// isFileNotFound reports vSphere's FileNotFound fault (a file that is not
// there), the one DeleteVirtualDisk returns for a missing disk.
func isFileNotFound(err error) bool { return fault.Is(err, &types.FileNotFound{}) }
