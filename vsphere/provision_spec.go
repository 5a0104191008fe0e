package vsphere

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"time"
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
	// GuestInfo are values every VM's guest can read: each key k becomes
	// the VM's ExtraConfig guestinfo.k (VMware's guest-information
	// channel: `vmware-rpctool "info-get guestinfo.k"` in a guest with
	// VMware Tools, cloud-init's VMware datasource; vcsim passes them to a
	// container-backed guest as the variable VMX_GUESTINFO_K, upper case
	// with '.' and '-' as '_', and a value that reaches the host's shell
	// unquoted there: give it base64 characters only, as vmbench's guest
	// image expects). Keys are letters, digits, '.', '_' and '-'; values
	// are visible to anyone who can read the VM's configuration, so never
	// a password a real guest keeps.
	GuestInfo map[string]string
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
	// guestInfoKeyRe are the keys ProvisionSpec.GuestInfo takes.
	guestInfoKeyRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
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
	for k := range p.GuestInfo {
		if !guestInfoKeyRe.MatchString(k) {
			errs = append(errs, fmt.Errorf("guestinfo key %q: use letters, digits, '.', '_' or '-'", k))
		}
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
