package spec

import (
	"strings"
	"testing"
)

var vmSuiteFile = fixture("vm-suite.yaml")

// TestVMSuiteFile: a suite with vms: runs in block-worker VMs; its
// errors name the file, the line and what would be valid, and the VM
// campaign it provisions is the file's.
func TestVMSuiteFile(t *testing.T) {
	s, err := ParseSuite("s.yaml", []byte(vmSuiteFile))
	if err != nil {
		t.Fatal(err)
	}
	sp := s.Campaign()
	if !s.InVMs() || sp.VMs.Role != BlockWorkerRole || sp.VMs.Count != 2 || sp.Driver != DriverGuest ||
		sp.Workload.Tool != SuiteTool || sp.Guest.User != "vmbench" || sp.Simulate.Datastores != 2 {
		t.Errorf("campaign spec %+v", sp)
	}
	if got := s.ForVM("/g").Targets; len(got) != 2 || !strings.HasPrefix(got[0], "scsi-disk-") {
		t.Errorf("real VM targets %q, want 2 placeholders (the agent finds the disks)", got)
	}
	sim := s.Simulated("")
	if got := sim.ForVM("/g").Targets; len(got) != 2 || got[1] != "/g/data2.img" {
		t.Errorf("simulated VM targets %q, want /g/data1.img, /g/data2.img", got)
	}
	for _, tc := range []struct{ name, edit, want string }{
		{"targets too", strings.Replace(vmSuiteFile, "profiles:", "targets: [/dev/sdb]\nprofiles:", 1),
			"s.yaml:12: targets: a suite in VMs (vms:) runs on each VM's data vDisks"},
		{"simulate.targets", strings.Replace(vmSuiteFile, "  size: 16m", "  targets: 2\n  size: 16m", 1),
			"s.yaml:15: simulate.targets: a suite in VMs simulates vms.data-disks files per VM"},
		{"data disks", strings.Replace(vmSuiteFile, "data-disks: 2", "data-disks: 46", 1), "s.yaml:7: vms.data-disks: 46 is not valid (0 for the layout's, up to 45"},
		{"disk size", strings.Replace(vmSuiteFile, "disk-size-gb: 50", "disk-size-gb: -1", 1), "s.yaml:8: vms.disk-size-gb: -1 is not valid"},
		{"count", strings.Replace(vmSuiteFile, "count: 2", "count: 0", 1), "s.yaml:4: vms.count: 0 is not valid (1..256"},
		{"guest port", strings.Replace(vmSuiteFile, "  user: vmbench", "  user: vmbench\n  port: 70000", 1), "s.yaml:11: guest.port: 70000 is not a port"},
		{"vms key", strings.Replace(vmSuiteFile, "data-disks: 2", "disks: 2", 1), `unknown key "disks" in vms`},
	} {
		_, err := ParseSuite("s.yaml", []byte(tc.edit))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %q", tc.name, err, tc.want)
		}
	}
}
