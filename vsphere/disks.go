package vsphere

import (
	"fmt"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/types"
)

// This file reads back the identity of each vDisk Provision created, so
// that a program in the guest finds its data disks by SCSI address and
// serial rather than by guessing /dev/sdX.

// KeyDiskEnableUUID is the extraConfig key Provision sets to "TRUE" on every
// VM it creates. It is VMware's documented VM advanced setting (vSphere
// Client: Edit Settings > VM Options > Advanced > Configuration Parameters;
// required by the vSphere Container Storage Plug-in) that makes each vDisk
// present its backing UUID to the guest as the SCSI serial number and
// identifier, so Linux lists it under /dev/disk/by-id (wwn-0x6000c29...)
// and it can be matched against Disk.UUID. Without it the guest sees no
// stable per-disk identifier. It takes effect at the next power-on; vcsim
// stores it but has no guest to show it to.
const KeyDiskEnableUUID = "disk.EnableUUID"

// Disk is one vDisk of a provisioned VM as vSphere reports it after the
// reconfigure (read from the VM's devices, not from the layout).
type Disk struct {
	// Name is the layout's VDisk.Name ("boot" for Disks[0]).
	Name string `json:"name"`
	// Bus is the bus number (0-3) of the SCSI controller the disk is on,
	// -1 when that controller is not SCSI (a template's SATA or NVMe boot
	// disk); Unit is the disk's unit on it (0-15, never 7 on SCSI).
	// Together they are the guest's SCSI address; a Linux guest typically
	// shows the disk as <host>:0:<Unit>:0, the host being the controller
	// (not checked here: vcsim has no guest).
	Bus  int32 `json:"bus"`
	Unit int32 `json:"unit"`
	// CapacityBytes is the capacity in bytes.
	CapacityBytes int64 `json:"capacity_bytes"`
	// UUID is the disk backing's uuid exactly as vSphere reports it (real
	// vSphere: "6000C29x-xxxx-xxxx-xxxx-xxxxxxxxxxxx"); with
	// KeyDiskEnableUUID set, the guest sees its 32 hex digits as the
	// disk's serial/WWN. vcsim (govmomi v0.56.0, simulator/
	// virtual_machine.go) fills it too, with a name-based UUID of the
	// datacenter and the disk's file name, not in VMware's 6000C29 form.
	// Empty when the backing has no uuid.
	UUID string `json:"uuid,omitempty"`
	// Datastore is the name of the datastore that holds the disk's file.
	Datastore string `json:"datastore"`
	// Provisioning is read from the backing's thin and eager-scrub flags.
	Provisioning Provisioning `json:"provisioning"`
	// Controller is the type of the disk's controller as govmomi names it
	// (lsilogic-sas, pvscsi, lsilogic, buslogic; ahci (SATA) or nvme for
	// a template's boot disk).
	Controller string `json:"controller,omitempty"`
}

// diskSlot is where configSpec put one of the layout's vDisks, to find it
// among the VM's devices after the reconfigure: the boot disk by its device
// key (an edit keeps it), a data disk by its new controller's bus and its
// unit (a new device's temporary key is replaced by vSphere's).
type diskSlot struct {
	name      string
	boot      bool
	key       int32 // the boot disk's device key
	bus, unit int32 // a data disk's SCSI bus and unit
}

// disksFromDevices returns, in slots' order, the Disk of each slot found
// in devices (the VM's config.hardware.device after the reconfigure). A
// slot with no disk, or a data disk without a FlatVer2 backing (the kind
// configSpec creates), is an error naming the disk and where it was
// expected.
func disksFromDevices(devices object.VirtualDeviceList, slots []diskSlot) ([]Disk, error) {
	out := make([]Disk, 0, len(slots))
	for _, s := range slots {
		disk := findSlot(devices, s)
		if disk == nil {
			if s.boot {
				return nil, fmt.Errorf("disk %s (device key %d) is missing after the reconfigure", s.name, s.key)
			}
			return nil, fmt.Errorf("disk %s is missing at SCSI bus %d unit %d after the reconfigure", s.name, s.bus, s.unit)
		}
		d := Disk{Name: s.name, Bus: -1, Unit: unitOf(disk.UnitNumber), CapacityBytes: disk.CapacityInBytes,
			Provisioning: provisioningOf(disk)}
		if d.CapacityBytes == 0 {
			d.CapacityBytes = disk.CapacityInKB * 1024
		}
		ctrl := devices.FindByKey(disk.ControllerKey)
		if ctrl != nil {
			d.Controller = devices.Type(ctrl)
		}
		if c, ok := ctrl.(types.BaseVirtualSCSIController); ok {
			d.Bus = c.GetVirtualSCSIController().BusNumber
		}
		if b, ok := disk.Backing.(types.BaseVirtualDeviceFileBackingInfo); ok {
			d.Datastore = datastoreOf(b.GetVirtualDeviceFileBackingInfo().FileName)
		}
		switch b := disk.Backing.(type) {
		case *types.VirtualDiskFlatVer2BackingInfo:
			d.UUID = b.Uuid
		case *types.VirtualDiskSeSparseBackingInfo:
			d.UUID = b.Uuid
		case *types.VirtualDiskSparseVer2BackingInfo:
			d.UUID = b.Uuid
		}
		if _, flat := disk.Backing.(*types.VirtualDiskFlatVer2BackingInfo); !flat && !s.boot {
			return nil, fmt.Errorf("disk %s at SCSI bus %d unit %d has a %T backing, want a flat (VirtualDiskFlatVer2) one",
				s.name, s.bus, s.unit, disk.Backing)
		}
		out = append(out, d)
	}
	return out, nil
}

// findSlot returns the disk of devices at slot s, or nil.
func findSlot(devices object.VirtualDeviceList, s diskSlot) *types.VirtualDisk {
	for _, dev := range devices {
		disk, ok := dev.(*types.VirtualDisk)
		if !ok {
			continue
		}
		if s.boot {
			if disk.Key == s.key {
				return disk
			}
			continue
		}
		c, ok := devices.FindByKey(disk.ControllerKey).(types.BaseVirtualSCSIController)
		if ok && c.GetVirtualSCSIController().BusNumber == s.bus && unitOf(disk.UnitNumber) == s.unit {
			return disk
		}
	}
	return nil
}
