package vsphere

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

func TestBlockWorkerLayout(t *testing.T) {
	type want struct {
		cpu     int32
		memMB   int64
		ctrl    string
		bootGB  int64
		sizeGB  int64
		perCtrl []int // data disks on each added controller
	}
	cases := []struct {
		name string
		in   BlockWorker
		want want
		errs []string // substrings of the error; nil = valid
	}{
		{"defaults", BlockWorker{DiskSizeGB: 50}, want{4, 8192, "pvscsi", 16, 50, []int{1}}, nil},
		{"overrides", BlockWorker{NumCPU: 8, MemoryMB: 16384, DataDisks: 4, DiskSizeGB: 200, BootDiskGB: 40, Controller: "lsilogic-sas"},
			want{8, 16384, "lsilogic-sas", 40, 200, []int{4}}, nil},
		{"15 disks on one controller", BlockWorker{DataDisks: 15, DiskSizeGB: 10}, want{4, 8192, "pvscsi", 16, 10, []int{15}}, nil},
		{"16 disks spread 8 + 8", BlockWorker{DataDisks: 16, DiskSizeGB: 10}, want{4, 8192, "pvscsi", 16, 10, []int{8, 8}}, nil},
		{"45 disks on 3 controllers", BlockWorker{DataDisks: 45, DiskSizeGB: 10}, want{4, 8192, "pvscsi", 16, 10, []int{15, 15, 15}}, nil},
		{"46 disks refused", BlockWorker{DataDisks: 46, DiskSizeGB: 10}, want{},
			[]string{"46 data disks do not fit", "at most 45", "15 per SCSI controller", "3 controllers"}},
		{"zero size refused", BlockWorker{DataDisks: 2}, want{}, []string{"DiskSizeGB is 0", "> 0 GiB"}},
		{"negative size refused", BlockWorker{DiskSizeGB: -5}, want{}, []string{"DiskSizeGB is -5"}},
		{"negative counts refused", BlockWorker{NumCPU: -1, MemoryMB: -8, DataDisks: -2, BootDiskGB: -1, DiskSizeGB: 10}, want{},
			[]string{"NumCPU is -1", "MemoryMB is -8", "DataDisks is -2", "BootDiskGB is -1"}},
		{"unknown controller", BlockWorker{DiskSizeGB: 10, Controller: "nvme"}, want{}, []string{`controller type "nvme"`, "pvscsi"}},
		{"memory not a multiple of 4", BlockWorker{DiskSizeGB: 10, MemoryMB: 1023}, want{}, []string{"MemoryMB is 1023", "multiple of 4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := BlockWorkerLayout(c.in)
			if c.errs != nil {
				mustContain(t, err, c.errs...)
				if l.Role != "" || l.Disks != nil {
					t.Errorf("a refused worker still returned a layout: %+v", l)
				}
				return
			}
			if err != nil {
				t.Fatalf("valid worker refused: %v", err)
			}
			w := c.want
			if l.Role != RoleBlockWorker || l.NumCPU != w.cpu || l.MemoryMB != w.memMB || l.Controller != w.ctrl {
				t.Errorf("layout %s: %d vCPU, %d MB, %s; want %d, %d, %s", l.Role, l.NumCPU, l.MemoryMB, l.Controller, w.cpu, w.memMB, w.ctrl)
			}
			if b := l.Disks[0]; b.Name != "boot" || b.SizeGB != w.bootGB || b.Provisioning != Thin {
				t.Errorf("boot disk %+v, want %d GB thin", b, w.bootGB)
			}
			perCtrl := make([]int, l.NewControllers())
			for i, d := range l.Disks[1:] {
				if d.Name != fmt.Sprintf("data-%02d", i+1) || d.SizeGB != w.sizeGB || d.Provisioning != EagerZeroedThick {
					t.Errorf("data disk %d: %+v, want data-%02d, %d GB eagerZeroedThick", i+1, d, i+1, w.sizeGB)
				}
				perCtrl[d.Controller]++
			}
			if !slices.Equal(perCtrl, w.perCtrl) {
				t.Errorf("disks per added controller %v, want %v", perCtrl, w.perCtrl)
			}
			if _, err := l.Placement(); err != nil {
				t.Errorf("Placement: %v", err)
			}
		})
	}
}

// uuidRe is the 8-4-4-4-12 hex form vSphere (6000C29x-...) and vcsim use.
var uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// TestProvisionBlockWorkers provisions 2 block workers with 3 data disks
// each and checks the disks Provision read back against the VM's devices,
// read again here, and that disk.EnableUUID is set.
func TestProvisionBlockWorkers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sim, s := simSession(t, SimOptions{Datastores: 2})
	l, err := BlockWorkerLayout(BlockWorker{DataDisks: 3, DiskSizeGB: 20})
	if err != nil {
		t.Fatal(err)
	}
	spec := testSpec(t, RoleBlockWorker, 2, sim.Datastores())
	spec.Layout = l
	vms, err := s.Provision(ctx, spec, logf(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = s.Destroy(context.Background(), spec.CampaignID, nil) })
	if len(vms) != 2 {
		t.Fatalf("%d VMs", len(vms))
	}
	uuids := map[string]string{} // uuid -> VM/disk, distinct across VMs
	for _, vm := range vms {
		if len(vm.Disks) != 4 {
			t.Fatalf("%s: %d disks, want boot + 3: %+v", vm.Name, len(vm.Disks), vm.Disks)
		}
		checkWorkerDisks(t, vm, l)
		devices, extra := readVM(t, s, vm)
		for _, d := range vm.Disks {
			// vcsim gives every flat disk a backing uuid (a name-based UUID
			// of the datacenter and the file, simulator/virtual_machine.go);
			// Provision must report vSphere's value, not one of its own.
			if want := backingUUID(t, devices, d); d.UUID != want {
				t.Errorf("%s %s: UUID %q, the VM's device says %q", vm.Name, d.Name, d.UUID, want)
			}
			if !uuidRe.MatchString(d.UUID) {
				t.Errorf("%s %s: UUID %q is not 8-4-4-4-12 hex digits", vm.Name, d.Name, d.UUID)
			}
			if prev, dup := uuids[d.UUID]; dup {
				t.Errorf("%s %s has the UUID of %s: %s", vm.Name, d.Name, prev, d.UUID)
			}
			uuids[d.UUID] = vm.Name + "/" + d.Name
		}
		if got := extra[KeyDiskEnableUUID]; got != "TRUE" {
			t.Errorf("%s: extraConfig %s = %q, want TRUE", vm.Name, KeyDiskEnableUUID, got)
		}
		if extra[KeyCampaign] != spec.CampaignID {
			t.Errorf("%s: the campaign tag is gone: %q", vm.Name, extra[KeyCampaign])
		}
	}
}

// checkWorkerDisks checks vm's Disks against the block-worker layout l:
// names in layout order, distinct SCSI addresses, never unit 7, the boot
// disk on the template's bus 0 and the data disks on the added bus 1,
// capacities, the VM's datastore and the provisioning.
func checkWorkerDisks(t *testing.T, vm VM, l Layout) {
	t.Helper()
	seen := map[[2]int32]string{}
	for k, d := range vm.Disks {
		want := l.Disks[k]
		addr := [2]int32{d.Bus, d.Unit}
		if prev, dup := seen[addr]; dup {
			t.Errorf("%s: %s and %s both at SCSI %d:%d", vm.Name, prev, d.Name, d.Bus, d.Unit)
		}
		seen[addr] = d.Name
		if d.Unit == 7 || d.Unit < 0 || d.Unit > 15 {
			t.Errorf("%s %s: unit %d", vm.Name, d.Name, d.Unit)
		}
		wantBus := int32(1)
		if k == 0 {
			wantBus = 0
		}
		if d.Name != want.Name || d.Bus != wantBus || d.CapacityBytes != want.SizeGB<<30 ||
			d.Datastore != vm.Datastore || d.Provisioning != want.Provisioning {
			t.Errorf("%s disk %d: %+v, want %s on bus %d, %d bytes, %s, on %s",
				vm.Name, k, d, want.Name, wantBus, want.SizeGB<<30, want.Provisioning, vm.Datastore)
		}
	}
}

// readVM reads vm's devices and extraConfig from vSphere.
func readVM(t *testing.T, s *Session, vm VM) (object.VirtualDeviceList, map[string]string) {
	t.Helper()
	var m mo.VirtualMachine
	ref := types.ManagedObjectReference{Type: "VirtualMachine", Value: vm.MoRef}
	if err := s.Client.RetrieveOne(context.Background(), ref, []string{"config.hardware.device", "config.extraConfig"}, &m); err != nil {
		t.Fatal(err)
	}
	return object.VirtualDeviceList(m.Config.Hardware.Device), extraConfig(m.Config.ExtraConfig)
}

// backingUUID returns the flat backing uuid of the disk at d's SCSI bus
// and unit in devices.
func backingUUID(t *testing.T, devices object.VirtualDeviceList, d Disk) string {
	t.Helper()
	for _, dev := range devices {
		disk, ok := dev.(*types.VirtualDisk)
		if !ok || disk.UnitNumber == nil || *disk.UnitNumber != d.Unit {
			continue
		}
		c, ok := devices.FindByKey(disk.ControllerKey).(types.BaseVirtualSCSIController)
		if !ok || c.GetVirtualSCSIController().BusNumber != d.Bus {
			continue
		}
		b, ok := disk.Backing.(*types.VirtualDiskFlatVer2BackingInfo)
		if !ok {
			t.Fatalf("disk at %d:%d has a %T backing", d.Bus, d.Unit, disk.Backing)
		}
		if b.Uuid == "" {
			t.Fatalf("vcsim left the uuid of the disk at %d:%d empty", d.Bus, d.Unit)
		}
		return b.Uuid
	}
	t.Fatalf("no disk at SCSI %d:%d", d.Bus, d.Unit)
	return ""
}
