package vsphere

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"sync"
	"time"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/task"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
	"golang.org/x/sync/errgroup"
)

// ExtraConfig keys every provisioned VM carries (readable with
// `govc vm.info -e`). Destroy and teardown select VMs by KeyCampaign.
const (
	KeyCampaign  = "vmbench.campaign"  // campaign id
	KeyCreated   = "vmbench.created"   // creation time, RFC 3339, UTC
	KeyRole      = "vmbench.role"      // layout role
	KeyProvision = "vmbench.provision" // id of the Provision call that created the VM
	KeyHarness   = "vmbench.harness"   // host name of the machine that ran the Provision call
)

// Defaults applied by Provision and Preflight to a zero ProvisionSpec field.
const (
	DefaultParallel  = 4
	DefaultIPTimeout = 10 * time.Minute // HCIBench gives vm.ip 600 s
	teardownTimeout  = 10 * time.Minute
	defaultSettle    = 3 * time.Second
	// taskTimeout bounds the wait for one vSphere task (a clone, or a
	// reconfigure that eager-zeroes 500 GB on slow storage, can take long).
	taskTimeout = 2 * time.Hour
	ipPoll      = time.Second
)

// tracker records what one Provision call created, for teardown.
type tracker struct {
	mu      sync.Mutex
	vms     map[string]types.ManagedObjectReference
	pending map[string]*object.Task // clone tasks whose outcome we did not see
	unacked int                     // clone requests that failed without a task
}

func (t *tracker) do(f func()) { t.mu.Lock(); defer t.mu.Unlock(); f() }

// Provision creates spec.Count VMs of spec.Layout by cloning spec.Template,
// in parallel (at most spec.Parallel at once, and one VM at a time per
// datastore while disks are created). It runs Preflight first and creates
// nothing when it fails. Each VM gets, in one clone and one reconfigure:
// the campaign tags (extraConfig KeyCampaign, KeyCreated, KeyRole,
// KeyProvision, and an annotation), extraConfig disk.EnableUUID = "TRUE"
// (KeyDiskEnableUUID), the layout's vCPU and memory, the boot
// disk grown to Disks[0].SizeGB, new SCSI controller(s) of type
// Layout.Controller and the data disks with their provisioning, all on the
// VM's datastore. With PowerOn it powers each VM on and waits for its IPv4
// address (IPTimeout). Each returned VM's Disks are read back from
// vSphere after its reconfigure.
//
// If any step fails or ctx is cancelled, no new step starts; steps already
// running are waited for (vSphere finishes a clone or reconfigure anyway,
// and a VM cannot be removed mid-task), then Provision removes every VM
// this call created, on its own context with a 10-minute timeout: the VMs
// it saw created, clone tasks it stopped following, and, found by campaign
// and call id, clones whose request got no answer. It returns a *StepError
// naming the VM and step (wrapping ctx's error after a cancellation),
// joined with any teardown failure. progress receives one line per step;
// it is called from one goroutine at a time and may be nil. The returned
// VMs are in name order.
func (s *Session) Provision(ctx context.Context, spec ProvisionSpec, progress func(msg string)) ([]VM, error) {
	spec = spec.withDefaults()
	var mu sync.Mutex
	say := func(format string, args ...any) {
		if progress == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		progress(fmt.Sprintf(format, args...))
	}

	report, p, err := s.preflight(ctx, spec)
	if err != nil {
		return nil, err
	}
	for _, w := range report.Warnings {
		say("preflight warning: %s", w)
	}
	p.token = randomHex(8)
	p.created = time.Now().UTC().Truncate(time.Second)

	// Teardown is registered before the first clone.
	tr := &tracker{vms: map[string]types.ManagedObjectReference{}, pending: map[string]*object.Task{}}
	ok := false
	defer func() {
		if !ok { // a panic: still remove what was created
			_ = s.teardown(ctx, p, tr, say)
		}
	}()

	results := make([]VM, spec.Count)
	err = func() error {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(spec.Parallel)
		for i := range spec.Count {
			g.Go(func() error {
				vm, err := s.provisionOne(gctx, p, i, tr, say)
				results[i] = vm
				return err
			})
		}
		err := g.Wait()
		if err == nil {
			err = ctx.Err()
		}
		return err
	}()
	if err == nil {
		ok = true
		return results, nil
	}
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		// The cancellation is what callers match; the failure it caused
		// is told, not wrapped, so that it is not matched as a failure of
		// the provisioning itself.
		err = fmt.Errorf("%w (after: %v)", ctx.Err(), err) //nolint:errorlint // see above
	}
	// Run teardown now (not in the defer) so its error can be returned.
	ok = true
	if tdErr := s.teardown(ctx, p, tr, say); tdErr != nil {
		return nil, errors.Join(err, tdErr)
	}
	return nil, err
}

// provisionOne clones, reconfigures, powers on and waits for VM i. The
// steps that create disks hold the VM's datastore (one at a time per
// datastore). A step already started is waited for even if ctx ends (vSphere
// would finish it anyway, and teardown cannot remove a VM mid-task); ctx is
// checked between steps and ends the IP wait.
func (s *Session) provisionOne(ctx context.Context, p *plan, i int, tr *tracker, say func(string, ...any)) (VM, error) {
	st := &stepper{s: s, p: p, name: p.names[i], since: p.spec.Clock()}
	dsIdx := i % len(p.datastores)
	ds := p.datastores[dsIdx]
	// Tasks run on a context that the caller's cancellation does not cut.
	tctx, cancel := p.spec.taskContext(context.WithoutCancel(ctx))
	defer cancel()

	select {
	case p.dsSlots[dsIdx] <- struct{}{}:
	case <-ctx.Done():
		return VM{}, st.fail(StepClone+" (not started)", ctx.Err())
	}
	st.took(StepDatastoreSlot)
	held := true
	release := func() {
		if held {
			<-p.dsSlots[dsIdx]
			held = false
		}
	}
	defer release()
	// select chooses at random when the slot is free and ctx has ended
	// too: no clone may start after another VM's step failed.
	if err := ctx.Err(); err != nil {
		return VM{}, st.fail(StepClone+" (not started)", err)
	}

	var host *object.HostSystem
	where := "datastore " + ds.Name()
	if len(p.hosts) > 0 {
		host = p.hosts[i%len(p.hosts)]
		where += ", host " + p.hostNames[i%len(p.hosts)]
	}
	say("%s: cloning %s to %s", st.name, p.templateName, where)
	ref, err := s.clone(tctx, p, st.name, ds, host, tr)
	if err != nil {
		return VM{}, st.fail(StepClone, err)
	}
	st.took(StepClone)
	vm := object.NewVirtualMachine(s.Client.Client, ref)
	if err := ctx.Err(); err != nil {
		return VM{}, st.fail(StepReconfigure+" (not started)", err)
	}

	slots, err := s.reconfigure(tctx, p, vm, st.name, ds, say)
	if err != nil {
		return VM{}, st.fail(StepReconfigure, err)
	}
	st.took(StepReconfigure)
	if r := p.spec.Restore; r != nil {
		if err := s.restoreSlot(tctx, ref.Value, slots, r, ds.Name()); err != nil {
			return VM{}, st.fail(StepRestore, err)
		}
		say("%s: %s restored from %s", st.name, r.Disk, DataFile(ds.Name(), r.File))
		st.took(StepRestore)
	}

	if p.spec.PowerOn {
		if err := ctx.Err(); err != nil {
			return VM{}, st.fail(StepPowerOn+" (not started)", err)
		}
		say("%s: powering on", st.name)
		if err := wait(tctx, func() (*object.Task, error) { return vm.PowerOn(tctx) }); err != nil {
			return VM{}, st.fail(StepPowerOn, err)
		}
		st.took(StepPowerOn)
	}
	release()
	return s.verifyAndWait(ctx, tctx, st, i, ref, slots, say)
}

// stepper names and times one VM's steps for provisionOne.
type stepper struct {
	s     *Session
	p     *plan
	name  string
	since time.Time
}

// fail returns the StepError of step, the error redacted.
func (st *stepper) fail(step string, err error) error {
	return &StepError{VM: st.name, Step: step, Err: st.s.cfg.redact(err)}
}

// took tells OnStep that step ended, timed since the previous one.
func (st *stepper) took(step string) {
	now := st.p.spec.Clock()
	if st.p.spec.OnStep != nil {
		st.p.spec.OnStep(st.name, step, now.Sub(st.since))
	}
	st.since = now
}

// verifyAndWait reads VM i (ref, its disks at slots) back and compares it
// with the plan, once it is on (DRS chooses the host at power-on), then
// waits for its IP when the spec powers VMs on.
func (s *Session) verifyAndWait(ctx, tctx context.Context, st *stepper, i int, ref types.ManagedObjectReference, slots []diskSlot, say func(string, ...any)) (VM, error) {
	p, name := st.p, st.name
	out, mismatches, err := s.readBack(tctx, ref, p.expect(i, slots))
	if err != nil {
		return VM{}, st.fail(StepVerify, err)
	}
	if len(mismatches) > 0 {
		return VM{}, st.fail(StepVerify, &PlacementError{Mismatches: mismatches})
	}
	st.took(StepVerify)
	out.Role, out.CampaignID, out.Created = p.spec.Layout.Role, p.spec.CampaignID, p.created
	if !p.spec.PowerOn {
		say("%s: ready (powered off) on %s", name, orDefault(out.Host))
		return out, nil
	}

	say("%s: waiting up to %s for VMware Tools to report its IP", name, p.spec.IPTimeout)
	ip, err := s.waitIP(ctx, ref, p.spec.IPTimeout)
	if te := (*IPTimeoutError)(nil); errors.As(err, &te) && p.spec.KeepGoingWithoutIP {
		te.VM = name
		say("%s: %v; the other VMs go on without it", name, te)
		out.IPErr = te
		return out, nil
	}
	if err != nil {
		return VM{}, st.fail(StepWaitIP, err)
	}
	st.took(StepWaitIP)
	out.IP = ip
	say("%s: ready on host %s, IP %s", name, out.Host, ip)
	return out, nil
}

// clone clones p's template to the VM name on ds (and host, when not nil)
// and returns the new VM.
// tr knows of the clone from the start: as unacknowledged when the request
// got no answer, as pending while the task runs, and as a VM once it is
// one. Errors are vSphere's, unwrapped.
func (s *Session) clone(tctx context.Context, p *plan, name string, ds *object.Datastore, host *object.HostSystem, tr *tracker) (types.ManagedObjectReference, error) {
	var none types.ManagedObjectReference
	t, err := p.template.Clone(tctx, p.folder, name, p.cloneSpec(ds, host))
	if err != nil {
		if !soap.IsSoapFault(err) { // no answer: the request may still have reached vSphere
			tr.do(func() { tr.unacked++ })
		}
		return none, err
	}
	tr.do(func() { tr.pending[name] = t })
	info, err := t.WaitForResult(tctx)
	if err != nil {
		var te task.Error
		if errors.As(err, &te) { // the task ended in an error: nothing created
			tr.do(func() { delete(tr.pending, name) })
		}
		return none, err
	}
	ref, isRef := info.Result.(types.ManagedObjectReference)
	tr.do(func() {
		delete(tr.pending, name)
		if isRef {
			tr.vms[name] = ref
		}
	})
	if !isRef {
		return none, fmt.Errorf("clone task returned %T, not a VM reference", info.Result)
	}
	return ref, nil
}

// reconfigure gives the cloned VM vm, named name, on ds its layout (CPUs,
// memory, disks, network; see configSpec) in one reconfigure task and
// returns where each of the layout's disks went, in layout order, for
// readBack.
func (s *Session) reconfigure(tctx context.Context, p *plan, vm *object.VirtualMachine, name string, ds *object.Datastore, say func(string, ...any)) ([]diskSlot, error) {
	var m mo.VirtualMachine
	if err := s.Client.RetrieveOne(tctx, vm.Reference(), []string{"config.hardware.device", "config.files.vmPathName"}, &m); err != nil {
		return nil, err
	}
	if m.Config == nil {
		return nil, errors.New("the clone has no configuration")
	}
	cs, slots, err := p.configSpec(object.VirtualDeviceList(m.Config.Hardware.Device), m.Config.Files.VmPathName, ds, name)
	if err != nil {
		return nil, err
	}
	say("%s: reconfiguring: %d vCPU, %d MB memory%s, %s", name, p.spec.Layout.NumCPU, p.spec.Layout.MemoryMB, p.optionSummary(), p.diskSummary())
	if err := wait(tctx, func() (*object.Task, error) { return vm.Reconfigure(tctx, cs) }); err != nil {
		return nil, err
	}
	return slots, nil
}

// IPTimeoutError is the error of step StepWaitIP when a VM reported no
// IPv4 address within Timeout.
type IPTimeoutError struct {
	VM      string // set by Provision; the StepError names it too
	Timeout time.Duration
}

func (e *IPTimeoutError) Error() string {
	return fmt.Sprintf("no IPv4 address after %s (is VMware Tools running, and does the VM's management network hand out addresses?)", e.Timeout)
}

// waitIP polls guest.ipAddress until it holds an IPv4 address, timeout
// passes (an *IPTimeoutError) or ctx ends: first after 50 ms, the wait
// doubling up to ipPoll. guest.ipAddress is the address VMware Tools
// reports for the guest's primary interface, the management NIC the
// harness reaches the VM by; benchmark networks on other NICs (often
// without DHCP) are not waited for, as govc's vm.ip -n would be for all
// of them. Polling, rather than a property-collector wait, leaves nothing
// running on the server when the caller gives up.
func (s *Session) waitIP(ctx context.Context, ref types.ManagedObjectReference, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	poll := 50 * time.Millisecond
	for {
		var m mo.VirtualMachine
		if err := s.Client.RetrieveOne(ctx, ref, []string{"guest.ipAddress"}, &m); err != nil {
			return "", err
		}
		if m.Guest != nil {
			if ip := net.ParseIP(m.Guest.IpAddress); ip != nil && ip.To4() != nil {
				return m.Guest.IpAddress, nil
			}
		}
		left := time.Until(deadline)
		if left <= 0 {
			return "", &IPTimeoutError{Timeout: timeout}
		}
		select {
		case <-time.After(min(poll, left)):
		case <-ctx.Done():
			return "", ctx.Err()
		}
		poll = min(2*poll, ipPoll)
	}
}

func wait(ctx context.Context, start func() (*object.Task, error)) error {
	t, err := start()
	if err != nil {
		return err
	}
	return t.Wait(ctx)
}

// sortVMs orders VMs by name.
func sortVMs(l []VM) { sort.Slice(l, func(i, j int) bool { return l[i].Name < l[j].Name }) }
