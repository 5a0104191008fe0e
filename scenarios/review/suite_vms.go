package review

import (
	"fmt"

	"vmbench/scenarios/spec"
)

// The block-worker layout's values a suite's vms: block leaves to it
// (vsphere.BlockWorkerLayout's defaults and its data disks'
// provisioning), for DescribeSuiteVMs: the review imports no vSphere,
// and the campaign engine's tests pin these to vSphere's.
const (
	blockWorkerVCPUs        = 4
	blockWorkerMemoryGB     = 8
	blockWorkerDiskSizeGB   = 100
	blockWorkerProvisioning = "eagerZeroedThick"
)

// DescribeSuiteVMs is a block suite's VMs (its vms: block, s.InVMs) in a
// line, as vSphere's block-worker layout makes them: "4 block-worker VMs
// (4 vCPU, 8 GB RAM), 2 data vDisk(s) of 100 GiB each
// (eagerZeroedThick)"; just the count and role ("4 block-worker VMs")
// for sizes the layout refuses (negative, or more data disks than
// spec.MaxDataDisks), which a validated suite does not have.
func DescribeSuiteVMs(s *spec.Suite) string {
	v := s.VMs
	if v.VCPUs < 0 || v.MemoryGB < 0 || v.DiskSizeGB < 0 || v.DataDisks < 0 || v.DataDisks > spec.MaxDataDisks {
		return fmt.Sprintf("%d %s VMs", v.Count, spec.BlockWorkerRole)
	}
	vcpus, memGB, sizeGB := v.VCPUs, v.MemoryGB, v.DiskSizeGB
	if vcpus == 0 {
		vcpus = blockWorkerVCPUs
	}
	if memGB == 0 {
		memGB = blockWorkerMemoryGB
	}
	if sizeGB == 0 {
		sizeGB = blockWorkerDiskSizeGB
	}
	return fmt.Sprintf("%d %s VMs (%d vCPU, %d GB RAM), %d data vDisk(s) of %d GiB each (%s)", v.Count, spec.BlockWorkerRole,
		vcpus, memGB, s.DataDisks(), sizeGB, blockWorkerProvisioning)
}
