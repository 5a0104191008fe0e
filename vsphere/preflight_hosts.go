package vsphere

import (
	"fmt"
	"strings"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/mo"
)

// This file is the per-host part of Preflight: the hosts a spec pins its
// VMs to, what each host gets, and whether each VM's host sees its
// datastore.

// pinHosts resolves p.spec.Hosts among hosts (the pool's), by name, into
// p.hosts and p.hostNames. A name that is not one of the pool's hosts, or
// a host that is not usable, is a problem naming the pool's hosts.
func (s *Session) pinHosts(p *plan, r *PreflightReport, hosts []mo.HostSystem, problem func(error)) {
	if len(p.spec.Hosts) == 0 {
		return
	}
	var all []string
	byName := map[string]mo.HostSystem{}
	for _, h := range hosts {
		all = append(all, h.Name)
		byName[h.Name] = h
	}
	for _, name := range p.spec.Hosts {
		h, ok := byName[name]
		if !ok {
			problem(fmt.Errorf("host %q (vms.hosts / --host) is not a host of resource pool %s; its hosts: %s",
				name, r.ResourcePool, strings.Join(all, ", ")))
			continue
		}
		if rt := h.Summary.Runtime; rt == nil || rt.InMaintenanceMode || rt.ConnectionState != "connected" {
			problem(fmt.Errorf("host %s (vms.hosts / --host) is disconnected or in maintenance mode", name))
			continue
		}
		p.hosts = append(p.hosts, object.NewHostSystem(s.Client.Client, h.Reference()))
		p.hostNames = append(p.hostNames, name)
	}
	if len(p.hosts) != len(p.spec.Hosts) {
		p.hosts, p.hostNames = nil, nil // a problem was reported: nothing is placed
	}
}

// planHosts fills each usable host's planned VMs, vCPUs and memory in r
// when the placement is known (pinned hosts, or one usable host), and
// reports per-host overcommit: vCPUs above the host's threads and memory
// above its size are warnings; reservations above its memory are a
// problem, as admission control would refuse to power the VMs on.
func planHosts(p *plan, r *PreflightReport, usable int, problem func(error), warn func(string, ...any)) {
	l := p.spec.Layout
	idx := map[string]int{}
	for i, h := range r.Hosts {
		idx[h.Name] = i
	}
	var on func(vm int) string
	switch {
	case len(p.hostNames) > 0:
		on = func(vm int) string { return p.hostNames[vm%len(p.hostNames)] }
	case usable == 1 && len(p.spec.Hosts) == 0:
		for _, h := range r.Hosts {
			if h.Connected && !h.Maintenance {
				name := h.Name
				on = func(int) string { return name }
			}
		}
	default: // vSphere chooses: each host admits whole reservations only
		checkAdmission(p, r, problem)
		return
	}
	for i := range r.Hosts {
		r.Hosts[i].Planned = r.Hosts[i].Connected && !r.Hosts[i].Maintenance
	}
	for vm := range p.spec.Count {
		h := &r.Hosts[idx[on(vm)]]
		h.VMs++
		h.VCPUs += int64(l.NumCPU)
		h.VMMemoryMB += l.MemoryMB
		h.ReservedMB += l.MemoryReservationMB()
	}
	checkHostLoads(r, problem, warn)
}

// checkAdmission reports, when vSphere places the VMs, that the usable
// hosts of r cannot admit them all: each host admits as many VMs as whole
// memory reservations fit in its memory.
func checkAdmission(p *plan, r *PreflightReport, problem func(error)) {
	res := p.spec.Layout.MemoryReservationMB()
	if res <= 0 {
		return
	}
	admit := 0
	for _, h := range r.Hosts {
		if h.Connected && !h.Maintenance {
			admit += int(h.MemoryMB / res)
		}
	}
	if admit < p.spec.Count {
		problem(fmt.Errorf("the pool's hosts admit at most %d of the %d VMs that each reserve %d GB of memory (admission control powers on a VM only where its whole reservation fits)",
			admit, p.spec.Count, res/1024))
	}
}

// checkHostLoads reports the per-host overcommit of r's planned hosts:
// reservations above a host's memory are a problem; vCPUs above its
// threads and VM memory above its memory are warnings (when the pool has
// more than one host).
func checkHostLoads(r *PreflightReport, problem func(error), warn func(string, ...any)) {
	for _, h := range r.Hosts {
		if !h.Planned || h.VMs == 0 {
			continue
		}
		if h.ReservedMB > h.MemoryMB {
			problem(fmt.Errorf("host %s: its %d VMs reserve %d GB of memory but it has %d GB: admission control will refuse to power them on",
				h.Name, h.VMs, h.ReservedMB/1024, h.MemoryMB/1024))
		}
		if h.VCPUs > h.Threads && len(r.Hosts) > 1 {
			warn("host %s: %d vCPU on %d hardware threads (%.2f:1)", h.Name, h.VCPUs, h.Threads, float64(h.VCPUs)/float64(h.Threads))
		}
		if h.VMMemoryMB > h.MemoryMB && len(r.Hosts) > 1 {
			warn("host %s: %d GB of VM memory on %d GB", h.Name, h.VMMemoryMB/1024, h.MemoryMB/1024)
		}
	}
}

// checkPinned reports every VM whose pinned host does not mount its
// datastore (vSphere would refuse the clone; vcsim crashes on it).
func (p *plan) checkPinned(problem func(error)) {
	if len(p.hosts) == 0 || len(p.dsMounts) == 0 {
		return
	}
	for vm := range p.spec.Count {
		d := vm % len(p.spec.Datastores)
		h := vm % len(p.hosts)
		if p.dsMounts[d] == nil { // not found: reported already
			continue
		}
		if !p.dsMounts[d][p.hosts[h].Reference()] {
			problem(fmt.Errorf("VM %s: host %s does not mount its datastore %s", p.names[vm], p.hostNames[h], p.spec.Datastores[d]))
		}
	}
}
