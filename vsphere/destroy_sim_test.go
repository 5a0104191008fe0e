package vsphere

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vmware/govmomi/simulator"
)

// vcsim deletes a destroyed VM's directory in a task it does not wait for;
// Destroy on an in-process simulator returns only once the directory is
// gone, so that the next destroy on the datastore (and go test -race) never
// overlaps that task. Three VMs share one datastore: they are destroyed one
// after another. The deletion is delayed by 300 ms (vcsim's TaskDelay, a
// package variable: so this test does not run in parallel), so a Destroy
// that did not wait would return with the directories still there.
func TestDestroyWaitsForSimulatedFiles(t *testing.T) {
	simulator.TaskDelay.MethodDelay = map[string]int{"DeleteDatastoreFile": 300}
	t.Cleanup(func() { simulator.TaskDelay.MethodDelay = nil })
	sim, s := simSession(t, SimOptions{Datastores: 1})
	ctx := context.Background()
	spec := testSpec(t, "sysbench", 3, sim.Datastores())
	vms, err := s.Provision(ctx, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, vm := range vms {
		ref, err := s.Finder.VirtualMachine(ctx, vm.Name)
		if err != nil {
			t.Fatal(err)
		}
		dir := s.simulatedVMDir(ctx, ref)
		if dir == "" || !filepath.IsAbs(dir) {
			t.Fatalf("%s: simulated directory %q, want an absolute path", vm.Name, dir)
		}
		if _, err := os.Stat(dir); err != nil {
			t.Fatalf("%s: its directory %s is not there before the destroy: %v", vm.Name, dir, err)
		}
		dirs = append(dirs, dir)
	}
	if n, err := s.Destroy(ctx, spec.CampaignID, nil); err != nil || n != 3 {
		t.Fatalf("Destroy = %d, %v", n, err)
	}
	for _, dir := range dirs {
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s is still there after Destroy returned (stat: %v)", dir, err)
		}
	}
	nothingLeft(t, s, spec.CampaignID, nil)
}
