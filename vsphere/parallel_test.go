package vsphere

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// holdFallback is how long taskCounter holds a finished task for another
// to start: only for liveness, when no other VM has a task left to start.
const holdFallback = 200 * time.Millisecond

// taskCounter is a simulator registry handler that counts the tasks on
// VMs in flight (from the task's creation to its success or error) and
// keeps the largest count. With hold, a finishing task is held in flight
// until limit tasks are (or holdFallback passes), so that a bound that is
// kept is also reached, and one that is not is overrun at once.
type taskCounter struct {
	self  types.ManagedObjectReference
	limit int

	mu       sync.Mutex
	hold     bool
	inFlight int
	max      int
	running  map[types.ManagedObjectReference]bool
	names    map[string]int // tasks seen, by name
	changed  chan struct{}  // closed and replaced when inFlight grows
}

func newTaskCounter(limit int) *taskCounter {
	return &taskCounter{self: types.ManagedObjectReference{Type: "TaskCounter", Value: "task-counter"}, limit: limit,
		running: map[types.ManagedObjectReference]bool{}, names: map[string]int{}, changed: make(chan struct{})}
}

func (c *taskCounter) Reference() types.ManagedObjectReference { return c.self }

// PutObject counts a new task on a VM.
func (c *taskCounter) PutObject(_ *simulator.Context, obj mo.Reference) {
	t, ok := obj.(*simulator.Task)
	if !ok || t.Info.Entity == nil || t.Info.Entity.Type != "VirtualMachine" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running[t.Self] = true
	c.names[t.Info.Name]++
	c.inFlight++
	c.max = max(c.max, c.inFlight)
	close(c.changed)
	c.changed = make(chan struct{})
}

// UpdateObject ends a counted task when its state becomes final, after
// holding it (see taskCounter).
func (c *taskCounter) UpdateObject(_ *simulator.Context, obj mo.Reference, changes []types.PropertyChange) {
	final := false
	for _, ch := range changes {
		if ch.Name == "info.state" {
			s := fmt.Sprint(ch.Val)
			final = s == string(types.TaskInfoStateSuccess) || s == string(types.TaskInfoStateError)
		}
	}
	ref := obj.Reference()
	c.mu.Lock()
	counted := c.running[ref]
	c.mu.Unlock()
	if !final || !counted {
		return
	}
	c.waitForLimit()
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.running, ref)
	c.inFlight--
}

// waitForLimit returns once limit tasks are in flight, or after
// holdFallback, or at once without hold.
func (c *taskCounter) waitForLimit() {
	fallback := time.NewTimer(holdFallback)
	defer fallback.Stop()
	for {
		c.mu.Lock()
		if !c.hold || c.inFlight >= c.limit {
			c.mu.Unlock()
			return
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-fallback.C:
			return
		}
	}
}

func (c *taskCounter) RemoveObject(*simulator.Context, types.ManagedObjectReference) {}

// phase starts counting afresh (holding or not) and returns the previous
// phase's maximum and task names.
func (c *taskCounter) phase(hold bool) (int, map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, names := c.max, c.names
	c.hold, c.max, c.names = hold, c.inFlight, map[string]int{}
	return m, names
}

// TestParallelBoundsTasksInFlight provisions 8 VMs with Parallel 2 and
// destroys them with SetParallel(2), counting on the simulator the VM
// tasks in flight (clone, reconfigure, power on; power off, destroy):
// provisioning keeps at most 2 in flight and reaches 2, so the test fails
// for a bound that is not kept and for one that serialises; teardown
// keeps at most 2 (the in-process simulator's teardown runs one VM at a
// time, see destroyRefs, so 2 is not reached there).
func TestParallelBoundsTasksInFlight(t *testing.T) {
	t.Parallel()
	const parallel = 2
	sim, s := simSession(t, SimOptions{Datastores: 4})
	c := newTaskCounter(parallel)
	sim.model.Map().AddHandler(c)
	defer sim.model.Map().RemoveHandler(c)
	ctx := context.Background()

	c.phase(true)
	spec := testSpec(t, "sysbench", 8, sim.Datastores())
	spec.Parallel = parallel
	if _, err := s.Provision(ctx, spec, nil); err != nil {
		t.Fatal(err)
	}
	peak, names := c.phase(false)
	for _, task := range []string{"CloneVm", "ReconfigVm", "PowerOn"} {
		if names[task] != 8 {
			t.Errorf("%d %s tasks, want 8 (tasks seen: %v)", names[task], task, names)
		}
	}
	if peak != parallel {
		t.Errorf("provisioning kept up to %d VM tasks in flight, want exactly Parallel = %d (tasks: %v)", peak, parallel, names)
	}

	s.SetParallel(parallel)
	if n, err := s.Destroy(ctx, spec.CampaignID, nil); n != 8 || err != nil {
		t.Fatalf("Destroy = %d, %v; want 8", n, err)
	}
	peak, names = c.phase(false)
	if names["Destroy"] != 8 || peak < 1 || peak > parallel {
		t.Errorf("teardown: %d VM tasks at most in flight, want 1..%d (tasks: %v)", peak, parallel, names)
	}
	nothingLeft(t, s, spec.CampaignID, nil)
}
