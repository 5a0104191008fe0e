package vsphere

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// HostFacts describes one ESXi host as vSphere reports it, to be saved
// with the results of the runs on it. Every field comes from the
// HostSystem's summary (property path in each comment).
type HostFacts struct {
	// Ref is the host's MoRef value ("host-21"; "ha-host" on ESXi).
	Ref string `json:"ref"`
	// Name is the host's inventory name (name).
	Name string `json:"name"`
	// Vendor and Model of the server (summary.hardware.vendor, .model).
	Vendor string `json:"vendor"`
	Model  string `json:"model"`
	// CPUModel is the processor's name (summary.hardware.cpuModel).
	CPUModel string `json:"cpu_model"`
	// Sockets (summary.hardware.numCpuPkgs), Cores over all sockets
	// (numCpuCores) and hardware Threads over all sockets (numCpuThreads).
	Sockets int `json:"sockets"`
	Cores   int `json:"cores"`
	Threads int `json:"threads"`
	// CPUMHz is the speed of one core in MHz (summary.hardware.cpuMhz).
	CPUMHz int `json:"cpu_mhz"`
	// MemoryBytes is the physical memory in bytes
	// (summary.hardware.memorySize), MemoryGiB the same in GiB (2^30 bytes).
	MemoryBytes int64   `json:"memory_bytes"`
	MemoryGiB   float64 `json:"memory_gib"`
	// Product is the hypervisor's full name, e.g. "VMware ESXi 8.0.2
	// build-21997540" (summary.config.product.fullName), Version its
	// version ("8.0.2", .version) and Build its build number ("21997540",
	// .build).
	Product string `json:"product"`
	Version string `json:"version"`
	Build   string `json:"build"`
}

// Map returns the facts as a flat map with the JSON field names as keys
// (numbers in decimal, MemoryGiB with up to two decimals), without Ref and
// Name: the shape a Result's per-host map takes, keyed by Name.
func (h HostFacts) Map() map[string]string {
	return map[string]string{
		"vendor":       h.Vendor,
		"model":        h.Model,
		"cpu_model":    h.CPUModel,
		"sockets":      strconv.Itoa(h.Sockets),
		"cores":        strconv.Itoa(h.Cores),
		"threads":      strconv.Itoa(h.Threads),
		"cpu_mhz":      strconv.Itoa(h.CPUMHz),
		"memory_bytes": strconv.FormatInt(h.MemoryBytes, 10),
		"memory_gib":   strconv.FormatFloat(h.MemoryGiB, 'f', -1, 64),
		"product":      h.Product,
		"version":      h.Version,
		"build":        h.Build,
	}
}

// VMPlacement says where one VM ran: its host and the datastores that
// hold its files (the VM's datastore property: home, vDisks, swap).
type VMPlacement struct {
	// VM is the VM's MoRef value ("vm-42"), Name its inventory name.
	VM   string `json:"vm"`
	Name string `json:"name"`
	// HostRef is the MoRef value of the host it runs on (runtime.host),
	// Host that host's name; both empty when it is not placed.
	HostRef string `json:"host_ref,omitempty"`
	Host    string `json:"host,omitempty"`
	// Datastores are the datastore names, sorted.
	Datastores []string `json:"datastores"`
}

// Facts is what Session.Facts returns: the hosts, in name order, and the
// VMs, in the order asked.
type Facts struct {
	Hosts []HostFacts   `json:"hosts"`
	VMs   []VMPlacement `json:"vms,omitempty"`
}

// Facts reads the facts of the hosts named by MoRef value in hosts and of
// the hosts the VMs (MoRef values, "vm-42") run on, and where each VM is
// placed. A VM or host that does not exist is an error naming it.
func (s *Session) Facts(ctx context.Context, vms, hosts []string) (Facts, error) {
	p, err := s.readPlacement(ctx, vms, hosts)
	if err != nil {
		return Facts{}, err
	}
	out := Facts{VMs: p.vms}
	refs := make([]types.ManagedObjectReference, 0, len(p.hosts))
	for _, h := range p.hosts {
		refs = append(refs, hostRef(h))
	}
	var mos []mo.HostSystem
	if err := s.Client.Retrieve(ctx, refs, []string{"name", "summary.hardware", "summary.config.product"}, &mos); err != nil {
		return Facts{}, fmt.Errorf("read host facts: %w", s.cfg.redact(err))
	}
	for _, h := range mos {
		f := HostFacts{Ref: h.Self.Value, Name: h.Name}
		if hw := h.Summary.Hardware; hw != nil {
			f.Vendor, f.Model, f.CPUModel = hw.Vendor, hw.Model, hw.CpuModel
			f.Sockets, f.Cores, f.Threads = int(hw.NumCpuPkgs), int(hw.NumCpuCores), int(hw.NumCpuThreads)
			f.CPUMHz = int(hw.CpuMhz)
			f.MemoryBytes = hw.MemorySize
			f.MemoryGiB = float64(hw.MemorySize) / (1 << 30)
		}
		if pr := h.Summary.Config.Product; pr != nil {
			f.Product, f.Version, f.Build = pr.FullName, pr.Version, pr.Build
		}
		out.Hosts = append(out.Hosts, f)
	}
	slices.SortFunc(out.Hosts, func(a, b HostFacts) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// placement is what readPlacement found: the VMs in the order asked, the
// vCPU count of each (by MoRef value), the hosts (the VMs' first, then
// the extra ones, each once) with their names, and the name of every
// datastore mounted on those hosts or used by the VMs, by MoRef value and
// by the UUID in its URL (the instance name of vSphere's datastore.*
// performance counters).
type placement struct {
	vms       []VMPlacement
	vcpus     map[string]int
	hosts     []string
	hostNames map[string]string
	dsNames   map[string]string
}

// readPlacement reads the VMs (MoRef values) and hosts (MoRef values,
// added to the VMs' hosts) in three property-collector calls.
func (s *Session) readPlacement(ctx context.Context, vms, hosts []string) (placement, error) {
	p := placement{vcpus: map[string]int{}, hostNames: map[string]string{}, dsNames: map[string]string{}}
	vmMOs, err := s.readPlacementVMs(ctx, vms)
	if err != nil {
		return p, err
	}
	byRef := map[string]mo.VirtualMachine{}
	for _, m := range vmMOs {
		byRef[m.Self.Value] = m
		if h := m.Runtime.Host; h != nil && !slices.Contains(p.hosts, h.Value) {
			p.hosts = append(p.hosts, h.Value)
		}
	}
	for _, h := range hosts {
		if !slices.Contains(p.hosts, h) {
			p.hosts = append(p.hosts, h)
		}
	}
	dsRefs := map[types.ManagedObjectReference]bool{}
	if err := s.readPlacementHosts(ctx, &p, dsRefs); err != nil {
		return p, err
	}
	for _, m := range vmMOs {
		for _, d := range m.Datastore {
			dsRefs[d] = true
		}
	}
	if err := s.readDatastoreNames(ctx, dsRefs, p.dsNames); err != nil {
		return p, err
	}
	for _, v := range vms {
		m, ok := byRef[v]
		if !ok {
			return p, fmt.Errorf("VM %s not found", v)
		}
		p.addVM(v, m)
	}
	return p, nil
}

// readPlacementVMs reads the name, host, datastores and vCPU count of the
// VMs vms (MoRef values); none when vms is empty.
func (s *Session) readPlacementVMs(ctx context.Context, vms []string) ([]mo.VirtualMachine, error) {
	if len(vms) == 0 {
		return nil, nil
	}
	refs := make([]types.ManagedObjectReference, len(vms))
	for i, v := range vms {
		refs[i] = types.ManagedObjectReference{Type: "VirtualMachine", Value: v}
	}
	var vmMOs []mo.VirtualMachine
	if err := s.Client.Retrieve(ctx, refs, []string{"name", "runtime.host", "datastore", "config.hardware.numCPU"}, &vmMOs); err != nil {
		return nil, fmt.Errorf("read VMs %s: %w", strings.Join(vms, ", "), s.cfg.redact(err))
	}
	return vmMOs, nil
}

// readPlacementHosts reads the names of p.hosts into p.hostNames and adds
// the datastores mounted on them to dsRefs.
func (s *Session) readPlacementHosts(ctx context.Context, p *placement, dsRefs map[types.ManagedObjectReference]bool) error {
	if len(p.hosts) == 0 {
		return nil
	}
	refs := make([]types.ManagedObjectReference, len(p.hosts))
	for i, h := range p.hosts {
		refs[i] = hostRef(h)
	}
	var hostMOs []mo.HostSystem
	if err := s.Client.Retrieve(ctx, refs, []string{"name", "datastore"}, &hostMOs); err != nil {
		return fmt.Errorf("read hosts %s: %w", strings.Join(p.hosts, ", "), s.cfg.redact(err))
	}
	for _, h := range hostMOs {
		p.hostNames[h.Self.Value] = h.Name
		for _, d := range h.Datastore {
			dsRefs[d] = true
		}
	}
	return nil
}

// addVM adds VM v (MoRef value), read as m, to p.vms and p.vcpus, with the
// names of its host and datastores (read already).
func (p *placement) addVM(v string, m mo.VirtualMachine) {
	vp := VMPlacement{VM: v, Name: m.Name, Datastores: []string{}}
	if h := m.Runtime.Host; h != nil {
		vp.HostRef, vp.Host = h.Value, p.hostNames[h.Value]
	}
	for _, d := range m.Datastore {
		vp.Datastores = append(vp.Datastores, p.dsNames[d.Value])
	}
	slices.Sort(vp.Datastores)
	p.vms = append(p.vms, vp)
	p.vcpus[v] = 1
	if m.Config != nil && m.Config.Hardware.NumCPU > 0 {
		p.vcpus[v] = int(m.Config.Hardware.NumCPU)
	}
}

// readDatastoreNames puts the name of each datastore in refs into names,
// under its MoRef value and under the UUID of its URL
// ("ds:///vmfs/volumes/<uuid>/").
func (s *Session) readDatastoreNames(ctx context.Context, refs map[types.ManagedObjectReference]bool, names map[string]string) error {
	if len(refs) == 0 {
		return nil
	}
	l := make([]types.ManagedObjectReference, 0, len(refs))
	for r := range refs {
		l = append(l, r)
	}
	var dss []mo.Datastore
	if err := s.Client.Retrieve(ctx, l, []string{"name", "summary.url"}, &dss); err != nil {
		return fmt.Errorf("read datastores: %w", s.cfg.redact(err))
	}
	for _, d := range dss {
		names[d.Self.Value] = d.Name
		if u, err := url.Parse(d.Summary.Url); err == nil && u.Path != "" {
			names[path.Base(u.Path)] = d.Name
		}
	}
	return nil
}

func hostRef(value string) types.ManagedObjectReference {
	return types.ManagedObjectReference{Type: "HostSystem", Value: value}
}
