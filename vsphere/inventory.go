package vsphere

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
	"golang.org/x/sync/errgroup"
)

// VMInfo is what Inspect reads back from a VM.
type VMInfo struct {
	Name  string
	MoRef string
	// NumCPU is the vCPU count; CoresPerSocket how they are grouped.
	NumCPU         int32
	CoresPerSocket int32
	// MemoryMB is the configured memory in MiB.
	MemoryMB int64
	// Controllers are the disk controllers' types in key order, as govc
	// names them: "lsilogic-sas", "pvscsi", "lsilogic", "buslogic", "nvme", "ahci".
	Controllers []string
	// Disks in controller-key then unit order; Disks[0] is the boot disk.
	Disks []DiskInfo
	// Datastore holds the VM's home directory.
	Datastore  string
	PowerState string
	IP         string
	CampaignID string
	Role       string
	Created    time.Time
}

// DiskInfo is one vDisk of a VM.
type DiskInfo struct {
	// SizeGB is the capacity in GiB (rounded down).
	SizeGB       int64
	Provisioning Provisioning
	// Datastore is the datastore of the disk's file.
	Datastore string
	// Controller is the type of the controller the disk is on; Bus its bus
	// number (-1 if not SCSI) and Unit the disk's unit on it.
	Controller string
	Bus        int32
	Unit       int32
	// File is the datastore path, "[ds] dir/name.vmdk".
	File string
}

// vmProps are the properties List reads for every VM of the datacenter.
var vmProps = []string{"name", "config.extraConfig", "config.template", "runtime.powerState", "guest.ipAddress", "summary.config.vmPathName"}

// List returns the VMs of the session's datacenter that carry campaign id
// campaignID in extraConfig (KeyCampaign), in name order; campaignID ""
// returns every VM carrying any vmbench campaign id (to find leftovers).
// Templates are never listed.
func (s *Session) List(ctx context.Context, campaignID string) ([]VM, error) {
	return s.list(ctx, func(e map[string]string) bool {
		id, ok := e[KeyCampaign]
		return ok && id != "" && (campaignID == "" || id == campaignID)
	})
}

// list returns the non-template VMs whose extraConfig satisfies keep.
func (s *Session) list(ctx context.Context, keep func(map[string]string) bool) ([]VM, error) {
	v, err := view.NewManager(s.Client.Client).CreateContainerView(ctx, s.Datacenter.Reference(), []string{"VirtualMachine"}, true)
	if err != nil {
		return nil, s.cfg.redact(err)
	}
	defer func() { _ = v.Destroy(context.WithoutCancel(ctx)) }()
	var all []mo.VirtualMachine
	if err := v.Retrieve(ctx, []string{"VirtualMachine"}, vmProps, &all); err != nil {
		return nil, s.cfg.redact(err)
	}
	var out []VM
	for _, m := range all {
		if m.Config == nil || m.Config.Template {
			continue
		}
		e := extraConfig(m.Config.ExtraConfig)
		if !keep(e) {
			continue
		}
		out = append(out, vmFromMO(m, e))
	}
	sortVMs(out)
	return out, nil
}

func vmFromMO(m mo.VirtualMachine, e map[string]string) VM {
	vm := VM{
		Name:       m.Name,
		MoRef:      m.Self.Value,
		Role:       e[KeyRole],
		CampaignID: e[KeyCampaign],
		PowerState: string(m.Runtime.PowerState),
	}
	if m.Guest != nil {
		vm.IP = m.Guest.IpAddress
	}
	if m.Summary.Config.VmPathName != "" {
		vm.Datastore = datastoreOf(m.Summary.Config.VmPathName)
	}
	vm.Created, _ = time.Parse(time.RFC3339, e[KeyCreated])
	vm.Harness = e[KeyHarness]
	return vm
}

func extraConfig(opts []types.BaseOptionValue) map[string]string {
	e := make(map[string]string, len(opts))
	for _, o := range opts {
		if ov := o.GetOptionValue(); ov != nil {
			if s, ok := ov.Value.(string); ok {
				e[ov.Key] = s
			}
		}
	}
	return e
}

// datastoreOf returns the datastore name of a "[ds] path" datastore path.
func datastoreOf(p string) string {
	var dp object.DatastorePath
	if dp.FromString(p) {
		return dp.Datastore
	}
	return ""
}

// Destroy powers off (when on) and destroys every VM carrying campaign id
// campaignID, at most DefaultParallel (or SetParallel's bound) at a time, and nothing else: not
// other campaigns' VMs, not untagged VMs, not templates. An empty or
// malformed campaignID is an error (it would match too much). It returns
// how many VMs are gone and the joined errors of those that are not.
// progress (may be nil) gets one line per VM, one call at a time.
func (s *Session) Destroy(ctx context.Context, campaignID string, progress func(string)) (int, error) {
	return s.destroyMatching(ctx, campaignID, nil, progress)
}

// target is a VM to destroy: its name (for messages) and home datastore.
type target struct{ name, datastore string }

// destroyRefs powers off and destroys the VMs: datastores in parallel (at
// most the session's SetParallel, default DefaultParallel), the VMs of one datastore one after another, so
// deletes do not compete on a device (and vcsim, which races on concurrent
// file operations on one datastore, stays consistent). Transient and
// power-state faults are retried (a power-on may still be running). A VM
// already gone (ManagedObjectNotFound: another client destroyed it) counts
// as removed, and so does one whose files are gone (FileNotFound; see
// forgetFileless), so running it twice, or beside another client's
// destroy, is not an error.
func (s *Session) destroyRefs(ctx context.Context, refs map[types.ManagedObjectReference]target, say func(string, ...any)) (int, error) {
	return s.destroyRefsLimit(ctx, refs, s.parallel, say)
}

// destroyRefsLimit is destroyRefs with at most limit datastores' VMs
// destroyed at once (limit <= 0: DefaultParallel): one task in flight per
// datastore, so at most limit vSphere tasks in all.
func (s *Session) destroyRefsLimit(ctx context.Context, refs map[types.ManagedObjectReference]target, limit int, say func(string, ...any)) (int, error) {
	byDS := map[string][]types.ManagedObjectReference{}
	for ref, t := range refs {
		byDS[t.datastore] = append(byDS[t.datastore], ref)
	}
	var (
		mu   sync.Mutex
		n    int
		errs []error
		g    errgroup.Group
	)
	if limit <= 0 {
		limit = DefaultParallel
	}
	g.SetLimit(limit)
	if s.stop != nil {
		// An in-process vcsim: one VM at a time. A VM's disks may sit on
		// another VM's datastore (the template's), and vcsim's unlocked
		// file deletion after a destroy (see simulatedVMDir) would race
		// with a destroy on any datastore it touches.
		g.SetLimit(1)
	}
	for _, group := range byDS {
		sort.Slice(group, func(i, j int) bool { return refs[group[i]].name < refs[group[j]].name })
		g.Go(func() error {
			for _, ref := range group {
				name := refs[ref].name
				err := s.destroyOne(ctx, object.NewVirtualMachine(s.Client.Client, ref))
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("vm %s: destroy: %w", name, s.cfg.redact(err)))
				} else {
					n++
					say("%s: destroyed", name)
				}
				mu.Unlock()
			}
			return nil
		})
	}
	_ = g.Wait()
	return n, errors.Join(errs...)
}

// destroyAttempts bounds the tries of destroying one VM (a transient
// fault, a VM powered on again by another client); simDestroyAttempts
// on the in-process vcsim, where a container-backed VM's power state as
// destroy sees it can lag for up to its container watcher's 10 s
// inspect interval after the power-off (destroy then fails with
// InvalidPowerState while the VM reads powered off), about 14 s in all.
const (
	destroyAttempts    = 4
	simDestroyAttempts = 8
)

func (s *Session) destroyOne(ctx context.Context, vm *object.VirtualMachine) error {
	var err error
	attempts := destroyAttempts
	if s.stop != nil {
		attempts = simDestroyAttempts
	}
	for attempt := range attempts {
		if attempt > 0 {
			select {
			case <-time.After(time.Duration(attempt) * 500 * time.Millisecond):
			case <-ctx.Done():
				return errors.Join(err, ctx.Err())
			}
		}
		err = s.powerOffAndDestroy(ctx, vm)
		if err == nil || fault.Is(err, &types.ManagedObjectNotFound{}) {
			return nil // gone, by us or by another client
		}
		if fault.Is(err, &types.FileNotFound{}) {
			return s.forgetFileless(ctx, vm)
		}
		if !fault.IsTransientError(err) && !fault.Is(err, &types.InvalidPowerState{}) && !fault.Is(err, &types.InvalidState{}) {
			return err
		}
	}
	return err
}

// forgetFileless ends a destroy that failed with FileNotFound: the VM's
// files are gone already (another client deleted them, or the VM with
// them). A VM no longer registered counts as removed; one still
// registered is unregistered, which is all that is left of it.
func (s *Session) forgetFileless(ctx context.Context, vm *object.VirtualMachine) error {
	if _, err := vm.PowerState(ctx); fault.Is(err, &types.ManagedObjectNotFound{}) {
		return nil
	}
	if err := vm.Unregister(ctx); err != nil && !fault.Is(err, &types.ManagedObjectNotFound{}) {
		return fmt.Errorf("destroy found its files gone (FileNotFound); unregister: %w", err)
	}
	return nil
}

func (s *Session) powerOffAndDestroy(ctx context.Context, vm *object.VirtualMachine) error {
	state, err := vm.PowerState(ctx)
	if err != nil {
		return err
	}
	if state != types.VirtualMachinePowerStatePoweredOff {
		err := wait(ctx, func() (*object.Task, error) { return vm.PowerOff(ctx) })
		if err != nil && !fault.IsAlreadyPoweredOffError(err) {
			return fmt.Errorf("power off: %w", err)
		}
	}
	dir := s.simulatedVMDir(ctx, vm)
	if err := wait(ctx, func() (*object.Task, error) { return vm.Destroy(ctx) }); err != nil {
		return err
	}
	if err := waitGone(ctx, dir); err != nil {
		return err
	}
	s.waitSimTasks(ctx)
	return nil
}

// waitSimTasks waits, on an in-process simulator, until none of its recent
// tasks is queued or running (at most simDeleteWait): vcsim's own file
// deletion after a destroy is such a task, and it reads the datastore
// without its lock, so the next destroy must not start before it has
// ended (the race detector saw them overlap once the directory was gone).
// Reading the tasks' state goes through vcsim's locks, which orders the
// task's end before what follows. Elsewhere it returns at once.
func (s *Session) waitSimTasks(ctx context.Context) {
	if s.stop == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, simDeleteWait)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		var tm mo.TaskManager
		if err := s.Client.RetrieveOne(ctx, *s.Client.ServiceContent.TaskManager, []string{"recentTask"}, &tm); err != nil || len(tm.RecentTask) == 0 {
			return
		}
		var tasks []mo.Task
		if err := s.Client.Retrieve(ctx, tm.RecentTask, []string{"info.state"}, &tasks); err != nil {
			return
		}
		busy := false
		for _, t := range tasks {
			if st := t.Info.State; st == types.TaskInfoStateQueued || st == types.TaskInfoStateRunning {
				busy = true
			}
		}
		if !busy {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// simulatedVMDir returns, on an in-process simulator, the local directory
// that holds vm's files, and "" elsewhere (or when it cannot be read).
//
// vcsim's Destroy_Task deletes that directory in a task of its own that it
// does not wait for, and that task reads the datastore without taking its
// lock: the next destroy on the same datastore would race with it (go test
// -race reported it). A real vCenter deletes the files before the destroy
// task ends.
func (s *Session) simulatedVMDir(ctx context.Context, vm *object.VirtualMachine) string {
	if s.stop == nil {
		return ""
	}
	var m mo.VirtualMachine
	if err := s.Client.RetrieveOne(ctx, vm.Reference(), []string{"config.files.logDirectory"}, &m); err != nil || m.Config == nil {
		return ""
	}
	var p object.DatastorePath
	if !p.FromString(m.Config.Files.LogDirectory) || p.Path == "" {
		return ""
	}
	ds, err := s.Finder.Datastore(ctx, p.Datastore)
	if err != nil {
		return ""
	}
	var d mo.Datastore
	if err := s.Client.RetrieveOne(ctx, ds.Reference(), []string{"summary.url"}, &d); err != nil || d.Summary.Url == "" {
		return ""
	}
	return filepath.Join(d.Summary.Url, p.Path)
}

// waitGone waits until dir (a simulated VM's directory, see
// simulatedVMDir) no longer exists, at most simDeleteWait; "" returns at
// once.
func waitGone(ctx context.Context, dir string) error {
	if dir == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, simDeleteWait)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil // the directory stays: a leftover in the simulator's Home, removed with it
		case <-tick.C:
		}
	}
}

// simDeleteWait bounds waitGone.
const simDeleteWait = 10 * time.Second

// Inspect reads back one VM by name (or inventory path, or MoRef): vCPU,
// memory, disk controllers, disks with size, provisioning, datastore,
// controller and unit, power state, IP and campaign tags. A missing VM is
// an error naming it.
func (s *Session) Inspect(ctx context.Context, name string) (VMInfo, error) {
	obj, err := s.Finder.VirtualMachine(ctx, name)
	if err != nil {
		return VMInfo{}, s.notFound(ctx, "VM", name, err, nil)
	}
	var m mo.VirtualMachine
	props := []string{"name", "config.hardware", "config.extraConfig", "runtime.powerState", "guest.ipAddress", "summary.config.vmPathName"}
	if err := s.Client.RetrieveOne(ctx, obj.Reference(), props, &m); err != nil {
		return VMInfo{}, fmt.Errorf("inspect %s: %w", name, s.cfg.redact(err))
	}
	if m.Config == nil {
		return VMInfo{}, fmt.Errorf("inspect %s: the VM has no configuration (still being created?)", name)
	}
	e := extraConfig(m.Config.ExtraConfig)
	vm := vmFromMO(m, e)
	info := VMInfo{
		Name: m.Name, MoRef: m.Self.Value,
		NumCPU: m.Config.Hardware.NumCPU, CoresPerSocket: deref32(m.Config.Hardware.NumCoresPerSocket),
		MemoryMB:  int64(m.Config.Hardware.MemoryMB),
		Datastore: vm.Datastore, PowerState: vm.PowerState, IP: vm.IP,
		CampaignID: vm.CampaignID, Role: vm.Role, Created: vm.Created,
	}
	devices := object.VirtualDeviceList(m.Config.Hardware.Device)
	for _, d := range devices {
		switch d.(type) {
		case types.BaseVirtualSCSIController, *types.VirtualNVMEController, types.BaseVirtualSATAController:
			info.Controllers = append(info.Controllers, devices.Type(d))
		}
	}
	for _, disk := range vdisks(devices) {
		di := DiskInfo{SizeGB: disk.CapacityInBytes / bytesPerGB, Provisioning: provisioningOf(disk), Bus: -1, Unit: unitOf(disk.UnitNumber)}
		if disk.CapacityInBytes == 0 {
			di.SizeGB = disk.CapacityInKB / kbPerGB
		}
		if b, ok := disk.Backing.(types.BaseVirtualDeviceFileBackingInfo); ok {
			di.File = b.GetVirtualDeviceFileBackingInfo().FileName
			di.Datastore = datastoreOf(di.File)
		}
		if c := devices.FindByKey(disk.ControllerKey); c != nil {
			di.Controller = devices.Type(c)
			if scsi, ok := c.(types.BaseVirtualSCSIController); ok {
				di.Bus = scsi.GetVirtualSCSIController().BusNumber
			}
		}
		info.Disks = append(info.Disks, di)
	}
	return info, nil
}

// DiskSummary renders the disks as "92G thin (pvscsi:0) + 447G thick (lsilogic-sas:0) ...".
func (i VMInfo) DiskSummary() string {
	parts := make([]string, len(i.Disks))
	for k, d := range i.Disks {
		parts[k] = fmt.Sprintf("%dG %s (%s:%d)", d.SizeGB, d.Provisioning, d.Controller, d.Unit)
	}
	return strings.Join(parts, " + ")
}

func deref32(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}
