package vsphere

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestDataSetOnDatastores: a loaded VM is shut down, its db-test vDisk
// saved to every datastore with a key file beside it; VMs provisioned
// with a DiskRestore get that copy before they power on (a step of
// their own), and a datastore without the data set fails the VM at that
// step with nothing left behind.
func TestDataSetOnDatastores(t *testing.T) {
	sim, s := simSession(t, SimOptions{Datastores: 2})
	ctx := context.Background()
	dss := sim.Datastores()
	spec := testSpec(t, "sysbench", 1, dss[:1])
	spec.NamePrefix = "loader"
	vms, err := s.Provision(ctx, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	loaded := vms[0]
	test := loaded.Disks[2]
	if err := s.SaveDisk(ctx, loaded.MoRef, test.Bus, test.Unit, DataFile(dss[0], "sb-1.vmdk")); err == nil || !strings.Contains(err.Error(), "poweredOn; shut it down first") {
		t.Fatalf("saving a running VM's disk: %v", err)
	}
	if err := s.ShutDown(ctx, loaded.MoRef, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := s.ShutDown(ctx, loaded.MoRef, time.Minute); err != nil {
		t.Fatalf("shutting down a VM already off: %v", err)
	}
	for _, ds := range dss {
		for range 2 { // the second time over the first copy
			if err := s.SaveDisk(ctx, loaded.MoRef, test.Bus, test.Unit, DataFile(ds, "sb-1.vmdk")); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.PutFile(ctx, DataFile(ds, "sb-1.json"), []byte(`{"key":"`+ds+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	for _, ds := range dss {
		b, err := s.GetFile(ctx, DataFile(ds, "sb-1.json"))
		if err != nil || string(b) != `{"key":"`+ds+`"}` {
			t.Errorf("key file on %s: %q, %v", ds, b, err)
		}
	}
	if _, err := s.GetFile(ctx, DataFile(dss[0], "none.json")); !errors.Is(err, ErrNoFile) {
		t.Errorf("a missing key file: %v, want ErrNoFile", err)
	}
	if _, err := s.GetFile(ctx, "["+dss[0]+"] nodir/none.json"); !errors.Is(err, ErrNoFile) {
		t.Errorf("a missing folder: %v, want ErrNoFile", err)
	}

	run := testSpec(t, "sysbench", 2, dss)
	run.Restore = &DiskRestore{Disk: "db-test", File: "sb-1.vmdk"}
	var mu sync.Mutex
	steps := map[string][]string{}
	run.OnStep = func(vm, step string, _ time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		steps[vm] = append(steps[vm], step)
	}
	got, err := s.Provision(ctx, run, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, vm := range got {
		want := []string{StepDatastoreSlot, StepClone, StepReconfigure, StepRestore, StepPowerOn, StepVerify, StepWaitIP}
		if strings.Join(steps[vm.Name], ",") != strings.Join(want, ",") {
			t.Errorf("%s steps %v, want %v", vm.Name, steps[vm.Name], want)
		}
		files := diskFiles(t, s, vm.MoRef)
		if !strings.HasPrefix(files[2], "["+dss[i]+"]") {
			t.Errorf("%s db-test at %s, want on %s", vm.Name, files[2], dss[i])
		}
		if vm.Disks[2].Provisioning != EagerZeroedThick {
			t.Errorf("%s db-test restored as %s, want the layout's %s", vm.Name, vm.Disks[2].Provisioning, EagerZeroedThick)
		}
		// vcsim copies a descriptor verbatim: the copy names the loader's extent.
		if desc := readSim(t, sim, "/"+vm.Name+"/"+vm.Name+"_db-test.vmdk"); !strings.Contains(desc, `"loader-01_db-test-flat.vmdk"`) {
			t.Errorf("%s's db-test is not the data set's copy:\n%s", vm.Name, desc)
		}
	}

	// A run changed the data: the disk of a running VM is restored again,
	// and it is up again with its IP.
	vm := got[1]
	writeSim(t, sim, "/"+vm.Name+"/"+vm.Name+"_db-test.vmdk", "changed by a run")
	ip, err := s.RestoreRunning(ctx, vm, *run.Restore, time.Minute, time.Minute)
	if err != nil || ip == "" {
		t.Fatalf("RestoreRunning: %q, %v", ip, err)
	}
	if desc := readSim(t, sim, "/"+vm.Name+"/"+vm.Name+"_db-test.vmdk"); !strings.Contains(desc, `"loader-01_db-test-flat.vmdk"`) {
		t.Errorf("after RestoreRunning %s's db-test is not the data set's copy:\n%s", vm.Name, desc)
	}
	if l, err := s.List(ctx, run.CampaignID); err != nil || len(l) != 2 || l[1].PowerState != "poweredOn" {
		t.Errorf("after RestoreRunning: %+v %v", l, err)
	}
	if _, err := s.RestoreRunning(ctx, vm, DiskRestore{Disk: "db-test", File: "none.vmdk"}, time.Minute, time.Minute); err == nil ||
		!strings.Contains(err.Error(), "vm "+vm.Name+": restore data:") || !strings.Contains(err.Error(), "none.vmdk") {
		t.Errorf("RestoreRunning of a missing data set: %v", err)
	}

	missing := testSpec(t, "sysbench", 2, dss)
	missing.NamePrefix = "missing"
	missing.Restore = &DiskRestore{Disk: "db-test", File: "none.vmdk"}
	_, err = s.Provision(ctx, missing, nil)
	var se *StepError
	if !errors.As(err, &se) || se.Step != StepRestore || !strings.Contains(err.Error(), "none.vmdk") {
		t.Errorf("restoring a missing data set: %v", err)
	}
	if left, _ := s.List(ctx, missing.CampaignID); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestDiskRestoreValidate: a restore names a data disk of the layout and
// a .vmdk file name, or Provision refuses it before anything is made.
func TestDiskRestoreValidate(t *testing.T) {
	l, err := LayoutFor("sysbench")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r    DiskRestore
		want string
	}{
		{DiskRestore{Disk: "boot", File: "a.vmdk"}, `no data disk "boot" (its data disks: [db-prebuilt db-test])`},
		{DiskRestore{Disk: "db-x", File: "a.vmdk"}, `no data disk "db-x"`},
		{DiskRestore{Disk: "db-test", File: "d/a.vmdk"}, `file "d/a.vmdk" must be a .vmdk file name`},
		{DiskRestore{Disk: "db-test", File: "a.json"}, `must be a .vmdk`},
		{DiskRestore{Disk: "db-test", File: "a.vmdk"}, ""},
	} {
		err := c.r.validate(l)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.r, err, c.want)
		}
	}
}

// TestSimulatorDatastoreDir: a file put on a simulated datastore is in
// the directory DatastoreDir names.
func TestSimulatorDatastoreDir(t *testing.T) {
	sim, s := simSession(t, SimOptions{Datastores: 2})
	ds := sim.Datastores()[1]
	if err := s.PutFile(context.Background(), DataFile(ds, "k.json"), []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(sim.DatastoreDir(ds), DataDir, "k.json")); err != nil || string(b) != "{}" {
		t.Errorf("%q, %v", b, err)
	}
	if sim.DatastoreDir("none") != "" {
		t.Error("a datastore that is not there has a directory")
	}
}

// TestCopyDiskAndFileExists: a data set's vDisk copied from one datastore
// to another is there (twice: over the older copy); a missing source is
// said in words.
func TestCopyDiskAndFileExists(t *testing.T) {
	sim, s := simSession(t, SimOptions{Datastores: 2})
	ctx := context.Background()
	a, b := sim.Datastores()[0], sim.Datastores()[1]
	spec := testSpec(t, "sysbench", 1, []string{a})
	spec.PowerOn = false
	vms, err := s.Provision(ctx, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	test := vms[0].Disks[2]
	if err := s.SaveDisk(ctx, vms[0].MoRef, test.Bus, test.Unit, DataFile(a, "x.vmdk")); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.FileExists(ctx, DataFile(b, "x.vmdk")); ok || err != nil {
		t.Fatalf("before the copy: %v %v", ok, err)
	}
	for range 2 {
		if err := s.CopyDisk(ctx, DataFile(a, "x.vmdk"), DataFile(b, "x.vmdk")); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := s.FileExists(ctx, DataFile(b, "x.vmdk")); !ok || err != nil {
		t.Errorf("after the copy: %v %v", ok, err)
	}
	err = s.CopyDisk(ctx, DataFile(a, "none.vmdk"), DataFile(b, "y.vmdk"))
	if err == nil || !strings.Contains(err.Error(), "the file is not there") {
		t.Errorf("a missing source: %v", err)
	}
}
