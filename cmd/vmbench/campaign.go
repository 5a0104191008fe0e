package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"vmbench/dialect"
	"vmbench/scenarios"
	"vmbench/scenarios/rundir"
	"vmbench/scenarios/spec"
	"vmbench/scenarios/teardown"
)

func init() { registerGroup(newCampaignCmd) }

func newCampaignCmd(a *app) *cobra.Command {
	c := &cobra.Command{
		Use:   "campaign",
		Short: "Run a whole review campaign from a campaign file",
		Long: `A campaign file (YAML, strict: unknown keys are errors) names a VM role and count,
the database in each VM and the workload with its flags. 'campaign run' does
preflight, provisioning, a database per VM, prepare, a common start,
precondition, measure, collection, aggregation, the review table and teardown.
'campaign plan FILE' shows what it needs against the hosts' and datastores'
capacity, creating nothing. 'campaign teardown DIR' removes what a killed
campaign left behind; 'campaign resume DIR' goes on with it instead.

Run vmbench with 'go run ./cmd/vmbench', or build bin/vmbench with 'make build'.`,
	}
	c.AddCommand(newCampaignRunCmd(a), newCampaignPlanCmd(a), newCampaignPrepareDataCmd(a), newCampaignTeardownCmd(a), newCampaignResumeCmd(a))
	return c
}

func newCampaignTeardownCmd(a *app) *cobra.Command {
	var vf vsphereFlags
	cmd := &cobra.Command{
		Use:   "teardown DIR",
		Short: "Remove what a campaign created and left behind, as its results directory lists",
		Long: `Every campaign records each object it creates (VMs, databases on a --db-dsn
server, the temporary directory of its SQLite files) in DIR/` + rundir.ManifestFile + `
before creating it, and marks it removed once it is gone. After a kill -9, a
failed teardown or --keep-vms, 'campaign teardown DIR' removes exactly what is
listed there and not yet removed, and marks it; run again, it does nothing.

Databases are dropped only by the names recorded (vmbench_<campaign>_<vm>);
their password comes from the variable recorded with them ($MYSQL_PWD,
$PGPASSWORD or $SQLCMDPASSWORD for a --db-dsn server; a DSN's inline password
is never recorded). VMs are destroyed only when they carry the campaign's tag and a
recorded name, on the recorded vSphere URL (credentials from GOVC_* or the
flags; --url overrides the URL). VMs of the in-process simulator ended with
the campaign's process. A campaign still running holds DIR/` + rundir.LockFile + `: teardown
refuses its directory (exit status 2) and removes nothing.`,
		Example: `  vmbench campaign teardown results/sysbench-8vm-20260102T150405Z-a1b2.incomplete
  MYSQL_PWD=... vmbench campaign teardown results/sysbench-8vm-20260102T150405Z-a1b2`,
		Args: exactArgs(1, "DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := rundir.ReadManifest(args[0]); err != nil {
				return asUsage(err)
			}
			opts := teardown.Options{VSphere: vf.config(a), Getenv: a.getenv, Log: a.stderr}
			n, err := teardown.Run(cmd.Context(), args[0], opts)
			if errors.Is(err, rundir.ErrRunning) {
				return asUsage(err)
			}
			fmt.Fprintf(a.stdout, "removed %d object(s) of %s\n", n, args[0])
			return err
		},
	}
	vf.bindConnection(cmd.Flags())
	return cmd
}

// campaignRunLong is campaign run's help text.
const campaignRunLong = `Run the campaign in FILE. Against a real vCenter, connection and placement come
from govc's environment (GOVC_URL, GOVC_USERNAME, GOVC_PASSWORD, GOVC_INSECURE,
GOVC_TLS_CA_CERTS, GOVC_TLS_KNOWN_HOSTS, GOVC_PERSIST_SESSION, GOVMOMI_HOME,
GOVC_DATACENTER, GOVC_DATASTORE, GOVC_RESOURCE_POOL, GOVC_FOLDER, GOVC_NETWORK) or
the flags ('vmbench vsphere --help' says what each does). A campaign's driver: guest (and every block suite in VMs) logs in to
each guest as its guest: block says (SSH, or VMware Tools with guest.via: tools).

With --simulate, every step runs against an in-process vSphere simulator
(vcsim), or the vSphere --url gives (a vcsim of one's own), with an embedded
SQLite database per VM, or a database per VM on the server given with --db-dsn
(MySQL/MariaDB, PostgreSQL or SQL Server), using the file's scaled-down
simulate: sizes.

With --simulate --guests container, each VM of the in-process simulator is
backed by a container of the guest image (make guest-image; docs/real-guests.md),
whose IP is the VM's: its database (MariaDB or PostgreSQL, as database.driver
says) runs inside, and driver guest's agent and the hooks run there too, reached
through VMware Tools guest operations (or SSH, with guest.via: ssh).

Results go to <results-dir>/<name>-<time>-<id>/: campaign.yaml (the campaign
as it ran: sizes, template, datastores and placement as resolved, the --db-dsn
server without its password; it runs again as is), vms/<vm>.json (one Result
per VM), merged.json, report.md and created.jsonl (every object the campaign
creates, recorded before it is made). The VMs are destroyed and the databases
dropped at the end, on failure and on Ctrl-C, unless --keep-vms; after a
kill -9, 'vmbench campaign teardown DIR' removes what created.jsonl lists.

A --db-dsn without a password takes it from --db-password-file, else the
variable the file's database.password-env names, else the client's own:
$MYSQL_PWD (MySQL/MariaDB), $PGPASSWORD (PostgreSQL) or $SQLCMDPASSWORD (SQL
Server), so that it does not show in ps.

A block-suite file (kind: block-suite) runs the vdbench profiles instead: on
this host's targets, or with a vms: block inside block-worker VMs, every
profile in every VM at once, merged point by point. Its results are suite.yaml,
<profile>.json, .svg and .txt (merged), each VM's under vms/<vm>/, report.md
and report.csv; it takes --simulate and --results-dir (and, in VMs, the
vSphere flags, --keep-vms and --agent-binary).`

// campaignRunExample is campaign run's examples.
const campaignRunExample = `  # the 8-VM sysbench campaign, simulated, in under a minute
  vmbench campaign run scenarios/sysbench-8vm.yaml --simulate

  # the same against a local MariaDB (one database per VM)
  vmbench campaign run scenarios/sysbench-8vm.yaml --simulate --db-dsn 'mysql://root@127.0.0.1:3306/'

  # the PostgreSQL campaign against a local PostgreSQL (password, if any, in $PGPASSWORD)
  vmbench campaign run scenarios/sysbench-pg-8vm.yaml --simulate --db-dsn 'postgres://postgres@127.0.0.1:5432/?sslmode=disable'

  # each VM's guest a container with its MariaDB inside (needs docker and make guest-image)
  vmbench campaign run scenarios/sysbench-4vm.yaml --simulate --guests container

  # for real
  export GOVC_URL=vcenter.lab GOVC_USERNAME=administrator@vsphere.local GOVC_PASSWORD=...
  export VMBENCH_DB_PASSWORD=...
  vmbench campaign run scenarios/sysbench-8vm.yaml`

// campaignRunFlags holds campaign run's command-line flags.
type campaignRunFlags struct {
	simulate bool
	guests   string // --guests, as given
	dsn      string // --db-dsn; empty: none
	pwFile   string // --db-password-file; empty: none
	opts     scenarios.Options
	vf       vsphereFlags
}

func newCampaignRunCmd(a *app) *cobra.Command {
	fl := &campaignRunFlags{opts: scenarios.Options{ResultsDir: "results"}}
	cmd := &cobra.Command{
		Use:     "run FILE",
		Short:   "Run the campaign in FILE",
		Long:    campaignRunLong,
		Example: campaignRunExample,
		Args:    exactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := spec.LoadAny(args[0])
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return usagef("campaign file %s does not exist (the standard ones are in scenarios/)", args[0])
				}
				return asUsage(err)
			}
			if file.Kind == spec.SuiteKind && file.Suite.InVMs() {
				opts, err := fl.options(cmd.Context(), a, args[0], file.Suite.Campaign())
				if err != nil {
					return err
				}
				return runVMSuite(cmd, a, file.Suite, opts)
			}
			if file.Kind == spec.SuiteKind {
				opts := fl.opts
				opts.Simulate, opts.Out, opts.Log, opts.Version = fl.simulate, a.stdout, a.stderr, version
				return runSuite(cmd, a, args[0], file.Suite, opts)
			}
			cf := file.Campaign
			opts, err := fl.options(cmd.Context(), a, args[0], cf)
			if err != nil {
				return err
			}
			checked, err := scenarios.Check(cf, opts)
			if err != nil {
				return usageError{err} // each error names the file and line
			}
			if err := scenarios.FindData(cmd.Context(), checked); err != nil {
				return usageError{err}
			}
			if err := checkResultsDir(opts.ResultsDir); err != nil {
				return err
			}
			out, err := scenarios.Run(cmd.Context(), checked)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "\nresults: %s\n", out.Dir)
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&fl.simulate, "simulate", false, "run against an in-process vSphere simulator and local databases, with the file's simulate: sizes")
	bindGuests(f, &fl.guests)
	f.StringVar(&fl.dsn, "db-dsn", "", "with --simulate: a MySQL/MariaDB, PostgreSQL or SQL Server server for the VMs' databases, one database each, e.g. mysql://root@127.0.0.1:3306/ or postgres://postgres@127.0.0.1:5432/?sslmode=disable (default: embedded SQLite files)")
	f.StringVar(&fl.pwFile, "db-password-file", "", "with --db-dsn: read the server's password from this file (mode 600), not from the command line; without it a DSN with no password uses $<database.password-env>, else $MYSQL_PWD, $PGPASSWORD or $SQLCMDPASSWORD by the server's driver")
	f.StringVar(&fl.opts.ResultsDir, "results-dir", "results", "parent directory of the campaign's results directory")
	f.BoolVar(&fl.opts.KeepVMs, "keep-vms", false, "leave the VMs (and databases) in place at the end")
	f.StringVar((*string)(&fl.opts.Driver), "driver", "", "where each VM's workload driver runs: harness (this host, over the network) or guest (the vmbench agent inside each VM; with --simulate a local agent process per VM); default the file's driver:, else harness")
	f.StringVar(&fl.opts.AgentBinary, "agent-binary", "", "with driver guest: the vmbench executable to upload when the guests' OS/arch differ from this one's (make agents builds linux/amd64, linux/arm64, windows/amd64); default this executable")
	fl.vf.bind(f)
	return cmd
}

// options maps the flags to the Options of running cf, the campaign in
// file: the vSphere connection, the --db-dsn server (connected to once, to
// find a wrong address or password before any VM exists) and the output
// streams. Flags that do not go together are usage errors naming them.
func (fl *campaignRunFlags) options(ctx context.Context, a *app, file string, cf *spec.Campaign) (scenarios.Options, error) {
	opts := fl.opts
	opts.Simulate = fl.simulate
	guests, err := fl.parseGuests()
	if err != nil {
		return opts, err
	}
	opts.Guests = guests
	if !fl.simulate || fl.vf.changed("url") {
		opts.VSphere = fl.vf.config(a) // in simulation only an explicit --url replaces the in-process vcsim
	} else if fl.vf.changed("datastore", "ds", "template", "pool", "folder", "datacenter", "dc", "net") {
		return opts, usagef("--ds, --template, --pool, --folder, --dc and --net need --url with --simulate (the in-process simulator has datastores LocalDS_0..N and template vmbench-template)")
	}
	dsn := fl.dsn
	if dsn != "" && !fl.simulate {
		return opts, usagef("--db-dsn: only with --simulate (against vSphere each VM's database is at its own IP)")
	}
	if dsn != "" && guests == scenarios.GuestsContainer {
		return opts, usagef("--db-dsn: with --guests container each VM's database is inside its guest; leave --db-dsn out")
	}
	label := "--db-dsn"
	if dsn == "" && fl.simulate && guests != scenarios.GuestsContainer && cf.Simulate != nil && cf.Simulate.DBServer != "" {
		// a results directory's campaign.yaml names the server it ran on
		dsn, label = cf.Simulate.DBServer, file+": simulate.db-server"
	}
	if dsn != "" {
		server, err := checkServerDSN(ctx, dsn, label, dsnPassword{file: fl.pwFile, env: cf.Database.PasswordEnv, getenv: a.getenv})
		if err != nil {
			return opts, err
		}
		opts.DBServer = server
	} else if fl.pwFile != "" {
		return opts, usagef("--db-password-file: only with --db-dsn (it holds the password of that server)")
	}
	opts.Out, opts.Log, opts.Getenv, opts.Version = a.stdout, a.stderr, a.getenv, version
	return opts, nil
}

// bindGuests registers --guests on f, into v.
func bindGuests(f *pflag.FlagSet, v *string) {
	f.StringVar(v, "guests", string(scenarios.GuestsLocal), "with --simulate, what each VM's guest is: local (a directory of this host, its database an SQLite file or on --db-dsn) or container (a container of the guest image with its database inside: needs docker and make guest-image; docs/real-guests.md)")
}

// parseGuests checks --guests: a valid value, and container only with
// --simulate. Both are usage errors.
func (fl *campaignRunFlags) parseGuests() (scenarios.Guests, error) {
	return parseGuests(fl.guests, fl.simulate)
}

// parseGuests checks a --guests value given with or without --simulate
// (campaign run and resume, review run): "" is local; container only
// with --simulate. Both errors are usage errors.
func parseGuests(value string, simulate bool) (scenarios.Guests, error) {
	if value == "" {
		return scenarios.GuestsLocal, nil
	}
	g, err := scenarios.ParseGuests(value)
	if err != nil {
		return "", usageError{err}
	}
	if g == scenarios.GuestsContainer && !simulate {
		return "", usagef("--guests container: only with --simulate (against vSphere each VM's guest is the VM itself)")
	}
	return g, nil
}

// checkServerDSN parses --db-dsn (or a campaign file's simulate.db-server,
// which label then names), which must name a MySQL/MariaDB, PostgreSQL or
// SQL Server server and no database (the campaign creates one per VM;
// PostgreSQL's may carry sslmode, the one parameter kept), and connects
// to it once, so that a wrong address or password is found before any VM
// exists. A DSN without a password takes it from pw (dsnPassword.fill).
func checkServerDSN(ctx context.Context, dsn, label string, pw dsnPassword) (*dialect.Config, error) {
	cfg, err := dialect.ParseDSN(dsn)
	if err != nil {
		return nil, usagef("%s: %v", label, err)
	}
	if err := pw.fill(&cfg); err != nil {
		return nil, err
	}
	params := len(cfg.Params)
	if _, ok := cfg.Params["sslmode"]; ok && cfg.Driver == dialect.Postgres {
		params--
	}
	switch {
	case cfg.Driver != dialect.MySQL && cfg.Driver != dialect.SQLServer && cfg.Driver != dialect.Postgres:
		return nil, usagef("%s: %s is not a server DSN (want mysql://user:pass@host:port/, postgres://user:pass@host:port/ or sqlserver://user:pass@host:port)", label, cfg.Driver)
	case cfg.Socket != "":
		return nil, usagef("%s: a Unix socket is not supported here; give host:port", label)
	case cfg.Database != "" || params > 0:
		return nil, usagef("%s: name the server only, without a database or parameters (the campaign creates one database per VM): %s://%s@%s:%d/", label, cfg.Driver, cfg.User, cfg.Host, cfg.Port)
	}
	if err := cfg.Validate(); err != nil {
		return nil, dsnError(err, label, cfg, pw)
	}
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	db, err := dialect.Open(cctx, cfg)
	if err != nil {
		return nil, dsnError(err, label, cfg, pw)
	}
	db.Close()
	return &cfg, nil
}

// checkResultsDir makes sure --results-dir is (or can become) a writable
// directory before anything is provisioned.
func checkResultsDir(dir string) error {
	if dir == "" {
		return usagef("--results-dir: empty; name a directory (default results)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("--results-dir: %v", err)
	}
	f, err := os.CreateTemp(dir, ".vmbench-write-test-*")
	if err != nil {
		return usagef("--results-dir: %s is not writable: %v", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// runVMSuite runs a block suite in VMs: the VM campaign's flags apply,
// but for --db-dsn and --db-password-file (a block worker has no
// database).
func runVMSuite(cmd *cobra.Command, a *app, s *spec.Suite, opts scenarios.Options) error {
	for _, f := range []string{"db-dsn", "db-password-file"} {
		if cmd.Flags().Changed(f) {
			return usagef("--%s does not apply to a block suite in VMs: its VMs run no database", f)
		}
	}
	return checkRunSuite(cmd, a, s, opts)
}

// checkRunSuite checks a block suite (bad input exits 2, nothing made)
// and runs it, naming its results directory at the end.
func checkRunSuite(cmd *cobra.Command, a *app, s *spec.Suite, opts scenarios.Options) error {
	if err := scenarios.CheckSuite(s, opts); err != nil {
		return asUsage(err)
	}
	if err := checkResultsDir(opts.ResultsDir); err != nil {
		return err
	}
	out, err := scenarios.RunSuite(cmd.Context(), s, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "\nresults: %s\n", out.Dir)
	return nil
}

// suiteCampaignFlags are the 'campaign run' flags a block-suite file uses.
var suiteCampaignFlags = []string{"simulate", "results-dir"}

// runSuite runs a block-suite campaign (scenarios.RunSuite); a flag of
// VM campaigns is bad input, as is anything scenarios.CheckSuite finds.
func runSuite(cmd *cobra.Command, a *app, path string, s *spec.Suite, opts scenarios.Options) error {
	var other []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if !slices.Contains(suiteCampaignFlags, f.Name) {
			other = append(other, "--"+f.Name)
		}
	})
	if len(other) > 0 {
		verb := "does"
		if len(other) > 1 {
			verb = "do"
		}
		return usagef("%s is a block-suite campaign: %s %s not apply (valid: --simulate, --results-dir; set force: or overwrite-files: in the file)", path, strings.Join(other, ", "), verb)
	}
	return checkRunSuite(cmd, a, s, opts)
}
