package review

import (
	"fmt"
	"sort"
	"strings"

	"vmbench/scenarios/rundir"
)

// layoutWords describes the VMs as vSphere reported them once provisioned
// (run.json's VMs): their configurations and vDisks (one phrase per
// distinct one, with its count) and how many ran on each host, e.g.
// "8 x 16 vCPU (16 cores per socket), 60 GB RAM, no reservation, latency
// normal; vDisks boot 92 GB thin (pvscsi) + db-prebuilt 447 GB thick
// (lsilogic-sas) + ...; hosts: esx01 8". It is "" without records.
func layoutWords(vms []rundir.VMRecord) string {
	if len(vms) == 0 {
		return ""
	}
	configs := map[string]int{}
	var order []string
	hosts := map[string]int{}
	for _, vm := range vms {
		w := configWords(vm.Config) + "; vDisks " + readDiskWords(vm.Disks)
		if configs[w] == 0 {
			order = append(order, w)
		}
		configs[w]++
		if vm.Host != "" {
			hosts[vm.Host]++
		}
	}
	parts := make([]string, 0, len(order)+1)
	for _, w := range order {
		parts = append(parts, fmt.Sprintf("%d x %s", configs[w], w))
	}
	if len(hosts) > 0 {
		names := make([]string, 0, len(hosts))
		for h := range hosts {
			names = append(names, h)
		}
		sort.Strings(names)
		for i, h := range names {
			names[i] = fmt.Sprintf("%s %d", h, hosts[h])
		}
		parts = append(parts, "VMs per host: "+strings.Join(names, ", "))
	}
	return strings.Join(parts, "; ")
}

// configWords is a VM's CPU, memory and latency configuration.
func configWords(c rundir.VMConfig) string {
	res := "no memory reservation"
	if c.MemoryReservationMB > 0 {
		res = fmt.Sprintf("%d GB reserved", c.MemoryReservationMB/1024)
	}
	return fmt.Sprintf("%d vCPU (%d cores per socket), %d GB RAM, %s, latency sensitivity %s",
		c.NumCPU, c.CoresPerSocket, c.MemoryMB/1024, res, c.LatencySensitivity)
}

// readDiskWords lists vDisks as read back: "boot 92 GB thin (pvscsi) + ...".
func readDiskWords(disks []rundir.Disk) string {
	out := make([]string, len(disks))
	for i, d := range disks {
		out[i] = fmt.Sprintf("%s %d GB %s (%s)", d.Name, d.CapacityBytes>>30, d.Provisioning, d.Controller)
	}
	return strings.Join(out, " + ")
}
