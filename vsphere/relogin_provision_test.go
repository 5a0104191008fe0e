package vsphere

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestSessionExpiryDuringProvision: the session ends between one VM's
// clone and its reconfigure; Provision logs in again once and provisions
// every VM.
func TestSessionExpiryDuringProvision(t *testing.T) {
	sim, s := simSession(t, SimOptions{Datastores: 2})
	spec := testSpec(t, "sqlserver", 3, sim.Datastores())
	spec.Parallel = 1
	var once sync.Once
	var before int64
	spec.OnStep = func(_, step string, _ time.Duration) {
		if step == StepClone {
			once.Do(func() { terminate(t, sim, s); before = sim.Logins() })
		}
	}
	vms, err := s.Provision(context.Background(), spec, logf(t))
	if err != nil {
		t.Fatalf("Provision after the session expired: %v", err)
	}
	t.Cleanup(func() { _, _ = s.Destroy(context.Background(), spec.CampaignID, nil) })
	if len(vms) != 3 || vms[2].IP == "" {
		t.Fatalf("VMs %+v", vms)
	}
	if n := sim.Logins() - before; n != 1 {
		t.Errorf("%d logins after the session expired, want 1", n)
	}
}
