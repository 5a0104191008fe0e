package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"vmbench/vsphere"
)

func init() { registerGroup(newVSphereCmd) }

// vsphereFlags are the connection and placement flags, named like govc's;
// unset ones come from GOVC_*. The vsphere group and 'campaign run' bind
// them; each command has its own --simulate.
type vsphereFlags struct {
	url, username, password string
	insecure, persist       bool
	caCerts, knownHosts     string
	datacenter, datastore   string
	pool, folder, network   string
	template                string
	simulate                bool
	fs                      *pflag.FlagSet
}

// bind registers the connection and placement flags on fs (not
// --simulate): for the commands that create VMs.
func (f *vsphereFlags) bind(fs *pflag.FlagSet) {
	f.bindConnection(fs)
	f.bindPlacement(fs)
}

// pathList names the OS path-list separator in flag help.
const pathList = string(os.PathListSeparator)

// bindConnection registers the flags that say which vSphere and
// datacenter: for the commands that find or remove VMs.
func (f *vsphereFlags) bindConnection(fs *pflag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.url, "url", "", "vCenter or ESXi URL, [https://][user[:password]@]host[/sdk] [$"+vsphere.EnvURL+"]")
	fs.StringVar(&f.username, "username", "", "user name, or a file holding it [$"+vsphere.EnvUsername+"]")
	fs.StringVar(&f.password, "password", "", "password, or a file holding it; prefer $"+vsphere.EnvPassword+" (a flag shows in ps) [$"+vsphere.EnvPassword+"]")
	fs.BoolVarP(&f.insecure, "insecure", "k", false, "skip TLS certificate verification [$"+vsphere.EnvInsecure+"=1]")
	fs.StringVar(&f.caCerts, "tls-ca-certs", "", "PEM file(s) of the CAs to trust instead of the system's, "+pathList+"-separated [$"+vsphere.EnvTLSCACerts+"]")
	fs.StringVar(&f.knownHosts, "tls-known-hosts", "", "file(s) of pinned thumbprints, lines 'host[:port] thumbprint' as 'govc about.cert -k -thumbprint' prints, "+pathList+"-separated [$"+vsphere.EnvTLSKnownHosts+"]")
	fs.BoolVar(&f.persist, "persist-session", true, "reuse the vSphere session cached in $"+vsphere.EnvHome+"/sessions (default ~/.govmomi) and keep it at exit [$"+vsphere.EnvPersistSession+"=0 turns it off]")
	fs.StringVar(&f.datacenter, "datacenter", "", "datacenter [$"+vsphere.EnvDatacenter+"]")
	fs.StringVar(&f.datacenter, "dc", "", "same as --datacenter")
}

// bindPlacement registers the flags that say where new VMs go.
func (f *vsphereFlags) bindPlacement(fs *pflag.FlagSet) {
	fs.StringVar(&f.datastore, "datastore", "", "datastore(s), comma-separated; VMs are spread over them in turn [$"+vsphere.EnvDatastore+"]")
	fs.StringVar(&f.datastore, "ds", "", "same as --datastore")
	fs.StringVar(&f.pool, "pool", "", "resource pool, e.g. cluster1/Resources [$"+vsphere.EnvResourcePool+"]")
	fs.StringVar(&f.folder, "folder", "", "VM folder [$"+vsphere.EnvFolder+"]")
	fs.StringVar(&f.network, "net", "", "network for each VM's first NIC (default: the template's) [$"+vsphere.EnvNetwork+"]")
	fs.StringVar(&f.template, "template", "", "template (or powered-off VM) to clone")
}

// changed reports whether the user set any of the named flags.
func (f *vsphereFlags) changed(names ...string) bool {
	for _, n := range names {
		if f.fs != nil && f.fs.Changed(n) {
			return true
		}
	}
	return false
}

// config is GOVC_* (through a.getenv, never os.Getenv) overridden by the
// flags the user set. It is not checked: see checkVSphereConfig.
func (f *vsphereFlags) config(a *app) vsphere.Config {
	c := vsphere.ConfigFromEnv(a.getenv)
	set := func(dst *string, val string, names ...string) {
		if f.changed(names...) {
			*dst = val
		}
	}
	set(&c.URL, f.url, "url")
	set(&c.Username, f.username, "username")
	set(&c.Password, f.password, "password")
	set(&c.TLSCACerts, f.caCerts, "tls-ca-certs")
	set(&c.TLSKnownHosts, f.knownHosts, "tls-known-hosts")
	set(&c.Datacenter, f.datacenter, "datacenter", "dc")
	set(&c.Datastore, f.datastore, "datastore", "ds")
	set(&c.ResourcePool, f.pool, "pool")
	set(&c.Folder, f.folder, "folder")
	set(&c.Network, f.network, "net")
	c.Template = f.template
	if f.changed("insecure") {
		c.Insecure = f.insecure
	}
	if f.changed("persist-session") {
		c.PersistSession = f.persist
	}
	return c
}

// checkedConfig is config, checked before any connection unless
// simulating (the simulator supplies its own): a missing URL or a bad
// value is a usage error (exit status 2) naming the flag and variable.
func (f *vsphereFlags) checkedConfig(a *app, cmd *cobra.Command) (vsphere.Config, error) {
	c := f.config(a)
	if f.simulate {
		return c, nil
	}
	if strings.TrimSpace(c.URL) == "" {
		try := ", or use --simulate to try it on an in-process vcsim"
		if f := cmd.Flags().Lookup("simulate"); f == nil || f.Hidden {
			try = " (a vcsim of your own works too)"
		}
		return c, usagef("%s: --url (or $%s) is required%s", cmd.CommandPath(), vsphere.EnvURL, try)
	}
	if err := c.Validate(); err != nil {
		return c, usagef("%s: %v", cmd.CommandPath(), err)
	}
	return c, nil
}

// session connects to vSphere, or to a simulator started for this command
// (closing the session stops it). sim is nil when not simulating.
func (f *vsphereFlags) session(ctx context.Context, a *app, cfg vsphere.Config, opts vsphere.SimOptions) (*vsphere.Session, *vsphere.Simulator, error) {
	if !f.simulate {
		s, err := vsphere.Connect(ctx, cfg)
		return s, nil, err
	}
	return vsphere.StartSimulatedSession(ctx, opts, func(sim *vsphere.Simulator) (func(), error) {
		simCfg := sim.Config()
		fmt.Fprintf(a.stderr, "simulate: started vcsim at %s (datacenter %s, %d datastores, template %s)\n",
			vsphereHost(simCfg.URL), simCfg.Datacenter, len(sim.Datastores()), vsphere.SimTemplate)
		return nil, nil
	})
}

// withSession refuses --simulate, checks the flags and runs do on a
// session, for the commands that only read or remove VMs.
func (f *vsphereFlags) withSession(a *app, cmd *cobra.Command, do func(context.Context, *vsphere.Session) error) error {
	if err := f.refuseSimulate(cmd); err != nil {
		return err
	}
	cfg, err := f.checkedConfig(a, cmd)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	s, err := vsphere.Connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() { _ = s.Close(ctx) }()
	return do(ctx, s)
}

func vsphereHost(u string) string {
	if i := strings.Index(u, "@"); i >= 0 {
		u = u[i+1:]
	}
	return strings.TrimSuffix(u, "/sdk")
}

func newVSphereCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "vsphere",
		Short: "Provision, list and destroy the benchmark VMs of a campaign on vSphere",
		Long: `Provision the reviews' benchmark VMs on vCenter or ESXi (or on an in-process
vcsim with --simulate), list them and remove them.

Connection and placement flags are govc's, and default to govc's environment
variables, so a shell set up for govc works as is:
  GOVC_URL, GOVC_USERNAME, GOVC_PASSWORD, GOVC_INSECURE, GOVC_TLS_CA_CERTS,
  GOVC_TLS_KNOWN_HOSTS, GOVC_PERSIST_SESSION, GOVMOMI_HOME, GOVC_DATACENTER,
  GOVC_DATASTORE, GOVC_RESOURCE_POOL, GOVC_FOLDER, GOVC_NETWORK
GOVC_USERNAME and GOVC_PASSWORD may name a file whose contents are used.

The server's TLS certificate is verified: against the system's CAs, or the
PEM files of GOVC_TLS_CA_CERTS (--tls-ca-certs), else a thumbprint pinned in
GOVC_TLS_KNOWN_HOSTS (--tls-known-hosts; 'govc about.cert -k -thumbprint'
prints the line). GOVC_INSECURE=1 (-k) skips the check.

As in govc, the session is cached in GOVMOMI_HOME/sessions (default
~/.govmomi/sessions) and reused by the next command while vSphere keeps it;
GOVC_PERSIST_SESSION=0 (--persist-session=false) logs in and out each time.
A session that expires during a long run is renewed once, automatically.

Every VM carries its campaign id and creation time (extraConfig
vmbench.campaign and vmbench.created, and the annotation), which is how
'ls' finds leftovers, 'destroy' removes exactly one campaign and 'gc' removes
those of campaigns that no longer run.`,
		Example: `  # try it without vSphere: 8 sysbench VMs on a simulated 8-datastore host
  vmbench vsphere provision --simulate --role sysbench --count 8

  # the same on vCenter, configured the govc way
  export GOVC_URL=vcenter.lab GOVC_USERNAME=administrator@vsphere.local GOVC_PASSWORD=~/.vcpass
  vmbench vsphere provision --role sysbench --count 16 --template centos63-percona \
      --ds nvme0,nvme1,nvme2,nvme3,nvme4,nvme5,nvme6,nvme7 --pool r750/Resources --campaign r750-16vm
  vmbench vsphere ls
  vmbench vsphere destroy --campaign r750-16vm`,
		Args: vsphereNoArgs,
	}
	cmd.AddCommand(newVSphereProvisionCmd(a, &vsphereFlags{}), newVSphereLsCmd(a, &vsphereFlags{}), newVSphereDestroyCmd(a, &vsphereFlags{}), newVSphereGCCmd(a, &vsphereFlags{}))
	return cmd
}

// bindSimulate registers --simulate for provision; ls and destroy take it
// hidden, only to refuse it with the reason (see refuseSimulate).
func (f *vsphereFlags) bindSimulate(fs *pflag.FlagSet, hidden bool) {
	fs.BoolVar(&f.simulate, "simulate", false, "run against an in-process vcsim inventory that lives only as long as this command")
	if hidden {
		_ = fs.MarkHidden("simulate")
	}
}

// refuseSimulate: ls and destroy on a simulator of their own would start
// a fresh, empty one and never see a VM. The simulated VMs of 'vsphere
// provision --simulate' and 'campaign run --simulate' end with those
// commands; a vcsim that outlives them is reached with --url.
func (f *vsphereFlags) refuseSimulate(cmd *cobra.Command) error {
	if !f.simulate {
		return nil
	}
	return usagef("%s: --simulate would start a fresh, empty in-process simulator, which holds no VMs to list or destroy "+
		"(the simulated VMs of 'vsphere provision --simulate' and 'campaign run --simulate' end with those commands); "+
		"run a vcsim of your own (govc's vcsim) and give its --url instead, or use 'vmbench campaign teardown DIR' for a campaign's leftovers",
		cmd.CommandPath())
}

func vsphereNoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s: unexpected argument %q (see '%s --help')", cmd.CommandPath(), args[0], cmd.CommandPath())
	}
	return nil
}

// provisionLong and provisionExample are the help of vsphere provision.
const provisionLong = `Provision clones --count VMs of the --role layout from --template:

  sysbench   16 vCPU, 60 GB RAM, LSI Logic SAS; vDisks 92 GB boot (thin),
             447 GB pre-built database (thick), 270 GB database under test
             (eager-zeroed thick)
  sqlserver  16 vCPU, 64 GB RAM, LSI Logic SAS; vDisks 100 GB boot (thin),
             500 GB data and log (eager-zeroed thick)

The boot disk is the template's, grown; the others go on a new LSI Logic SAS
controller. VM i goes, with all its disks, on datastore i mod the number of
datastores (16 VMs on 8 datastores: two each). Each VM is powered on and its
IP awaited (VMware Tools must report it).

A preflight runs first: template, pool, folder and datastores exist, the
datastores have room for the thick disks and swap of their VMs, and host CPU
and memory overcommit is reported. Nothing is created if it fails
(--dry-run stops after it). If anything fails later, or on Ctrl-C, every VM
this command created is destroyed before it exits.

With --simulate the VMs are created in an in-process vcsim that exists only
while the command runs: the command prints what was built and the simulated
inventory is discarded at exit.`

const provisionExample = `  # simulated: provision 16 sysbench VMs over 8 datastores and show them
  vmbench vsphere provision --simulate --role sysbench --count 16

  # vCenter: check first, then provision 8 SQL Server VMs
  vmbench vsphere provision --role sqlserver --count 8 --template win2012r2-sql2014 \
      --ds nvme0,nvme1,nvme2,nvme3 --campaign sql-8vm --dry-run
  vmbench vsphere provision --role sqlserver --count 8 --template win2012r2-sql2014 \
      --ds nvme0,nvme1,nvme2,nvme3 --campaign sql-8vm`

// provisionFlags are vsphere provision's own flags.
type provisionFlags struct {
	role, campaign, prefix string
	count, parallel        int
	powerOn, dryRun        bool
	ipTimeout              time.Duration
}

func newVSphereProvisionCmd(a *app, f *vsphereFlags) *cobra.Command {
	var p provisionFlags
	cmd := &cobra.Command{
		Use:     "provision --role ROLE --count N [flags]",
		Short:   "Clone N VMs of a role's layout from a template, spread over datastores",
		Long:    provisionLong,
		Example: provisionExample,
		Args:    vsphereNoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			spec, cfg, err := p.spec(cmd, a, f)
			if err != nil {
				return err
			}
			return p.run(cmd, a, f, cfg, spec)
		},
	}
	fs := cmd.Flags()
	f.bind(fs)
	f.bindSimulate(fs, false)
	fs.StringVar(&p.role, "role", "", "VM layout: "+strings.Join(vsphere.Roles(), " or "))
	fs.IntVar(&p.count, "count", 4, "number of VMs (the reviews use 4, 8 or 16)")
	fs.StringVar(&p.campaign, "campaign", "", "campaign id tagged on every VM (default: vmbench-<UTC time>-<random>)")
	fs.StringVar(&p.prefix, "prefix", "", "VM name prefix; VMs are <prefix>-01..NN (default vmbench-<role>)")
	fs.IntVar(&p.parallel, "parallel", vsphere.DefaultParallel, "VMs provisioned at once")
	fs.BoolVar(&p.powerOn, "power-on", true, "power the VMs on and wait for their IPs")
	fs.DurationVar(&p.ipTimeout, "ip-timeout", vsphere.DefaultIPTimeout, "how long to wait for each VM's IP")
	fs.BoolVar(&p.dryRun, "dry-run", false, "run the preflight checks only and print their report")
	return cmd
}

// spec checks the flags and builds the ProvisionSpec and the connection's
// Config, before any connection; problems are usage errors naming the flag.
func (p provisionFlags) spec(cmd *cobra.Command, a *app, f *vsphereFlags) (vsphere.ProvisionSpec, vsphere.Config, error) {
	var none vsphere.Config
	layout, err := vsphere.LayoutFor(p.role)
	if p.role == "" || err != nil {
		return vsphere.ProvisionSpec{}, none, usagef("%s: --role %q: valid roles are %s", cmd.CommandPath(), p.role, strings.Join(vsphere.Roles(), ", "))
	}
	if p.count < 1 {
		return vsphere.ProvisionSpec{}, none, usagef("%s: --count is %d, must be at least 1 (the reviews use 4, 8 or 16)", cmd.CommandPath(), p.count)
	}
	if p.parallel < 1 {
		return vsphere.ProvisionSpec{}, none, usagef("%s: --parallel is %d, must be at least 1", cmd.CommandPath(), p.parallel)
	}
	if p.ipTimeout <= 0 {
		return vsphere.ProvisionSpec{}, none, usagef("%s: --ip-timeout must be positive (e.g. 10m)", cmd.CommandPath())
	}
	campaign := p.campaign
	if campaign == "" {
		campaign = vsphere.NewCampaignID(time.Now())
	}
	cfg, err := f.checkedConfig(a, cmd)
	if err != nil {
		return vsphere.ProvisionSpec{}, none, err
	}
	spec := vsphere.ProvisionSpec{
		CampaignID: campaign, Layout: layout, Count: p.count, NamePrefix: p.prefix,
		Template: cfg.Template, Datastores: cfg.Datastores(), ResourcePool: cfg.ResourcePool,
		Folder: cfg.Folder, Network: cfg.Network, Parallel: p.parallel, PowerOn: p.powerOn, IPTimeout: p.ipTimeout,
	}
	return spec, cfg, checkProvisionSpec(cmd, spec, f.simulate)
}

// run connects (or starts the simulator), then runs the preflight alone
// (--dry-run) or provisions and prints the VMs.
func (p provisionFlags) run(cmd *cobra.Command, a *app, f *vsphereFlags, cfg vsphere.Config, spec vsphere.ProvisionSpec) error {
	ctx := cmd.Context()
	s, sim, err := f.session(ctx, a, cfg, vsphere.SimOptions{Datastores: 8})
	if err != nil {
		return err
	}
	defer func() { _ = s.Close(ctx) }()
	if sim != nil {
		spec = f.simulatedSpec(spec, sim, p.count)
	}
	if p.dryRun {
		report, err := s.Preflight(ctx, spec)
		fmt.Fprintln(a.stdout, report.String())
		return err
	}
	fmt.Fprintf(a.stderr, "campaign %s: provisioning %d %s VMs from %s on %s\n",
		spec.CampaignID, spec.Count, p.role, spec.Template, strings.Join(spec.Datastores, ","))
	vms, err := s.Provision(ctx, spec, lineWriter(a.stderr))
	if err != nil {
		return err
	}
	if err := printVMTable(ctx, a.stdout, s, vms); err != nil {
		return err
	}
	if sim != nil {
		fmt.Fprintf(a.stderr, "simulate: these %d VMs live in an in-process vcsim; the simulated inventory is discarded when this command exits\n", len(vms))
	} else {
		fmt.Fprintf(a.stderr, "campaign %s: %d VMs ready; remove them with: vmbench vsphere destroy --campaign %s\n", spec.CampaignID, len(vms), spec.CampaignID)
	}
	return nil
}

// checkProvisionSpec rejects, before any connection, what Provision would
// reject anyway; flags are named.
func checkProvisionSpec(cmd *cobra.Command, spec vsphere.ProvisionSpec, simulate bool) error {
	if simulate {
		if spec.Template == "" {
			spec.Template = vsphere.SimTemplate
		}
		if len(spec.Datastores) == 0 {
			spec.Datastores = []string{"LocalDS_0"}
		}
	}
	if spec.Template == "" {
		return usagef("%s: --template is required: the template (or powered-off VM) to clone", cmd.CommandPath())
	}
	if len(spec.Datastores) == 0 {
		return usagef("%s: --ds (or $%s) is required: the datastore(s) to spread the VMs over, comma-separated", cmd.CommandPath(), vsphere.EnvDatastore)
	}
	if err := spec.Validate(); err != nil {
		return usagef("%s: %v", cmd.CommandPath(), err)
	}
	return nil
}

// simulatedSpec points spec at the simulator: its template and, unless
// --ds was given, as many of its datastores as VMs (at most all 8), and a
// loopback IP reported for every VM.
func (f *vsphereFlags) simulatedSpec(spec vsphere.ProvisionSpec, sim *vsphere.Simulator, count int) vsphere.ProvisionSpec {
	cfg := sim.Config()
	if !f.changed("template") {
		spec.Template = cfg.Template
	}
	if !f.changed("ds", "datastore") {
		all := sim.Datastores()
		spec.Datastores = all[:min(count, len(all))]
	}
	if !f.changed("pool") {
		spec.ResourcePool = cfg.ResourcePool
	}
	if !f.changed("folder") {
		spec.Folder = ""
	}
	if !f.changed("net") {
		spec.Network = ""
	}
	spec.SimulatedIP = vsphere.SimulatedIP
	return spec
}

// lineWriter returns a progress func printing one line per call.
func lineWriter(w io.Writer) func(string) {
	var mu sync.Mutex
	return func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(w, msg)
	}
}

// printVMTable reads every VM back and prints what vSphere reports.
func printVMTable(ctx context.Context, w io.Writer, s *vsphere.Session, vms []vsphere.VM) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tvCPU\tMEMORY\tCONTROLLERS\tDISKS (size, provisioning, controller:unit)\tDATASTORE\tIP")
	for _, vm := range vms {
		info, err := s.Inspect(ctx, vm.Name)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%d\t%d GB\t%s\t%s\t%s\t%s\n", info.Name, info.NumCPU, info.MemoryMB/1024,
			strings.Join(info.Controllers, ","), info.DiskSummary(), info.Datastore, orDash(info.IP))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newVSphereLsCmd(a *app, f *vsphereFlags) *cobra.Command {
	var campaign string
	cmd := &cobra.Command{
		Use:   "ls [--campaign ID]",
		Short: "List the VMs that carry a vmbench campaign id",
		Long: `ls lists the VMs of the datacenter tagged with a vmbench campaign id (all
campaigns, or the one named by --campaign), with their creation time, so
VMs left behind by an interrupted run can be found and destroyed.
Templates and VMs without a campaign id are never listed.`,
		Example: `  vmbench vsphere ls
  vmbench vsphere ls --campaign r750-16vm --url vcenter.lab -k`,
		Args: vsphereNoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.withSession(a, cmd, func(ctx context.Context, s *vsphere.Session) error {
				vms, err := s.List(ctx, campaign)
				if err != nil {
					return err
				}
				if len(vms) == 0 {
					fmt.Fprintln(a.stderr, "no vmbench VMs found")
					return nil
				}
				return printCampaignVMs(a.stdout, vms)
			})
		},
	}
	cmd.Flags().StringVar(&campaign, "campaign", "", "only this campaign's VMs")
	f.bindConnection(cmd.Flags())
	f.bindSimulate(cmd.Flags(), true)
	return cmd
}

// printCampaignVMs prints ls's table of vms, sorted by campaign id.
func printCampaignVMs(w io.Writer, vms []vsphere.VM) error {
	sort.SliceStable(vms, func(i, j int) bool { return vms[i].CampaignID < vms[j].CampaignID })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CAMPAIGN\tNAME\tROLE\tPOWER\tIP\tDATASTORE\tCREATED\tMOREF")
	for _, vm := range vms {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", vm.CampaignID, vm.Name, orDash(vm.Role), vm.PowerState,
			orDash(vm.IP), vm.Datastore, createdCell(vm), vm.MoRef)
	}
	return tw.Flush()
}

// createdCell is a VM's creation time (vmbench.created) as the tables
// show it, RFC 3339 in UTC, or "-" when unknown.
func createdCell(vm vsphere.VM) string {
	if vm.Created.IsZero() {
		return "-"
	}
	return vm.Created.UTC().Format(time.RFC3339)
}

func newVSphereDestroyCmd(a *app, f *vsphereFlags) *cobra.Command {
	var campaign string
	cmd := &cobra.Command{
		Use:   "destroy --campaign ID",
		Short: "Power off and destroy every VM of one campaign",
		Long: `destroy powers off and destroys every VM tagged with the campaign id, disks
included, and nothing else: other campaigns' VMs, untagged VMs and templates
are left alone. 'vmbench vsphere ls' shows the campaigns that have VMs.`,
		Example: `  vmbench vsphere destroy --campaign r750-16vm
  vmbench vsphere ls && vmbench vsphere destroy --campaign vmbench-20260102-150405-a1b2`,
		Args: vsphereNoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if campaign == "" {
				return usagef("%s: --campaign is required (see 'vmbench vsphere ls' for the campaigns that have VMs)", cmd.CommandPath())
			}
			if err := vsphere.ValidCampaignID(campaign); err != nil {
				return usagef("%s: --campaign: %v", cmd.CommandPath(), err)
			}
			return f.withSession(a, cmd, func(ctx context.Context, s *vsphere.Session) error {
				n, err := s.Destroy(ctx, campaign, lineWriter(a.stderr))
				fmt.Fprintf(a.stdout, "destroyed %d VM(s) of campaign %s\n", n, campaign)
				return err
			})
		},
	}
	cmd.Flags().StringVar(&campaign, "campaign", "", "campaign id whose VMs are destroyed (required)")
	f.bindConnection(cmd.Flags())
	f.bindSimulate(cmd.Flags(), true)
	return cmd
}
