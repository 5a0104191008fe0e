package spec

import (
	"path/filepath"
	"strconv"
)

// BlockWorkerRole is the vSphere layout of a block suite's VMs
// (vsphere.BlockWorkerLayout, shaped by the suite's vms: block; a test
// of the campaign engine pins it to vsphere.RoleBlockWorker).
const BlockWorkerRole = "block-worker"

// DefaultDataDisks is vms.data-disks' default, the block-worker layout's
// (pinned to vsphere.DefaultBlockWorkerDataDisks by the same test).
const DefaultDataDisks = 1

// Bounds of a suite's vms: block.
const (
	// MaxDataDisks bounds vms.data-disks: the three SCSI controllers a
	// template leaves take 15 disks each (vsphere.MaxBlockWorkerDataDisks,
	// pinned by the same test).
	MaxDataDisks = 45
	// MaxDiskSizeGB bounds vms.disk-size-gb (62 TiB, vSphere's largest
	// vDisk).
	MaxDiskSizeGB = 62 * 1024
)

// SuiteVMs is a block suite's vms: block: the suite runs inside Count
// block-worker VMs at once, each against its own data vDisks, as
// HCIBench runs vdbench in its worker VMs. Every profile's curve runs in
// every VM from a common start; each curve point is merged across the
// VMs exactly (IOPS and MB/s summed, latency from the merged
// histograms), with each VM's range beside it.
//
//	vms:
//	  count: 4
//	  template: block-worker-template   # a Linux template with VMware Tools and SSH
//	  datastores: [nvme0, nvme1, nvme2, nvme3]
//	  vcpus: 4
//	  memory-gb: 8
//	  data-disks: 2       # per VM, on the VM's datastore, eager-zeroed thick
//	  disk-size-gb: 100   # each; the profiles use the first 25% of each
type SuiteVMs struct {
	Count      int      `yaml:"count"`
	Template   string   `yaml:"template,omitempty"`
	Datastores []string `yaml:"datastores,omitempty"`
	Parallel   int      `yaml:"parallel,omitempty"`
	IPTimeout  Duration `yaml:"ip-timeout,omitempty"`
	// VCPUs and MemoryGB shape each VM (0: the block-worker layout's).
	VCPUs    int `yaml:"vcpus,omitempty"`
	MemoryGB int `yaml:"memory-gb,omitempty"`
	// DataDisks is the number of data vDisks per VM (0: the layout's);
	// DiskSizeGB is each one's size in GiB (0: the layout's).
	DataDisks  int   `yaml:"data-disks,omitempty"`
	DiskSizeGB int64 `yaml:"disk-size-gb,omitempty"`
}

// inVMs says the suite runs inside VMs (a vms: block).
func (s *Suite) inVMs() bool { return s.VMs != nil }

// InVMs says the suite runs inside VMs (a vms: block): it provisions
// them, so `campaign run` takes the VM campaign's vSphere flags for it.
func (s *Suite) InVMs() bool { return s.inVMs() }

// DataDisks is the number of data vDisks each VM has: vms.data-disks,
// or DefaultDataDisks.
func (s *Suite) DataDisks() int {
	if n := s.VMs.DataDisks; n > 0 {
		return n
	}
	return DefaultDataDisks
}

// validateVMs checks the vms:, guest: and vsphere: blocks of a suite in
// VMs, through the checks a VM campaign's file gets.
func (s *Suite) validateVMs() []error {
	var errs []error
	bad := func(path, key, format string, args ...any) {
		errs = append(errs, s.Errorf(path, key, format, args...))
	}
	if len(s.Targets) > 0 {
		bad("targets", "targets", "a suite in VMs (vms:) runs on each VM's data vDisks; leave targets: out, or vms: out to run on this host's targets")
	}
	if sim := s.Simulate; sim != nil && sim.Targets != 0 {
		bad("simulate.targets", "simulate.targets", "a suite in VMs simulates vms.data-disks files per VM; leave simulate.targets out")
	}
	v := s.VMs
	if v.VCPUs < 0 || v.VCPUs > 768 {
		bad("vms.vcpus", "vms.vcpus", "%d is not valid (0 for the layout's, up to 768)", v.VCPUs)
	}
	if v.MemoryGB < 0 || v.MemoryGB > 24*1024 {
		bad("vms.memory-gb", "vms.memory-gb", "%d is not valid (0 for the layout's, up to 24576)", v.MemoryGB)
	}
	if v.DataDisks < 0 || v.DataDisks > MaxDataDisks {
		bad("vms.data-disks", "vms.data-disks", "%d is not valid (0 for the layout's, up to %d: 3 added SCSI controllers of 15)", v.DataDisks, MaxDataDisks)
	}
	if v.DiskSizeGB < 0 || v.DiskSizeGB > MaxDiskSizeGB {
		bad("vms.disk-size-gb", "vms.disk-size-gb", "%d is not valid (0 for the layout's, up to %d GiB)", v.DiskSizeGB, MaxDiskSizeGB)
	}
	spec := s.campaignSpec()
	return append(errs, spec.validateVMs(), spec.validateGuest())
}

// campaignSpec is the VM campaign a suite in VMs provisions and drives:
// its VMs, placement and guests, the block-worker role, the agent in
// every guest (driver: guest), and the suite's tool with its first
// profile as the workload. Errors about it name the suite's file and
// lines: the keys are the same.
func (s *Suite) campaignSpec() *Campaign {
	sp := &Campaign{Name: s.Name, Description: s.Description, Source: s.Source, VSphere: s.VSphere, Guest: s.Guest,
		Driver: DriverGuest, Origin: s.Origin}
	if v := s.VMs; v != nil {
		sp.VMs = VMs{Role: BlockWorkerRole, Count: v.Count, Template: v.Template, Datastores: v.Datastores,
			Parallel: v.Parallel, IPTimeout: v.IPTimeout}
	}
	sp.Workload = Workload{Tool: SuiteTool}
	if len(s.Profiles) > 0 {
		sp.Workload.Name = s.Profiles[0]
	}
	if sim := s.Simulate; sim != nil && (sim.Hosts > 0 || sim.Datastores > 0) {
		sp.Simulate = &Sim{Hosts: sim.Hosts, Datastores: sim.Datastores, Driver: DriverGuest}
	}
	return sp
}

// Campaign is the VM campaign a suite in VMs runs as (its vms:,
// vsphere: and guest: blocks), for the vSphere and guest options of
// `campaign run`; nil for a suite on this host's targets.
func (s *Suite) Campaign() *Campaign {
	if !s.inVMs() {
		return nil
	}
	return s.campaignSpec()
}

// vmTargets names the data disks of one VM as the profiles' Configs see
// them: in simulation files in the VM's simulated guest directory dir
// (data1.img, ...), which the agent's prepare creates; in a real guest
// placeholders, since the agent finds each disk by its SCSI address and
// UUID (agent.Disk) and passes the devices it found.
func (s *Suite) vmTargets(dir string) []string {
	var t []string
	for i := range s.DataDisks() {
		if s.SimulatedTargets {
			t = append(t, filepath.Join(dir, "data"+strconv.Itoa(i+1)+".img"))
		} else {
			t = append(t, "scsi-disk-"+strconv.Itoa(i+1))
		}
	}
	return t
}

// ForVM is the suite as one VM runs it (dir: the guest directory of a
// simulated VM): its targets those of vmTargets.
func (s *Suite) ForVM(dir string) *Suite {
	c := *s
	c.Targets = s.vmTargets(dir)
	return &c
}
