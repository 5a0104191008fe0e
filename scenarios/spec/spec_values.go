package spec

import (
	"regexp"
	"time"
)

// Driver is where a campaign's workload driver runs: DriverHarness or
// DriverGuest. It is written as the campaign file's driver: and
// simulate.driver: (Campaign.Driver, Sim.Driver; "" is the default,
// harness), given as --driver (Options.Driver in package scenarios), and
// recorded as each Result's "driver" label.
type Driver string

// The drivers.
const (
	// DriverHarness runs every VM's workload in this process, against the
	// VM's database over the network.
	DriverHarness Driver = "harness"
	// DriverGuest runs it inside each VM's guest: the vmbench agent,
	// uploaded and started through a target.Target (a local directory per
	// VM in simulation), writes its intervals and Result to files that the
	// campaign reads back.
	DriverGuest Driver = "guest"
)

// Valid says d is a driver: DriverHarness, DriverGuest, or "" (the
// default, harness).
func (d Driver) Valid() bool { return d == "" || d == DriverHarness || d == DriverGuest }

// DefaultMaxClockOffset is how far a guest's clock may be from the
// harness's before a guest-driven campaign refuses to start
// (guest.max-clock-offset): a common start is only common within it.
const DefaultMaxClockOffset = 50 * time.Millisecond

// GuestVia is how a real campaign reaches each guest: GuestViaSSH or
// GuestViaTools. It is written as the campaign file's guest.via: (and a
// block suite's; Guest.Via), "" being the default, ssh.
type GuestVia string

// The ways to reach a guest.
const (
	// GuestViaSSH reaches it by SSH at the IP VMware Tools reports.
	GuestViaSSH GuestVia = "ssh"
	// GuestViaTools reaches it through VMware Tools guest operations
	// (vsphere/guest), through vCenter: no network path to the guest,
	// Windows guests included.
	GuestViaTools GuestVia = "tools"
)

// Valid says v is a way to reach a guest: GuestViaSSH, GuestViaTools,
// or "" (the default, ssh).
func (v GuestVia) Valid() bool { return v == "" || v == GuestViaSSH || v == GuestViaTools }

// Defaults of the vms: block, as the provisioning (package vsphere)
// applies them to a zero value; a test of the campaign engine pins them
// equal to vsphere's.
const (
	// DefaultParallel is vms.parallel's default: clones at once.
	DefaultParallel = 4
	// DefaultIPTimeout is vms.ip-timeout's default: how long a VM may
	// take to report an IP through VMware Tools (HCIBench gives 600 s).
	DefaultIPTimeout = 10 * time.Minute
)

// LatencySensitivity is each VM's latency sensitivity: LatencyNormal or
// LatencyHigh (vSphere's levels; the same as package vsphere's, which a
// test of the campaign engine pins), written as the campaign file's
// vms.latency-sensitivity: (VMs.LatencySensitivity; "" is the default,
// normal).
type LatencySensitivity string

// The latency sensitivities.
const (
	LatencyNormal LatencySensitivity = "normal"
	LatencyHigh   LatencySensitivity = "high"
)

// DataSource is where each VM's data comes from: DataLoad or
// DataPrebuilt, written as the campaign file's data.source: (Data.Source;
// "" is the default, load).
type DataSource string

// The data sources.
const (
	DataLoad     DataSource = "load"
	DataPrebuilt DataSource = "prebuilt"
)

// Valid says d is a data source: DataLoad, DataPrebuilt, or "" (the
// default, load).
func (d DataSource) Valid() bool { return d == "" || d == DataLoad || d == DataPrebuilt }

// OnIPTimeout is what a VM without an IP after vms.ip-timeout does to the
// campaign: OnIPTimeoutStop or OnIPTimeoutContinue, written as the
// campaign file's vms.on-ip-timeout: (VMs.OnIPTimeout; "" is the default,
// stop).
type OnIPTimeout string

// The policies of a VM without an IP.
const (
	OnIPTimeoutStop     OnIPTimeout = "stop"
	OnIPTimeoutContinue OnIPTimeout = "continue"
)

// Valid says o is a policy: OnIPTimeoutStop, OnIPTimeoutContinue, or ""
// (the default, stop).
func (o OnIPTimeout) Valid() bool { return o == "" || o == OnIPTimeoutStop || o == OnIPTimeoutContinue }

// MemoryReservation is how much of each VM's memory is reserved:
// ReserveFull or ReserveNone, written as the campaign file's
// vms.memory-reservation: (VMs.MemoryReservation; "" is the default,
// none).
type MemoryReservation string

// The memory reservations.
const (
	ReserveFull MemoryReservation = "full"
	ReserveNone MemoryReservation = "none"
)

// Valid says m is a memory reservation: ReserveFull, ReserveNone, or ""
// (the default, none).
func (m MemoryReservation) Valid() bool { return m == "" || m == ReserveFull || m == ReserveNone }

// EnvGuestLogin is the environment variable govc reads a guest login
// from (user:password), which guest.via: tools falls back on; the same
// as package vsphere/guest's, which a test of the campaign engine pins.
const EnvGuestLogin = "GOVC_GUEST_LOGIN"

// windowsDir is an absolute Windows directory (C:\vmbench, D:/x).
var windowsDir = regexp.MustCompile(`^[A-Za-z]:[\\/]`)

// WindowsDir says guest.dir is a Windows directory (C:\vmbench, D:/x),
// which is joined with a backslash and reached with guest.via: tools.
func (g *Guest) WindowsDir() bool { return windowsDir.MatchString(g.Dir) }

// DataDir is the campaign's data set directory (data.dir, default
// "data").
func (s *Campaign) DataDir() string {
	if s.Data != nil && s.Data.Dir != "" {
		return s.Data.Dir
	}
	return "data"
}

// Prebuilt says the campaign restores a pre-built data set instead of
// loading its data (data.source: prebuilt).
func (s *Campaign) Prebuilt() bool { return s.Data != nil && s.Data.Source == DataPrebuilt }
