package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/scenarios"
	"vmbench/tpcc"
)

func init() { registerGroup(newTPCCCmd) }

func newTPCCCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tpcc prepare|run|check|cleanup",
		Short: "TPC-C-like workload against MySQL/MariaDB, SQL Server or SQLite",
		Long: `A TPC-C-like workload: the nine tables, a deterministic parallel loader, the
five transactions with the specification's inputs (NURand with a stored C-Load
and the C-delta rule, a shuffled 23-card deck per terminal, 1% New-Order
rollbacks, 1% remote order lines, 15% remote payments, 60% by last name),
terminals with keying and think times sharing a pool of connections, the
consistency checks of clause 3.3.2 and an audit of clause 9.2's inputs.

Two ways to run, as the field's tools do:
  --terminals N --conns C --wait-scale S   N terminals (default 10 per warehouse)
        with the specification's keying and think times times S (1 = TPC-C,
        0 = none) share C connections; latency is response time from each
        submission (waiting for a connection counts) and service time.
  --threads N    go-tpc's closed loop: N terminals without waits, one connection
        each; latency is service time.

Options take go-tpc's names (--warehouses, -H/--host, -P/--port, -U/--user,
-p/--password, -D/--db, -T/--threads, --wait, --interval, --count) and
sysbench's (--mysql-host ..., --time, --report-interval, --warmup-time). The
password comes from --password, else $` + tpcc.EnvPassword + `, else $` + tpcc.EnvMySQLPassword + `
(MySQL) or $` + tpcc.EnvSQLServerPassword + ` (SQL Server); it never appears in output or
result files.

It is not a TPC-C implementation and its figures are not TPC-C results.`,
		Example: `  vmbench tpcc prepare -H 127.0.0.1 -U root --warehouses 10 --threads 4
  vmbench tpcc run -H 127.0.0.1 -U root --warehouses 10 --threads 16 --time 60 --report-interval 10
  vmbench tpcc run -H 127.0.0.1 -U root --warehouses 10 --conns 20 --wait-scale 1 --time 10m
  vmbench tpcc check -H 127.0.0.1 -U root
  vmbench tpcc cleanup -H 127.0.0.1 -U root`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return usagef("%s: unknown command %q (want prepare, run, check or cleanup; see '%s --help')", cmd.CommandPath(), args[0], cmd.CommandPath())
		},
	}
	cmd.AddCommand(newTPCCPrepareCmd(a), newTPCCRunCmd(a), newTPCCCheckCmd(a), newTPCCCleanupCmd(a))
	return cmd
}

// tpccFlags binds a Config to a command's flags.
type tpccFlags struct{ cfg tpcc.Config }

// bindTPCCFlags binds every option, and hides from the command's help
// those its subcommand does not use (config refuses them).
func bindTPCCFlags(cmd *cobra.Command) *tpccFlags {
	f := &tpccFlags{cfg: tpcc.DefaultConfig()}
	f.cfg.BindFlags(cmd.Flags())
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if !tpcc.FlagApplies(cmd.Name(), fl.Name) {
			fl.Hidden = true
		}
	})
	return f
}

// config completes and checks the options with the one parser the
// campaigns use too: problems are usage errors (exit 2), found before
// anything connects.
func (f *tpccFlags) config(a *app, cmd *cobra.Command) (tpcc.Config, error) {
	var args []string
	known := pflag.NewFlagSet("tpcc", pflag.ContinueOnError)
	scratch := tpcc.DefaultConfig()
	scratch.BindFlags(known)
	var unused []error
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if known.Lookup(fl.Name) == nil { // the command's own, such as --result-file
			return
		}
		if !tpcc.FlagApplies(cmd.Name(), fl.Name) {
			unused = append(unused, fmt.Errorf("--%s: not an option of %s (it applies to tpcc %s)", fl.Name, cmd.CommandPath(), tpcc.FlagUsers(fl.Name)))
			return
		}
		args = append(args, "--"+fl.Name+"="+fl.Value.String())
	})
	if len(unused) > 0 {
		return tpcc.Config{}, usagef("%v", errors.Join(unused...))
	}
	cfg, err := tpcc.ParseFlags(args, a.getenv)
	if err != nil {
		return cfg, usagef("%s: %v", cmd.CommandPath(), err)
	}
	return cfg, nil
}

func newTPCCPrepareCmd(a *app) *cobra.Command {
	var f *tpccFlags
	cmd := &cobra.Command{
		Use:   "prepare",
		Short: "Create and load the TPC-C tables",
		Long: `Create the database if missing, the nine tables and vmbench's two bookkeeping
tables, load ITEM and then --warehouses warehouses with TPC-C 4.3.3.1's
cardinalities and values (deterministic from --seed and the warehouse id),
--threads warehouses at a time, with each database's fast path (multi-row
INSERT on MySQL and SQLite, bulk copy on SQL Server), then create the
secondary indexes. The C-Load constants of NURand are stored, so that every
later run obeys the C-delta rule.

An interrupted prepare resumes where it stopped: finished warehouses are kept,
a partial one is deleted and loaded again. A warehouse whose connection is lost
is loaded again from scratch, so the counts are always exact.`,
		Example: `  vmbench tpcc prepare -H 127.0.0.1 -U root --warehouses 10 --threads 4
  vmbench tpcc prepare --db-driver sqlserver -H sql1 -U sa --warehouses 1500 --threads 16
  vmbench tpcc prepare --db-driver sqlite --sqlite-path /tmp/tpcc.db --warehouses 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config(a, cmd)
			if err != nil {
				return err
			}
			return tpcc.Prepare(cmd.Context(), cfg, a.stderr, a.terminal)
		},
	}
	f = bindTPCCFlags(cmd)
	return cmd
}

func newTPCCRunCmd(a *app) *cobra.Command {
	var (
		f          *tpccFlags
		resultFile string
	)
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the five transactions and report TPM, latency, tpmC and NOPM",
		Long: `Run the mix for --time (or --events) after an optional --warmup-time
precondition, print an interval line per --report-interval and the report: per
transaction count, TPM, average, p50, p90, p95, p99, p99.9 and max in ms and the
90th-percentile limit of TPC-C 5.2.5.3; TPS, tpmC, NOPM (from sum(d_next_o_id))
beside the client's count, efficiency (only with --wait-scale 1), errors, and
the audit of the input distributions (runs of 10,000 transactions or more).

Deadlocks and lock timeouts (MySQL 1213/1205, SQL Server 1205/1222, SQLite busy)
roll back and restart the whole transaction, at most --retries times; lost
connections reconnect and restart it; both are counted. New-Orders rolled back
on purpose (1%) are counted apart from errors.

Ctrl-C prints the report of what was measured, writes the result file marked
interrupted and exits non-zero.`,
		Example: `  # go-tpc style: 16 threads, no waits
  vmbench tpcc run -H 127.0.0.1 -U root --warehouses 10 --threads 16 --time 60

  # the review's load on one VM: 1,500 warehouses, 15,000 terminals
  vmbench tpcc run --db-driver sqlserver -H sql1 -U sa --warehouses 1500 --conns 200 \
      --wait-scale 0.2 --warmup-time 2h30m --time 30m --report-interval 60 --result-file vm1.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config(a, cmd)
			if err != nil {
				return err
			}
			if resultFile != "" {
				if err := checkResultDir(resultFile); err != nil {
					return usagef("--result-file: %v", err)
				}
			}
			res, err := tpcc.Run(cmd.Context(), cfg, cfg.RunConfig(), a.stdout)
			return writeResultFile(a, res, resultFile, err)
		},
	}
	f = bindTPCCFlags(cmd)
	cmd.Flags().StringVar(&resultFile, "result-file", "", "write the JSON Result here (atomically; marked interrupted after Ctrl-C)")
	return cmd
}

// writeResultFile writes res to path when both are given and joins any
// failure to err, the run's own error.
func writeResultFile(a *app, res *oltp.Result, path string, err error) error {
	if res == nil || path == "" {
		return err
	}
	if werr := res.WriteFile(path); werr != nil {
		return errors.Join(err, fmt.Errorf("writing --result-file: %w", werr))
	}
	state := ""
	if st := res.State(); st != oltp.StatusComplete {
		state = " (" + st + ")"
	}
	fmt.Fprintf(a.stderr, "Result written to %s%s\n", path, state)
	return err
}

func newTPCCCheckCmd(a *app) *cobra.Command {
	var f *tpccFlags
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Check the consistency conditions of TPC-C 3.3.2.1 to 3.3.2.12",
		Long: `Check the twelve consistency conditions of TPC-C clause 3.3.2 on every
warehouse and print PASS or FAIL per condition with the first failing
warehouses and districts. Condition 11 holds only directly after a load and is
skipped once a run has touched the data. Exit status 1 when a condition fails.`,
		Example: `  vmbench tpcc check -H 127.0.0.1 -U root`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config(a, cmd)
			if err != nil {
				return err
			}
			_, err = tpcc.Check(cmd.Context(), cfg, a.stdout)
			return err
		},
	}
	f = bindTPCCFlags(cmd)
	return cmd
}

func newTPCCCleanupCmd(a *app) *cobra.Command {
	var f *tpccFlags
	cmd := &cobra.Command{
		Use:     "cleanup",
		Short:   "Drop the TPC-C tables",
		Long:    `Drop the nine TPC-C tables and vmbench's bookkeeping tables where they exist.`,
		Example: `  vmbench tpcc cleanup -H 127.0.0.1 -U root`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config(a, cmd)
			if err != nil {
				return err
			}
			return tpcc.Cleanup(cmd.Context(), cfg, a.stdout)
		},
	}
	f = bindTPCCFlags(cmd)
	return cmd
}

// tpccDriver runs the TPC-C workload for campaigns (scenarios.Driver): the
// flags go through the CLI's parser; the connection comes from the
// campaign's DB. The workload name is "tpcc".
type tpccDriver struct{ a *app }

var _ scenarios.Driver = tpccDriver{}

// tpccConnectionFlags are the options a campaign sets itself, per VM.
var tpccConnectionFlags = []string{"db-driver", "host", "port", "mysql-socket", "user", "password", "db", "sqlite-path",
	"mysql-host", "mysql-port", "mysql-user", "mysql-password", "mysql-db", "H", "P", "U", "p", "D"}

func (d tpccDriver) config(workload string, args []string, db *scenarios.DB) (tpcc.Config, error) {
	if workload != "" && workload != tpcc.Workload {
		return tpcc.Config{}, fmt.Errorf("workload name %q is not valid for tool tpcc (valid: %s)", workload, tpcc.Workload)
	}
	cfg, err := tpcc.ParseFlags(args, nil)
	if err != nil || db == nil {
		return cfg, err
	}
	drv, err := dialect.ParseDriver(db.Driver)
	if err != nil {
		return cfg, err
	}
	o := &cfg.Conn
	o.Driver, o.Host, o.Port, o.User, o.Password, o.DB, o.SQLitePath = drv, db.Host, db.Port, db.User, db.Password, db.Database, db.SQLitePath
	return cfg, cfg.Validate()
}

func (d tpccDriver) Check(workload string, args []string) error {
	_, err := d.config(workload, args, nil)
	return errors.Join(append(refuseConnectionFlags(args, tpccConnectionFlags), err)...)
}

func (d tpccDriver) CreateDatabase(ctx context.Context, db scenarios.DB) error {
	cfg, err := d.config("", nil, &db)
	return onDatabase(ctx, dialect.CreateDatabase, cfg, err)
}

func (d tpccDriver) DropDatabase(ctx context.Context, db scenarios.DB) error {
	cfg, err := d.config("", nil, &db)
	return onDatabase(ctx, dialect.DropDatabase, cfg, err)
}

func (d tpccDriver) Prepare(ctx context.Context, workload string, args []string, db scenarios.DB, w io.Writer) error {
	cfg, err := d.config(workload, args, &db)
	if err != nil {
		return err
	}
	return tpcc.Prepare(ctx, cfg, w, false)
}

func (d tpccDriver) Run(ctx context.Context, workload string, args []string, db scenarios.DB, hooks scenarios.RunHooks) (*oltp.Result, error) {
	cfg, err := d.config(workload, args, &db)
	if err != nil {
		return nil, err
	}
	rc := withRunHooks(cfg.RunConfig(), hooks)
	return tpcc.Run(ctx, cfg, rc, nil)
}

func (d tpccDriver) Cleanup(ctx context.Context, workload string, args []string, db scenarios.DB) error {
	cfg, err := d.config(workload, args, &db)
	if err != nil {
		return err
	}
	return tpcc.Cleanup(ctx, cfg, nil)
}
