package vsphere

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

// provisioned provisions spec and fails the test on error.
func provisioned(t *testing.T, s *Session, spec ProvisionSpec) []VM {
	t.Helper()
	vms, err := s.Provision(context.Background(), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	return vms
}

// otherClient is a second session on sim, as another vmbench (or govc)
// would have. It is marked as on the in-process simulator (stop set) so
// that its destroys wait for vcsim's file deletion like ours do (see
// simulatedVMDir); closing the simulator stays the test's.
func otherClient(t *testing.T, sim *Simulator) *Session {
	t.Helper()
	o, err := Connect(context.Background(), sim.Config())
	if err != nil {
		t.Fatal(err)
	}
	o.stop = func() {}
	t.Cleanup(func() { _ = o.Close(context.Background()) })
	return o
}

// twoPoweredOff provisions two powered-off VMs of a fresh campaign,
// vmbench-sysbench-01 on LocalDS_0 and -02 on LocalDS_1.
func twoPoweredOff(t *testing.T) (*Simulator, *Session, ProvisionSpec) {
	t.Helper()
	sim, s := simSession(t, SimOptions{Datastores: 2})
	spec := testSpec(t, "sysbench", 2, sim.Datastores())
	spec.PowerOn = false
	provisioned(t, s, spec)
	return sim, s, spec
}

// Destroy of one campaign while another goroutine lists the inventory
// over and over: neither fails, the campaign is gone, the other stays.
// The lister runs until the destroyer is done (a channel), then once
// more, so it lists before, during and after; no sleeps.
func TestDestroyWhileListing(t *testing.T) {
	t.Parallel()
	sim, s := simSession(t, SimOptions{Datastores: 4})
	ctx := context.Background()
	gone := testSpec(t, "sysbench", 8, sim.Datastores())
	gone.NamePrefix = "gone"
	kept := testSpec(t, "sqlserver", 2, sim.Datastores()[:2])
	kept.NamePrefix = "kept"
	kept.PowerOn = false
	provisioned(t, s, gone)
	provisioned(t, s, kept)

	done := make(chan struct{})
	type listed struct {
		rounds int
		err    error
	}
	lister := make(chan listed)
	go func() {
		var l listed
		for {
			select {
			case <-done:
				_, l.err = s.List(ctx, "")
				lister <- l
				return
			default:
			}
			if _, l.err = s.List(ctx, ""); l.err != nil {
				lister <- l
				return
			}
			l.rounds++
		}
	}()
	n, err := s.Destroy(ctx, gone.CampaignID, nil)
	close(done)
	l := <-lister
	if err != nil || n != 8 {
		t.Errorf("Destroy during listing = %d, %v; want 8, nil", n, err)
	}
	if l.err != nil {
		t.Errorf("List during Destroy (after %d rounds): %v", l.rounds, l.err)
	}
	t.Logf("listed %d times during the destroy", l.rounds)
	nothingLeft(t, s, gone.CampaignID, nil)
	if left, err := s.List(ctx, kept.CampaignID); err != nil || len(left) != 2 {
		t.Errorf("the other campaign: %+v, %v", left, err)
	}
}

// VMs another client destroyed after we listed them: RemoveVMs and the
// destroy underneath it (destroyRefs, with the stale references) count
// them as removed and report no error.
func TestRemoveVMsAlreadyDestroyedByAnotherClient(t *testing.T) {
	t.Parallel()
	sim, s := simSession(t, SimOptions{Datastores: 2})
	ctx := context.Background()
	spec := testSpec(t, "sysbench", 3, sim.Datastores())
	provisioned(t, s, spec)
	listed, err := s.List(ctx, spec.CampaignID)
	if err != nil || len(listed) != 3 {
		t.Fatalf("List = %+v, %v", listed, err)
	}
	if n, err := otherClient(t, sim).Destroy(ctx, spec.CampaignID, nil); n != 3 || err != nil {
		t.Fatalf("the other client's Destroy = %d, %v", n, err)
	}

	var lines []string
	n, err := s.RemoveVMs(ctx, listed, func(m string) { lines = append(lines, m) })
	if n != 3 || err != nil {
		t.Errorf("RemoveVMs of VMs already gone = %d, %v; want 3, nil", n, err)
	}
	if want := "vmbench-sysbench-01: already gone"; !slices.Contains(lines, want) {
		t.Errorf("progress %q lacks %q", lines, want)
	}

	refs := map[types.ManagedObjectReference]target{}
	for _, vm := range listed {
		refs[types.ManagedObjectReference{Type: "VirtualMachine", Value: vm.MoRef}] = target{vm.Name, vm.Datastore}
	}
	if n, err := s.destroyRefs(ctx, refs, func(string, ...any) {}); n != 3 || err != nil {
		t.Errorf("destroyRefs of stale references = %d, %v; want 3, nil", n, err)
	}
	nothingLeft(t, s, spec.CampaignID, nil)
}

// A destroy that fails with FileNotFound (the VM's files were deleted
// behind vSphere's back) still removes the VM, and counts it, once.
func TestDestroyFileNotFoundCountsAsRemoved(t *testing.T) {
	t.Parallel()
	sim, s, spec := twoPoweredOff(t)
	ctx := context.Background()
	svc := simulator.ServiceFromContext(sim.model.Service.Context)
	svc.AddFaultRule(&simulator.FaultInjectionRule{
		MethodName: "Destroy_Task", ObjectType: "VirtualMachine", ObjectName: "vmbench-sysbench-02",
		Probability: 1, MaxCount: 1, FaultType: simulator.FaultTypeCustom,
		Fault: &types.FileNotFound{FileFault: types.FileFault{File: "[LocalDS_1] vmbench-sysbench-02/disk1.vmdk"}}, Enabled: true,
	})
	n, err := s.Destroy(ctx, spec.CampaignID, nil)
	if n != 2 || err != nil {
		t.Errorf("Destroy with a FileNotFound = %d, %v; want 2, nil", n, err)
	}
	nothingLeft(t, s, spec.CampaignID, nil)
	if _, err := s.Finder.VirtualMachine(ctx, "vmbench-sysbench-02"); err == nil {
		t.Error("vmbench-sysbench-02 is still registered")
	}
}

// RemoveVMs reads each VM again: one that became a template, or whose tag
// changed, since the listing is left alone and not counted; a VM listed
// without a campaign id is refused.
func TestRemoveVMsLeavesWhatChanged(t *testing.T) {
	t.Parallel()
	_, s, spec := twoPoweredOff(t)
	ctx := context.Background()
	listed, err := s.List(ctx, spec.CampaignID)
	if err != nil || len(listed) != 2 {
		t.Fatalf("List = %+v, %v", listed, err)
	}
	templ, err := s.Finder.VirtualMachine(ctx, "vmbench-sysbench-01")
	if err != nil {
		t.Fatal(err)
	}
	if err := templ.MarkAsTemplate(ctx); err != nil {
		t.Fatal(err)
	}
	retag, err := s.Finder.VirtualMachine(ctx, "vmbench-sysbench-02")
	if err != nil {
		t.Fatal(err)
	}
	if err := wait(ctx, func() (*object.Task, error) {
		return retag.Reconfigure(ctx, types.VirtualMachineConfigSpec{ExtraConfig: []types.BaseOptionValue{
			&types.OptionValue{Key: KeyCampaign, Value: "someone-else"}}})
	}); err != nil {
		t.Fatal(err)
	}
	untagged := VM{Name: SimTemplate, MoRef: templ.Reference().Value}

	var lines []string
	n, err := s.RemoveVMs(ctx, append(listed, untagged), func(m string) { lines = append(lines, m) })
	if n != 0 {
		t.Errorf("RemoveVMs removed %d VMs, want 0", n)
	}
	mustContain(t, err, SimTemplate, "campaign id \"\" is empty or malformed: left alone")
	if got := strings.Join(lines, "\n"); strings.Count(got, "left alone") != 2 {
		t.Errorf("progress:\n%s\nwant two VMs left alone", got)
	}
	for _, name := range []string{"vmbench-sysbench-01", "vmbench-sysbench-02", SimTemplate} {
		if _, err := s.Finder.VirtualMachine(ctx, name); err != nil {
			t.Errorf("%s is gone: %v", name, err)
		}
	}
}
