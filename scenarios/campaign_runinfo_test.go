package scenarios

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"vmbench/vsphere"
)

// TestVMRecordsAreVSpheres: run.json's records of a VM's configuration
// and vDisks hold what vSphere reported, field for field, in vSphere's
// JSON, and convert back (a resumed campaign's VMs).
func TestVMRecordsAreVSpheres(t *testing.T) {
	vm := vsphere.VM{Name: "sysbench-01", MoRef: "vm-42", Host: "esx1", Datastore: "ds1", IP: "10.0.0.1",
		Config: vsphere.VMConfig{NumCPU: 16, CoresPerSocket: 8, MemoryMB: 65536, MemoryReservationMB: 65536,
			MemoryReservationLocked: true, LatencySensitivity: "high"},
		Disks: []vsphere.Disk{{Name: "boot", Bus: -1, Unit: 0, CapacityBytes: 92 << 30, UUID: "6000C291-0000-0000-0000-000000000001",
			Datastore: "ds1", Provisioning: vsphere.Thin, Controller: "nvme"},
			{Name: "db-test", Bus: 1, Unit: 3, CapacityBytes: 270 << 30, Datastore: "ds2", Provisioning: vsphere.EagerZeroedThick, Controller: "pvscsi"}},
		IPErr: errors.New("no IP in 10m0s")}
	rec := vmRecords([]vsphere.VM{vm})[0]
	for _, c := range []struct {
		name      string
		vsp, rdir any
	}{{"config", vm.Config, rec.Config}, {"disks", vm.Disks, rec.Disks}} {
		want, _ := json.Marshal(c.vsp)
		got, _ := json.Marshal(c.rdir)
		if string(got) != string(want) {
			t.Errorf("%s: the record is\n%s\nvSphere's is\n%s", c.name, got, want)
		}
	}
	if rec.LeftOut != "no IP in 10m0s" {
		t.Errorf("left out %q", rec.LeftOut)
	}
	if back := vmDisks(rec.Disks); !reflect.DeepEqual(back, vm.Disks) || vsphere.VMConfig(rec.Config) != vm.Config {
		t.Errorf("back from the record: %+v %+v", back, vsphere.VMConfig(rec.Config))
	}
}
