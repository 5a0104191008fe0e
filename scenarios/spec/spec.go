// Package spec reads vmbench's campaign files into typed values: a VM
// campaign (Campaign), a block suite (Suite) and a review (Review), each
// decoded strictly from YAML (an unknown key, a second document or a
// value yaml.v3 would bend is an error naming the file and line) and
// validated on its own. Errors found after decoding name the file and
// line too (Origin). Nothing here runs anything: no vSphere, no
// database, no results directory; the suite's profiles are checked
// through the workload registry (package workload), whose tools are the
// ones registered by the program's imports.
package spec

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"vmbench/internal/flagvalue"
)

// Campaign is a VM campaign file. Keys are strict: an unknown key is an error
// that names the file and line.
//
//	name: sysbench-8vm
//	description: ...
//	vms: {role: sysbench, count: 8, template: ..., datastores: [...]}
//	database: {driver: mysql, port: 3306, user: sbtest, password-env: ..., db: sbtest}
//	                  (or postgres, port 5432; or sqlserver)
//	workload: {tool: sysbench, name: oltp_read_write, flags: {tables: 100, ...}}
//	simulate: {vms: {count: 8}, workload: {flags: {tables: 4, ...}}}
type Campaign struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description,omitempty"`
	Source      string   `yaml:"source,omitempty"` // where the protocol comes from
	VMs         VMs      `yaml:"vms"`
	VSphere     VSphere  `yaml:"vsphere,omitempty"`
	Database    Database `yaml:"database"`
	Workload    Workload `yaml:"workload"`
	// Driver is where each VM's workload driver runs: "harness" (the
	// default: this host, over the network) or "guest" (the vmbench
	// agent inside each VM; in simulation a local agent process per VM).
	Driver Driver `yaml:"driver,omitempty"`
	Guest  *Guest `yaml:"guest,omitempty"`
	// Data says where each VM's data comes from: loaded by the workload's
	// prepare (the default) or restored from a pre-built data set.
	Data *Data `yaml:"data,omitempty"`
	// Hooks are commands run in every VM's guest at points of the
	// campaign (see Hooks).
	Hooks    *Hooks `yaml:"hooks,omitempty"`
	Simulate *Sim   `yaml:"simulate,omitempty"`

	// Origin is where the campaign was read from, for errors (the zero
	// Origin for a Campaign built in code).
	Origin Origin `yaml:"-"`
}

// VMs says which VMs to provision.
type VMs struct {
	Role       string   `yaml:"role"`                 // a vsphere layout: sysbench, sqlserver
	Count      int      `yaml:"count"`                // 4, 8 or 16 in the published protocol
	Template   string   `yaml:"template,omitempty"`   // template VM to clone (default: GOVC_VM-style env or --template)
	Datastores []string `yaml:"datastores,omitempty"` // VMs are spread evenly over these
	Parallel   int      `yaml:"parallel,omitempty"`   // clones at once (default 4)
	IPTimeout  Duration `yaml:"ip-timeout,omitempty"` // wait for VMware Tools to report an IP (default 10m)
	// OnIPTimeout is what a VM without an IP after ip-timeout does to the
	// campaign: "stop" (the default: nothing is measured, every VM is
	// removed) or "continue" (the others are measured; the review says
	// which VM was left out).
	OnIPTimeout OnIPTimeout `yaml:"on-ip-timeout,omitempty"`
	// Hosts pins the VMs to ESXi hosts, round-robin as datastores (default:
	// vSphere, or DRS, chooses); the host each VM ran on is read back and
	// recorded either way. In simulation they become the simulator's hosts.
	Hosts []string `yaml:"hosts,omitempty"`
	// MemoryReservation is "full" (reserve all of each VM's memory: no
	// ballooning, no swap file) or "none" (the default).
	MemoryReservation MemoryReservation `yaml:"memory-reservation,omitempty"`
	// LatencySensitivity is "normal" (the default) or "high" (needs
	// memory-reservation: full, as vSphere does).
	LatencySensitivity LatencySensitivity `yaml:"latency-sensitivity,omitempty"`
	// CoresPerSocket groups each VM's vCPUs into sockets (default: the
	// role's, one socket).
	CoresPerSocket int32 `yaml:"cores-per-socket,omitempty"`
}

// Data is the data: block of a campaign file.
type Data struct {
	// Source is DataLoad (the default: each VM's prepare loads the data)
	// or DataPrebuilt (each VM's database is restored from the data set
	// `vmbench campaign prepare-data` made, with the same key).
	Source DataSource `yaml:"source,omitempty"`
	// Dir holds the data sets' key files (and, for SQLite, their files);
	// default "data", relative to the working directory.
	Dir string `yaml:"dir,omitempty"`
	// Disk names the layout's vDisk that holds the database under test,
	// the one a data set is saved from and restored onto (default: the
	// role's, db-test for sysbench and data-log for sqlserver).
	Disk string `yaml:"disk,omitempty"`
}

// VSphere holds placement defaults; GOVC_* environment variables and
// command-line flags (--dc, --pool, --folder, --net) take precedence. The
// campaign.yaml of a results directory holds the placement as resolved
// (inventory paths), whatever set it.
type VSphere struct {
	Datacenter   string `yaml:"datacenter,omitempty"`
	ResourcePool string `yaml:"resource-pool,omitempty"`
	Folder       string `yaml:"folder,omitempty"`
	Network      string `yaml:"network,omitempty"` // each VM's first NIC (default: the template's)
}

// Database is how the driver reaches each VM's database when running
// against a real vCenter (host = the IP VMware Tools reports).
type Database struct {
	Driver      string `yaml:"driver"` // mysql, postgres or sqlserver
	Port        int    `yaml:"port,omitempty"`
	User        string `yaml:"user,omitempty"`
	PasswordEnv string `yaml:"password-env,omitempty"` // the environment variable holding the password
	DB          string `yaml:"db,omitempty"`
}

// Workload names a workload and its flags, exactly as on the command
// line of `vmbench <tool> run <name>` (keys without the leading --). In a
// results directory's campaign.yaml the flags are every option as the
// campaign parsed them (the Config's Flags).
type Workload struct {
	Tool  string         `yaml:"tool"` // sysbench
	Name  string         `yaml:"name"` // oltp_read_write
	Flags map[string]any `yaml:"flags"`
}

// Guest says how a guest-driven campaign (driver: guest) treats the
// guests.
type Guest struct {
	// Via is how a real campaign reaches each guest: "ssh" (the default;
	// the VM's IP from VMware Tools) or "tools" (VMware Tools guest
	// operations through vCenter: no network path to the guest, Windows
	// guests included; the login is User with the password of
	// PasswordEnv, or govc's GOVC_GUEST_LOGIN=user:password). In
	// simulation each guest is a local directory, whatever Via says.
	Via GuestVia `yaml:"via,omitempty"`
	// User, Port (default 22), and one way to log in: KeyFile (a private
	// key without a passphrase), Agent (the keys of $SSH_AUTH_SOCK) or
	// PasswordEnv (the environment variable holding the password).
	User        string `yaml:"user,omitempty"`
	Port        int    `yaml:"port,omitempty"`
	KeyFile     string `yaml:"key-file,omitempty"`
	Agent       bool   `yaml:"agent,omitempty"`
	PasswordEnv string `yaml:"password-env,omitempty"`
	// KnownHosts is the known_hosts file the guests' host keys are
	// checked against (default ~/.ssh/known_hosts); a key that is not
	// there, or changed, is refused. There is no way to skip the check.
	KnownHosts string `yaml:"known-hosts,omitempty"`
	// Dir is the guests' working directory for the agent and its run
	// directories (default /var/tmp/vmbench-<campaign id>), removed at the
	// end.
	Dir string `yaml:"dir,omitempty"`
	// MaxClockOffset bounds how far each guest's clock may be from the
	// harness's (default DefaultMaxClockOffset, 50 ms); a guest beyond it
	// is refused before anything runs, naming the VM and its offset.
	// Within it, each agent's start time is given on its own clock.
	MaxClockOffset Duration `yaml:"max-clock-offset,omitempty"`
}

// Sim scales a campaign down for --simulate: VM count, simulator shape
// and workload flags that override the real ones.
type Sim struct {
	VMs        *SimVMs `yaml:"vms,omitempty"`
	Hosts      int     `yaml:"hosts,omitempty"`      // simulated ESXi hosts (default 1)
	Datastores int     `yaml:"datastores,omitempty"` // simulated datastores (default: the real list's length, else 8)
	// DatastoreGB, HostCores and HostMemoryGB shape the simulated server
	// (defaults: 4096 GiB per datastore, 64 cores and 1024 GiB per host),
	// so that `campaign plan --simulate` checks a layout against the
	// server a review will run on.
	DatastoreGB  int64        `yaml:"datastore-gb,omitempty"`
	HostCores    int          `yaml:"host-cores,omitempty"`
	HostMemoryGB int64        `yaml:"host-memory-gb,omitempty"`
	Workload     *SimWorkload `yaml:"workload,omitempty"`
	// Driver overrides driver: in simulation (harness or guest): a
	// campaign can show the agent path in simulation while its real run
	// drives from the harness.
	Driver Driver `yaml:"driver,omitempty"`
	// DBServer is the server holding the VMs' databases in simulation, as
	// --db-dsn names it but without a password (mysql://root@host:3306/);
	// empty means an embedded SQLite file per VM. A results directory's
	// campaign.yaml records the one used; --db-dsn overrides it.
	DBServer string `yaml:"db-server,omitempty"`
}

// SimVMs overrides the VM count in simulation.
type SimVMs struct {
	Count int `yaml:"count"`
}

// SimWorkload overrides workload flags in simulation.
type SimWorkload struct {
	Flags map[string]any `yaml:"flags"`
}

// Duration is a time.Duration that reads "10m", "2h" or plain seconds.
type Duration time.Duration

// UnmarshalYAML parses a Go duration string or a number of seconds, as
// the workloads' --time does (flagvalue.ParseSeconds).
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := flagvalue.ParseSeconds(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the duration as a Go duration string.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// Load reads and strictly decodes a campaign file. Errors name the file
// and, where yaml knows it, the line.
func Load(path string) (*Campaign, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// sections names, per Go type, the campaign-file section and its keys,
// for "unknown key" errors.
var sections = map[string]section{
	"Campaign": {"the top level", Campaign{}}, "VMs": {"vms", VMs{}}, "VSphere": {"vsphere", VSphere{}},
	"Database": {"database", Database{}}, "Workload": {"workload", Workload{}},
	"Sim": {"simulate", Sim{}}, "SimVMs": {"simulate.vms", SimVMs{}}, "SimWorkload": {"simulate.workload", SimWorkload{}},
	"Guest": {"guest", Guest{}}, "Hooks": {"hooks", Hooks{}}, "Data": {"data", Data{}},
}

// Parse strictly decodes a campaign from b; name is used in errors.
func Parse(name string, b []byte) (*Campaign, error) {
	var s Campaign
	src, err := decodeFile(name, b, &s, "campaign file", sections)
	if err != nil {
		return nil, err
	}
	s.Origin = src
	if err := s.validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Bounds of a campaign's own counts and durations (the workload's flags,
// threads included, are bounded by the workload's own validation).
const (
	// MaxVMs bounds vms.count and simulate.vms.count: more VMs than any
	// host review uses (16), and few enough that a typo (100000) is refused
	// rather than turned into a long preflight.
	MaxVMs = 256
	// MaxParallel bounds vms.parallel: vCenter runs a few provisioning
	// operations per host at once and queues the rest, so more clones in
	// flight only make a longer queue and a longer teardown after a failure.
	MaxParallel = 64
	// MaxIPTimeout bounds vms.ip-timeout: a VM whose VMware Tools have not
	// reported an IP within a day never will; the campaign waits that long
	// with every other VM powered on.
	MaxIPTimeout = 24 * time.Hour
	// MaxClockOffset bounds guest.max-clock-offset: guests more than a
	// second apart do not start together in any sense a review means.
	MaxClockOffset = time.Second
	// MaxSimHosts and MaxSimDatastores bound simulate.hosts and
	// simulate.datastores: the simulator builds each in memory, and a review
	// measures one server with at most a few dozen drives.
	MaxSimHosts      = 64
	MaxSimDatastores = 64
	// MaxSimDatastoreGB, MaxSimHostCores and MaxSimHostMemoryGB bound
	// the simulated server's shape: beyond any real server, and far from
	// the int64 byte counts that would overflow.
	MaxSimDatastoreGB  = 1 << 20
	MaxSimHostCores    = 4096
	MaxSimHostMemoryGB = 1 << 16
	// MaxHosts bounds vms.hosts: one review measures one server, a
	// cluster review a few; in simulation each is a simulated host.
	MaxHosts = MaxSimHosts
)

func (s *Campaign) validate() error {
	var errs []error
	bad := func(path, format string, args ...any) {
		errs = append(errs, s.Origin.Errorf(path, path+": "+format, args...))
	}
	if s.VMs.Role == "" {
		bad("vms.role", "missing (e.g. sysbench)")
	}
	if s.Workload.Tool == "" || s.Workload.Name == "" {
		bad("workload", "tool and name are required (e.g. tool: sysbench, name: oltp_read_write)")
	}
	switch s.Database.Driver {
	case "mysql", "postgres", "sqlserver":
	case "":
		bad("database.driver", "missing (mysql: MySQL, MariaDB or Percona in each VM; postgres: PostgreSQL; sqlserver: SQL Server)")
	default:
		bad("database.driver", "%q is not supported (valid: mysql, postgres, sqlserver; in simulation the databases are SQLite files or --db-dsn's server, recorded as simulate.db-server)", s.Database.Driver)
	}
	if !s.Driver.Valid() {
		bad("driver", "%q is not valid (harness: from this host over the network; guest: the vmbench agent inside each VM)", s.Driver)
	}
	if p := s.Database.Port; p < 0 || p > 65535 {
		bad("database.port", "%d is not a port (1..65535)", p)
	}
	if sim := s.Simulate; sim != nil {
		if sim.VMs != nil && (sim.VMs.Count < 1 || sim.VMs.Count > MaxVMs) {
			bad("simulate.vms.count", "%d is not valid (1..%d, as vms.count)", sim.VMs.Count, MaxVMs)
		}
		if !sim.Driver.Valid() {
			bad("simulate.driver", "%q is not valid (harness or guest, as driver:)", sim.Driver)
		}
	}
	return errors.Join(append(errs, s.validateVMs(), s.validateGuest(), s.validateHooks())...)
}

// validateVMs checks the campaign's name, its vms: block (all but the
// role) and the simulator's shape (simulate.hosts, simulate.datastores):
// what a block suite in VMs shares with an OLTP campaign.
func (s *Campaign) validateVMs() error {
	var errs []error
	bad := func(path, format string, args ...any) {
		errs = append(errs, s.Origin.Errorf(path, path+": "+format, args...))
	}
	if !campaignName.MatchString(s.Name) {
		bad("name", "%q is not valid (1-40 letters, digits, '.', '_' or '-', starting with a letter or digit)", s.Name)
	}
	if s.VMs.Count < 1 || s.VMs.Count > MaxVMs {
		bad("vms.count", "%d is not valid (1..%d: the protocol uses 4, 8 or 16, and more than %d is taken for a typo)", s.VMs.Count, MaxVMs, MaxVMs)
	}
	if s.VMs.Parallel < 0 || s.VMs.Parallel > MaxParallel {
		bad("vms.parallel", "%d is not valid (0 for the default of %d, up to %d: vCenter queues clones beyond a few per host, so more only lengthen the queue)",
			s.VMs.Parallel, DefaultParallel, MaxParallel)
	}
	if d := time.Duration(s.VMs.IPTimeout); d < 0 || d > MaxIPTimeout || (d > 0 && d < time.Second) {
		bad("vms.ip-timeout", "%s is not valid (0 for the default of %s, or 1s..%s: a VM without an IP after a day will not get one)",
			d, DefaultIPTimeout, MaxIPTimeout)
	}
	if d := s.Data; d != nil {
		if !d.Source.Valid() {
			bad("data.source", "%q is not valid (load: each VM's prepare loads the data; prebuilt: restore the data set made by vmbench campaign prepare-data)", d.Source)
		}
	}
	if !s.VMs.OnIPTimeout.Valid() {
		bad("vms.on-ip-timeout", "%q is not valid (stop: the campaign stops and removes its VMs; continue: the other VMs are measured)", s.VMs.OnIPTimeout)
	}
	if n := len(s.VMs.Hosts); n > MaxHosts {
		bad("vms.hosts", "%d hosts is not valid (at most %d)", n, MaxHosts)
	}
	seenHost := map[string]bool{}
	for _, h := range s.VMs.Hosts {
		switch {
		case strings.TrimSpace(h) == "":
			bad("vms.hosts", "an empty host name (name each ESXi host as vCenter shows it, e.g. esx01.lab)")
		case seenHost[h]:
			bad("vms.hosts", "host %q is listed twice (the VMs go round-robin over the hosts: list each once)", h)
		}
		seenHost[h] = true
	}
	if c := s.VMs.CoresPerSocket; c < 0 {
		bad("vms.cores-per-socket", "%d is not valid (0 for the role's, or a divisor of its vCPU count)", c)
	}
	switch s.VMs.LatencySensitivity {
	case "", LatencyNormal, LatencyHigh:
		if s.VMs.LatencySensitivity == LatencyHigh && s.VMs.MemoryReservation != ReserveFull {
			bad("vms.latency-sensitivity", "high needs memory-reservation: full (vSphere refuses high latency sensitivity without a full memory reservation)")
		}
	default:
		bad("vms.latency-sensitivity", "%q is not valid (normal, or high with memory-reservation: full)", s.VMs.LatencySensitivity)
	}
	if !s.VMs.MemoryReservation.Valid() {
		bad("vms.memory-reservation", "%q is not valid (full: reserve all of each VM's memory; none: no reservation)", s.VMs.MemoryReservation)
	}
	s.validateSimulate(bad)
	return errors.Join(errs...)
}

// validateSimulate checks the simulate: block's sizes, each within what
// the in-process simulator builds in memory; bad records each error.
func (s *Campaign) validateSimulate(bad func(path, format string, args ...any)) {
	sim := s.Simulate
	if sim == nil {
		return
	}
	if sim.Hosts < 0 || sim.Hosts > MaxSimHosts {
		bad("simulate.hosts", "%d is not valid (0 for the default of 1, up to %d: the simulator builds each host in memory, and a review measures one server)", sim.Hosts, MaxSimHosts)
	}
	if sim.DatastoreGB < 0 || sim.DatastoreGB > MaxSimDatastoreGB {
		bad("simulate.datastore-gb", "%d is not valid (0 for the default of 4096, up to %d: 1 PiB)", sim.DatastoreGB, MaxSimDatastoreGB)
	}
	if sim.HostCores < 0 || sim.HostCores > MaxSimHostCores {
		bad("simulate.host-cores", "%d is not valid (0 for the default of 64, up to %d)", sim.HostCores, MaxSimHostCores)
	}
	if sim.HostMemoryGB < 0 || sim.HostMemoryGB > MaxSimHostMemoryGB {
		bad("simulate.host-memory-gb", "%d is not valid (0 for the default of 1024, up to %d: 64 TiB)", sim.HostMemoryGB, MaxSimHostMemoryGB)
	}
	if sim.Datastores < 0 || sim.Datastores > MaxSimDatastores {
		bad("simulate.datastores", "%d is not valid (0 for the default, up to %d: the simulator builds each datastore in memory)", sim.Datastores, MaxSimDatastores)
	}
}

// validateGuest checks the guest: block.
func (s *Campaign) validateGuest() error {
	g := s.Guest
	if g == nil {
		return nil
	}
	var errs []error
	bad := func(path, format string, args ...any) {
		errs = append(errs, s.Origin.Errorf(path, path+": "+format, args...))
	}
	if !g.Via.Valid() {
		bad("guest.via", "%q is not valid (ssh: by SSH to the VM's IP; tools: VMware Tools guest operations, no network path needed)", g.Via)
	}
	if g.Via == GuestViaTools && (g.KeyFile != "" || g.Agent || g.KnownHosts != "" || g.Port != 0) {
		bad("guest.via", "tools logs in with guest.user and a password (guest.password-env, or %s=user:password); key-file, agent, known-hosts and port are SSH's", EnvGuestLogin)
	}
	if g.Port < 0 || g.Port > 65535 {
		bad("guest.port", "%d is not a port (1..65535)", g.Port)
	}
	if g.Dir != "" && !g.WindowsDir() && (!strings.HasPrefix(g.Dir, "/") || path.Clean(g.Dir) == "/") {
		bad("guest.dir", "%q is not valid (an absolute directory other than /, or a Windows one such as C:\\vmbench)", g.Dir)
	}
	if g.WindowsDir() && g.Via != GuestViaTools {
		bad("guest.dir", "%q is a Windows directory: Windows guests are reached with guest.via: tools", g.Dir)
	}
	if d := time.Duration(g.MaxClockOffset); d < 0 || d > MaxClockOffset {
		bad("guest.max-clock-offset", "%s is not valid (0 for the default of %s, up to %s: a common start is only as common as the clocks)", d, DefaultMaxClockOffset, MaxClockOffset)
	}
	return errors.Join(errs...)
}

// Simulated returns the campaign as --simulate runs it: the simulate
// block's VM count, driver and workload flags override the real ones.
func (s *Campaign) Simulated() *Campaign {
	c := *s
	c.Workload.Flags = merged(s.Workload.Flags, nil)
	if s.Simulate == nil {
		return &c
	}
	if s.Simulate.VMs != nil {
		c.VMs.Count = s.Simulate.VMs.Count
	}
	if s.Simulate.Driver != "" {
		c.Driver = s.Simulate.Driver
	}
	if s.Simulate.Workload != nil {
		c.Workload.Flags = merged(s.Workload.Flags, s.Simulate.Workload.Flags)
	}
	if c.Description != "" && (s.Simulate.VMs != nil || s.Simulate.Workload != nil) {
		c.Description = "simulated, scaled down from: " + strings.TrimPrefix(c.Description, "simulated, scaled down from: ")
	}
	return &c
}

// merged is flags a with b's in place of a's of the same flag (a key
// naming the same flag after normalising '_' to '-': table_size and
// table-size).
func merged(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	over := make(map[string]bool, len(b))
	for k := range b {
		over[flagvalue.Name(k)] = true
	}
	for k, v := range a {
		if !over[flagvalue.Name(k)] {
			out[k] = v
		}
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// Args renders the workload flags as command-line arguments
// (--key=value), sorted by key, for the workload's own flag parser.
func (w Workload) Args() []string {
	keys := make([]string, 0, len(w.Flags))
	for k := range w.Flags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	args := make([]string, 0, len(keys))
	for _, k := range keys {
		args = append(args, fmt.Sprintf("--%s=%v", strings.TrimPrefix(k, "--"), w.Flags[k]))
	}
	return args
}
