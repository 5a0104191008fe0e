package review

import (
	"testing"

	"vmbench/scenarios/rundir"
)

func TestLayoutWords(t *testing.T) {
	cfg := rundir.VMConfig{NumCPU: 16, CoresPerSocket: 8, MemoryMB: 65536, MemoryReservationMB: 65536, LatencySensitivity: "high"}
	disks := []rundir.Disk{{Name: "boot", CapacityBytes: 100 << 30, Provisioning: "thin", Controller: "pvscsi"},
		{Name: "data-log", CapacityBytes: 500 << 30, Provisioning: "eagerZeroedThick", Controller: "lsilogic-sas"}}
	vms := []rundir.VMRecord{{Name: "a", Host: "esx2", Config: cfg, Disks: disks}, {Name: "b", Host: "esx1", Config: cfg, Disks: disks},
		{Name: "c", Host: "esx1", Config: cfg, Disks: disks}}
	want := "3 x 16 vCPU (8 cores per socket), 64 GB RAM, 64 GB reserved, latency sensitivity high; " +
		"vDisks boot 100 GB thin (pvscsi) + data-log 500 GB eagerZeroedThick (lsilogic-sas); VMs per host: esx1 2, esx2 1"
	if got := layoutWords(vms); got != want {
		t.Errorf("layoutWords:\n got %s\nwant %s", got, want)
	}
	vms[2].Config.MemoryReservationMB = 0
	if got := layoutWords(vms); got == want || layoutWords(nil) != "" {
		t.Errorf("a VM of another configuration is not told apart: %s", got)
	}
}
