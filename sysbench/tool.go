package sysbench

import (
	"strings"

	"vmbench/dialect"
	"vmbench/workload"
)

func init() { workload.Register(Tool{}) }

// Tool is sysbench in the workload registry: its commands' help and a
// Config per run (NewConfig).
type Tool struct{}

// NewConfig returns sysbench's defaults (DefaultConfig) as a
// workload.Config; it is also a Connector, DatabaseOwner and Reporter.
func (Tool) NewConfig() workload.Config { return &toolConfig{Config: DefaultConfig()} }

// Describe returns the sysbench command group: its help text, the
// workloads and the prepare, run and cleanup commands, each taking an
// optional WORKLOAD.
func (Tool) Describe() workload.Descriptor {
	var names []string
	for _, w := range Workloads() {
		names = append(names, string(w))
	}
	return workload.Descriptor{
		Name:  "sysbench",
		Usage: "sysbench prepare|run|cleanup [WORKLOAD]",
		Short: "sysbench 1.0 OLTP workloads (oltp_read_write ...) against MySQL/MariaDB, PostgreSQL or SQLite",
		Long: `The OLTP workloads of sysbench 1.0 with its schema (sbtest1..N), statement mixes,
defaults, random distributions, error handling and report formats:

  ` + strings.Join(names, ", ") + `

The workload is a positional argument after the command, or before it as
sysbench takes it ('vmbench sysbench oltp_read_write run'); it defaults to
oltp_read_write. Options may come anywhere, as in sysbench's 'sysbench
[options]... [testname] [command]': before, between or after the workload and
the command, as --name=value or --name value ('vmbench sysbench --tables=4
oltp_read_only run'). Options keep sysbench's names, with dashes or underscores
(--table-size or --table_size), on/off for switches, and plain seconds or Go
durations for times (--time=60 or --time=1m).

--db-driver picks the database: mysql (MySQL, MariaDB, Percona; the --mysql-*
options), pgsql (PostgreSQL; the --pgsql-* options, which default to libpq's
$PGHOST, $PGPORT, $PGUSER and $PGDATABASE) or sqlite (--sqlite-path). The
password comes from --mysql-password, else $` + EnvPassword + `, else
$` + EnvMySQLPassword + `; with --db-driver pgsql from --pgsql-password, else $` + dialect.EnvPGPassword + `.
It never appears in output or result files.`,
		Example: `  vmbench sysbench prepare --mysql-user root --tables 4 --table-size 10000
  vmbench sysbench run oltp_read_write --mysql-user root --tables 4 --threads 8 --time 30 --report-interval 1
  vmbench sysbench cleanup --mysql-user root --tables 4

  # PostgreSQL
  vmbench sysbench prepare --db-driver pgsql --pgsql-host 127.0.0.1 --pgsql-user postgres --tables 4`,
		Workloads: names,
		Commands:  []workload.Command{prepareCommand, runCommand, cleanupCommand},
	}
}

var prepareCommand = workload.Command{
	Name:  workload.VerbPrepare,
	Short: "Create and load the sbtest tables",
	Long: `Create the database if missing and the tables sbtest1..sbtest<--tables>, load
--table-size rows into each by LOAD DATA LOCAL INFILE (MySQL with
local_infile=ON), COPY (PostgreSQL) or multi-row INSERTs (tables shared out over
--threads loaders as sysbench does), create the secondary index k_<n> after the
load (--create-secondary) and check every table's row count.

Existing sbtest tables are never loaded into: prepare stops before creating
anything and asks for 'vmbench sysbench cleanup' first.`,
	Example: `  # 4 tables of 10,000 rows, loaded by 4 threads, on a local MariaDB
  vmbench sysbench prepare --mysql-host 127.0.0.1 --mysql-user root --tables 4 --table-size 10000 --threads 4

  # the review's data set: 100 tables x 10 M rows
  vmbench sysbench prepare --mysql-host db1 --tables 100 --table-size 10000000 --threads 32

  # a local PostgreSQL, as its superuser
  vmbench sysbench prepare --db-driver pgsql --pgsql-host 127.0.0.1 --pgsql-user postgres --tables 4

  # an embedded SQLite file
  vmbench sysbench prepare --db-driver sqlite --sqlite-path /tmp/sbtest.db --tables 2`,
	Workload: true,
}

var runCommand = workload.Command{
	Name:  workload.VerbRun,
	Short: "Run a workload and print sysbench's report",
	Long: `Run WORKLOAD (default oltp_read_write) with --threads threads, each on its own
connection with server-side prepared statements, for --time or --events, and
print sysbench's interval lines (--report-interval) and final report.

Before it starts, the run checks that sbtest1..sbtest<--tables> exist and hold
ids 1..--table-size (give the --table-size used at prepare): each table's
highest id, and its rows counted in 10 windows of 500 ids spread over
1..--table-size (a table of up to 5,000 ids counted whole), of which 99% must
be there; and that --threads fits the server's max_connections. A mismatch
exits 2.

Closed loop by default (each thread starts its next transaction when the last
ends; latency is service time); --rate=N runs an open loop at N transactions/s
with Poisson arrivals and measures latency from each intended start.
--warmup-time runs a precondition phase first, excluded from the figures.
When --time ends, transactions still running are not counted; they get up to
10 s to finish (the graceful stop), then are cancelled on the server too
(KILL QUERY, PostgreSQL's CancelRequest). The report's total time is the time
the run really took, its rates are over the measured time.
Deadlocks and lock wait timeouts (MySQL 1213, 1205, 1020: --mysql-ignore-errors;
PostgreSQL 40P01, 40001, 55P03 and 23505, as sysbench's pgsql driver; SQLite
busy) and lost connections restart the transaction and are counted; any other
error stops the run.

Ctrl-C prints the report of what was measured, writes the result file marked
interrupted and exits non-zero.`,
	Example: `  # the review's load on one VM: 32 threads, 2 h warm-up, 1 h measured
  vmbench sysbench run oltp_read_write --mysql-host db1 --tables 100 --table-size 10000000 \
      --threads 32 --warmup-time 2h --time 1h --report-interval 10 --result-file vm1.json

  # a quick local run, sysbench's argument order
  vmbench sysbench oltp_read_only run --mysql-host 127.0.0.1 --mysql-user root --tables 4 --threads 8 --time 10`,
	Workload: true,
}

var cleanupCommand = workload.Command{
	Name:  workload.VerbCleanup,
	Short: "Drop the sbtest tables",
	Long: `Drop sbtest1..sbtest<--tables> where they exist (DROP TABLE IF EXISTS), as
sysbench cleanup does; give the --tables used at prepare.`,
	Example: `  vmbench sysbench cleanup --mysql-host 127.0.0.1 --mysql-user root --tables 4
  vmbench sysbench cleanup --db-driver sqlite --sqlite-path /tmp/sbtest.db --tables 2`,
	Workload: true,
}
