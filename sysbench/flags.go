package sysbench

import (
	"slices"

	"github.com/spf13/pflag"

	"vmbench/dialect"
	"vmbench/internal/flagvalue"
	"vmbench/internal/textfmt"
	"vmbench/oltp"
	"vmbench/workload"
)

// BindFlags registers every option of c on fs under sysbench's names, with
// c's current values as defaults (start from DefaultConfig), and installs
// flagvalue.Normalize so underscore spellings work. Boolean options take
// sysbench's on/off (also true/false, yes/no, 1/0; a bare --skip-trx means
// on). Durations take Go durations ("20s", "1m") or plain seconds ("60"),
// as sysbench's --time=60.
func (c *Config) BindFlags(fs *pflag.FlagSet) {
	fs.SetNormalizeFunc(flagvalue.Normalize)
	c.bindDataFlags(fs)
	c.bindRandFlags(fs)
	c.bindConnFlags(fs)
	c.bindRunFlags(fs)
	// What is recorded (workload.RecordedFlags): not where the database
	// is (the connection options but --db-driver, which shapes the run)
	// nor the passwords, which a campaign sets for each VM, nor
	// --percentile, which only changes the printed report; the
	// --rand-* parameters only beside a --rand-type that uses them.
	where := slices.DeleteFunc(slices.Clone(connectionFlags), func(n string) bool { return n == "db-driver" })
	workload.NotRecorded(fs, append(where, "percentile")...)
	for name, types := range map[string][]RandType{"rand-spec-iter": {RandGaussian, RandSpecial},
		"rand-spec-pct": {RandSpecial}, "rand-spec-res": {RandSpecial}, "rand-pareto-h": {RandPareto}, "rand-zipfian-exp": {RandZipfian}} {
		workload.RecordAs(fs, name, func(v string) string {
			if slices.Contains(types, c.Rand.Type) {
				return v
			}
			return ""
		})
	}
}

func (c *Config) bindDataFlags(fs *pflag.FlagSet) {
	fs.IntVar(&c.Tables, "tables", c.Tables, "number of tables sbtest1..sbtestN (at most "+textfmt.Thousands(MaxTables)+")")
	fs.Int64Var(&c.TableSize, "table-size", c.TableSize, "rows per table at prepare")
	flagvalue.Bool(fs, &c.AutoInc, "auto-inc", "on: the server assigns id (AUTO_INCREMENT); off: the loader writes id and oltp_insert draws unique ids")
	flagvalue.Bool(fs, &c.CreateSecondary, "create-secondary", "create the secondary index k_<n> on k after the load")
	fs.IntVar(&c.RangeSize, "range-size", c.RangeSize, "rows of each range SELECT (id BETWEEN x AND x+range-size-1)")
	fs.IntVar(&c.PointSelects, "point-selects", c.PointSelects, "point SELECTs per transaction")
	fs.IntVar(&c.SimpleRanges, "simple-ranges", c.SimpleRanges, "simple range SELECTs per transaction")
	fs.IntVar(&c.SumRanges, "sum-ranges", c.SumRanges, "SUM(k) range SELECTs per transaction")
	fs.IntVar(&c.OrderRanges, "order-ranges", c.OrderRanges, "ORDER BY range SELECTs per transaction")
	fs.IntVar(&c.DistinctRanges, "distinct-ranges", c.DistinctRanges, "DISTINCT range SELECTs per transaction")
	fs.IntVar(&c.IndexUpdates, "index-updates", c.IndexUpdates, "UPDATEs of the indexed column k per transaction")
	fs.IntVar(&c.NonIndexUpdates, "non-index-updates", c.NonIndexUpdates, "UPDATEs of the non-indexed column c per transaction")
	fs.IntVar(&c.DeleteInserts, "delete-inserts", c.DeleteInserts, "DELETE + INSERT pairs (same id) per transaction")
	flagvalue.Bool(fs, &c.RangeSelects, "range-selects", "run the range SELECTs (off drops all four kinds)")
	flagvalue.Bool(fs, &c.SkipTrx, "skip-trx", "run statements in autocommit mode, without BEGIN/COMMIT")
}

func (c *Config) bindRandFlags(fs *pflag.FlagSet) {
	fs.Var(flagvalue.Enum(&c.Rand.Type, RandTypes()), "rand-type",
		"distribution of row ids: "+randTypeList()+" (sysbench 1.0.20 defaulted to special)")
	fs.Int64Var(&c.Rand.Seed, "rand-seed", c.Rand.Seed, "seed of the random numbers; 0 seeds from the clock, any other value makes runs and data reproducible")
	fs.IntVar(&c.Rand.SpecIter, "rand-spec-iter", c.Rand.SpecIter, "uniform draws averaged by gaussian (and special's gaussian part)")
	fs.Float64Var(&c.Rand.SpecPct, "rand-spec-pct", c.Rand.SpecPct, "special: size of the hot window, percent of the rows")
	fs.Float64Var(&c.Rand.SpecRes, "rand-spec-res", c.Rand.SpecRes, "special: percent of draws that fall in the hot window")
	fs.Float64Var(&c.Rand.ParetoH, "rand-pareto-h", c.Rand.ParetoH, "pareto: shape parameter h (0.2 = 80% of draws in the lowest 20% of ids)")
	fs.Float64Var(&c.Rand.ZipfianExp, "rand-zipfian-exp", c.Rand.ZipfianExp, "zipfian: exponent theta (0 = uniform)")
}

func (c *Config) bindConnFlags(fs *pflag.FlagSet) {
	fs.Var(flagvalue.Parsed(&c.Conn.Driver, dialect.ParseDriver, "mysql|pgsql|sqlite"), "db-driver", "database driver: mysql (MySQL, MariaDB, Percona), pgsql (PostgreSQL; also postgres) or sqlite")
	fs.StringVar(&c.Conn.Host, "mysql-host", c.Conn.Host, "MySQL server host (TCP)")
	fs.Var(flagvalue.Parsed(&c.Conn.Port, flagvalue.ParsePort, "int"), "mysql-port", "MySQL server port")
	fs.StringVar(&c.Conn.Socket, "mysql-socket", c.Conn.Socket, "MySQL Unix socket path (used instead of --mysql-host)")
	fs.StringVar(&c.Conn.User, "mysql-user", c.Conn.User, "MySQL user")
	fs.StringVar(&c.Conn.Password, "mysql-password", c.Conn.Password,
		"MySQL password (default $"+EnvPassword+", else $"+EnvMySQLPassword+"; prefer the environment: flags show in ps)")
	fs.StringVar(&c.Conn.Database, "mysql-db", c.Conn.Database, "MySQL database (prepare creates it when missing)")
	fs.StringVar(&c.Conn.SQLitePath, "sqlite-path", c.Conn.SQLitePath, "SQLite database file, with --db-driver=sqlite")
	c.bindPgSQLFlags(fs)
}

func (c *Config) bindRunFlags(fs *pflag.FlagSet) {
	fs.IntVar(&c.Threads, "threads", c.Threads, "worker threads, one connection each (at most "+textfmt.Thousands(MaxThreads)+" and the server's max_connections; prepare: tables loaded in parallel)")
	fs.Var(flagvalue.Seconds(&c.Time), "time", oltp.TimeHelp("Transactions"))
	fs.Int64Var(&c.Events, "events", c.Events, "stop after this many transactions; 0 = no limit")
	fs.Var(flagvalue.Seconds(&c.WarmupTime), "warmup-time", "warm-up before the measured run, excluded from the results (seconds or duration)")
	fs.Var(flagvalue.Seconds(&c.ReportInterval), "report-interval", "print an interval line this often (seconds or duration); 0 = none")
	fs.Float64Var(&c.Rate, "rate", c.Rate, "open loop: target transactions per second (Poisson arrivals, at most "+textfmt.Thousands(MaxRate)+"); 0 = closed loop")
	fs.Float64Var(&c.Percentile, "percentile", c.Percentile, "latency percentile to report (0 to 100; 0 = off)")
	fs.Var(ignoreValue{&c.IgnoreErrors}, "mysql-ignore-errors",
		"server errors that restart the transaction instead of ending the run: a list, all, or none (SQLite busy and lost connections are always retried)")
	// sysbench 1.0.20 still accepts the 0.5-era names; so does vmbench.
	for alias, name := range map[string]string{"num-threads": "threads", "max-time": "time", "max-requests": "events", "tx-rate": "rate"} {
		f := fs.Lookup(name)
		fs.Var(f.Value, alias, "deprecated sysbench 0.5 name of --"+name)
		_ = fs.MarkHidden(alias)
		workload.Alias(fs, alias, name)
	}
}
