package main

import (
	"path/filepath"
	"strings"
	"testing"

	"vmbench/vdbench"
)

// vmSuiteFile is a block suite in 2 simulated block-worker VMs, one
// profile of 3 short points on 2 data files per VM.
const vmSuiteFile = `kind: block-suite
name: vmsuite
vms:
  count: 2
  template: worker
  datastores: [ds1, ds2]
  data-disks: 2
profiles: [4k-random-read]
simulate:
  datastores: 2
  size: 8m
  threads: 2
  elapsed: 2
  interval: 1
  warmup: 0
  curve: [50]
`

// TestVMSuiteCampaign: a block suite in VMs runs its profile in every
// VM's agent at once, on the grid of a common start; each VM's record is
// kept, and the merged curve is their exact merge: every point's I/O
// count is the sum of the VMs', its IOPS their sum, and the per-VM range
// brackets each VM. Nothing is left behind, and vmbench report renders
// the directory again.
func TestVMSuiteCampaign(t *testing.T) {
	t.Parallel()
	res := t.TempDir()
	stdout, stderr := runSimulatedCampaign(t, writeFile(t, "s.yaml", vmSuiteFile), res)
	for _, want := range []string{"uploaded to 2 guests", "4k-random-read: ran in 2 VMs", "destroyed 2 VMs"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("log lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "merged over 2 VMs") || !strings.Contains(stdout, "mean of VM p95s") {
		t.Errorf("output lacks the merged curve and the per-VM spread:\n%s", stdout)
	}
	dirs, _ := filepath.Glob(filepath.Join(res, "vmsuite-*"))
	if len(dirs) != 1 || strings.HasSuffix(dirs[0], ".incomplete") {
		t.Fatalf("results dirs %v", dirs)
	}
	merged, err := vdbench.ReadRunRecord(filepath.Join(dirs[0], "4k-random-read.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vms []*vdbench.RunRecord
	for _, vm := range []string{"block-worker-01", "block-worker-02"} {
		r, err := vdbench.ReadRunRecord(filepath.Join(dirs[0], "vms", vm, "4k-random-read.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Targets) != 2 {
			t.Errorf("%s ran on %v, want its 2 data disks", vm, r.Targets)
		}
		vms = append(vms, r)
	}
	if len(merged.VMs) != 2 || len(merged.Points) != 2 || len(merged.Targets) != 4 {
		t.Fatalf("merged: VMs %v, %d points, targets %v; want 2 VMs, max and 50%%, 4 targets", merged.VMs, len(merged.Points), merged.Targets)
	}
	for i, p := range merged.Points {
		var count int64
		var iops float64
		for _, r := range vms {
			q := r.Points[i]
			if !q.Scheduled.Equal(p.Scheduled) {
				t.Errorf("point %s: planned start %s in one VM and %s merged: the grid is not common", p.Label, q.Scheduled, p.Scheduled)
			}
			count += q.Result.Ops[0].Latency.Count
			iops += q.Achieved
			if q.Achieved < p.VMRange.IOPSMin || q.Achieved > p.VMRange.IOPSMax {
				t.Errorf("point %s: a VM's %.1f IOPS is outside the range %+v", p.Label, q.Achieved, p.VMRange)
			}
		}
		if got := p.Result.Ops[0].Latency.Count; got != count || count == 0 {
			t.Errorf("point %s: merged %d I/Os, the VMs %d", p.Label, got, count)
		}
		if d := p.Achieved - iops; d > 1e-6 || d < -1e-6 {
			t.Errorf("point %s: merged %.3f IOPS, the VMs' sum %.3f", p.Label, p.Achieved, iops)
		}
	}
	if code, _, errs := runCLI(t, nil, "report", dirs[0]); code != 0 {
		t.Errorf("vmbench report: exit %d\n%s", code, errs)
	}
	if left := campaignTemps(res); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
