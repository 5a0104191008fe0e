package scenarios

import (
	"testing"

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
		{"LatencyNormal", spec.LatencyNormal, vsphere.LatencyNormal},
		{"LatencyHigh", spec.LatencyHigh, vsphere.LatencyHigh},
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
