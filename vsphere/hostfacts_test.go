package vsphere

import (
	"slices"
	"strings"
	"testing"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

// simVMs provisions two VMs on a 2-host simulator and returns the
// session, the simulator and the VMs' MoRef values.
func simVMs(t *testing.T) (*Session, *Simulator, []string) {
	t.Helper()
	sim, s := simSession(t, SimOptions{Hosts: 2, Datastores: 2, HostCores: 8, HostMemoryGB: 96})
	spec := testSpec(t, "sysbench", 2, sim.Datastores())
	vms, err := s.Provision(t.Context(), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	refs := make([]string, len(vms))
	for i, vm := range vms {
		refs[i] = vm.MoRef
	}
	return s, sim, refs
}

// Facts against vcsim: each host's facts are the simulator's host object
// (and the shape SimOptions gave it: 8 cores, 16 threads, 2 sockets,
// 96 GiB, vcsim's 2294 MHz), the ESXi product is the host's (vcsim says
// ESXi 8.0.2, while its About says vCenter 6.5: the host's is the one
// read), a host given beside the VMs is read too, and each VM is placed on
// its host and the datastore it was provisioned on.
func TestFactsSimulator(t *testing.T) {
	t.Parallel()
	s, sim, vms := simVMs(t)
	ctx := t.Context()
	reg := sim.model.Map()
	var all []string
	for _, o := range reg.All("HostSystem") {
		all = append(all, o.Reference().Value)
	}
	slices.Sort(all)
	if len(all) != 2 {
		t.Fatalf("simulator has hosts %v, want 2", all)
	}
	f, err := s.Facts(ctx, vms, all[:1]) // one host named, the rest from the VMs
	if err != nil {
		t.Fatal(err)
	}
	placed := map[string]bool{all[0]: true}
	for _, vp := range f.VMs {
		placed[vp.HostRef] = true
	}
	if len(f.Hosts) != len(placed) {
		t.Fatalf("%d hosts, want the named one and the VMs' (%v)", len(f.Hosts), placed)
	}
	for i, h := range f.Hosts {
		if i > 0 && f.Hosts[i-1].Name > h.Name {
			t.Errorf("hosts not in name order: %s before %s", f.Hosts[i-1].Name, h.Name)
		}
		obj := reg.Get(types.ManagedObjectReference{Type: "HostSystem", Value: h.Ref}).(*simulator.HostSystem)
		hw, pr := obj.Summary.Hardware, obj.Summary.Config.Product
		want := HostFacts{Ref: obj.Self.Value, Name: obj.Name, Vendor: hw.Vendor, Model: hw.Model, CPUModel: hw.CpuModel,
			Sockets: 2, Cores: 8, Threads: 16, CPUMHz: 2294, MemoryBytes: 96 << 30, MemoryGiB: 96,
			Product: pr.FullName, Version: pr.Version, Build: pr.Build}
		if h != want {
			t.Errorf("host facts\n%+v\nwant (the simulator's object)\n%+v", h, want)
		}
		if h.Vendor == "" || h.Model == "" || h.CPUModel == "" || h.Version == "" || h.Build == "" ||
			!strings.Contains(h.Product, h.Version) || !strings.Contains(h.Product, h.Build) || h.Version == s.Client.ServiceContent.About.Version {
			t.Errorf("host %s: product %q version %q build %q (vCenter's is %s)", h.Name, h.Product, h.Version, h.Build, s.Client.ServiceContent.About.Version)
		}
		m := h.Map()
		if m["cores"] != "8" || m["threads"] != "16" || m["sockets"] != "2" || m["cpu_mhz"] != "2294" || m["memory_gib"] != "96" ||
			m["version"] != h.Version || m["build"] != h.Build || m["model"] != h.Model || len(m) != 12 {
			t.Errorf("Map() = %v", m)
		}
	}

	hostName := map[string]string{}
	for _, h := range f.Hosts {
		hostName[h.Ref] = h.Name
	}
	if len(f.VMs) != len(vms) {
		t.Fatalf("%d placements for %d VMs", len(f.VMs), len(vms))
	}
	for i, vp := range f.VMs {
		info, err := s.Inspect(ctx, vp.Name)
		if err != nil {
			t.Fatal(err)
		}
		if vp.VM != vms[i] || info.MoRef != vp.VM || vp.HostRef == "" || vp.Host != hostName[vp.HostRef] ||
			!slices.Contains(vp.Datastores, info.Datastore) || !slices.IsSorted(vp.Datastores) {
			t.Errorf("placement %+v; VM home on %s", vp, info.Datastore)
		}
		obj := reg.Get(types.ManagedObjectReference{Type: "VirtualMachine", Value: vp.VM}).(*simulator.VirtualMachine)
		if obj.Runtime.Host.Value != vp.HostRef || len(obj.Datastore) != len(vp.Datastores) {
			t.Errorf("placement %+v; simulator: host %s datastores %v", vp, obj.Runtime.Host.Value, obj.Datastore)
		}
	}

	_, err = s.Facts(ctx, nil, []string{"host-424242"})
	mustContain(t, err, "host-424242")
}
