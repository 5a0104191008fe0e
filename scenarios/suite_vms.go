package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"vmbench/vsphere"
)

// BlockWorkerRole is the vSphere layout of a block suite's VMs
// (vsphere.BlockWorkerLayout, shaped by the suite's vms: block).
const BlockWorkerRole = vsphere.RoleBlockWorker

// Bounds of a suite's vms: block.
const (
	// MaxDataDisks bounds vms.data-disks: the three SCSI controllers a
	// template leaves take 15 disks each.
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

// layout is the block-worker layout the vms: block asks for.
func (s *Suite) layout() (vsphere.Layout, error) {
	v := s.VMs
	size := v.DiskSizeGB
	if size == 0 {
		size = vsphere.DefaultBlockWorkerDiskSizeGB
	}
	return vsphere.BlockWorkerLayout(vsphere.BlockWorker{NumCPU: int32(v.VCPUs), MemoryMB: int64(v.MemoryGB) * 1024,
		DataDisks: v.DataDisks, DiskSizeGB: size})
}

// dataDisks is the number of data vDisks each VM has.
func (s *Suite) dataDisks() int {
	if l, err := s.layout(); err == nil {
		return len(l.Disks) - 1
	}
	return max(1, s.VMs.DataDisks)
}

// validateVMs checks the vms:, guest: and vsphere: blocks of a suite in
// VMs, through the checks a VM campaign's file gets.
func (s *Suite) validateVMs() []error {
	var errs []error
	bad := func(path, key, format string, args ...any) {
		errs = append(errs, s.errorf(path, key, format, args...))
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
	if len(errs) == 0 {
		if _, err := s.layout(); err != nil {
			bad("vms", "vms", "%v", err)
		}
	}
	spec := s.campaignSpec()
	return append(errs, spec.validateVMs(), spec.validateGuest())
}

// campaignSpec is the VM campaign a suite in VMs provisions and drives:
// its VMs, placement and guests, the block-worker role, the agent in
// every guest (driver: guest), and the suite's tool with its first
// profile as the workload. Errors about it name the suite's file and
// lines: the keys are the same.
func (s *Suite) campaignSpec() *Spec {
	sp := &Spec{Name: s.Name, Description: s.Description, Source: s.Source, VSphere: s.VSphere, Guest: s.Guest,
		Driver: DriverGuest, src: s.src}
	if v := s.VMs; v != nil {
		sp.VMs = VMSpec{Role: BlockWorkerRole, Count: v.Count, Template: v.Template, Datastores: v.Datastores,
			Parallel: v.Parallel, IPTimeout: v.IPTimeout}
	}
	sp.Workload = WorkloadSpec{Tool: suiteTool}
	if len(s.Profiles) > 0 {
		sp.Workload.Name = s.Profiles[0]
	}
	if sim := s.Simulate; sim != nil && (sim.Hosts > 0 || sim.Datastores > 0) {
		sp.Simulate = &SimSpec{Hosts: sim.Hosts, Datastores: sim.Datastores, Driver: DriverGuest}
	}
	return sp
}

// CampaignSpec is the VM campaign a suite in VMs runs as (its vms:,
// vsphere: and guest: blocks), for the vSphere and guest options of
// `campaign run`; nil for a suite on this host's targets.
func (s *Suite) CampaignSpec() *Spec {
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
	for i := range s.dataDisks() {
		if s.SimulatedTargets {
			t = append(t, filepath.Join(dir, "data"+strconv.Itoa(i+1)+".img"))
		} else {
			t = append(t, "scsi-disk-"+strconv.Itoa(i+1))
		}
	}
	return t
}

// forVM is the suite as one VM runs it: its targets those of vmTargets.
func (s *Suite) forVM(dir string) *Suite {
	c := *s
	c.Targets = s.vmTargets(dir)
	return &c
}

// checkTargetsDir is where a simulated suite in VMs is checked (free
// space for its files): the system's temporary directory, which holds
// the simulated guests. Nothing is created there by the check.
func checkTargetsDir() string { return os.TempDir() }

// describeVMs is the suite's VMs in a line: "4 block-worker VMs, 2 data
// vDisks of 100 GiB each".
func (s *Suite) describeVMs() string {
	l, err := s.layout()
	if err != nil {
		return fmt.Sprintf("%d %s VMs", s.VMs.Count, BlockWorkerRole)
	}
	d := l.Disks[1:]
	return fmt.Sprintf("%d %s VMs (%d vCPU, %d GB RAM), %d data vDisk(s) of %d GiB each (%s)", s.VMs.Count, BlockWorkerRole,
		l.NumCPU, l.MemoryMB/1024, len(d), d[0].SizeGB, d[0].Provisioning)
}
