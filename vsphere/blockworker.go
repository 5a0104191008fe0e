package vsphere

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// RoleBlockWorker is the role of the VMs that run the block suite (vdbench
// profiles and curves) inside the guest, each against its own data vDisks,
// as HCIBench's worker VMs do.
const RoleBlockWorker = "block-worker"

// Defaults of BlockWorker's zero fields.
//
// NumCPU, MemoryMB and the controller type are HCIBench's worker VM
// defaults (4 vCPU, 8 GB, paravirtual SCSI; vmware-labs/hci-benchmark-
// appliance, deploy-vms.rb and easy-run.rb, as summarised in the project's
// vSphere reference notes). HCIBench's own default data disks are 10 x 10
// GB (64 GB each in Easy Run); vmbench's built-in block-worker layout uses
// 1 x DefaultBlockWorkerDiskSizeGB instead, its own choice, not a peer's:
// one worker, one device under test. The boot disk size is vmbench's
// choice too (a small Linux guest with the agent fits in 16 GiB); it is
// not HCIBench's, whose Photon template's disk size was not checked.
const (
	DefaultBlockWorkerNumCPU     int32 = 4
	DefaultBlockWorkerMemoryMB   int64 = 8 * 1024
	DefaultBlockWorkerDataDisks        = 1
	DefaultBlockWorkerDiskSizeGB int64 = 100
	DefaultBlockWorkerBootDiskGB int64 = 16
	DefaultBlockWorkerController       = "pvscsi"
)

// MaxBlockWorkerControllers is how many SCSI controllers BlockWorkerLayout
// adds at most: a VM has MaxSCSIControllers (4) and the template keeps one
// for the boot disk. MaxBlockWorkerDataDisks (45) is what they hold at
// MaxDisksPerSCSIController (15) each.
const (
	MaxBlockWorkerControllers = MaxSCSIControllers - 1
	MaxBlockWorkerDataDisks   = MaxBlockWorkerControllers * MaxDisksPerSCSIController
)

// BlockWorker sizes a block-worker VM. Zero fields take the defaults above
// except DiskSizeGB, which must be given (it decides the working set, and
// no peer default fits every drive); negative values are refused.
type BlockWorker struct {
	// NumCPU is the number of vCPUs (default 4, HCIBench's).
	NumCPU int32
	// MemoryMB is the memory in MiB, a multiple of 4 (default 8192,
	// HCIBench's 8 GB).
	MemoryMB int64
	// DataDisks is the number of data vDisks, 1 to MaxBlockWorkerDataDisks
	// (45) (default 1).
	DataDisks int
	// DiskSizeGB is each data vDisk's capacity in GiB; required, > 0.
	DiskSizeGB int64
	// BootDiskGB is the boot disk's size in GiB: the template's disk, thin,
	// grown to this size (default 16). Provision refuses a template whose
	// disk is larger (vSphere cannot shrink a disk).
	BootDiskGB int64
	// Controller is the type of the SCSI controllers added for the data
	// disks, one of SCSIControllerTypes (default "pvscsi", HCIBench's).
	Controller string
}

// withDefaults fills the zero fields but DiskSizeGB.
func (b BlockWorker) withDefaults() BlockWorker {
	if b.NumCPU == 0 {
		b.NumCPU = DefaultBlockWorkerNumCPU
	}
	if b.MemoryMB == 0 {
		b.MemoryMB = DefaultBlockWorkerMemoryMB
	}
	if b.DataDisks == 0 {
		b.DataDisks = DefaultBlockWorkerDataDisks
	}
	if b.BootDiskGB == 0 {
		b.BootDiskGB = DefaultBlockWorkerBootDiskGB
	}
	if b.Controller == "" {
		b.Controller = DefaultBlockWorkerController
	}
	return b
}

// BlockWorkerLayout returns the layout of role RoleBlockWorker for b (zero
// fields defaulted): Disks[0] is the boot disk ("boot", b.BootDiskGB GiB,
// thin), then b.DataDisks data disks named "data-01", "data-02"... of
// b.DiskSizeGB GiB each, eager-zeroed thick, on ceil(DataDisks/15) added
// controllers of type b.Controller, dealt round robin (disk i on controller
// i mod n, so 16 disks are 8 + 8, not 15 + 1), each controller's units
// 0, 1, 2... without 7 (see Layout.Placement).
//
// Data disks are eager-zeroed thick because the block suite writes to them
// while it measures: on a thin or lazy-zeroed disk the first write to each
// block also allocates or zeroes it, which would be measured as the
// device's write latency (and a thin disk could run the datastore out of
// space mid-run).
//
// It returns an error naming every bad field: a negative NumCPU, MemoryMB,
// DataDisks or BootDiskGB, a DiskSizeGB that is not > 0, more than
// MaxBlockWorkerDataDisks data disks (naming the count and the limit), an
// unknown controller type, and whatever Layout.Validate refuses (memory
// not a multiple of 4).
func BlockWorkerLayout(b BlockWorker) (Layout, error) {
	b = b.withDefaults()
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("block worker: "+format, args...))
	}
	if b.NumCPU < 0 {
		bad("NumCPU is %d, must be at least 1 (0 means %d)", b.NumCPU, DefaultBlockWorkerNumCPU)
	}
	if b.MemoryMB < 0 {
		bad("MemoryMB is %d, must be a positive multiple of 4 MiB (0 means %d)", b.MemoryMB, DefaultBlockWorkerMemoryMB)
	}
	if b.DiskSizeGB <= 0 {
		bad("DiskSizeGB is %d, each data disk needs a size > 0 GiB", b.DiskSizeGB)
	}
	if b.BootDiskGB < 0 {
		bad("BootDiskGB is %d, must be > 0 GiB (0 means %d)", b.BootDiskGB, DefaultBlockWorkerBootDiskGB)
	}
	switch {
	case b.DataDisks < 0:
		bad("DataDisks is %d, must be 1 to %d (0 means %d)", b.DataDisks, MaxBlockWorkerDataDisks, DefaultBlockWorkerDataDisks)
	case b.DataDisks > MaxBlockWorkerDataDisks:
		bad("%d data disks do not fit: at most %d (%d per SCSI controller on the %d controllers a VM has beside the template's)",
			b.DataDisks, MaxBlockWorkerDataDisks, MaxDisksPerSCSIController, MaxBlockWorkerControllers)
	}
	if !slices.Contains(SCSIControllerTypes, b.Controller) {
		bad("controller type %q is not one of %s", b.Controller, strings.Join(SCSIControllerTypes, ", "))
	}
	if len(errs) > 0 {
		return Layout{}, errors.Join(errs...)
	}

	l := Layout{
		Role:       RoleBlockWorker,
		NumCPU:     b.NumCPU,
		MemoryMB:   b.MemoryMB,
		Controller: b.Controller,
		Disks:      []VDisk{{Name: "boot", SizeGB: b.BootDiskGB, Provisioning: Thin}},
	}
	nc := (b.DataDisks + MaxDisksPerSCSIController - 1) / MaxDisksPerSCSIController
	for i := range b.DataDisks {
		l.Disks = append(l.Disks, VDisk{
			Name:         fmt.Sprintf("data-%02d", i+1),
			SizeGB:       b.DiskSizeGB,
			Provisioning: EagerZeroedThick,
			Controller:   i % nc,
		})
	}
	if err := l.Validate(); err != nil {
		return Layout{}, err
	}
	return l, nil
}

// mustBlockWorkerLayout is BlockWorkerLayout for the built-in layout,
// whose fields are constants: an error is a programming mistake.
func mustBlockWorkerLayout(b BlockWorker) Layout {
	l, err := BlockWorkerLayout(b)
	if err != nil {
		panic(err)
	}
	return l
}
