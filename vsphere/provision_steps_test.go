package vsphere

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// OnStep hears every step of every VM, in order, each timed by Clock: a
// clock that moves 1 s per read gives each step exactly 1 s when the VMs
// are provisioned one at a time.
func TestProvisionOnStepTimesEachVMStep(t *testing.T) {
	t.Parallel()
	sim, s := simSession(t, SimOptions{Datastores: 2})
	spec := testSpec(t, "sysbench", 2, sim.Datastores())
	spec.Parallel = 1
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	spec.Clock = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Second)
		return now
	}
	got := map[string][]string{}
	spec.OnStep = func(vm, step string, took time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		got[vm] = append(got[vm], step)
		if took != time.Second {
			t.Errorf("%s %s took %s, want 1s", vm, step, took)
		}
	}
	vms, err := s.Provision(context.Background(), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = s.Destroy(context.Background(), spec.CampaignID, nil) })
	want := []string{StepDatastoreSlot, StepClone, StepReconfigure, StepPowerOn, StepVerify, StepWaitIP}
	for _, vm := range vms {
		if g := got[vm.Name]; !slices.Equal(g, want) {
			t.Errorf("%s: steps %q, want %q", vm.Name, g, want)
		}
	}
}
