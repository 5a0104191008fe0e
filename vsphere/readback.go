package vsphere

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// This file reads back where each provisioned VM is and how it is
// configured, and compares it with the plan: DRS, a storage policy or an
// administrator can place or change a VM otherwise than asked, silently,
// and a review must not measure a VM that is not the one it describes.

// VMConfig is a VM's CPU, memory and latency configuration as vSphere
// reports it.
type VMConfig struct {
	// NumCPU is the number of vCPUs; CoresPerSocket how many share a socket.
	NumCPU         int32 `json:"vcpu"`
	CoresPerSocket int32 `json:"cores_per_socket"`
	// MemoryMB is the configured memory and MemoryReservationMB its
	// reservation, in MiB; MemoryReservationLocked is
	// memoryReservationLockedToMax.
	MemoryMB                int64 `json:"memory_mb"`
	MemoryReservationMB     int64 `json:"memory_reservation_mb"`
	MemoryReservationLocked bool  `json:"memory_reservation_locked,omitempty"`
	// LatencySensitivity is the level (normal, high, ...).
	LatencySensitivity string `json:"latency_sensitivity"`
}

// Mismatch is one field of one VM whose read-back differs from the plan.
type Mismatch struct {
	VM    string
	Field string // e.g. "host", "disk db-test provisioning", "memory reservation"
	Want  string
	Got   string
}

func (m Mismatch) String() string {
	return fmt.Sprintf("%s: %s is %s, planned %s", m.VM, m.Field, m.Got, m.Want)
}

// PlacementError is the error Provision returns (inside a StepError of
// step StepVerify) when a VM's read-back differs from the plan. It lists
// every differing field.
type PlacementError struct {
	Mismatches []Mismatch
}

func (e *PlacementError) Error() string {
	parts := make([]string, len(e.Mismatches))
	for i, m := range e.Mismatches {
		parts[i] = fmt.Sprintf("%s is %s, planned %s", m.Field, m.Got, m.Want)
	}
	return "placement differs from the plan (DRS, a storage policy or another client changed it?): " + strings.Join(parts, "; ")
}

// expected is what VM i must look like after provisioning.
type expected struct {
	name      string
	host      string // "" when vSphere chooses (no Hosts in the spec)
	datastore string
	config    VMConfig
	// disks are the layout's vDisks in layout order, with the planned
	// controller type of each (the boot disk's is the template's, not
	// checked: "").
	disks       []VDisk
	controllers []string
	slots       []diskSlot
}

// expect returns the plan for VM i, whose disks were placed at slots.
func (p *plan) expect(i int, slots []diskSlot) expected {
	l := p.spec.Layout
	cores := l.CoresPerSocket
	if cores == 0 {
		cores = l.NumCPU
	}
	e := expected{name: p.names[i], datastore: p.spec.Datastores[i%len(p.spec.Datastores)], slots: slots,
		config: VMConfig{NumCPU: l.NumCPU, CoresPerSocket: cores, MemoryMB: l.MemoryMB,
			MemoryReservationMB: l.MemoryReservationMB(), MemoryReservationLocked: l.ReserveMemory, LatencySensitivity: l.latency()},
		disks: l.Disks}
	if len(p.hosts) > 0 {
		e.host = p.hostNames[i%len(p.hostNames)]
	}
	e.controllers = make([]string, len(l.Disks))
	for k := 1; k < len(l.Disks); k++ {
		e.controllers[k] = l.Controller
	}
	return e
}

// readBack reads VM ref's host, home datastore, configuration and the
// disks at e.slots (with their controllers' types) and returns them with
// every difference from e. A VM that is not powered on may have no host
// yet; its host is then not compared.
func (s *Session) readBack(ctx context.Context, ref types.ManagedObjectReference, e expected) (VM, []Mismatch, error) {
	var m mo.VirtualMachine
	props := []string{"runtime.host", "runtime.powerState", "config.files.vmPathName", "config.hardware",
		"config.memoryAllocation", "config.memoryReservationLockedToMax", "config.latencySensitivity"}
	if err := s.Client.RetrieveOne(ctx, ref, props, &m); err != nil {
		return VM{}, nil, fmt.Errorf("read back the VM: %w", err)
	}
	if m.Config == nil {
		return VM{}, nil, errors.New("read back the VM: it has no configuration")
	}
	devices := object.VirtualDeviceList(m.Config.Hardware.Device)
	disks, err := disksFromDevices(devices, e.slots)
	if err != nil {
		return VM{}, nil, err
	}
	got := VM{Name: e.name, MoRef: ref.Value, Datastore: datastoreOf(m.Config.Files.VmPathName), Disks: disks,
		PowerState: string(m.Runtime.PowerState), Config: configOf(m.Config)}
	if h := m.Runtime.Host; h != nil {
		var hs mo.HostSystem
		if err := s.Client.RetrieveOne(ctx, *h, []string{"name"}, &hs); err != nil {
			return VM{}, nil, fmt.Errorf("read back the VM's host: %w", err)
		}
		got.Host = hs.Name
	}
	return got, compare(e, got), nil
}

// configOf reads the fields of VMConfig from a VM's config.
func configOf(c *types.VirtualMachineConfigInfo) VMConfig {
	out := VMConfig{NumCPU: c.Hardware.NumCPU, CoresPerSocket: c.Hardware.NumCPU, MemoryMB: int64(c.Hardware.MemoryMB)}
	if n := c.Hardware.NumCoresPerSocket; n != nil && *n > 0 {
		out.CoresPerSocket = *n
	}
	if a := c.MemoryAllocation; a != nil && a.Reservation != nil {
		out.MemoryReservationMB = *a.Reservation
	}
	if c.MemoryReservationLockedToMax != nil {
		out.MemoryReservationLocked = *c.MemoryReservationLockedToMax
	}
	out.LatencySensitivity = LatencyNormal
	if ls := c.LatencySensitivity; ls != nil && ls.Level != "" {
		out.LatencySensitivity = string(ls.Level)
	}
	return out
}

// compare lists every field of got that differs from e: host (when one
// was planned and the VM has one), home datastore, vCPU, cores per
// socket, memory, its reservation and lock, latency sensitivity, and per
// disk its datastore, provisioning, capacity and controller type.
func compare(e expected, got VM) []Mismatch {
	var out []Mismatch
	diff := func(field string, want, have any) {
		w, h := fmt.Sprint(want), fmt.Sprint(have)
		if w != h {
			out = append(out, Mismatch{VM: e.name, Field: field, Want: w, Got: h})
		}
	}
	if e.host != "" && got.Host != "" {
		diff("host", e.host, got.Host)
	}
	diff("home datastore", e.datastore, got.Datastore)
	w, g := e.config, got.Config
	diff("vCPU", w.NumCPU, g.NumCPU)
	diff("cores per socket", w.CoresPerSocket, g.CoresPerSocket)
	diff("memory MB", w.MemoryMB, g.MemoryMB)
	diff("memory reservation MB", w.MemoryReservationMB, g.MemoryReservationMB)
	diff("memory reservation locked to max", w.MemoryReservationLocked, g.MemoryReservationLocked)
	diff("latency sensitivity", w.LatencySensitivity, g.LatencySensitivity)
	for i, d := range got.Disks {
		if i >= len(e.disks) {
			break
		}
		want := e.disks[i]
		what := "disk " + want.Name
		diff(what+" datastore", e.datastore, d.Datastore)
		diff(what+" provisioning", want.Provisioning, d.Provisioning)
		diff(what+" capacity GB", want.SizeGB, d.CapacityBytes/bytesPerGB)
		if c := e.controllers[i]; c != "" {
			diff(what+" controller", c, d.Controller)
		}
	}
	return out
}
