package vsphere

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

// TestProvisionLayouts provisions 4, 8 and 16 VMs of each role and reads
// every VM back.
func TestProvisionLayouts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, role := range Roles() {
		for _, tc := range []struct{ count, nds int }{{4, 4}, {8, 4}, {16, 8}} {
			t.Run(fmt.Sprintf("%s/%dVMs-on-%dDS", role, tc.count, tc.nds), func(t *testing.T) {
				t.Parallel()
				sim, s := simSession(t, SimOptions{Datastores: 8})
				all := sim.Datastores()
				spec := testSpec(t, role, tc.count, all[:tc.nds])
				spec.NamePrefix = fmt.Sprintf("%s%d", role, tc.count)
				vms, err := s.Provision(ctx, spec, nil)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() {
					if n, err := s.Destroy(context.Background(), spec.CampaignID, nil); err != nil || n != tc.count {
						t.Errorf("Destroy: %d, %v", n, err)
					}
				})
				if len(vms) != tc.count {
					t.Fatalf("%d VMs", len(vms))
				}
				perDS := map[string]int{}
				l := spec.Layout
				for i, vm := range vms {
					wantName := fmt.Sprintf("%s-%02d", spec.NamePrefix, i+1)
					wantDS := all[i%tc.nds]
					if vm.Name != wantName || vm.Datastore != wantDS || vm.IP != "127.0.0.1" || vm.CampaignID != spec.CampaignID || vm.Role != role {
						t.Errorf("VM %d: %+v", i, vm)
					}
					info, err := s.Inspect(ctx, vm.Name)
					if err != nil {
						t.Fatal(err)
					}
					perDS[info.Datastore]++
					if info.NumCPU != l.NumCPU || info.CoresPerSocket != l.NumCPU || info.MemoryMB != l.MemoryMB {
						t.Errorf("%s: %d vCPU (%d per socket), %d MB", vm.Name, info.NumCPU, info.CoresPerSocket, info.MemoryMB)
					}
					if !slices.Contains(info.Controllers, l.Controller) {
						t.Errorf("%s: controllers %v", vm.Name, info.Controllers)
					}
					if info.PowerState != "poweredOn" || info.IP != "127.0.0.1" || info.CampaignID != spec.CampaignID || info.Created.IsZero() {
						t.Errorf("%s: %s %q %q %v", vm.Name, info.PowerState, info.IP, info.CampaignID, info.Created)
					}
					if len(info.Disks) != len(l.Disks) {
						t.Fatalf("%s: %d disks, want %d: %+v", vm.Name, len(info.Disks), len(l.Disks), info.Disks)
					}
					for k, d := range info.Disks {
						want := l.Disks[k]
						if d.SizeGB != want.SizeGB || d.Provisioning != want.Provisioning || d.Datastore != wantDS {
							t.Errorf("%s disk %d: %+v, want %d GB %s on %s", vm.Name, k, d, want.SizeGB, want.Provisioning, wantDS)
						}
						if k > 0 && (d.Controller != l.Controller || d.Bus != 1 || d.Unit != int32(k-1)) {
							t.Errorf("%s disk %d: on %s bus %d unit %d", vm.Name, k, d.Controller, d.Bus, d.Unit)
						}
					}
					sameDisks(t, vm, info, l)
				}
				for _, ds := range all[:tc.nds] {
					if perDS[ds] != tc.count/tc.nds {
						t.Errorf("datastore %s has %d VMs, want %d (%v)", ds, perDS[ds], tc.count/tc.nds, perDS)
					}
				}
				listed, err := s.List(ctx, spec.CampaignID)
				if err != nil || len(listed) != tc.count {
					t.Fatalf("List: %d, %v", len(listed), err)
				}
			})
		}
	}
}

// TestProvisionCloneFailsOnFifth injects a method fault on the 5th
// CloneVM_Task: no VM of the campaign may remain, and the error names VM 5.
// (vcsim's rule counters are not goroutine-safe, so this runs with one
// clone at a time; the task-level test below covers parallel clones.)
func TestProvisionCloneFailsOnFifth(t *testing.T) {
	t.Parallel()
	sim, s := simSession(t, SimOptions{Datastores: 4})
	ctx := context.Background()
	before := allVMNames(t, s)
	svc := simulator.ServiceFromContext(sim.model.Service.Context)
	svc.AddFaultRule(&simulator.FaultInjectionRule{
		MethodName: "CloneVM_Task", ObjectType: "*", ObjectName: "*",
		Probability: 1, SkipCount: 4, MaxCount: 1,
		FaultType: simulator.FaultTypeInsufficientResourcesFault, Message: "injected: 5th clone fails",
		Enabled: true,
	})
	spec := testSpec(t, "sysbench", 8, sim.Datastores())
	spec.Parallel = 1
	vms, err := s.Provision(ctx, spec, logf(t))
	if err == nil {
		t.Fatalf("Provision succeeded with %d VMs", len(vms))
	}
	var se *StepError
	if !errors.As(err, &se) || se.Step != "clone" || se.VM != "vmbench-sysbench-05" {
		t.Fatalf("want the clone of vmbench-sysbench-05 to fail, got %v", err)
	}
	if !strings.Contains(err.Error(), "vmbench-sysbench-05") || !fault.Is(err, &types.InsufficientResourcesFault{}) {
		t.Errorf("error %v", err)
	}
	if left, err := s.List(ctx, spec.CampaignID); err != nil || len(left) != 0 {
		t.Fatalf("campaign left %d VMs behind (%v): %+v", len(left), err, left)
	}
	if after := allVMNames(t, s); !slices.Equal(after, before) {
		t.Fatalf("inventory changed: %v -> %v", before, after)
	}
}

// outOfSpaceTemplate makes the n-th clone of the template fail as a task,
// the way vCenter reports a datastore running out of space mid-clone.
type outOfSpaceTemplate struct {
	*simulator.VirtualMachine
	mu     sync.Mutex
	calls  int
	failAt int
}

func (v *outOfSpaceTemplate) CloneVMTask(ctx *simulator.Context, req *types.CloneVM_Task) soap.HasFault {
	v.mu.Lock()
	v.calls++
	n := v.calls
	v.mu.Unlock()
	if n != v.failAt {
		return v.VirtualMachine.CloneVMTask(ctx, req)
	}
	task := simulator.CreateTask(v.VirtualMachine, "cloneVm", func(*simulator.Task) (types.AnyType, types.BaseMethodFault) {
		return nil, &types.InsufficientStorageSpace{}
	})
	return &methods.CloneVM_TaskBody{Res: &types.CloneVM_TaskResponse{Returnval: task.Run(ctx)}}
}

func simTemplate(t *testing.T, sim *Simulator) *simulator.VirtualMachine {
	t.Helper()
	for _, e := range sim.model.Map().All("VirtualMachine") {
		if vm := e.(*simulator.VirtualMachine); vm.Name == SimTemplate {
			return vm
		}
	}
	t.Fatal("no template in the simulator")
	return nil
}

func TestProvisionCloneTaskFailsOnFifth(t *testing.T) {
	t.Parallel()
	for _, parallel := range []int{1, 4} {
		t.Run(fmt.Sprintf("parallel%d", parallel), func(t *testing.T) {
			sim, s := simSession(t, SimOptions{Datastores: 8})
			ctx := context.Background()
			before := allVMNames(t, s)
			sim.model.Map().Put(&outOfSpaceTemplate{VirtualMachine: simTemplate(t, sim), failAt: 5})
			spec := testSpec(t, "sqlserver", 16, sim.Datastores())
			spec.Parallel = parallel
			_, err := s.Provision(ctx, spec, nil)
			var se *StepError
			if !errors.As(err, &se) || se.Step != "clone" || !strings.HasPrefix(se.VM, "vmbench-sqlserver-") {
				t.Fatalf("want a clone to fail, got %v", err)
			}
			if parallel == 1 && se.VM != "vmbench-sqlserver-05" {
				t.Errorf("error names %s, want vmbench-sqlserver-05", se.VM)
			}
			var family types.BaseInsufficientResourcesFault
			if _, ok := fault.As(err, &family); !ok {
				t.Errorf("fault.As(InsufficientResourcesFault family) failed on %v", err)
			}
			nothingLeft(t, s, spec.CampaignID, before)
		})
	}
}

// heldCloneTemplate holds clone requests on the server side: vcsim closes
// received at the first one and runs no clone until release is closed,
// then closes created once the first clone's task exists (in the
// template's recentTask). A client that gives up on the call thus leaves
// a clone that completes afterwards, at points the test chooses rather
// than after delays a loaded machine may stretch.
type heldCloneTemplate struct {
	*simulator.VirtualMachine
	received, release, created             chan struct{}
	receivedOnce, releaseOnce, createdOnce sync.Once
}

// holdClones puts a heldCloneTemplate in place of sim's template. The
// test's cleanup releases the clones, so that a failed test leaves no
// vcsim handler waiting (the server's shutdown would wait for it).
func holdClones(t *testing.T, sim *Simulator) *heldCloneTemplate {
	v := &heldCloneTemplate{VirtualMachine: simTemplate(t, sim),
		received: make(chan struct{}), release: make(chan struct{}), created: make(chan struct{})}
	sim.model.Map().Put(v)
	t.Cleanup(v.releaseClones)
	return v
}

func (v *heldCloneTemplate) CloneVMTask(ctx *simulator.Context, req *types.CloneVM_Task) soap.HasFault {
	v.receivedOnce.Do(func() { close(v.received) })
	<-v.release
	res := v.VirtualMachine.CloneVMTask(ctx, req)
	v.createdOnce.Do(func() { close(v.created) })
	return res
}

func (v *heldCloneTemplate) releaseClones() { v.releaseOnce.Do(func() { close(v.release) }) }

// deadlineAt is a context whose deadline passes when at is closed: it
// then ends as a context past its deadline does (Err is
// context.DeadlineExceeded), at a point the test chooses.
type deadlineAt struct {
	context.Context
	at <-chan struct{}
}

func (c deadlineAt) Done() <-chan struct{} { return c.at }

func (c deadlineAt) Err() error {
	select {
	case <-c.at:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// TestProvisionRemovesCloneCompletedAfterGivingUp: the clone call's
// deadline passes while vcsim holds the request, the clone completes on
// the server afterwards, and teardown finds it and removes it.
func TestProvisionRemovesCloneCompletedAfterGivingUp(t *testing.T) {
	t.Parallel()
	sim, s := simSession(t, SimOptions{Datastores: 2})
	before := allVMNames(t, s)
	held := holdClones(t, sim)
	spec := testSpec(t, "sysbench", 2, sim.Datastores())
	spec.Parallel = 1
	spec.taskContext = func(ctx context.Context) (context.Context, context.CancelFunc) {
		return deadlineAt{ctx, held.received}, func() {} // the call gives up once vcsim holds it
	}
	spec.settled = func(context.Context) {
		select {
		case <-held.received:
		default:
			t.Error("teardown waits for a lost clone request that vcsim never received")
			return
		}
		held.releaseClones()
		<-held.created // the clone's task is on the template: teardown will find it
	}
	var lines []string // progress calls come one at a time
	_, err := s.Provision(context.Background(), spec, func(m string) { lines = append(lines, m) })
	var se *StepError
	if !errors.As(err, &se) || se.VM != "vmbench-sysbench-01" || se.Step != "clone" || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the clone of vmbench-sysbench-01 to time out, got %v", err)
	}
	// The clone completed on the server after the client gave up, and
	// teardown found it (by campaign and call id) and removed it.
	for _, want := range []string{"teardown: removing 1 VM(s) of campaign " + spec.CampaignID, "vmbench-sysbench-01: destroyed"} {
		if !slices.Contains(lines, want) {
			t.Errorf("progress lacks %q:\n%s", want, strings.Join(lines, "\n"))
		}
	}
	nothingLeft(t, s, spec.CampaignID, before)
}

// TestProvisionDeadlineDuringClone: the caller's deadline passes while
// vcsim holds the first clone request; the clones under way complete (a
// task is not cut), no further step starts, and teardown removes them.
func TestProvisionDeadlineDuringClone(t *testing.T) {
	t.Parallel()
	sim, s := simSession(t, SimOptions{Datastores: 4})
	before := allVMNames(t, s)
	held := holdClones(t, sim)
	held.releaseClones() // the deadline has passed when a clone goes on: vcsim closes received first
	ctx := deadlineAt{context.Background(), held.received}
	spec := testSpec(t, "sqlserver", 4, sim.Datastores())
	_, err := s.Provision(ctx, spec, logf(t))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the deadline error, got %v", err)
	}
	<-held.created // a clone was under way when the deadline passed
	nothingLeft(t, s, spec.CampaignID, before)
}

func TestProvisionCancelledMidway(t *testing.T) {
	t.Parallel()
	sim, s := simSession(t, SimOptions{Datastores: 4})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	spec := testSpec(t, "sqlserver", 8, sim.Datastores())
	var once sync.Once
	_, err := s.Provision(ctx, spec, func(m string) {
		if strings.Contains(m, "powering on") {
			once.Do(cancel) // Ctrl-C after the first VM is built
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	nothingLeft(t, s, spec.CampaignID, nil)
}

func TestProvisionIPTimeout(t *testing.T) {
	t.Parallel()
	sim, s := simSession(t, SimOptions{Datastores: 2})
	spec := testSpec(t, "sqlserver", 2, sim.Datastores())
	spec.SimulatedIP = "" // nothing will report an address
	spec.IPTimeout = 200 * time.Millisecond
	_, err := s.Provision(context.Background(), spec, nil)
	var se *StepError
	if !errors.As(err, &se) || se.Step != "wait for IP" {
		t.Fatalf("want a wait-for-IP StepError, got %v", err)
	}
	mustContain(t, err, "no IPv4 address after 200ms")
	var te *IPTimeoutError
	if !errors.As(err, &te) || te.Timeout != spec.IPTimeout {
		t.Errorf("want an *IPTimeoutError of 200ms, got %#v", te)
	}
	nothingLeft(t, s, spec.CampaignID, nil)
}

// TestProvisionKeepGoingWithoutIP: with KeepGoingWithoutIP a VM whose
// guest reports no address is returned with IPErr naming it, and the
// others are ready with their IPs.
func TestProvisionKeepGoingWithoutIP(t *testing.T) {
	t.Parallel()
	sim, s := simSession(t, SimOptions{Datastores: 2})
	spec := testSpec(t, "sqlserver", 3, sim.Datastores())
	spec.IPTimeout = 200 * time.Millisecond
	spec.KeepGoingWithoutIP = true
	mute := spec.VMNames()[1]
	spec.OnStep = func(vm, step string, _ time.Duration) {
		if vm == mute && step == StepPowerOn { // its Tools never report the address
			obj := simByName(t, sim, "VirtualMachine", vm).(*simulator.VirtualMachine)
			sim.model.Map().WithLock(sim.model.Service.Context, obj, func() { obj.Guest.IpAddress = "" })
		}
	}
	vms, err := s.Provision(context.Background(), spec, logf(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = s.Destroy(context.Background(), spec.CampaignID, nil) })
	for _, vm := range vms {
		var te *IPTimeoutError
		switch {
		case vm.Name == mute && (!errors.As(vm.IPErr, &te) || te.VM != mute || vm.IP != ""):
			t.Errorf("%s: want an IPTimeoutError naming it and no IP, got %v %q", vm.Name, vm.IPErr, vm.IP)
		case vm.Name != mute && (vm.IPErr != nil || vm.IP != "127.0.0.1"):
			t.Errorf("%s: IP %q err %v", vm.Name, vm.IP, vm.IPErr)
		}
	}
}

func TestProvisionPoweredOffWithNetwork(t *testing.T) {
	t.Parallel()
	sim, s := simSession(t, SimOptions{Datastores: 1})
	spec := testSpec(t, "sysbench", 1, sim.Datastores())
	spec.PowerOn = false
	spec.Network = "VM Network"
	spec.NamePrefix = "db"
	vms, err := s.Provision(context.Background(), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(vms) != 1 || vms[0].Name != "db-01" || vms[0].PowerState != "poweredOff" || vms[0].IP != "" {
		t.Fatalf("%+v", vms)
	}
	info, err := s.Inspect(context.Background(), "db-01")
	if err != nil || info.PowerState != "poweredOff" {
		t.Fatalf("%+v %v", info, err)
	}
}

// sameDisks checks that the disks Provision read back for vm agree with
// what Inspect reads (info) and with the layout l, in layout order.
func sameDisks(t *testing.T, vm VM, info VMInfo, l Layout) {
	t.Helper()
	if len(vm.Disks) != len(l.Disks) || len(info.Disks) != len(l.Disks) {
		t.Errorf("%s: Provision returned %d disks, Inspect %d, want %d", vm.Name, len(vm.Disks), len(info.Disks), len(l.Disks))
		return
	}
	for k, got := range vm.Disks {
		d, want := info.Disks[k], l.Disks[k]
		if got.Name != want.Name || got.Bus != d.Bus || got.Unit != d.Unit || got.CapacityBytes != want.SizeGB<<30 ||
			got.Provisioning != d.Provisioning || got.Datastore != d.Datastore || got.UUID == "" {
			t.Errorf("%s disk %d: Provision read %+v, Inspect %+v", vm.Name, k, got, d)
		}
	}
}
