package scenarios

import (
	"fmt"
	"os"

	"vmbench/scenarios/spec"
	"vmbench/vsphere"
)

// This file is where the campaign file's values (package spec, which
// imports no vSphere) become vSphere's: layouts and their descriptions.

// applyVMs returns l with the vms: block's layout options (memory
// reservation, latency sensitivity, cores per socket) applied; l's
// Validate then checks them.
func applyVMs(l vsphere.Layout, v spec.VMs) vsphere.Layout {
	if v.MemoryReservation == spec.ReserveFull {
		l.ReserveMemory = true
	}
	if v.LatencySensitivity != "" {
		l.LatencySensitivity = v.LatencySensitivity
	}
	if v.CoresPerSocket != 0 {
		l.CoresPerSocket = v.CoresPerSocket
	}
	return l
}

// suiteLayout is the block-worker layout a suite's vms: block asks for.
func suiteLayout(s *spec.Suite) (vsphere.Layout, error) {
	v := s.VMs
	size := v.DiskSizeGB
	if size == 0 {
		size = vsphere.DefaultBlockWorkerDiskSizeGB
	}
	return vsphere.BlockWorkerLayout(vsphere.BlockWorker{NumCPU: int32(v.VCPUs), MemoryMB: int64(v.MemoryGB) * 1024,
		DataDisks: v.DataDisks, DiskSizeGB: size})
}

// describeSuiteVMs is a suite's VMs in a line: "4 block-worker VMs, 2
// data vDisks of 100 GiB each".
func describeSuiteVMs(s *spec.Suite) string {
	l, err := suiteLayout(s)
	if err != nil {
		return fmt.Sprintf("%d %s VMs", s.VMs.Count, spec.BlockWorkerRole)
	}
	d := l.Disks[1:]
	return fmt.Sprintf("%d %s VMs (%d vCPU, %d GB RAM), %d data vDisk(s) of %d GiB each (%s)", s.VMs.Count, spec.BlockWorkerRole,
		l.NumCPU, l.MemoryMB/1024, len(d), d[0].SizeGB, d[0].Provisioning)
}

// checkTargetsDir is where a simulated suite in VMs is checked (free
// space for its files): the system's temporary directory, which holds
// the simulated guests. Nothing is created there by the check.
func checkTargetsDir() string { return os.TempDir() }
