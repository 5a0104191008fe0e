package vsphere

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"regexp"
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

// ProvisionSpec says what Provision creates.
type ProvisionSpec struct {
	// CampaignID tags every VM (KeyCampaign); required. Letters, digits,
	// '.', '_' and '-', at most 64 characters. See NewCampaignID.
	CampaignID string
	// Layout is the role's VM shape (LayoutFor).
	Layout Layout
	// Count is the number of VMs (4, 8 or 16 in the reviews).
	Count int
	// NamePrefix names the VMs <prefix>-01 .. <prefix>-NN; default
	// "vmbench-<role>".
	NamePrefix string
	// Template is the template (or VM) to clone; required.
	Template string
	// Datastores receive the VMs round-robin: VM i (from 0) and all its
	// disks go on Datastores[i % len], so 16 VMs on 8 datastores are two per
	// datastore. Required; no duplicates.
	Datastores []string
	// ResourcePool and Folder place the VMs; empty means the default pool
	// and the datacenter's vm folder.
	ResourcePool, Folder string
	// Hosts, when set, pins the VMs to ESXi hosts round-robin: VM i (from
	// 0) on Hosts[i % len]. Each must be a connected host of the resource
	// pool's compute resource, out of maintenance, that mounts the VM's
	// datastore. Empty lets vSphere place them (DRS in a cluster); the
	// host is read back either way.
	Hosts []string
	// Network, when set, becomes the backing of each VM's first NIC.
	Network string
	// Parallel bounds how many VMs are provisioned at once (default 4).
	Parallel int
	// PowerOn powers the VMs on and waits for each one's IPv4 address.
	PowerOn bool
	// IPTimeout bounds the wait for an IP per VM (default 10 minutes).
	IPTimeout time.Duration
	// KeepGoingWithoutIP, when a VM reports no IP within IPTimeout,
	// returns that VM with its IPErr set instead of failing Provision
	// (and removing every VM): the other VMs go on. It stays powered on
	// and is removed with the campaign's others.
	KeepGoingWithoutIP bool
	// SimulatedIP, when set, is given to every VM through vcsim's extraConfig
	// hook SET.guest.ipAddress, so simulated VMs report an IP (127.0.0.1
	// when the simulated databases are local). Only vcsim understands it;
	// leave it empty on real vSphere.
	SimulatedIP string
	// OnStep, when set, is called after each step of each VM that
	// succeeded, with the step's name (StepDatastoreSlot, StepClone,
	// StepReconfigure, StepPowerOn, StepWaitIP) and how long it took by
	// Clock. It is called from several goroutines at once.
	OnStep func(vm, step string, took time.Duration)
	// Clock reads the time OnStep's durations are measured with (default
	// time.Now; tests give a clock of their own).
	Clock func() time.Time
	// Restore, when set, replaces a vDisk of every VM with a copy of a
	// pre-built data set on its datastore (RestoreDisk) between the
	// reconfigure and the power-on (StepRestore).
	Restore *DiskRestore

	// taskContext makes the context of one VM's vSphere calls and task
	// waits from the caller's context stripped of its cancellation; by
	// default it has a deadline taskTimeout away. settled returns when
	// teardown may look among the template's tasks for clone requests
	// whose reply was lost (network error, timeout), or when ctx ends; by
	// default after defaultSettle. Tests replace both to choose when a
	// call gives up and when its lost clone has shown up.
	taskContext func(context.Context) (context.Context, context.CancelFunc)
	settled     func(ctx context.Context)
}

// VM is one provisioned VM as Provision returns it and List finds it.
type VM struct {
	Name string
	// MoRef is the managed object id, e.g. "vm-42" (accepted by govc -vm).
	MoRef string
	// Datastore holds the VM's home directory (and, as provisioned, its disks).
	Datastore string
	// IP is the guest's IPv4 address when known.
	IP         string
	Role       string
	CampaignID string
	// PowerState is poweredOn, poweredOff or suspended.
	PowerState string
	// Created is the KeyCreated time (zero when absent or unparsable).
	Created time.Time
	// Harness is the KeyHarness tag: the host name of the machine whose
	// vmbench created the VM (empty on VMs made before the tag existed).
	Harness string
	// Disks are the VM's vDisks in layout order (Disks[0] the boot disk),
	// read back from vSphere once provisioned: SCSI bus and unit,
	// controller type, capacity, backing UUID, datastore and
	// provisioning. Provision fills it; List leaves it nil.
	Disks []Disk
	// Host is the name of the ESXi host the VM runs on, read back once
	// provisioned (empty for a VM never powered on).
	Host string
	// IPErr is set (an *IPTimeoutError) on a VM that reported no IP in
	// time when ProvisionSpec.KeepGoingWithoutIP: it has no IP and must
	// not be given work.
	IPErr error
	// Config is the VM's CPU, memory, reservation and latency
	// sensitivity, read back once provisioned. Provision fills it (and
	// has checked it against the layout); List leaves it zero.
	Config VMConfig
}

// Names of the steps of one VM's provisioning, as StepError and
// ProvisionSpec.OnStep name them.
const (
	StepDatastoreSlot = "wait for datastore"
	StepClone         = "clone"
	StepReconfigure   = "reconfigure"
	// StepRestore ("restore data") is declared in dataset.go.
	StepPowerOn = "power on"
	StepVerify  = "verify placement"
	StepWaitIP  = "wait for IP"
)

// StepError is the error Provision returns when a step of one VM fails:
// it names the VM and the step (clone, reconfigure, power on, wait for IP).
// Unwrap gives the vSphere error (fault.Is / fault.As work through it).
type StepError struct {
	VM   string
	Step string
	Err  error
}

func (e *StepError) Error() string { return fmt.Sprintf("vm %s: %s: %v", e.VM, e.Step, e.Err) }
func (e *StepError) Unwrap() error { return e.Err }

var (
	campaignRe   = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
	namePrefixRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// ValidCampaignID returns an error unless id is 1-64 letters, digits, '.',
// '_' or '-' (so it is safe in extraConfig, annotations and file names).
func ValidCampaignID(id string) error {
	if !campaignRe.MatchString(id) {
		return fmt.Errorf("campaign id %q: use 1-64 letters, digits, '.', '_' or '-'", id)
	}
	return nil
}

// NewCampaignID returns an id like "vmbench-20260102-150405-a1b2" for now.
func NewCampaignID(now time.Time) string {
	return "vmbench-" + now.UTC().Format("20060102-150405") + "-" + randomHex(2)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// withTaskTimeout is the default taskContext: a deadline taskTimeout away.
func withTaskTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, taskTimeout)
}

// settle is the default settled: it returns after defaultSettle, or
// sooner when ctx ends.
func settle(ctx context.Context) {
	select {
	case <-time.After(defaultSettle):
	case <-ctx.Done():
	}
}

// withDefaults fills NamePrefix, Parallel, IPTimeout, Clock and the
// test hooks taskContext and settled.
func (p ProvisionSpec) withDefaults() ProvisionSpec {
	if p.NamePrefix == "" {
		p.NamePrefix = "vmbench-" + p.Layout.Role
	}
	if p.Parallel <= 0 {
		p.Parallel = DefaultParallel
	}
	if p.IPTimeout <= 0 {
		p.IPTimeout = DefaultIPTimeout
	}
	if p.taskContext == nil {
		p.taskContext = withTaskTimeout
	}
	if p.settled == nil {
		p.settled = settle
	}
	if p.Clock == nil {
		p.Clock = time.Now
	}
	return p
}

// Validate checks the spec (and its layout) without calling vSphere and
// reports every problem.
func (p ProvisionSpec) Validate() error {
	p = p.withDefaults()
	var errs []error
	if err := ValidCampaignID(p.CampaignID); err != nil {
		errs = append(errs, err)
	}
	if err := p.Layout.Validate(); err != nil {
		errs = append(errs, err)
	}
	if p.Count < 1 {
		errs = append(errs, fmt.Errorf("count is %d, must be at least 1", p.Count))
	}
	if p.Template == "" {
		errs = append(errs, errors.New("no template: name the template to clone (--template)"))
	}
	if len(p.Datastores) == 0 {
		errs = append(errs, fmt.Errorf("no datastore: name at least one (--ds or %s)", EnvDatastore))
	}
	for what, l := range map[string][]string{"datastore": p.Datastores, "host": p.Hosts} {
		seen := map[string]bool{}
		for _, d := range l {
			if seen[d] {
				errs = append(errs, fmt.Errorf("%s %q is listed twice", what, d))
			}
			seen[d] = true
		}
	}
	if err := p.Restore.validate(p.Layout); err != nil {
		errs = append(errs, err)
	}
	if p.NamePrefix != "" && !namePrefixRe.MatchString(p.NamePrefix) {
		errs = append(errs, fmt.Errorf("VM name prefix %q: use letters, digits, '.', '_' or '-', starting with a letter or digit (it names VMs and their datastore directories)", p.NamePrefix))
	}
	if names := p.VMNames(); len(names) > 0 && len(names[len(names)-1]) > 80 {
		errs = append(errs, fmt.Errorf("VM name %q is longer than vSphere's 80 characters", names[len(names)-1]))
	}
	return errors.Join(errs...)
}

// VMNames returns the names Provision gives the VMs: <prefix>-01 .. -NN.
func (p ProvisionSpec) VMNames() []string {
	p = p.withDefaults()
	out := make([]string, max(p.Count, 0))
	for i := range out {
		out[i] = fmt.Sprintf("%s-%02d", p.NamePrefix, i+1)
	}
	return out
}

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
