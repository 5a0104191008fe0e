package rundir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"vmbench/internal/atomicfile"
	"vmbench/internal/boundedread"
	"vmbench/scenarios/spec"
)

// RunFile is the file of a results directory that records how its
// campaign ran (RunInfo), beside campaign.yaml or suite.yaml.
const RunFile = "run.json"

// RunKind is what ran in a results directory, run.json's "kind"
// (RunInfo.Kind): VMCampaignKind or SuiteRunKind.
type RunKind string

// The kinds of run.
const (
	// VMCampaignKind is an OLTP campaign in VMs (campaign.yaml,
	// vms/<vm>.json, merged.json).
	VMCampaignKind RunKind = "vm-campaign"
	// SuiteRunKind is a block suite (suite.yaml and the tool's files per
	// profile): its file's kind, spec.SuiteKind.
	SuiteRunKind = RunKind(spec.SuiteKind)
)

// Valid says k is VMCampaignKind or SuiteRunKind.
func (k RunKind) Valid() bool { return k == VMCampaignKind || k == SuiteRunKind }

// RunInfoVersion is the version of run.json this vmbench writes and the
// newest it reads. Version 2 added Overhead, version 3 VMs, version 4 a
// resumed campaign's processes in Overhead and a simulated campaign's
// VSphere; older files read as they are, without them.
const RunInfoVersion = 4

// RunInfo is run.json: what a results directory's reports show that its
// other files do not hold, written when the campaign starts, so that
// Render never asks the environment (the clock, the build, the flags).
type RunInfo struct {
	// Version is RunInfoVersion.
	Version int `json:"version"`
	// Kind is VMCampaignKind or SuiteRunKind.
	Kind RunKind `json:"kind"`
	// VMBench is the version of the vmbench that ran the campaign.
	VMBench string `json:"vmbench"`
	// Started is when a block suite started (its report shows it); a VM
	// campaign leaves it unset (its id holds the second it started).
	Started time.Time `json:"started,omitzero"`
	// Simulated says the campaign ran with --simulate.
	Simulated bool `json:"simulated,omitempty"`
	// VSphere is, for a simulated VM campaign whose VMs were on a
	// vSphere given with --url (a vcsim of one's own, a lab vCenter), its
	// URL without credentials; empty for the in-process simulator.
	VSphere string `json:"vsphere,omitempty"`
	// Databases says, for a simulated VM campaign, where each VM's
	// database was ("an embedded SQLite database per VM", "a database per
	// VM on mysql root@127.0.0.1:3306/"), never with a password.
	Databases string `json:"databases,omitempty"`
	// Completed says a VM campaign ran to its end: run.json is rewritten
	// with it set once merged.json is written, so that a complete
	// directory without merged.json is known to be damaged.
	Completed bool `json:"completed,omitempty"`
	// Overhead is, for a VM campaign, the wall time of each of its steps
	// and how much of it was not the workload's window (precondition and
	// measure), recorded once teardown ended; nil in a directory whose
	// campaign is running or was killed, or from before version 2.
	Overhead *Overhead `json:"overhead,omitempty"`
	// VMs are a VM campaign's VMs as vSphere reported them once
	// provisioned (host, datastore, configuration, disks), with the ones
	// left out of the measurement; nil before version 3 and for a
	// campaign that stopped before provisioning ended.
	VMs []VMRecord `json:"vms,omitempty"`
	// DataSet is the key of the pre-built data set restored into every
	// VM (data.source: prebuilt); nil when each VM loaded its data.
	DataSet *DataKey `json:"data_set,omitempty"`
	// Checks are the workload's consistency checks on every VM's
	// database after the run, one verdict per VM (their output in
	// checks/<vm>.txt); absent for a tool without checks.
	Checks []CheckVerdict `json:"checks,omitempty"`
}

// VMRecord is one VM of a campaign as read back from vSphere after
// provisioning (and checked against the layout then).
type VMRecord struct {
	Name      string `json:"name"`
	MoRef     string `json:"moref"`
	Host      string `json:"host,omitempty"`
	Datastore string `json:"datastore"`
	IP        string `json:"ip,omitempty"`
	// Config is the VM's vCPU, memory, reservation and latency sensitivity.
	Config VMConfig `json:"config"`
	// Disks are its vDisks in layout order, the boot disk first.
	Disks []Disk `json:"disks"`
	// LeftOut says why the VM was not measured (vms.on-ip-timeout:
	// continue and no IP in time); empty for a measured VM.
	LeftOut string `json:"left_out,omitempty"`
}

// VMConfig is a VM's configuration as vSphere reported it once
// provisioned: the record of a vsphere.VMConfig, to which it converts
// (the same fields; a test of the campaign engine pins the JSON).
type VMConfig struct {
	// NumCPU is the number of vCPUs; CoresPerSocket how many share a socket.
	NumCPU         int32 `json:"vcpu"`
	CoresPerSocket int32 `json:"cores_per_socket"`
	// MemoryMB is the configured memory and MemoryReservationMB its
	// reservation, in MiB; MemoryReservationLocked is vSphere's
	// memoryReservationLockedToMax.
	MemoryMB                int64 `json:"memory_mb"`
	MemoryReservationMB     int64 `json:"memory_reservation_mb"`
	MemoryReservationLocked bool  `json:"memory_reservation_locked,omitempty"`
	// LatencySensitivity is the level (normal, high, ...).
	LatencySensitivity string `json:"latency_sensitivity"`
}

// Disk is one of a VM's vDisks as vSphere reported it once provisioned:
// the record of a vsphere.Disk (the same fields and JSON, pinned by a
// test of the campaign engine).
type Disk struct {
	// Name is the layout's vDisk name ("boot" for the first).
	Name string `json:"name"`
	// Bus and Unit are the disk's SCSI address: the controller's bus
	// number (-1 for a boot disk on a SATA or NVMe controller) and the
	// unit on it.
	Bus  int32 `json:"bus"`
	Unit int32 `json:"unit"`
	// CapacityBytes is the capacity in bytes.
	CapacityBytes int64 `json:"capacity_bytes"`
	// UUID is the disk backing's uuid as vSphere reports it; empty when
	// the backing has none.
	UUID string `json:"uuid,omitempty"`
	// Datastore is the name of the datastore that holds the disk's file.
	Datastore string `json:"datastore"`
	// Provisioning is thin, thick or eagerZeroedThick.
	Provisioning string `json:"provisioning"`
	// Controller is the controller's type as govmomi names it
	// (lsilogic-sas, pvscsi, ...; ahci or nvme for a boot disk).
	Controller string `json:"controller,omitempty"`
}

// LeftOut returns the names of ri's VMs that were not measured, with why.
func (ri *RunInfo) LeftOut() []string {
	var out []string
	for _, vm := range ri.VMs {
		if vm.LeftOut != "" {
			out = append(out, vm.Name+" ("+vm.LeftOut+")")
		}
	}
	return out
}

// WriteRunInfo writes ri, with its version, as dir/run.json, atomically.
func WriteRunInfo(dir string, ri RunInfo) error {
	ri.Version = RunInfoVersion
	b, err := json.MarshalIndent(ri, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, RunFile), append(b, '\n'))
}

// maxRunInfoSize bounds run.json as ReadRunInfo reads it: 4 MiB. A
// simulated 4-VM campaign's is 7.7 KiB, about 1.2 KiB per VM, so one of
// MaxVMs (256) VMs is about 0.3 MiB.
const maxRunInfoSize = 4 << 20

// ReadRunInfo reads dir/run.json strictly: a regular file of at most
// maxRunInfoSize bytes (boundedread). A newer version is refused by its
// version, not by the first field this reader does not know.
func ReadRunInfo(dir string) (*RunInfo, error) {
	path := filepath.Join(dir, RunFile)
	b, err := boundedread.ReadFile(path, maxRunInfoSize)
	if err != nil {
		return nil, err
	}
	var ri RunInfo // leniently first, for the version
	if err := json.Unmarshal(b, &ri); err != nil {
		return nil, fmt.Errorf("%s: not a vmbench run record: %w", path, err)
	}
	if ri.Version < 1 || ri.Version > RunInfoVersion {
		newer := ""
		if ri.Version > RunInfoVersion {
			newer = "; a newer vmbench wrote it"
		}
		return nil, fmt.Errorf("%s: version %d is not supported (this vmbench reads versions 1 to %d%s)", path, ri.Version, RunInfoVersion, newer)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&RunInfo{}); err != nil {
		return nil, fmt.Errorf("%s: not a vmbench run record: %w", path, err)
	}
	if !ri.Kind.Valid() {
		return nil, fmt.Errorf("%s: kind %q is not known (valid: %s, %s)", path, ri.Kind, VMCampaignKind, SuiteRunKind)
	}
	return &ri, nil
}

// ChecksDir is the results directory's folder of the checks' output, one
// <vm>.txt per VM.
const ChecksDir = "checks"

// CheckVerdict is one VM's consistency checks after the run, as run.json
// records them (RunInfo.Checks).
type CheckVerdict struct {
	VM     string `json:"vm"`
	Passed bool   `json:"passed"`
	// Error says what failed, or why the checks could not run.
	Error string `json:"error,omitempty"`
}
