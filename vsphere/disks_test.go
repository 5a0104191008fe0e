package vsphere

import (
	"testing"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/types"
)

// TestDisksFromDevices reads disks out of hand-built device lists (the
// shapes vSphere returns) for what vcsim cannot produce: a SATA boot
// disk, a missing data disk, a data disk that is not flat.
func TestDisksFromDevices(t *testing.T) {
	sata := &types.VirtualAHCIController{VirtualSATAController: types.VirtualSATAController{
		VirtualController: types.VirtualController{VirtualDevice: types.VirtualDevice{Key: 15000}}}}
	scsi := &types.ParaVirtualSCSIController{VirtualSCSIController: types.VirtualSCSIController{
		VirtualController: types.VirtualController{VirtualDevice: types.VirtualDevice{Key: 1001}, BusNumber: 1}}}
	disk := func(key, ctrl, unit int32, backing types.BaseVirtualDeviceBackingInfo) *types.VirtualDisk {
		return &types.VirtualDisk{VirtualDevice: types.VirtualDevice{Key: key, ControllerKey: ctrl, UnitNumber: &unit, Backing: backing},
			CapacityInKB: 1024 * 1024}
	}
	flat := func(file, id string) *types.VirtualDiskFlatVer2BackingInfo {
		return &types.VirtualDiskFlatVer2BackingInfo{Uuid: id, ThinProvisioned: types.NewBool(false), EagerlyScrub: types.NewBool(true),
			VirtualDeviceFileBackingInfo: types.VirtualDeviceFileBackingInfo{FileName: file}}
	}
	slots := []diskSlot{{name: "boot", boot: true, key: 16000}, {name: "data-01", bus: 1, unit: 0}}
	boot := disk(16000, 15000, 0, &types.VirtualDiskSeSparseBackingInfo{Uuid: "6000C291-0000-0000-0000-000000000001",
		VirtualDeviceFileBackingInfo: types.VirtualDeviceFileBackingInfo{FileName: "[ds1] w/w.vmdk"}})

	got, err := disksFromDevices(object.VirtualDeviceList{sata, scsi, boot,
		disk(2000, 1001, 0, flat("[ds2] w/w_data.vmdk", "6000C292-0000-0000-0000-000000000002"))}, slots)
	if err != nil {
		t.Fatal(err)
	}
	want := []Disk{
		{Name: "boot", Bus: -1, Unit: 0, CapacityBytes: 1 << 30, UUID: "6000C291-0000-0000-0000-000000000001", Datastore: "ds1", Provisioning: Thin, Controller: "ahci"},
		{Name: "data-01", Bus: 1, Unit: 0, CapacityBytes: 1 << 30, UUID: "6000C292-0000-0000-0000-000000000002", Datastore: "ds2", Provisioning: EagerZeroedThick, Controller: "pvscsi"},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("disks\n got %+v\nwant %+v", got, want)
	}

	// The data disk at another unit: missing where the layout put it.
	_, err = disksFromDevices(object.VirtualDeviceList{sata, scsi, boot, disk(2000, 1001, 1, flat("[ds2] x.vmdk", ""))}, slots)
	mustContain(t, err, "disk data-01 is missing at SCSI bus 1 unit 0")
	// The boot disk gone.
	_, err = disksFromDevices(object.VirtualDeviceList{sata, scsi}, slots)
	mustContain(t, err, "disk boot (device key 16000) is missing")
	// A data disk that is not flat.
	_, err = disksFromDevices(object.VirtualDeviceList{sata, scsi, boot,
		disk(2000, 1001, 0, &types.VirtualDiskSparseVer2BackingInfo{})}, slots)
	mustContain(t, err, "disk data-01 at SCSI bus 1 unit 0", "VirtualDiskSparseVer2BackingInfo", "flat")
}
