package tpcc

import (
	"vmbench/dialect"
	"vmbench/workload"
)

func init() { workload.Register(Tool{}) }

// Tool is the TPC-C workload in the workload registry: its commands' help
// and a Config per run (NewConfig).
type Tool struct{}

// NewConfig returns the defaults (DefaultConfig) as a workload.Config; it
// is also a Connector, DatabaseOwner, Checker, Reviewer, Reporter and
// FlagScoper.
func (Tool) NewConfig() workload.Config { return &toolConfig{Config: DefaultConfig()} }

// Describe returns the tpcc command group: its help text, its one
// workload (tpcc) and the prepare, run, check and cleanup commands.
func (Tool) Describe() workload.Descriptor {
	return workload.Descriptor{
		Name:  "tpcc",
		Usage: "tpcc prepare|run|check|cleanup",
		Short: "TPC-C-like workload against MySQL/MariaDB, PostgreSQL, SQL Server or SQLite",
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
sysbench's (--mysql-host ..., --time, --report-interval, --warmup-time);
--db-driver picks the database: mysql (MySQL, MariaDB, Percona), postgres
(PostgreSQL; --isolation sets its sessions' level), sqlserver or sqlite. The
password comes from --password, else $` + EnvPassword + `, else $` + EnvMySQLPassword + `
(MySQL), $` + dialect.EnvPGPassword + ` (PostgreSQL) or $` + EnvSQLServerPassword + ` (SQL Server); it never
appears in output or result files.

It is not a TPC-C implementation and its figures are not TPC-C results.`,
		Example: `  vmbench tpcc prepare -H 127.0.0.1 -U root --warehouses 10 --threads 4
  vmbench tpcc run -H 127.0.0.1 -U root --warehouses 10 --threads 16 --time 60 --report-interval 10
  vmbench tpcc run -H 127.0.0.1 -U root --warehouses 10 --conns 20 --wait-scale 1 --time 10m
  vmbench tpcc check -H 127.0.0.1 -U root
  vmbench tpcc cleanup -H 127.0.0.1 -U root
  vmbench tpcc run --db-driver postgres -H 127.0.0.1 -U postgres --warehouses 10 --threads 16 --time 60`,
		Workloads: []string{Workload},
		Commands:  []workload.Command{prepareCommand, runCommand, checkCommand, cleanupCommand},
	}
}

var prepareCommand = workload.Command{
	Name:  workload.VerbPrepare,
	Short: "Create and load the TPC-C tables",
	Long: `Create the database if missing, the nine tables and vmbench's two bookkeeping
tables, load ITEM and then --warehouses warehouses with TPC-C 4.3.3.1's
cardinalities and values (deterministic from --seed and the warehouse id),
--threads warehouses at a time, with each database's fast path (LOAD DATA
LOCAL INFILE on MySQL with local_infile=ON, else multi-row INSERT; COPY on
PostgreSQL; multi-row INSERT on SQLite, bulk copy on SQL Server), then create the
secondary indexes. The C-Load constants of NURand are stored, so that every
later run obeys the C-delta rule.

An interrupted prepare resumes where it stopped: finished warehouses are kept,
a partial one is deleted and loaded again. A warehouse whose connection is lost
is loaded again from scratch, so the counts are always exact.`,
	Example: `  vmbench tpcc prepare -H 127.0.0.1 -U root --warehouses 10 --threads 4
  vmbench tpcc prepare --db-driver sqlserver -H sql1 -U sa --warehouses 1500 --threads 16
  vmbench tpcc prepare --db-driver sqlite --sqlite-path /tmp/tpcc.db --warehouses 1`,
}

var runCommand = workload.Command{
	Name:  workload.VerbRun,
	Short: "Run the five transactions and report TPM, latency, tpmC and NOPM",
	Long: `Without --threads the run is terminal mode, TPC-C's: --terminals (default 10 per
warehouse) with the specification's keying and think times (--wait-scale 1)
share --conns connections (default 2 per warehouse), so one warehouse runs at
most about 28 transactions a minute (12.86 New-Orders). --threads N is go-tpc's
closed loop: N terminals without waits, one connection each.

Run the mix for --time (or --events) after an optional --warmup-time
precondition, print an interval line per --report-interval and the report: per
transaction count, TPM, average, p50, p90, p95, p99, p99.9 and max in ms and the
90th-percentile limit of TPC-C 5.2.5.3; TPS, tpmC, NOPM (from sum(d_next_o_id))
beside the client's count, efficiency (only with --wait-scale 1), errors, and
the audit of the input distributions (runs of 10,000 transactions or more).

Deadlocks and lock timeouts (MySQL 1213/1205, SQL Server 1205/1222, PostgreSQL
40P01/55P03, and 40001 under --isolation repeatable-read or serializable;
SQLite busy) roll back and restart the whole transaction, at most --retries
times; lost
connections reconnect and restart it; both are counted. New-Orders rolled back
on purpose (1%) are counted apart from errors.

Ctrl-C prints the report of what was measured, writes the result file marked
interrupted and exits non-zero.`,
	Example: `  # go-tpc style: 16 threads, no waits
  vmbench tpcc run -H 127.0.0.1 -U root --warehouses 10 --threads 16 --time 60

  # the review's load on one VM: 1,500 warehouses, 15,000 terminals
  vmbench tpcc run --db-driver sqlserver -H sql1 -U sa --warehouses 1500 --conns 200 \
      --wait-scale 0.2 --warmup-time 2h30m --time 30m --report-interval 60 --result-file vm1.json`,
}

var checkCommand = workload.Command{
	Name:  workload.VerbCheck,
	Short: "Check the consistency conditions of TPC-C 3.3.2.1 to 3.3.2.12",
	Long: `Check the twelve consistency conditions of TPC-C clause 3.3.2 on every
warehouse and print PASS or FAIL per condition with the first failing
warehouses and districts. Condition 11 holds only directly after a load and is
skipped once a run has touched the data. With --warehouses N it first checks
that the database holds N warehouses, and fails naming both numbers if not.
Exit status 1 when a condition fails.`,
	Example: `  vmbench tpcc check -H 127.0.0.1 -U root`,
}

var cleanupCommand = workload.Command{
	Name:    workload.VerbCleanup,
	Short:   "Drop the TPC-C tables",
	Long:    `Drop the nine TPC-C tables and vmbench's bookkeeping tables where they exist.`,
	Example: `  vmbench tpcc cleanup -H 127.0.0.1 -U root`,
}
