package vsphere

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Provisioning is how a vDisk's blocks are allocated on the datastore.
type Provisioning string

const (
	// Thin allocates blocks on first write; the datastore can be overcommitted.
	Thin Provisioning = "thin"
	// Thick (lazy-zeroed) reserves the whole size at creation and zeroes each
	// block on its first write.
	Thick Provisioning = "thick"
	// EagerZeroedThick reserves and zeroes the whole size at creation, so no
	// write during a measurement pays for zeroing.
	EagerZeroedThick Provisioning = "eagerZeroedThick"
)

// Valid reports whether p is one of Thin, Thick, EagerZeroedThick.
func (p Provisioning) Valid() bool { return p == Thin || p == Thick || p == EagerZeroedThick }

// Reserved reports whether the whole size is taken from the datastore at
// creation (thick, lazy or eager).
func (p Provisioning) Reserved() bool { return p == Thick || p == EagerZeroedThick }

// flags returns the VirtualDiskFlatVer2BackingInfo thinProvisioned and
// eagerlyScrub values for p.
func (p Provisioning) flags() (thin, eager bool) {
	return p == Thin, p == EagerZeroedThick
}

// MaxSCSIControllers is the number of SCSI controllers a VM can have (buses
// 0-3); MaxDisksPerSCSIController is the number of disks one LSI Logic SAS
// (or PVSCSI) controller takes at units 0-15 without 7, the controller's own.
const (
	MaxSCSIControllers        = 4
	MaxDisksPerSCSIController = 15
	scsiControllerUnit        = 7
	maxSCSIUnit               = 15
)

// SCSIControllerTypes are the controller types a Layout may name (govmomi's
// object.SCSIControllerTypes names).
var SCSIControllerTypes = []string{"lsilogic-sas", "pvscsi", "lsilogic", "buslogic"}

// VDisk is one virtual disk of a role.
type VDisk struct {
	// Name says what the disk holds (boot, db-prebuilt...); it is shown in
	// tables, not used for file names (vSphere chooses those).
	Name string `json:"name"`
	// SizeGB is the capacity in GiB.
	SizeGB int64 `json:"size_gb"`
	// Provisioning is thin, thick (lazy-zeroed) or eagerZeroedThick.
	Provisioning Provisioning `json:"provisioning"`
	// Controller is the index of the added SCSI controller the disk goes on
	// (0 = the first one the layout adds). Ignored for the boot disk, which
	// stays on the template's controller.
	Controller int `json:"controller,omitempty"`
	// Unit pins the SCSI unit number (0-15, never 7); nil lets Placement
	// choose the lowest free one. Must be nil for the boot disk.
	Unit *int32 `json:"unit,omitempty"`
}

// Layout is a role's VM shape: CPU, memory and vDisks.
type Layout struct {
	// Role names the layout ("sysbench", "sqlserver", "block-worker").
	Role string `json:"role"`
	// NumCPU is the number of vCPUs.
	NumCPU int32 `json:"vcpu"`
	// CoresPerSocket groups the vCPUs into sockets; 0 means one socket with
	// NumCPU cores (SQL Server Standard and Windows license per socket, and
	// since vSphere 6.5 vNUMA no longer follows the socket count).
	CoresPerSocket int32 `json:"cores_per_socket,omitempty"`
	// MemoryMB is the memory in MiB (a multiple of 4, as vSphere requires).
	MemoryMB int64 `json:"memory_mb"`
	// Controller is the SCSI controller type added for the data disks, one
	// of SCSIControllerTypes (the review's layouts use "lsilogic-sas").
	Controller string `json:"controller"`
	// Disks[0] is the boot disk: the template's first disk, grown to SizeGB.
	// The others are created on new controllers of type Controller.
	Disks []VDisk `json:"disks"`
	// ReserveMemory reserves all of MemoryMB (memoryAllocation.reservation
	// = MemoryMB, memoryReservationLockedToMax = true): the VM never
	// balloons or swaps, and vSphere creates no swap file for it (SwapGB
	// is 0). Admission control then refuses to power on VMs whose
	// reservations the host cannot hold.
	ReserveMemory bool `json:"reserve_memory"`
	// LatencySensitivity is "" or LatencyNormal (vSphere's default), or
	// LatencyHigh, which gives each vCPU exclusive use of a physical core
	// when the host can and requires ReserveMemory (vSphere refuses high
	// without a full memory reservation; Validate does too).
	LatencySensitivity string `json:"latency_sensitivity,omitempty"`
}

// Latency sensitivity levels a Layout may name (vSphere's
// LatencySensitivitySensitivityLevel values, as the vSphere Client's
// VM Options > Advanced > Latency Sensitivity shows them).
const (
	LatencyNormal = "normal"
	LatencyHigh   = "high"
)

// DiskPlacement is where Placement puts a vDisk.
type DiskPlacement struct {
	Disk VDisk
	// Boot is true for Disks[0] (the template's disk, on the template's
	// controller; Unit is then the template's and Placement leaves it -1).
	Boot bool
	// NewController is the index of the added controller (-1 for the boot disk).
	NewController int
	// Unit is the SCSI unit number on that controller (-1 for the boot disk).
	Unit int32
}

// Built-in layouts, from the reviews' published VM configurations
// (docs/methodology.md: sysbench and SQL Server).
//
// Provisioning choices:
//   - boot disks are thin: they are not measured, and a thin clone of the
//     template is fast and small;
//   - disks a workload writes to during the measurement (sysbench's database
//     under test, SQL Server's data and log) are eager-zeroed thick, as a
//     storage review provisions them: every block is allocated and zeroed
//     before the run, so first writes do not pay for zeroing and the
//     datastore cannot run out mid-run;
//   - sysbench's pre-built database disk is only read sequentially when the
//     database under test is restored from it, so zero-on-first-write costs
//     nothing measurable there; it is thick lazy-zeroed, which reserves its
//     space (a full datastore fails at provisioning, not mid-restore) without
//     the minutes eager-zeroing 447 GB would add to every VM;
//   - "block-worker" is BlockWorkerLayout with its defaults and one data
//     disk of DefaultBlockWorkerDiskSizeGB (100 GiB), eager-zeroed thick
//     (see BlockWorkerLayout for why and where the defaults come from).
var builtinLayouts = map[string]Layout{
	RoleBlockWorker: mustBlockWorkerLayout(BlockWorker{DiskSizeGB: DefaultBlockWorkerDiskSizeGB}),
	"sysbench": {
		Role:       "sysbench",
		NumCPU:     16,
		MemoryMB:   60 * 1024,
		Controller: "lsilogic-sas",
		Disks: []VDisk{
			{Name: "boot", SizeGB: 92, Provisioning: Thin},
			{Name: "db-prebuilt", SizeGB: 447, Provisioning: Thick},
			{Name: "db-test", SizeGB: 270, Provisioning: EagerZeroedThick},
		},
	},
	"sqlserver": {
		Role:       "sqlserver",
		NumCPU:     16,
		MemoryMB:   64 * 1024,
		Controller: "lsilogic-sas",
		Disks: []VDisk{
			{Name: "boot", SizeGB: 100, Provisioning: Thin},
			{Name: "data-log", SizeGB: 500, Provisioning: EagerZeroedThick},
		},
	},
}

// Roles returns the names of the built-in layouts, sorted.
func Roles() []string {
	out := make([]string, 0, len(builtinLayouts))
	for r := range builtinLayouts {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// LayoutFor returns a copy of the built-in layout of role. An unknown role
// is an error that lists the valid roles.
func LayoutFor(role string) (Layout, error) {
	l, ok := builtinLayouts[role]
	if !ok {
		return Layout{}, fmt.Errorf("unknown role %q: valid roles are %s", role, strings.Join(Roles(), ", "))
	}
	l.Disks = slices.Clone(l.Disks)
	return l, nil
}

// NewControllers returns how many SCSI controllers the layout adds to the
// template's (the highest VDisk.Controller of the data disks, plus one).
func (l Layout) NewControllers() int {
	n := 0
	for _, d := range l.dataDisks() {
		n = max(n, d.Controller+1)
	}
	return n
}

func (l Layout) dataDisks() []VDisk {
	if len(l.Disks) < 2 {
		return nil
	}
	return l.Disks[1:]
}

// Validate checks what vcsim does not (it accepts unit 7, 16 disks on a
// controller and duplicate units), so a bad layout is refused before any
// vSphere call: CPU and memory, sizes > 0, known provisioning and controller
// types, at most 15 disks per SCSI controller, never unit 7, units 0-15 and
// unique per controller, and at most 4 SCSI controllers counting the
// template's one. Every problem is reported.
func (l Layout) Validate() error {
	_, err := l.Placement()
	return err
}

// Placement computes the controller and unit of every vDisk: data disks
// fill their controller's units 0, 1, 2... skipping 7 and units pinned by
// VDisk.Unit. It is computed here rather than by govmomi's AssignController,
// which has no upper bound and repeats units for devices not yet in the
// list. It returns Validate's errors.
func (l Layout) Placement() ([]DiskPlacement, error) {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("layout %q: "+format, append([]any{l.Role}, args...)...))
	}
	l.checkSizes(bad)
	nc := l.NewControllers()
	if 1+nc > MaxSCSIControllers {
		bad("needs %d SCSI controllers (the template's and %d new), a VM has at most %d", 1+nc, nc, MaxSCSIControllers)
	}
	// Units per new controller: pinned first, then the lowest free.
	used := make([]map[int32]int, nc) // unit -> disk index
	perCtrl := make([]int, nc)
	for i, d := range l.dataDisks() {
		idx := i + 1
		if d.Controller < 0 {
			bad("disk %d (%s) has controller index %d, must be >= 0", idx, d.Name, d.Controller)
			continue
		}
		if used[d.Controller] == nil {
			used[d.Controller] = map[int32]int{}
		}
		perCtrl[d.Controller]++
		if d.Unit == nil {
			continue
		}
		u := *d.Unit
		switch {
		case u == scsiControllerUnit:
			bad("disk %d (%s) is at unit 7, which is the SCSI controller's own", idx, d.Name)
		case u < 0 || u > maxSCSIUnit:
			bad("disk %d (%s) is at unit %d, SCSI units are 0-15", idx, d.Name, u)
		default:
			if prev, dup := used[d.Controller][u]; dup {
				bad("disks %d and %d both use unit %d of new controller %d", prev, idx, u, d.Controller)
			} else {
				used[d.Controller][u] = idx
			}
		}
	}
	for c, n := range perCtrl {
		if n > MaxDisksPerSCSIController {
			bad("new controller %d has %d disks, a SCSI controller takes at most %d", c, n, MaxDisksPerSCSIController)
		}
		if n == 0 {
			bad("new controller %d has no disks (controller indexes must be used from 0 up)", c)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}

	out := make([]DiskPlacement, len(l.Disks))
	out[0] = DiskPlacement{Disk: l.Disks[0], Boot: true, NewController: -1, Unit: -1}
	next := make([]int32, nc)
	for i, d := range l.dataDisks() {
		u := int32(-1)
		if d.Unit != nil {
			u = *d.Unit
		} else {
			u = next[d.Controller]
			for u == scsiControllerUnit || hasUnit(used[d.Controller], u) {
				u++
			}
			next[d.Controller] = u + 1
			used[d.Controller][u] = i + 1
		}
		out[i+1] = DiskPlacement{Disk: d, NewController: d.Controller, Unit: u}
	}
	return out, nil
}

// checkSizes reports through bad what is wrong with the layout's role,
// CPUs, memory, controller type and disks (sizes, provisioning, the boot
// disk's unit): the checks of Validate that do not place disks.
func (l Layout) checkSizes(bad func(format string, args ...any)) {
	if l.Role == "" {
		bad("role name is empty")
	}
	if l.NumCPU < 1 {
		bad("NumCPU is %d, must be at least 1", l.NumCPU)
	}
	if l.CoresPerSocket < 0 || (l.CoresPerSocket > 0 && l.NumCPU%l.CoresPerSocket != 0) {
		bad("CoresPerSocket %d does not divide NumCPU %d", l.CoresPerSocket, l.NumCPU)
	}
	if l.MemoryMB < 4 || l.MemoryMB%4 != 0 {
		bad("MemoryMB is %d, must be a positive multiple of 4", l.MemoryMB)
	}
	if len(l.Disks) > 1 && !slices.Contains(SCSIControllerTypes, l.Controller) {
		bad("controller type %q is not one of %s", l.Controller, strings.Join(SCSIControllerTypes, ", "))
	}
	if len(l.Disks) == 0 {
		bad("no disks: Disks[0] must be the boot disk")
	}
	for i, d := range l.Disks {
		if d.SizeGB <= 0 {
			bad("disk %d (%s) has size %d GB, must be > 0", i, d.Name, d.SizeGB)
		}
		if !d.Provisioning.Valid() {
			bad("disk %d (%s) has provisioning %q, must be %s, %s or %s", i, d.Name, d.Provisioning, Thin, Thick, EagerZeroedThick)
		}
	}
	if len(l.Disks) > 0 && l.Disks[0].Unit != nil {
		bad("the boot disk (disk 0) keeps the template's unit; Unit must be unset")
	}
	switch l.LatencySensitivity {
	case "", LatencyNormal:
	case LatencyHigh:
		if !l.ReserveMemory {
			bad("latency sensitivity high needs a full memory reservation (vSphere refuses it otherwise): reserve the memory too")
		}
	default:
		bad("latency sensitivity %q is not one of %s, %s", l.LatencySensitivity, LatencyNormal, LatencyHigh)
	}
}

// latency is LatencySensitivity with the default made explicit.
func (l Layout) latency() string {
	if l.LatencySensitivity == "" {
		return LatencyNormal
	}
	return l.LatencySensitivity
}

// MemoryReservationMB is the memory reservation Provision sets, in MiB:
// MemoryMB with ReserveMemory, else 0.
func (l Layout) MemoryReservationMB() int64 {
	if l.ReserveMemory {
		return l.MemoryMB
	}
	return 0
}

func hasUnit(m map[int32]int, u int32) bool { _, ok := m[u]; return ok }

// DiskGB sums the layout's vDisk sizes in GiB: reserved is what thick and
// eager-zeroed disks take at creation, thin what thin disks can grow to.
func (l Layout) DiskGB() (reserved, thin int64) {
	for _, d := range l.Disks {
		if d.Provisioning.Reserved() {
			reserved += d.SizeGB
		} else {
			thin += d.SizeGB
		}
	}
	return reserved, thin
}

// SwapGB is the swap file vSphere creates in the VM's home directory at
// power-on: configured memory minus the reservation (MemoryReservationMB),
// rounded up to whole GiB; 0 with ReserveMemory.
func (l Layout) SwapGB() int64 { return (l.MemoryMB - l.MemoryReservationMB() + 1023) / 1024 }
