package scenarios

import (
	"os"

	"vmbench/scenarios/spec"
	"vmbench/vsphere"
)

// This file is where the campaign file's values (package spec, which
// imports no vSphere) become vSphere's layouts.

// applyVMs returns l with the vms: block's layout options (memory
// reservation, latency sensitivity, cores per socket) applied; l's
// Validate then checks them.
func applyVMs(l vsphere.Layout, v spec.VMs) vsphere.Layout {
	if v.MemoryReservation == spec.ReserveFull {
		l.ReserveMemory = true
	}
	if v.LatencySensitivity != "" {
		l.LatencySensitivity = string(v.LatencySensitivity)
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

// checkTargetsDir is where a simulated suite in VMs is checked (free
// space for its files): the system's temporary directory, which holds
// the simulated guests. Nothing is created there by the check. (The
// review places a suite's profiles there too when it renders them.)
func checkTargetsDir() string { return os.TempDir() }
