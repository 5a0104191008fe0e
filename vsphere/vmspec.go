package vsphere

import (
	"fmt"
	"maps"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/types"
)

// This file turns a Layout into the clone and reconfigure specs of one VM.

const (
	kbPerGB    = 1024 * 1024
	bytesPerGB = 1 << 30
)

// plan is a ProvisionSpec resolved against the inventory by preflight.
type plan struct {
	spec         ProvisionSpec
	names        []string
	placement    []DiskPlacement
	template     *object.VirtualMachine
	templateName string
	bootDisk     *types.VirtualDisk // the template's boot disk
	pool         *object.ResourcePool
	folder       *object.Folder
	datastores   []*object.Datastore  // aligned with spec.Datastores
	hosts        []*object.HostSystem // aligned with spec.Hosts (none: vSphere places)
	hostNames    []string             // the hosts' names
	dsSlots      []chan struct{}      // one holder per datastore at a time
	// dsMounts are, per datastore, the hosts that mount it accessibly.
	dsMounts   []map[types.ManagedObjectReference]bool
	nicBacking types.BaseVirtualDeviceBackingInfo
	token      string    // this Provision call's id (KeyProvision)
	created    time.Time // KeyCreated
}

// tags are the extraConfig entries set at clone time, so that even a VM
// whose reconfigure never ran can be found by campaign.
func (p *plan) tags() []types.BaseOptionValue {
	return []types.BaseOptionValue{
		&types.OptionValue{Key: KeyCampaign, Value: p.spec.CampaignID},
		&types.OptionValue{Key: KeyCreated, Value: p.created.Format(time.RFC3339)},
		&types.OptionValue{Key: KeyRole, Value: p.spec.Layout.Role},
		&types.OptionValue{Key: KeyProvision, Value: p.token},
		&types.OptionValue{Key: KeyHarness, Value: Harness()},
	}
}

// cloneSpec clones the template onto ds, into the pool (on host when not
// nil), powered off, with the campaign tags. The boot disk's locator asks for the layout's
// provisioning (vSphere converts the disk while copying it; vcsim ignores
// locators, and its template disk is already thin).
func (p *plan) cloneSpec(ds *object.Datastore, host *object.HostSystem) types.VirtualMachineCloneSpec {
	dsRef := ds.Reference()
	poolRef := p.pool.Reference()
	loc := types.VirtualMachineRelocateSpec{Pool: &poolRef, Datastore: &dsRef}
	if host != nil {
		h := host.Reference()
		loc.Host = &h
	}
	if _, flat := p.bootDisk.Backing.(*types.VirtualDiskFlatVer2BackingInfo); flat {
		thin, eager := p.spec.Layout.Disks[0].Provisioning.flags()
		loc.Disk = []types.VirtualMachineRelocateSpecDiskLocator{{
			DiskId:    p.bootDisk.Key,
			Datastore: dsRef,
			DiskBackingInfo: &types.VirtualDiskFlatVer2BackingInfo{
				DiskMode:        string(types.VirtualDiskModePersistent),
				ThinProvisioned: types.NewBool(thin),
				EagerlyScrub:    types.NewBool(eager),
			},
		}}
	}
	return types.VirtualMachineCloneSpec{
		Location: loc,
		Config:   &types.VirtualMachineConfigSpec{ExtraConfig: p.tags()},
	}
}

// configSpec is the one reconfigure after the clone: vCPU, cores per
// socket, memory, its reservation and latency sensitivity (vcsim drops
// these from a clone spec, so they are never set at clone time), annotation, disk.EnableUUID (KeyDiskEnableUUID), boot disk size, new
// controller(s) and data disks on ds, the NIC's network, and the simulated
// IP. devices is the clone's device list. vmx is the clone's
// "[ds] dir/name.vmx": data disks are created beside it as
// <name>_<disk name>.vmdk. It also returns where each of the layout's
// vDisks goes, in layout order, to read them back after the reconfigure.
func (p *plan) configSpec(devices object.VirtualDeviceList, vmx string, ds *object.Datastore, name string) (types.VirtualMachineConfigSpec, []diskSlot, error) {
	l := p.spec.Layout
	cores := l.CoresPerSocket
	if cores == 0 {
		cores = l.NumCPU
	}
	cs := types.VirtualMachineConfigSpec{
		NumCPUs:           l.NumCPU,
		NumCoresPerSocket: &cores,
		MemoryMB:          l.MemoryMB,
		Annotation: fmt.Sprintf("vmbench %s VM %s of campaign %s, created %s.\nRemove with: vmbench vsphere destroy --campaign %s",
			l.Role, name, p.spec.CampaignID, p.created.Format(time.RFC3339), p.spec.CampaignID),
		ExtraConfig: []types.BaseOptionValue{&types.OptionValue{Key: KeyDiskEnableUUID, Value: "TRUE"}},
		// Set whatever the template had: a clone copies the template's
		// allocation, and the read-back compares with the layout.
		MemoryAllocation:             &types.ResourceAllocationInfo{Reservation: types.NewInt64(l.MemoryReservationMB())},
		MemoryReservationLockedToMax: types.NewBool(l.ReserveMemory),
		LatencySensitivity:           &types.LatencySensitivity{Level: types.LatencySensitivitySensitivityLevel(l.latency())},
	}
	if p.spec.SimulatedIP != "" {
		cs.ExtraConfig = append(cs.ExtraConfig, &types.OptionValue{Key: "SET.guest.ipAddress", Value: p.spec.SimulatedIP})
	}
	for _, k := range slices.Sorted(maps.Keys(p.spec.GuestInfo)) {
		cs.ExtraConfig = append(cs.ExtraConfig, &types.OptionValue{Key: "guestinfo." + k, Value: p.spec.GuestInfo[k]})
	}

	grow, err := growBootDisk(devices, l.Disks[0].SizeGB)
	if err != nil {
		return cs, nil, err
	}
	if grow != nil {
		cs.DeviceChange = append(cs.DeviceChange, grow)
	}
	slots := []diskSlot{{name: l.Disks[0].Name, boot: true, key: bootDisk(devices).Key}}

	list := append(object.VirtualDeviceList(nil), devices...)
	ctrls := make([]*types.VirtualController, l.NewControllers())
	for i := range ctrls {
		dev, err := list.CreateSCSIController(l.Controller)
		if err != nil {
			return cs, nil, err
		}
		scsi := dev.(types.BaseVirtualSCSIController).GetVirtualSCSIController()
		if scsi.BusNumber < 0 {
			return cs, nil, fmt.Errorf("no free SCSI bus for new controller %d: the template uses %d of %d",
				i, len(scsiControllers(devices)), MaxSCSIControllers)
		}
		ctrls[i] = &scsi.VirtualController
		list = append(list, dev)
		cs.DeviceChange = append(cs.DeviceChange, &types.VirtualDeviceConfigSpec{
			Operation: types.VirtualDeviceConfigSpecOperationAdd, Device: dev})
	}
	var home object.DatastorePath
	if !home.FromString(vmx) || home.Datastore != ds.Name() {
		// Unexpected home: let vSphere name the files on ds.
		home = object.DatastorePath{Datastore: ds.Name()}
	}
	adds, data := p.dataDisks(list, ctrls, home, ds.Reference(), name)
	cs.DeviceChange = append(cs.DeviceChange, adds...)
	slots = append(slots, data...)

	nic, err := p.nicChange(devices)
	if err != nil {
		return cs, nil, err
	}
	if nic != nil {
		cs.DeviceChange = append(cs.DeviceChange, nic)
	}
	return cs, slots, nil
}

// growBootDisk returns the edit that grows the clone's boot disk (the first
// disk of devices) to sizeGB, or nil when it has that size already. A
// clone with no disk, or a boot disk larger than sizeGB, is an error:
// vSphere cannot shrink a disk.
func growBootDisk(devices object.VirtualDeviceList, sizeGB int64) (types.BaseVirtualDeviceConfigSpec, error) {
	boot := bootDisk(devices)
	if boot == nil {
		return nil, fmt.Errorf("the clone has no virtual disk to use as boot disk")
	}
	want := sizeGB * kbPerGB
	if boot.CapacityInKB > want {
		return nil, fmt.Errorf("the template's boot disk is %d GB, larger than the layout's %d GB (vSphere cannot shrink a disk)",
			boot.CapacityInKB/kbPerGB, sizeGB)
	}
	if boot.CapacityInKB == want {
		return nil, nil
	}
	grown := *boot
	grown.CapacityInKB = want
	grown.CapacityInBytes = want * 1024
	return &types.VirtualDeviceConfigSpec{Operation: types.VirtualDeviceConfigSpecOperationEdit, Device: &grown}, nil
}

// dataDisks returns the adds that create the layout's data disks (every
// placement but the boot disk's) on the new controllers ctrls, as files
// beside home on the datastore dsRef, named after the VM name. list is the
// device list so far (for new device keys); each disk's key is added to its
// controller's devices. It also returns each disk's slot (bus and unit).
func (p *plan) dataDisks(list object.VirtualDeviceList, ctrls []*types.VirtualController, home object.DatastorePath, dsRef types.ManagedObjectReference, name string) ([]types.BaseVirtualDeviceConfigSpec, []diskSlot) {
	var changes []types.BaseVirtualDeviceConfigSpec
	var slots []diskSlot
	for i, pl := range p.placement[1:] {
		ctrl := ctrls[pl.NewController]
		thin, eager := pl.Disk.Provisioning.flags()
		unit := pl.Unit
		disk := &types.VirtualDisk{
			VirtualDevice: types.VirtualDevice{
				Key:           list.NewKey(),
				ControllerKey: ctrl.Key,
				UnitNumber:    &unit,
				Backing: &types.VirtualDiskFlatVer2BackingInfo{
					DiskMode:        string(types.VirtualDiskModePersistent),
					ThinProvisioned: types.NewBool(thin),
					EagerlyScrub:    types.NewBool(eager),
					VirtualDeviceFileBackingInfo: types.VirtualDeviceFileBackingInfo{
						FileName: diskFile(home, name, pl.Disk.Name, i+1), Datastore: &dsRef},
				},
			},
			CapacityInKB:    pl.Disk.SizeGB * kbPerGB,
			CapacityInBytes: pl.Disk.SizeGB * bytesPerGB,
		}
		ctrl.Device = append(ctrl.Device, disk.Key)
		list = append(list, disk)
		changes = append(changes, &types.VirtualDeviceConfigSpec{
			Operation:     types.VirtualDeviceConfigSpecOperationAdd,
			FileOperation: types.VirtualDeviceConfigSpecFileOperationCreate,
			Device:        disk,
		})
		slots = append(slots, diskSlot{name: pl.Disk.Name, bus: ctrl.BusNumber, unit: unit})
	}
	return changes, slots
}

// nicChange returns the edit that puts the clone's first network adapter on
// the planned network, or nil when no network was asked for. A clone with
// no adapter is an error.
func (p *plan) nicChange(devices object.VirtualDeviceList) (types.BaseVirtualDeviceConfigSpec, error) {
	if p.nicBacking == nil {
		return nil, nil
	}
	nics := devices.Select(func(d types.BaseVirtualDevice) bool {
		_, ok := d.(types.BaseVirtualEthernetCard)
		return ok
	})
	if len(nics) == 0 {
		return nil, fmt.Errorf("network %q requested but the clone has no network adapter", p.spec.Network)
	}
	nics[0].GetVirtualDevice().Backing = p.nicBacking
	return &types.VirtualDeviceConfigSpec{Operation: types.VirtualDeviceConfigSpecOperationEdit, Device: nics[0]}, nil
}

// diskFile names data disk i "[ds] dir/<vm>_<disk>.vmdk" in the VM's
// directory; with no directory known it returns "[ds]", for which vSphere
// chooses the name.
func diskFile(home object.DatastorePath, vm, disk string, i int) string {
	if home.Path == "" {
		return home.String()
	}
	clean := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return -1
	}, disk)
	if clean == "" {
		clean = fmt.Sprintf("disk%d", i)
	}
	f := object.DatastorePath{Datastore: home.Datastore, Path: path.Join(path.Dir(home.Path), vm+"_"+clean+".vmdk")}
	return f.String()
}

// optionSummary describes the layout's options for progress lines:
// ", reserved, latency sensitivity high", or "" for none.
func (p *plan) optionSummary() string {
	l := p.spec.Layout
	out := ""
	if l.ReserveMemory {
		out += " (reserved)"
	}
	if l.CoresPerSocket > 0 && l.CoresPerSocket != l.NumCPU {
		out += fmt.Sprintf(", %d cores per socket", l.CoresPerSocket)
	}
	if l.latency() != LatencyNormal {
		out += ", latency sensitivity " + l.latency()
	}
	return out
}

// diskSummary describes the layout's disks for progress lines.
func (p *plan) diskSummary() string {
	l := p.spec.Layout
	var b strings.Builder
	fmt.Fprintf(&b, "boot %d GB %s", l.Disks[0].SizeGB, l.Disks[0].Provisioning)
	if len(l.Disks) > 1 {
		fmt.Fprintf(&b, ", new %s:", l.Controller)
		for i, d := range l.Disks[1:] {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s %d GB %s", d.Name, d.SizeGB, d.Provisioning)
		}
	}
	return b.String()
}

// bootDisk returns the VM's first disk: lowest controller key, then unit.
func bootDisk(devices object.VirtualDeviceList) *types.VirtualDisk {
	disks := vdisks(devices)
	if len(disks) == 0 {
		return nil
	}
	return disks[0]
}

// vdisks returns the disks ordered by controller key, then unit.
func vdisks(devices object.VirtualDeviceList) []*types.VirtualDisk {
	var out []*types.VirtualDisk
	for _, d := range devices {
		if disk, ok := d.(*types.VirtualDisk); ok {
			out = append(out, disk)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.ControllerKey != b.ControllerKey {
			return a.ControllerKey < b.ControllerKey
		}
		return unitOf(a.UnitNumber) < unitOf(b.UnitNumber)
	})
	return out
}

func unitOf(u *int32) int32 {
	if u == nil {
		return -1
	}
	return *u
}

func scsiControllers(devices object.VirtualDeviceList) object.VirtualDeviceList {
	return devices.Select(func(d types.BaseVirtualDevice) bool {
		_, ok := d.(types.BaseVirtualSCSIController)
		return ok
	})
}

// provisioningOf reads a disk's provisioning from its backing.
func provisioningOf(disk *types.VirtualDisk) Provisioning {
	switch b := disk.Backing.(type) {
	case *types.VirtualDiskFlatVer2BackingInfo:
		switch {
		case b.ThinProvisioned != nil && *b.ThinProvisioned:
			return Thin
		case b.EagerlyScrub != nil && *b.EagerlyScrub:
			return EagerZeroedThick
		default:
			return Thick
		}
	case *types.VirtualDiskSeSparseBackingInfo, *types.VirtualDiskSparseVer2BackingInfo:
		return Thin
	}
	return Thick
}

// Harness is this machine's host name as KeyHarness records it ("" when
// the system does not say).
func Harness() string {
	h, _ := os.Hostname()
	return h
}
