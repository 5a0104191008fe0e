package scenarios

import (
	"fmt"
	"testing"

	"vmbench/scenarios/review"
	"vmbench/scenarios/spec"
	"vmbench/vsphere"
	"vmbench/vsphere/guest"
)

// TestSpecValuesAreVSphere: package spec, which imports no vSphere,
// states the campaign file's defaults and values that vSphere applies or
// reads; they must be vSphere's.
func TestSpecValuesAreVSphere(t *testing.T) {
	for _, c := range []struct {
		name      string
		spec, vsp any
	}{
		{"DefaultParallel", spec.DefaultParallel, vsphere.DefaultParallel},
		{"DefaultIPTimeout", spec.DefaultIPTimeout, vsphere.DefaultIPTimeout},
		{"LatencyNormal", string(spec.LatencyNormal), vsphere.LatencyNormal},
		{"LatencyHigh", string(spec.LatencyHigh), vsphere.LatencyHigh},
		{"EnvGuestLogin", spec.EnvGuestLogin, guest.EnvGuestLogin},
		{"BlockWorkerRole", spec.BlockWorkerRole, vsphere.RoleBlockWorker},
		{"DefaultDataDisks", spec.DefaultDataDisks, vsphere.DefaultBlockWorkerDataDisks},
		{"MaxDataDisks", spec.MaxDataDisks, vsphere.MaxBlockWorkerDataDisks},
	} {
		if c.spec != c.vsp {
			t.Errorf("spec.%s is %v, vsphere's is %v", c.name, c.spec, c.vsp)
		}
	}
}

// TestSuiteVMsWordsAreVSpheres: the review describes a suite's VMs
// without vSphere (review.DescribeSuiteVMs); its line must be that of the
// block-worker layout vSphere provisions, its defaults included, and only
// the count and role where vSphere refuses the sizes.
func TestSuiteVMsWordsAreVSpheres(t *testing.T) {
	for _, v := range []spec.SuiteVMs{
		{Count: 4}, {Count: 2, VCPUs: 16, MemoryGB: 64, DataDisks: 8, DiskSizeGB: 400}, {Count: 1, DataDisks: spec.MaxDataDisks},
		{Count: 3, DataDisks: spec.MaxDataDisks + 1}, {Count: 3, DataDisks: -1}, {Count: 3, VCPUs: -1}, {Count: 3, MemoryGB: -2}, {Count: 3, DiskSizeGB: -5},
	} {
		s := &spec.Suite{VMs: &v}
		want := fmt.Sprintf("%d %s VMs", v.Count, spec.BlockWorkerRole)
		if l, err := suiteLayout(s); err == nil {
			d := l.Disks[1:]
			want = fmt.Sprintf("%d %s VMs (%d vCPU, %d GB RAM), %d data vDisk(s) of %d GiB each (%s)", v.Count, spec.BlockWorkerRole,
				l.NumCPU, l.MemoryMB/1024, len(d), d[0].SizeGB, d[0].Provisioning)
		}
		if got := review.DescribeSuiteVMs(s); got != want {
			t.Errorf("%+v: the review says %q, vSphere's layout %q", v, got, want)
		}
	}
}
