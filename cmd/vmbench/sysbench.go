package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/scenarios"
	"vmbench/sysbench"
)

func init() { registerGroup(newSysbenchCmd) }

// sysbenchCommands are the subcommands, in sysbench's order.
var sysbenchCommands = []string{"prepare", "run", "cleanup"}

func newSysbenchCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sysbench prepare|run|cleanup [WORKLOAD]",
		Short: "sysbench 1.0 OLTP workloads (oltp_read_write ...) against MySQL/MariaDB or SQLite",
		Long: `The OLTP workloads of sysbench 1.0 with its schema (sbtest1..N), statement mixes,
defaults, random distributions, error handling and report formats:

  ` + workloadNames() + `

The workload is a positional argument after the command, or before it as
sysbench takes it ('vmbench sysbench oltp_read_write run'); it defaults to
oltp_read_write. Options keep sysbench's names, with dashes or underscores
(--table-size or --table_size), on/off for switches, and plain seconds or Go
durations for times (--time=60 or --time=1m).

The password comes from --mysql-password, else $` + sysbench.EnvPassword + `, else
$` + sysbench.EnvMySQLPassword + `; it never appears in output or result files.`,
		Example: `  vmbench sysbench prepare --mysql-user root --tables 4 --table-size 10000
  vmbench sysbench run oltp_read_write --mysql-user root --tables 4 --threads 8 --time 30 --report-interval 1
  vmbench sysbench cleanup --mysql-user root --tables 4`,
		// The sysbench order, 'sysbench WORKLOAD COMMAND', reaches this
		// RunE; flags are parsed by the subcommand it dispatches to.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return dispatchSysbenchOrder(cmd, args)
		},
	}
	cmd.AddCommand(newSysbenchPrepareCmd(a), newSysbenchRunCmd(a), newSysbenchCleanupCmd(a))
	return cmd
}

func workloadNames() string {
	var names []string
	for _, w := range sysbench.Workloads() {
		names = append(names, string(w))
	}
	return strings.Join(names, ", ")
}

// dispatchSysbenchOrder handles 'vmbench sysbench WORKLOAD COMMAND [flags]'.
func dispatchSysbenchOrder(cmd *cobra.Command, args []string) error {
	if len(args) == 0 || slices.Contains([]string{"-h", "--help", "help"}, args[0]) {
		return cmd.Help()
	}
	if len(args) < 2 || !slices.Contains(sysbenchCommands, args[1]) {
		return usagef("%s: unknown command %q (want prepare, run or cleanup, e.g. 'vmbench sysbench run oltp_read_write'; see 'vmbench sysbench --help')",
			cmd.CommandPath(), args[0])
	}
	sub, _, err := cmd.Find(args[1:2])
	if err != nil {
		return usagef("%v", err)
	}
	sub.SetContext(cmd.Context())
	sub.InitDefaultHelpFlag()
	if err := sub.ParseFlags(append([]string{args[0]}, args[2:]...)); err != nil {
		return usagef("%s: %v (see '%s --help')", sub.CommandPath(), err, sub.CommandPath())
	}
	if help, _ := sub.Flags().GetBool("help"); help {
		return sub.Help()
	}
	rest := sub.Flags().Args()
	if sub.Args != nil {
		if err := sub.Args(sub, rest); err != nil {
			return err
		}
	}
	return sub.RunE(sub, rest)
}

// sysbenchFlags binds a Config to a command's flags.
type sysbenchFlags struct {
	cfg sysbench.Config
}

func bindSysbenchFlags(cmd *cobra.Command) *sysbenchFlags {
	f := &sysbenchFlags{cfg: sysbench.DefaultConfig()}
	f.cfg.BindFlags(cmd.Flags())
	return f
}

// config completes and checks the parsed options: workload from args,
// password from the environment; problems are usage errors (exit 2),
// found before anything connects.
func (f *sysbenchFlags) config(a *app, cmd *cobra.Command, args []string) (sysbench.Config, error) {
	cfg := f.cfg
	var errs []error
	if len(args) == 1 {
		w, err := sysbench.ParseWorkload(args[0])
		if err != nil {
			errs = append(errs, err)
		} else {
			cfg.Workload = w
		}
	}
	if !cmd.Flags().Changed("mysql-password") {
		cfg.PasswordFromEnv(a.getenv)
	}
	if err := cfg.Validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return cfg, usagef("%s: %v", cmd.CommandPath(), errors.Join(errs...))
	}
	return cfg, nil
}

// sysbenchUsage makes the errors of a flag that does not fit the database
// (sysbench.ErrFlagValue: tables of another size, --threads beyond the
// server's max_connections) usage errors, exit status 2, like any other
// bad flag; nothing has been created or run when they are returned.
func sysbenchUsage(err error) error {
	if errors.Is(err, sysbench.ErrFlagValue) {
		return asUsage(err)
	}
	return err
}

// openFileLimit is processFileLimit; tests lower it.
var openFileLimit = processFileLimit

// Open files a database connection takes: a socket for MySQL; the database
// file and its write-ahead log for SQLite (measured: 20,000 files gave
// 10,001 SQLite connections). spareFiles are the process's own (standard
// streams, the pool's idle connection, the result file).
const (
	filesPerMySQLConn  = 1
	filesPerSQLiteConn = 2
	spareFiles         = 64
)

// checkOpenFiles refuses, before anything connects, a command whose conns
// connections need more open files than the process may have: the run
// would fail at the thread that hits the limit, after the others started.
func checkOpenFiles(cfg sysbench.Config, conns int) error {
	limit := openFileLimit()
	per := filesPerMySQLConn
	if cfg.Conn.Driver == dialect.SQLite {
		per = filesPerSQLiteConn
	}
	need := uint64(conns)*uint64(per) + spareFiles
	if limit == 0 || need <= limit {
		return nil
	}
	return usagef("--threads: %d connections need about %d open files, but this process may open %d (ulimit -n); raise the limit (ulimit -n %d) or use fewer threads",
		conns, need, limit, need)
}

func workloadArg(cmd *cobra.Command, args []string) error {
	if len(args) > 1 {
		return usagef("%s: takes at most one WORKLOAD (got %q; see '%s --help')", cmd.CommandPath(), args, cmd.CommandPath())
	}
	return nil
}

func newSysbenchPrepareCmd(a *app) *cobra.Command {
	var f *sysbenchFlags
	cmd := &cobra.Command{
		Use:   "prepare [WORKLOAD]",
		Short: "Create and load the sbtest tables",
		Long: `Create the database if missing and the tables sbtest1..sbtest<--tables>, load
--table-size rows into each with multi-row INSERTs (tables shared out over
--threads loaders as sysbench does), create the secondary index k_<n> after the
load (--create-secondary) and check every table's row count.

Existing sbtest tables are never loaded into: prepare stops before creating
anything and asks for 'vmbench sysbench cleanup' first.`,
		Example: `  # 4 tables of 10,000 rows, loaded by 4 threads, on a local MariaDB
  vmbench sysbench prepare --mysql-host 127.0.0.1 --mysql-user root --tables 4 --table-size 10000 --threads 4

  # the review's data set: 100 tables x 10 M rows
  vmbench sysbench prepare --mysql-host db1 --tables 100 --table-size 10000000 --threads 32

  # an embedded SQLite file
  vmbench sysbench prepare --db-driver sqlite --sqlite-path /tmp/sbtest.db --tables 2`,
		Args: workloadArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.config(a, cmd, args)
			if err != nil {
				return err
			}
			if cfg.Conn.Driver != dialect.SQLite { // SQLite loads with one writer
				if err := checkOpenFiles(cfg, min(cfg.Threads, cfg.Tables)); err != nil {
					return err
				}
			}
			return sysbenchUsage(sysbench.Prepare(cmd.Context(), cfg, a.stderr, a.terminal))
		},
	}
	f = bindSysbenchFlags(cmd)
	return cmd
}

func newSysbenchRunCmd(a *app) *cobra.Command {
	var (
		f          *sysbenchFlags
		resultFile string
	)
	cmd := &cobra.Command{
		Use:   "run [WORKLOAD]",
		Short: "Run a workload and print sysbench's report",
		Long: `Run WORKLOAD (default oltp_read_write) with --threads threads, each on its own
connection with server-side prepared statements, for --time or --events, and
print sysbench's interval lines (--report-interval) and final report.

Before it starts, the run checks that sbtest1..sbtest<--tables> exist and hold
--table-size rows (their largest id; give the --table-size used at prepare),
and that --threads fits the server's max_connections; a mismatch exits 2.

Closed loop by default (each thread starts its next transaction when the last
ends; latency is service time); --rate=N runs an open loop at N transactions/s
with Poisson arrivals and measures latency from each intended start.
--warmup-time runs a precondition phase first, excluded from the figures.
Deadlocks, lock wait timeouts (1213, 1205, 1020) and lost connections restart
the transaction and are counted; any other error stops the run.

Ctrl-C prints the report of what was measured, writes the result file marked
interrupted and exits non-zero.`,
		Example: `  # the review's load on one VM: 32 threads, 2 h warm-up, 1 h measured
  vmbench sysbench run oltp_read_write --mysql-host db1 --tables 100 --table-size 10000000 \
      --threads 32 --warmup-time 2h --time 1h --report-interval 10 --result-file vm1.json

  # a quick local run, sysbench's argument order
  vmbench sysbench oltp_read_only run --mysql-host 127.0.0.1 --mysql-user root --tables 4 --threads 8 --time 10`,
		Args: workloadArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.config(a, cmd, args)
			if err != nil {
				return err
			}
			if err := checkOpenFiles(cfg, cfg.Threads); err != nil {
				return err
			}
			if resultFile != "" {
				if err := checkResultDir(resultFile); err != nil {
					return usagef("--result-file: %v", err)
				}
			}
			res, err := sysbench.Run(cmd.Context(), cfg, cfg.RunConfig(), a.stdout)
			return writeResultFile(a, res, resultFile, sysbenchUsage(err))
		},
	}
	f = bindSysbenchFlags(cmd)
	cmd.Flags().StringVar(&resultFile, "result-file", "", "write the JSON Result here (atomically; marked interrupted after Ctrl-C)")
	return cmd
}

// checkResultDir makes sure the result file can be written at the end,
// before the run starts: its directory exists and is writable, and the
// path is not a directory.
func checkResultDir(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory; name a file", path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("directory %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".vmbench-write-test-*")
	if err != nil {
		return fmt.Errorf("directory %s is not writable: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

func newSysbenchCleanupCmd(a *app) *cobra.Command {
	var f *sysbenchFlags
	cmd := &cobra.Command{
		Use:   "cleanup [WORKLOAD]",
		Short: "Drop the sbtest tables",
		Long: `Drop sbtest1..sbtest<--tables> where they exist (DROP TABLE IF EXISTS), as
sysbench cleanup does; give the --tables used at prepare.`,
		Example: `  vmbench sysbench cleanup --mysql-host 127.0.0.1 --mysql-user root --tables 4
  vmbench sysbench cleanup --db-driver sqlite --sqlite-path /tmp/sbtest.db --tables 2`,
		Args: workloadArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.config(a, cmd, args)
			if err != nil {
				return err
			}
			return sysbench.Cleanup(cmd.Context(), cfg, a.stdout)
		},
	}
	f = bindSysbenchFlags(cmd)
	return cmd
}

// sysbenchDriver runs sysbench workloads for campaigns (scenarios.Driver):
// the workload name and flags go through the CLI's parser; the connection
// comes from the campaign's DB.
type sysbenchDriver struct{ a *app }

var _ scenarios.Driver = sysbenchDriver{}

func (d sysbenchDriver) config(workload string, args []string, db *scenarios.DB) (sysbench.Config, error) {
	cfg, err := sysbench.ParseFlags(workload, args, nil)
	if err != nil || db == nil {
		return cfg, err
	}
	drv, err := dialect.ParseDriver(db.Driver)
	if err != nil {
		return cfg, err
	}
	o := &cfg.Conn
	o.Driver, o.Host, o.Port, o.User, o.Password, o.DB, o.SQLitePath = drv, db.Host, db.Port, db.User, db.Password, db.Database, db.SQLitePath
	if o.Socket != "" {
		o.Host = "localhost"
	}
	return cfg, cfg.Validate()
}

// connectionFlags are the sysbench options a campaign sets itself, per VM,
// from its database: block or --db-dsn; a campaign file may not set them.
var connectionFlags = []string{"db-driver", "mysql-host", "mysql-port", "mysql-socket", "mysql-user", "mysql-password", "mysql-db", "sqlite-path"}

func (d sysbenchDriver) Check(workload string, args []string) error {
	_, err := d.config(workload, args, nil)
	return errors.Join(append(refuseConnectionFlags(args, connectionFlags), err)...)
}

func (d sysbenchDriver) CreateDatabase(ctx context.Context, db scenarios.DB) error {
	cfg, err := d.config("", nil, &db)
	return onDatabase(ctx, dialect.CreateDatabase, cfg, err)
}

func (d sysbenchDriver) DropDatabase(ctx context.Context, db scenarios.DB) error {
	cfg, err := d.config("", nil, &db)
	return onDatabase(ctx, dialect.DropDatabase, cfg, err)
}

func (d sysbenchDriver) Prepare(ctx context.Context, workload string, args []string, db scenarios.DB, w io.Writer) error {
	cfg, err := d.config(workload, args, &db)
	if err != nil {
		return err
	}
	return sysbench.Prepare(ctx, cfg, w, false)
}

func (d sysbenchDriver) Run(ctx context.Context, workload string, args []string, db scenarios.DB, hooks scenarios.RunHooks) (*oltp.Result, error) {
	cfg, err := d.config(workload, args, &db)
	if err != nil {
		return nil, err
	}
	rc := withRunHooks(cfg.RunConfig(), hooks)
	return sysbench.Run(ctx, cfg, rc, nil)
}

func (d sysbenchDriver) Cleanup(ctx context.Context, workload string, args []string, db scenarios.DB) error {
	cfg, err := d.config(workload, args, &db)
	if err != nil {
		return err
	}
	return sysbench.Cleanup(ctx, cfg, nil)
}
