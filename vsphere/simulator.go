package vsphere

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"
)

const simUser = "vmbench"

var simSetup sync.Mutex

// SimTemplate is the name of the template StartSimulator creates.
const SimTemplate = "vmbench-template"

// SimGuestID is the guest OS of the simulated template and of its
// clones: 64-bit Linux (vSphere's guest id otherLinux64Guest).
const SimGuestID = "otherLinux64Guest"

// SimOptions shapes the simulated inventory. Zero fields take the defaults.
type SimOptions struct {
	// Hosts in the one cluster (default 1: the reviews run every VM on one
	// server).
	Hosts int
	// Datastores, LocalDS_0 .. LocalDS_<n-1>, each mounted on every host
	// (default 8, as the 8-drive reviews).
	Datastores int
	// DatastoreGB is each datastore's capacity in GiB (default 4096; 16
	// sysbench VMs on 8 datastores need about 1,740 GB each).
	DatastoreGB int64
	// HostCores per host (default 64, threads = 2 x cores) and HostMemoryGB
	// per host (default 1024), so the review layouts fit as on the reviewed
	// servers. vcsim's own hosts have 2 cores and 4 GB.
	HostCores    int
	HostMemoryGB int64
	// GuestImage, when set, backs every VM created on the simulator
	// (clones of the template) with a container of this local docker
	// image (vcsim's RUN.container, with RUN.mountdmi off: nothing is
	// pulled): powering the VM on creates and starts the container, its
	// IP is the VM's guest IP, the VM's guestinfo.* ExtraConfig reaches
	// it as VMX_GUESTINFO_* variables, and guest operations (file
	// transfers, programs) run inside it through docker exec. Destroying
	// the VM or closing the simulator removes the container. "" keeps
	// vcsim's guestless VMs (the default): no guest program can run.
	GuestImage string
	// Log, when set, takes vcsim's own log lines while the simulator
	// runs (until Close): with GuestImage, a line per guest operation
	// that failed inside a container (a file not there yet, which the
	// caller expects), per HTTP transfer that ended early, per container
	// removed. vcsim writes them through the standard library's log
	// package, so this sets that package's output, process-wide, and
	// Close puts the previous one back. nil leaves it alone.
	Log io.Writer
}

func (o SimOptions) withDefaults() SimOptions {
	if o.Hosts <= 0 {
		o.Hosts = 1
	}
	if o.Datastores <= 0 {
		o.Datastores = 8
	}
	if o.DatastoreGB <= 0 {
		o.DatastoreGB = 4096
	}
	if o.HostCores <= 0 {
		o.HostCores = 64
	}
	if o.HostMemoryGB <= 0 {
		o.HostMemoryGB = 1024
	}
	return o
}

// Simulator is an in-process vcsim (govmomi's simulator package, VPX
// model): datacenter DC0, cluster DC0_C0 with the hosts, datastores
// LocalDS_*, network "VM Network" and a template SimTemplate (1 vCPU,
// 32 MB, one 10 GB thin disk on a pvscsi controller, one NIC). Its VMs
// have no guest (never run programs in them) unless SimOptions.GuestImage
// backs them with containers.
type Simulator struct {
	model      *simulator.Model
	server     *simulator.Server
	datastores []string
	hosts      []string
	closeOnce  sync.Once
	// restoreLog puts the log package's output back (SimOptions.Log).
	restoreLog func()
	logins     atomic.Int64
}

// StartSimulator builds the inventory and starts the vcsim server on a
// loopback port with TLS (a self-signed certificate: connect with
// Insecure, or trust CertificateFile or KnownHosts). Close it to stop the server and remove its temp directories.
func StartSimulator(ctx context.Context, opts SimOptions) (*Simulator, error) {
	opts = opts.withDefaults()
	// vcsim's Model.Create and NewServer write package-level defaults
	// (option settings shared by every model): one at a time.
	simSetup.Lock()
	defer simSetup.Unlock()
	m := simulator.VPX()
	m.Datacenter = 1
	m.Cluster = 1
	m.Host = 0
	m.ClusterHost = opts.Hosts
	m.Pool = 0
	m.Machine = 1
	m.Datastore = opts.Datastores
	m.Portgroup = 0
	m.Autostart = false
	if err := m.Create(); err != nil {
		m.Remove()
		return nil, fmt.Errorf("vcsim: create model: %w", err)
	}
	m.Service.TLS = new(tls.Config)
	// Fixed credentials, checked here (with vcsim's default login any
	// non-empty pair is accepted, which would hide credential mistakes).
	pass := "vmbench-" + randomHex(6)
	m.Service.Listen = &url.URL{User: url.UserPassword(simUser, pass)}
	sim := &Simulator{model: m}
	if opts.Log != nil {
		prev := log.Writer()
		log.SetOutput(opts.Log)
		sim.restoreLog = func() { log.SetOutput(prev) }
	}
	m.Map().SessionManager().ValidLogin = func(req *types.Login) bool {
		ok := req.UserName == simUser && req.Password == pass
		if ok {
			sim.logins.Add(1)
		}
		return ok
	}
	if opts.GuestImage != "" {
		// The template predates the entry (made by Create): only the
		// clones provisioning makes are container-backed.
		m.Map().ContainerImages.Register(simulator.ContainerImageEntry{
			VMNameGlob: "*", OCIImage: opts.GuestImage,
			ExtraConfig: map[string]string{"RUN.mountdmi": "false"},
		})
	}
	sim.server = m.Service.NewServer()
	if err := sim.prepare(ctx, opts); err != nil {
		sim.Close()
		return nil, fmt.Errorf("vcsim: %w", err)
	}
	return sim, nil
}

// StartSimulatedSession starts a Simulator shaped by opts (StartSimulator)
// and returns a Session logged in to it (Connect with the simulator's
// Config); closing the Session also closes the simulator. started, when
// not nil, runs as soon as the simulator is up, before the login: to
// report it, or to record its Home so that a killed process's leftovers
// can be found. The func started returns (nil for none) runs once the
// simulator has closed. When started or the login fails, the simulator is
// closed (and that func run) before the error is returned.
func StartSimulatedSession(ctx context.Context, opts SimOptions, started func(*Simulator) (closed func(), err error)) (*Session, *Simulator, error) {
	sim, err := StartSimulator(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	var closed func()
	if started != nil {
		if closed, err = started(sim); err != nil {
			sim.Close()
			return nil, nil, err
		}
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			sim.Close()
			if closed != nil {
				closed()
			}
		})
	}
	s, err := Connect(ctx, sim.Config())
	if err != nil {
		stop()
		return nil, nil, err
	}
	s.stop = stop
	return s, sim, nil
}

// prepare shapes hosts and datastores and turns the model's VM into the
// template.
func (s *Simulator) prepare(ctx context.Context, opts SimOptions) error {
	reg := s.model.Map()
	sctx := s.model.Service.Context
	for _, obj := range reg.All("HostSystem") {
		h := obj.(*simulator.HostSystem)
		s.hosts = append(s.hosts, h.Name)
		reg.WithLock(sctx, h, func() {
			hw := h.Summary.Hardware
			hw.NumCpuPkgs = 2
			hw.NumCpuCores = int16(opts.HostCores)
			hw.NumCpuThreads = int16(2 * opts.HostCores)
			hw.MemorySize = opts.HostMemoryGB << 30
			if h.Hardware != nil {
				h.Hardware.CpuInfo.NumCpuPackages = 2
				h.Hardware.CpuInfo.NumCpuCores = int16(opts.HostCores)
				h.Hardware.CpuInfo.NumCpuThreads = int16(2 * opts.HostCores)
				h.Hardware.MemorySize = opts.HostMemoryGB << 30
			}
		})
	}
	for _, obj := range reg.All("Datastore") {
		ds := obj.(*simulator.Datastore)
		reg.WithLock(sctx, ds, func() {
			used := ds.Summary.Capacity - ds.Summary.FreeSpace
			ds.Summary.Capacity = opts.DatastoreGB << 30
			ds.Summary.FreeSpace = ds.Summary.Capacity - used
			info := ds.Info.GetDatastoreInfo()
			info.FreeSpace = ds.Summary.FreeSpace
			info.MaxFileSize = ds.Summary.Capacity
		})
		s.datastores = append(s.datastores, ds.Name)
	}
	sort.Slice(s.datastores, func(i, j int) bool { return dsLess(s.datastores[i], s.datastores[j]) })
	sort.Strings(s.hosts)

	cfg := s.Config()
	cfg.Template = ""
	sess, err := Connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() { _ = sess.Close(ctx) }()
	vms, err := sess.Finder.VirtualMachineList(ctx, "*")
	if err != nil {
		return fmt.Errorf("model has no VM to turn into the template: %w", err)
	}
	if len(vms) == 0 {
		return errors.New("model has no VM to turn into the template")
	}
	vm := vms[0]
	if t, err := vm.PowerOff(ctx); err == nil {
		_ = t.Wait(ctx) // already off is fine
	}
	if err := wait(ctx, func() (*object.Task, error) { return vm.Rename(ctx, SimTemplate) }); err != nil {
		return fmt.Errorf("rename %s to %s: %w", vm.Name(), SimTemplate, err)
	}
	// A 64-bit Linux guest, as the simulated guests are (this host):
	// vcsim's default "otherGuest" names no OS the agent runs on.
	if err := wait(ctx, func() (*object.Task, error) {
		return vm.Reconfigure(ctx, types.VirtualMachineConfigSpec{GuestId: SimGuestID})
	}); err != nil {
		return fmt.Errorf("set %s's guest OS: %w", SimTemplate, err)
	}
	if err := vm.MarkAsTemplate(ctx); err != nil {
		return fmt.Errorf("mark %s as template: %w", SimTemplate, err)
	}
	return nil
}

// dsLess orders LocalDS_2 before LocalDS_10.
func dsLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// Config returns a Config that connects to the simulator: the URL carries
// its credentials (user "vmbench", a random password; Username and
// Password stay empty, since govc's rules would read a file named like the
// user), Insecure, datacenter DC0, every datastore (comma list), the
// cluster's resource pool and the template.
func (s *Simulator) Config() Config {
	return Config{
		URL:          s.server.URL.String(),
		Insecure:     true,
		Datacenter:   "DC0",
		Datastore:    strings.Join(s.datastores, ","),
		ResourcePool: "DC0_C0/Resources",
		Template:     SimTemplate,
	}
}

// Home returns the temporary directory that holds the simulated
// datastores' files (vcsim's option vcsim.home, a govcsim-* directory in
// the system's temporary directory); Close removes it. A process killed
// before Close leaves it behind.
func (s *Simulator) Home() string {
	for _, o := range s.model.Map().OptionManager().Setting {
		if ov := o.GetOptionValue(); ov != nil && ov.Key == "vcsim.home" {
			if dir, ok := ov.Value.(string); ok {
				return dir
			}
		}
	}
	return ""
}

// CertificateFile returns the name of a PEM file holding the simulator's
// self-signed TLS certificate, its own CA: a Config.TLSCACerts
// (GOVC_TLS_CA_CERTS) that trusts it. Close removes the file. Not safe for
// concurrent use.
func (s *Simulator) CertificateFile() (string, error) { return s.server.CertificateFile() }

// KnownHosts returns the simulator's known_hosts line, "host:port
// thumbprint" (SHA-256, as 'govc about.cert -thumbprint' prints it), for a
// Config.TLSKnownHosts (GOVC_TLS_KNOWN_HOSTS) file.
func (s *Simulator) KnownHosts() string {
	return s.server.URL.Host + " " + soap.ThumbprintSHA256(s.server.Certificate()) + "\n"
}

// Logins returns how many logins with the simulator's credentials it has
// accepted (SessionManager.Login), its own setup's included: tests compare
// it before and after to see whether a session was reused or renewed.
func (s *Simulator) Logins() int64 { return s.logins.Load() }

// Datastores returns the datastore names, LocalDS_0 first.
func (s *Simulator) Datastores() []string { return append([]string(nil), s.datastores...) }

// Hosts returns the simulated ESXi hosts' names (DC0_C0_H0, ...), sorted.
func (s *Simulator) Hosts() []string { return append([]string(nil), s.hosts...) }

// Close stops the server and removes the model's temp directories. It is
// safe to call more than once.
func (s *Simulator) Close() {
	s.closeOnce.Do(func() {
		if s.server != nil {
			s.server.Close()
		}
		s.model.Remove()
		if s.restoreLog != nil {
			s.restoreLog()
		}
	})
}

// SimulatedIP is the IP every VM provisioned on the simulator reports
// (ProvisionSpec.SimulatedIP): the simulated databases are local.
const SimulatedIP = "127.0.0.1"

// DatastoreDir returns the local directory that holds the files of the
// simulated datastore name (its info.url), or "" for no such datastore.
func (s *Simulator) DatastoreDir(name string) string {
	for _, e := range s.model.Map().All("Datastore") {
		if ds, ok := e.(*simulator.Datastore); ok && ds.Name == name {
			return ds.Info.GetDatastoreInfo().Url
		}
	}
	return ""
}
