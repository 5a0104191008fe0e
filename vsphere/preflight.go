package vsphere

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// PreflightReport is what Preflight found. Problems make Preflight fail;
// Warnings do not.
type PreflightReport struct {
	Template string `json:"template"`
	// IsTemplate is false when Template names an ordinary VM (cloning it
	// works, but a running VM clones an inconsistent disk).
	IsTemplate bool `json:"is_template"`
	// BootDiskGB is the template's boot disk size in GiB.
	BootDiskGB   int64            `json:"boot_disk_gb"`
	ResourcePool string           `json:"resource_pool"`
	Folder       string           `json:"folder"`
	Hosts        []HostCheck      `json:"hosts"`
	Datastores   []DatastoreCheck `json:"datastores"`
	// VCPUs is Count x NumCPU; HostCores and HostThreads sum the pool's
	// usable hosts.
	VCPUs       int64 `json:"vcpu"`
	HostCores   int64 `json:"host_cores"`
	HostThreads int64 `json:"host_threads"`
	// MemoryMB is Count x MemoryMB; HostMemoryMB sums the pool's usable
	// hosts (MiB).
	MemoryMB     int64    `json:"memory_mb"`
	HostMemoryMB int64    `json:"host_memory_mb"`
	Warnings     []string `json:"warnings"`
	Problems     []string `json:"problems"`
}

// HostCheck is one host of the resource pool's compute resource: its
// capacity and, when known, what the campaign puts on it.
type HostCheck struct {
	Name    string `json:"name"`
	Cores   int64  `json:"cores"`
	Threads int64  `json:"threads"`
	// MemoryMB is the host's memory in MiB.
	MemoryMB    int64 `json:"memory_mb"`
	Connected   bool  `json:"connected"`
	Maintenance bool  `json:"maintenance"`
	// Planned says the VMs' placement on this host is known: the spec
	// pins hosts (ProvisionSpec.Hosts) or the pool has one usable host.
	// Otherwise vSphere (DRS) chooses and the per-host figures are 0.
	Planned bool `json:"planned"`
	// VMs, VCPUs, VMMemoryMB and ReservedMB are what the campaign puts on
	// this host: VM count, vCPUs, configured and reserved memory (MiB).
	VMs        int   `json:"vms"`
	VCPUs      int64 `json:"vcpu"`
	VMMemoryMB int64 `json:"vm_memory_mb"`
	ReservedMB int64 `json:"reserved_memory_mb"`
}

// DatastoreCheck is the space arithmetic of one datastore, in GiB.
type DatastoreCheck struct {
	Name       string `json:"name"`
	Found      bool   `json:"found"`
	Type       string `json:"type,omitempty"`
	Accessible bool   `json:"accessible"`
	// Maintenance is the datastore's maintenance mode ("normal" when not).
	Maintenance string `json:"maintenance,omitempty"`
	// MountedHosts counts the pool's hosts that mount the datastore.
	MountedHosts int   `json:"mounted_hosts"`
	CapacityGB   int64 `json:"capacity_gb"`
	FreeGB       int64 `json:"free_gb"`
	// VMs placed here (round-robin).
	VMs int `json:"vms"`
	// ReservedGB is what thick and eager-zeroed disks take at creation;
	// SwapGB the swap files at power-on (memory minus reservation); ThinGB
	// what thin disks can grow to (not required, reported).
	ReservedGB int64 `json:"thick_gb"`
	SwapGB     int64 `json:"swap_gb"`
	ThinGB     int64 `json:"thin_gb"`
	// RestoreGB is, with ProvisionSpec.Restore of a thick disk, the copy
	// a restore makes beside the disk it replaces (restores on one
	// datastore run one at a time): needed until it ends.
	RestoreGB int64 `json:"restore_gb,omitempty"`
}

// NeededGB is the space that must be free: reserved disks, swap, and
// the copy of a restore.
func (d DatastoreCheck) NeededGB() int64 { return d.ReservedGB + d.SwapGB + d.RestoreGB }

// restoreWords is " + restore N" for a RestoreGB, else "".
func restoreWords(gb int64) string {
	if gb == 0 {
		return ""
	}
	return fmt.Sprintf(" + restore copy %d", gb)
}

// restoreGB is the space a restore's copy takes beside the disk it
// replaces: the disk's size when it is thick, 0 for thin or no restore.
func (p ProvisionSpec) restoreGB() int64 {
	if p.Restore == nil {
		return 0
	}
	for _, d := range p.Layout.Disks[min(1, len(p.Layout.Disks)):] {
		if d.Name == p.Restore.Disk && d.Provisioning != Thin {
			return d.SizeGB
		}
	}
	return 0
}

// OK reports whether there are no problems.
func (r PreflightReport) OK() bool { return len(r.Problems) == 0 }

// Lines renders the report, one line per fact, for printing.
func (r PreflightReport) Lines() []string {
	var out []string
	kind := "template"
	if !r.IsTemplate {
		kind = "VM (not a template)"
	}
	if r.Template != "" {
		out = append(out, fmt.Sprintf("template: %s, %s, boot disk %d GB", r.Template, kind, r.BootDiskGB))
	}
	out = append(out, fmt.Sprintf("resource pool: %s; folder: %s", orDefault(r.ResourcePool), orDefault(r.Folder)))
	for _, h := range r.Hosts {
		out = append(out, fmt.Sprintf("host %s: %d cores, %d threads, %d GB memory, connected=%t, maintenance=%t",
			h.Name, h.Cores, h.Threads, h.MemoryMB/1024, h.Connected, h.Maintenance))
	}
	if r.HostCores > 0 {
		out = append(out, fmt.Sprintf("CPU: %d vCPU on %d cores (%.2f vCPU per core, %d threads)",
			r.VCPUs, r.HostCores, float64(r.VCPUs)/float64(r.HostCores), r.HostThreads))
	}
	if r.HostMemoryMB > 0 {
		out = append(out, fmt.Sprintf("memory: %d GB configured on %d GB of host memory (%.0f%%)",
			r.MemoryMB/1024, r.HostMemoryMB/1024, 100*float64(r.MemoryMB)/float64(r.HostMemoryMB)))
	}
	for _, d := range r.Datastores {
		if !d.Found {
			out = append(out, fmt.Sprintf("datastore %s: not found", d.Name))
			continue
		}
		out = append(out, fmt.Sprintf("datastore %s (%s): %d VM(s) need %d GB (thick %d + swap %d%s) of %d GB free (capacity %d GB); thin disks up to %d GB more",
			d.Name, d.Type, d.VMs, d.NeededGB(), d.ReservedGB, d.SwapGB, restoreWords(d.RestoreGB), d.FreeGB, d.CapacityGB, d.ThinGB))
	}
	for _, w := range r.Warnings {
		out = append(out, "warning: "+w)
	}
	for _, p := range r.Problems {
		out = append(out, "problem: "+p)
	}
	return out
}

// String is Lines joined with newlines.
func (r PreflightReport) String() string { return strings.Join(r.Lines(), "\n") }

func orDefault(s string) string {
	if s == "" {
		return "(default)"
	}
	return s
}

// Preflight checks, without creating anything, that spec can be
// provisioned: the spec and layout are valid; the template exists (the
// error lists the templates that do), has a boot disk no larger than the
// layout's and room for the new SCSI controllers; the pool, folder,
// network and every datastore exist (a missing one is named with the ones
// that exist); no VM already has a planned name; each datastore is
// accessible, not in maintenance, mounted on a host of the pool, and has
// free space for its VMs' thick disks plus swap (thin disks are reported
// and warned about, not required). Host CPU and memory overcommit are
// warnings, except a VM with more vCPUs than a host has threads. It returns
// the report and, when there are problems, an error joining them (finder
// and vSphere errors stay reachable with errors.As / fault.As).
func (s *Session) Preflight(ctx context.Context, spec ProvisionSpec) (PreflightReport, error) {
	r, _, err := s.preflight(ctx, spec)
	return r, err
}

func (s *Session) preflight(ctx context.Context, spec ProvisionSpec) (PreflightReport, *plan, error) {
	spec = spec.withDefaults()
	r := PreflightReport{Template: spec.Template, ResourcePool: spec.ResourcePool, Folder: spec.Folder}
	var errs []error
	problem := func(err error) {
		errs = append(errs, err)
		r.Problems = append(r.Problems, err.Error())
	}
	warn := func(format string, args ...any) { r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...)) }
	fail := func() (PreflightReport, *plan, error) {
		return r, nil, fmt.Errorf("preflight failed, nothing was created: %w", errors.Join(errs...))
	}
	if err := spec.Validate(); err != nil {
		problem(err)
		return fail()
	}
	placement, _ := spec.Layout.Placement()
	p := &plan{spec: spec, names: spec.VMNames(), placement: placement}

	// One read of every VM's name and template flag: templates to list on a
	// miss, and planned names that already exist.
	vmNames, templates, err := s.vmNames(ctx)
	if err != nil {
		problem(fmt.Errorf("list VMs: %w", err))
		return fail()
	}
	for _, n := range p.names {
		if vmNames[n] {
			problem(fmt.Errorf("a VM named %s already exists (choose another --prefix, or remove it)", n))
		}
	}

	if tmpl, err := s.Finder.VirtualMachine(ctx, spec.Template); err != nil {
		problem(s.notFound(ctx, "template (--template)", spec.Template, err, func() ([]string, error) { return templates, nil }))
	} else {
		p.template = tmpl
		s.checkTemplate(ctx, p, &r, problem, warn)
	}
	if ctx.Err() != nil {
		return r, nil, ctx.Err()
	}

	s.checkLocation(ctx, p, &r, problem)

	hostRefs := s.checkHosts(ctx, p, &r, problem, warn)
	s.checkDatastores(ctx, p, &r, hostRefs, problem, warn)
	p.checkPinned(problem)
	if ctx.Err() != nil {
		return r, nil, ctx.Err()
	}
	if len(errs) > 0 {
		return fail()
	}
	return r, p, nil
}

// checkLocation looks up the resource pool, the folder and (when one is
// named) the network of p.spec, records them in p and r, and reports each
// one that is missing with the names that exist.
func (s *Session) checkLocation(ctx context.Context, p *plan, r *PreflightReport, problem func(error)) {
	if pool, err := s.Finder.ResourcePoolOrDefault(ctx, p.spec.ResourcePool); err != nil {
		problem(s.notFound(ctx, "resource pool (--pool / "+EnvResourcePool+")", p.spec.ResourcePool, err, s.poolPaths(ctx)))
	} else {
		p.pool = pool
		r.ResourcePool = pool.InventoryPath
	}
	if folder, err := s.Finder.FolderOrDefault(ctx, p.spec.Folder); err != nil {
		problem(s.notFound(ctx, "folder (--folder / "+EnvFolder+")", p.spec.Folder, err, func() ([]string, error) {
			l, err := s.Finder.FolderList(ctx, path.Join(s.Datacenter.InventoryPath, "vm", "*"))
			return names(l, err)
		}))
	} else {
		p.folder = folder
		r.Folder = folder.InventoryPath
	}
	if p.spec.Network != "" {
		if n, err := s.Finder.Network(ctx, p.spec.Network); err != nil {
			problem(s.notFound(ctx, "network (--net / "+EnvNetwork+")", p.spec.Network, err, func() ([]string, error) {
				l, err := s.Finder.NetworkList(ctx, "*")
				if err != nil {
					return nil, err
				}
				var out []string
				for _, n := range l {
					out = append(out, path.Base(n.GetInventoryPath()))
				}
				sort.Strings(out)
				return out, nil
			}))
		} else if b, err := n.EthernetCardBackingInfo(ctx); err != nil {
			problem(fmt.Errorf("network %s: %w", p.spec.Network, err))
		} else {
			p.nicBacking = b
		}
	}
}

// vmNames returns every VM name of the datacenter and the template names.
func (s *Session) vmNames(ctx context.Context) (map[string]bool, []string, error) {
	v, err := view.NewManager(s.Client.Client).CreateContainerView(ctx, s.Datacenter.Reference(), []string{"VirtualMachine"}, true)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = v.Destroy(context.WithoutCancel(ctx)) }()
	var all []mo.VirtualMachine
	if err := v.Retrieve(ctx, []string{"VirtualMachine"}, []string{"name", "config.template"}, &all); err != nil {
		return nil, nil, err
	}
	seen := make(map[string]bool, len(all))
	var templates []string
	for _, m := range all {
		seen[m.Name] = true
		if m.Config != nil && m.Config.Template {
			templates = append(templates, m.Name)
		}
	}
	sort.Strings(templates)
	return seen, templates, nil
}

func (s *Session) poolPaths(ctx context.Context) func() ([]string, error) {
	return func() ([]string, error) {
		var out []string
		for _, pat := range []string{"*/Resources", "*/Resources/*"} {
			l, err := s.Finder.ResourcePoolList(ctx, pat)
			if err != nil {
				continue
			}
			for _, p := range l {
				out = append(out, strings.TrimPrefix(p.InventoryPath, s.Datacenter.InventoryPath+"/host/"))
			}
		}
		sort.Strings(out)
		return out, nil
	}
}

// checkTemplate reads the template's devices: boot disk size, SCSI buses.
func (s *Session) checkTemplate(ctx context.Context, p *plan, r *PreflightReport, problem func(error), warn func(string, ...any)) {
	var m mo.VirtualMachine
	if err := s.Client.RetrieveOne(ctx, p.template.Reference(), []string{"name", "config.template", "config.hardware.device"}, &m); err != nil {
		problem(fmt.Errorf("read template %s: %w", p.spec.Template, s.cfg.redact(err)))
		return
	}
	p.templateName = m.Name
	if m.Config == nil {
		problem(fmt.Errorf("template %s has no configuration (inaccessible?)", m.Name))
		return
	}
	r.IsTemplate = m.Config.Template
	if !r.IsTemplate {
		warn("%s is a VM, not a template: it is cloned as is (power it off first so its disks are consistent)", m.Name)
	}
	devices := object.VirtualDeviceList(m.Config.Hardware.Device)
	boot := bootDisk(devices)
	if boot == nil {
		problem(fmt.Errorf("template %s has no virtual disk to serve as boot disk", m.Name))
		return
	}
	p.bootDisk = boot
	r.BootDiskGB = boot.CapacityInKB / kbPerGB
	if ctrl := devices.FindByKey(boot.ControllerKey); ctrl != nil && len(p.spec.Layout.Disks) > 1 {
		if t := devices.Type(ctrl); t != p.spec.Layout.Controller {
			warn("template %s's boot disk is on a %s controller, the %s layout's data disks on %s: make the template's %s if the review states one controller type",
				m.Name, t, p.spec.Layout.Role, p.spec.Layout.Controller, p.spec.Layout.Controller)
		}
	}
	if want := p.spec.Layout.Disks[0].SizeGB; boot.CapacityInKB > want*kbPerGB {
		problem(fmt.Errorf("template %s's boot disk is %d GB, larger than the %s layout's %d GB boot disk (vSphere cannot shrink a disk)",
			m.Name, r.BootDiskGB, p.spec.Layout.Role, want))
	}
	if have, add := len(scsiControllers(devices)), p.spec.Layout.NewControllers(); have+add > MaxSCSIControllers {
		problem(fmt.Errorf("template %s has %d SCSI controllers and the %s layout adds %d: a VM has at most %d",
			m.Name, have, p.spec.Layout.Role, add, MaxSCSIControllers))
	}
}

// checkHosts reads the hosts of the pool's compute resource and reports CPU
// and memory overcommit. It returns the host references.
func (s *Session) checkHosts(ctx context.Context, p *plan, r *PreflightReport, problem func(error), warn func(string, ...any)) []types.ManagedObjectReference {
	if p.pool == nil {
		return nil
	}
	l := p.spec.Layout
	r.VCPUs = int64(p.spec.Count) * int64(l.NumCPU)
	r.MemoryMB = int64(p.spec.Count) * l.MemoryMB
	owner, err := p.pool.Owner(ctx)
	if err != nil {
		problem(fmt.Errorf("resource pool %s: read its compute resource: %w", r.ResourcePool, err))
		return nil
	}
	var cr mo.ComputeResource
	if err := s.Client.RetrieveOne(ctx, owner.Reference(), []string{"host"}, &cr); err != nil {
		problem(fmt.Errorf("resource pool %s: read its hosts: %w", r.ResourcePool, err))
		return nil
	}
	if len(cr.Host) == 0 {
		problem(fmt.Errorf("resource pool %s has no hosts", r.ResourcePool))
		return nil
	}
	var hosts []mo.HostSystem
	if err := s.Client.Retrieve(ctx, cr.Host, []string{"name", "summary.hardware", "summary.runtime"}, &hosts); err != nil {
		problem(fmt.Errorf("resource pool %s: read host hardware: %w", r.ResourcePool, err))
		return nil
	}
	var maxThreads int64
	usable := 0
	for _, h := range hosts {
		hc := HostCheck{Name: h.Name}
		if hw := h.Summary.Hardware; hw != nil {
			hc.Cores, hc.Threads, hc.MemoryMB = int64(hw.NumCpuCores), int64(hw.NumCpuThreads), hw.MemorySize>>20
		}
		if rt := h.Summary.Runtime; rt != nil {
			hc.Connected = rt.ConnectionState == types.HostSystemConnectionStateConnected
			hc.Maintenance = rt.InMaintenanceMode
		}
		if !hc.Connected || hc.Maintenance {
			warn("host %s is not usable (connected=%t, maintenance=%t)", hc.Name, hc.Connected, hc.Maintenance)
		} else {
			usable++
			r.HostCores += hc.Cores
			r.HostThreads += hc.Threads
			r.HostMemoryMB += hc.MemoryMB
			maxThreads = max(maxThreads, hc.Threads)
		}
		r.Hosts = append(r.Hosts, hc)
	}
	if usable == 0 {
		problem(fmt.Errorf("resource pool %s has no connected host out of maintenance mode", r.ResourcePool))
		return cr.Host
	}
	s.pinHosts(p, r, hosts, problem)
	planHosts(p, r, usable, problem, warn)
	if int64(l.NumCPU) > maxThreads {
		problem(fmt.Errorf("a %s VM has %d vCPU but the largest host has %d hardware threads: it cannot power on", l.Role, l.NumCPU, maxThreads))
	}
	if r.VCPUs > r.HostCores {
		warn("CPU overcommit: %d vCPU on %d physical cores (%.2f:1)",
			r.VCPUs, r.HostCores, float64(r.VCPUs)/float64(r.HostCores))
	}
	if r.MemoryMB > r.HostMemoryMB {
		warn("memory overcommit: %d GB of VM memory on %d GB of host memory; VMs will balloon or swap",
			r.MemoryMB/1024, r.HostMemoryMB/1024)
	}
	return cr.Host
}

// judgeDatastore reports what is wrong with the datastore dc, found and
// read, in resource pool pool of nHosts hosts: not accessible, in
// maintenance, not mounted on all the hosts, short of space, or to be
// more than 90% full.
func judgeDatastore(dc DatastoreCheck, nHosts int, pool string, problem func(error), warn func(string, ...any)) {
	name := dc.Name
	switch {
	case !dc.Accessible:
		problem(fmt.Errorf("datastore %s is not accessible", name))
	case dc.Maintenance != "" && dc.Maintenance != string(types.DatastoreSummaryMaintenanceModeStateNormal):
		problem(fmt.Errorf("datastore %s is in maintenance mode (%s)", name, dc.Maintenance))
	}
	if nHosts > 0 && dc.MountedHosts == 0 {
		problem(fmt.Errorf("datastore %s is not mounted on any host of resource pool %s", name, pool))
	} else if nHosts > 0 && dc.MountedHosts < nHosts {
		warn("datastore %s is mounted on %d of the pool's %d hosts; VMs must stay on those", name, dc.MountedHosts, nHosts)
	}
	if dc.NeededGB() > dc.FreeGB {
		problem(fmt.Errorf("datastore %s has %d GB free but its %d VMs need %d GB (thick disks %d GB + swap %d GB%s)",
			name, dc.FreeGB, dc.VMs, dc.NeededGB(), dc.ReservedGB, dc.SwapGB, restoreWords(dc.RestoreGB)))
	} else if dc.NeededGB()+dc.ThinGB > dc.FreeGB {
		warn("datastore %s: thin disks (%d GB) can outgrow the free space left after thick disks and swap (%d GB)",
			name, dc.ThinGB, dc.FreeGB-dc.NeededGB())
	}
	if dc.CapacityGB > 0 && 10*(dc.CapacityGB-dc.FreeGB+dc.NeededGB()) > 9*dc.CapacityGB && dc.NeededGB() <= dc.FreeGB {
		warn("datastore %s will be more than 90%% full", name)
	}
}

// checkDatastores resolves the datastores and does the space arithmetic.
func (s *Session) checkDatastores(ctx context.Context, p *plan, r *PreflightReport, hosts []types.ManagedObjectReference, problem func(error), warn func(string, ...any)) {
	spec := p.spec
	reserved, thin := spec.Layout.DiskGB()
	swap := spec.Layout.SwapGB()
	p.datastores = make([]*object.Datastore, len(spec.Datastores))
	p.dsSlots = make([]chan struct{}, len(spec.Datastores))
	p.dsMounts = make([]map[types.ManagedObjectReference]bool, len(spec.Datastores))
	for i := range p.dsSlots {
		p.dsSlots[i] = make(chan struct{}, 1)
	}
	var missing []string
	for i, name := range spec.Datastores {
		dc := DatastoreCheck{Name: name}
		for k := i; k < spec.Count; k += len(spec.Datastores) {
			dc.VMs++
		}
		dc.ReservedGB, dc.ThinGB, dc.SwapGB = int64(dc.VMs)*reserved, int64(dc.VMs)*thin, int64(dc.VMs)*swap
		if dc.VMs > 0 {
			dc.RestoreGB = spec.restoreGB()
		}
		ds, err := s.Finder.Datastore(ctx, name)
		if err != nil {
			missing = append(missing, name)
			r.Datastores = append(r.Datastores, dc)
			continue
		}
		dc.Found = true
		p.datastores[i] = ds
		p.dsMounts[i] = map[types.ManagedObjectReference]bool{}
		var m mo.Datastore
		if err := s.Client.RetrieveOne(ctx, ds.Reference(), []string{"summary", "host"}, &m); err != nil {
			problem(fmt.Errorf("datastore %s: %w", name, s.cfg.redact(err)))
			r.Datastores = append(r.Datastores, dc)
			continue
		}
		sum := m.Summary
		dc.Type, dc.Accessible, dc.Maintenance = sum.Type, sum.Accessible, sum.MaintenanceMode
		dc.CapacityGB, dc.FreeGB = sum.Capacity/bytesPerGB, sum.FreeSpace/bytesPerGB
		for _, mnt := range m.Host {
			if mnt.MountInfo.Accessible != nil && !*mnt.MountInfo.Accessible {
				continue
			}
			p.dsMounts[i][mnt.Key] = true
			if slices.Contains(hosts, mnt.Key) {
				dc.MountedHosts++
			}
		}
		r.Datastores = append(r.Datastores, dc)
		judgeDatastore(dc, len(hosts), r.ResourcePool, problem, warn)
	}
	if len(missing) > 0 {
		all, _ := names(s.Finder.DatastoreList(ctx, "*"))
		problem(fmt.Errorf("datastore(s) %s not found (--ds / %s); available: %s",
			strings.Join(missing, ", "), EnvDatastore, listOrNone(all)))
	}
	if n := len(spec.Datastores); n > 0 && spec.Count%n != 0 {
		warn("%d VMs do not divide evenly over %d datastores: some datastores get one more VM", spec.Count, n)
	}
}
