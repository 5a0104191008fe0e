package vsphere

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// reservedLayout is the sqlserver layout with every layout option set.
func reservedLayout(t *testing.T) Layout {
	t.Helper()
	l, err := LayoutFor("sqlserver")
	if err != nil {
		t.Fatal(err)
	}
	l.ReserveMemory, l.LatencySensitivity, l.CoresPerSocket = true, LatencyHigh, 8
	return l
}

// TestProvisionPinsHostsAndReadsBackLayoutOptions: the layout options that
// vcsim drops from a clone spec (reservation, latency sensitivity) are
// applied by the reconfigure, and the read-back shows each VM on its
// pinned host with every planned field.
func TestProvisionPinsHostsAndReadsBackLayoutOptions(t *testing.T) {
	t.Parallel()
	sim, s := simSession(t, SimOptions{Hosts: 2, Datastores: 2})
	ctx := context.Background()
	hosts := simHostNames(t, sim)
	spec := testSpec(t, "sqlserver", 4, sim.Datastores())
	spec.Layout = reservedLayout(t)
	spec.Hosts = []string{hosts[1], hosts[0]}
	vms, err := s.Provision(ctx, spec, logf(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = s.Destroy(context.Background(), spec.CampaignID, nil) })
	want := VMConfig{NumCPU: 16, CoresPerSocket: 8, MemoryMB: 64 * 1024, MemoryReservationMB: 64 * 1024,
		MemoryReservationLocked: true, LatencySensitivity: LatencyHigh}
	for i, vm := range vms {
		if vm.Host != spec.Hosts[i%2] || vm.Datastore != spec.Datastores[i%2] {
			t.Errorf("%s on host %s datastore %s, want %s %s", vm.Name, vm.Host, vm.Datastore, spec.Hosts[i%2], spec.Datastores[i%2])
		}
		if vm.Config != want {
			t.Errorf("%s: config %+v, want %+v", vm.Name, vm.Config, want)
		}
		if len(vm.Disks) != 2 || vm.Disks[1].Controller != "lsilogic-sas" || vm.Disks[0].Controller != "pvscsi" {
			t.Errorf("%s: disks %+v", vm.Name, vm.Disks)
		}
	}
}

// TestPlacementMismatchFailsProvision: a change made behind Provision's
// back between its reconfigure and its read-back (as DRS or a storage
// policy would) fails the VM's verify step, naming the VM and the field,
// and Provision then removes everything it created.
func TestPlacementMismatchFailsProvision(t *testing.T) {
	t.Parallel()
	sim, s := simSession(t, SimOptions{Hosts: 2, Datastores: 2})
	hosts := simHostNames(t, sim)
	cases := []struct {
		name   string
		inject func(vm *simulator.VirtualMachine)
		field  string
	}{
		{"reservation dropped", func(vm *simulator.VirtualMachine) {
			vm.Config.MemoryAllocation.Reservation = types.NewInt64(0)
		}, "memory reservation MB is 0, planned 65536"},
		{"latency sensitivity reset", func(vm *simulator.VirtualMachine) {
			vm.Config.LatencySensitivity = &types.LatencySensitivity{Level: types.LatencySensitivitySensitivityLevelNormal}
		}, "latency sensitivity is normal, planned high"},
		{"moved to another host", func(vm *simulator.VirtualMachine) {
			other := simByName(t, sim, "HostSystem", hosts[0])
			ref := other.Reference()
			vm.Runtime.Host = &ref
		}, fmt.Sprintf("host is %s, planned %s", hosts[0], hosts[1])},
		{"disk made thin", func(vm *simulator.VirtualMachine) {
			for _, d := range vm.Config.Hardware.Device {
				if disk, ok := d.(*types.VirtualDisk); ok {
					if b, ok := disk.Backing.(*types.VirtualDiskFlatVer2BackingInfo); ok && b.EagerlyScrub != nil && *b.EagerlyScrub {
						b.ThinProvisioned, b.EagerlyScrub = types.NewBool(true), types.NewBool(false)
					}
				}
			}
		}, "disk data-log provisioning is thin, planned eagerZeroedThick"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			before := allVMNames(t, s)
			spec := testSpec(t, "sqlserver", 2, sim.Datastores())
			spec.NamePrefix = "mismatch-" + fmt.Sprint(campaignSeq.Add(1))
			spec.Layout = reservedLayout(t)
			spec.Hosts = []string{hosts[1]}
			victim := spec.VMNames()[1]
			spec.OnStep = func(vm, step string, _ time.Duration) {
				if vm != victim || step != StepPowerOn {
					return
				}
				obj := simByName(t, sim, "VirtualMachine", vm).(*simulator.VirtualMachine)
				sim.model.Map().WithLock(sim.model.Service.Context, obj, func() { c.inject(obj) })
			}
			_, err := s.Provision(ctx, spec, logf(t))
			var se *StepError
			var pe *PlacementError
			if !errors.As(err, &se) || se.VM != victim || se.Step != StepVerify || !errors.As(err, &pe) {
				t.Fatalf("want a verify-placement StepError for %s, got %v", victim, err)
			}
			mustContain(t, err, victim, c.field)
			nothingLeft(t, s, spec.CampaignID, before)
		})
	}
}

// TestPreflightPinnedHosts: a pinned host outside the pool, a host that
// does not mount a VM's datastore, and reservations beyond a host's
// memory are problems; the per-host plan counts each host's VMs.
func TestPreflightPinnedHosts(t *testing.T) {
	t.Parallel()
	sim, s := simSession(t, SimOptions{Hosts: 2, Datastores: 2, HostMemoryGB: 256})
	ctx := context.Background()
	hosts := simHostNames(t, sim)

	spec := testSpec(t, "sqlserver", 3, sim.Datastores())
	spec.Hosts = hosts
	r, err := s.Preflight(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range r.Hosts {
		wantVMs := []int{2, 1}[i]
		if !h.Planned || h.VMs != wantVMs || h.VCPUs != int64(16*wantVMs) || h.VMMemoryMB != int64(wantVMs*65536) || h.ReservedMB != 0 {
			t.Errorf("host %d: %+v", i, h)
		}
	}

	spec.Hosts = []string{"esx-99"}
	_, err = s.Preflight(ctx, spec)
	mustContain(t, err, `host "esx-99" (vms.hosts / --host) is not a host of resource pool`, hosts[0], hosts[1])

	// Five reserved 64 GB VMs on one 256 GB host.
	spec = testSpec(t, "sqlserver", 5, sim.Datastores())
	spec.Layout = reservedLayout(t)
	spec.Hosts = hosts[:1]
	r, err = s.Preflight(ctx, spec)
	mustContain(t, err, fmt.Sprintf("host %s: its 5 VMs reserve 320 GB of memory but it has 256 GB", hosts[0]))
	if r.Datastores[0].SwapGB != 0 {
		t.Errorf("reserved memory needs no swap file, got %d GB", r.Datastores[0].SwapGB)
	}

	// LocalDS_1 unmounted from the second host.
	ds := simByName(t, sim, "Datastore", sim.Datastores()[1]).(*simulator.Datastore)
	h1 := simByName(t, sim, "HostSystem", hosts[1]).Reference()
	sim.model.Map().WithLock(sim.model.Service.Context, ds, func() {
		var kept []types.DatastoreHostMount
		for _, m := range ds.Host {
			if m.Key != h1 {
				kept = append(kept, m)
			}
		}
		ds.Host = kept
	})
	spec = testSpec(t, "sqlserver", 2, sim.Datastores())
	spec.Hosts = hosts
	before := allVMNames(t, s)
	_, err = s.Provision(ctx, spec, nil)
	mustContain(t, err, fmt.Sprintf("VM vmbench-sqlserver-02: host %s does not mount its datastore %s", hosts[1], sim.Datastores()[1]))
	nothingLeft(t, s, spec.CampaignID, before)
}

// simHostNames returns the simulator's host names, sorted.
func simHostNames(t *testing.T, sim *Simulator) []string {
	t.Helper()
	var out []string
	for _, obj := range sim.model.Map().All("HostSystem") {
		out = append(out, obj.(*simulator.HostSystem).Name)
	}
	if len(out) < 2 {
		t.Fatalf("want 2 hosts, have %v", out)
	}
	sort.Strings(out)
	return out
}

// simByName returns the simulator's object of kind (HostSystem,
// VirtualMachine, Datastore) named name.
func simByName(t *testing.T, sim *Simulator, kind, name string) mo.Entity {
	t.Helper()
	for _, obj := range sim.model.Map().All(kind) {
		if obj.Entity().Name == name {
			return obj
		}
	}
	t.Fatalf("no %s named %s", kind, name)
	return nil
}

// TestPreflightPacksReservations: with hosts unpinned, full reservations
// must fit whole on hosts: three 90 GB hosts admit three 60 GB VMs, not
// four, although the pool's 270 GB exceed their 240 GB.
func TestPreflightPacksReservations(t *testing.T) {
	t.Parallel()
	sim, s := simSession(t, SimOptions{Hosts: 3, Datastores: 1, HostMemoryGB: 90})
	spec := testSpec(t, "sysbench", 4, sim.Datastores())
	spec.Layout.ReserveMemory = true
	_, err := s.Preflight(context.Background(), spec)
	mustContain(t, err, "the pool's hosts admit at most 3 of the 4 VMs that each reserve 60 GB")
	spec.Count = 3
	if _, err := s.Preflight(context.Background(), spec); err != nil {
		t.Errorf("3 VMs on 3 hosts: %v", err)
	}
}
