// Package sysbench reproduces the OLTP workloads of sysbench 1.0
// (oltp_read_write and its siblings) on the vmbench driver core: the sbtest
// schema and loader, the per-event statement mixes with sysbench's defaults,
// its random distributions, its read/write/other query accounting and its
// error handling (restart the event on deadlock or lock wait timeout,
// reconnect on a lost connection), and its report formats.
//
// It registers itself as the workload tool "sysbench" (Tool, tool.go), the
// one way the CLI and campaigns reach it: they build its Config from flags
// (BindFlags; workload.Parse for a campaign's). The package's own entry
// points are Prepare, Run (which prints nothing; NewSpec for callers that
// drive oltp.Run themselves), WriteInterval and WriteSummary (the report
// formats) and Cleanup.
package sysbench

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/workload"
)

// Workload names a sysbench 1.0 OLTP script.
type Workload string

// The sysbench 1.0 OLTP workloads (src/lua/oltp_*.lua).
const (
	ReadWrite      Workload = "oltp_read_write"       // BEGIN, reads, writes, COMMIT
	ReadOnly       Workload = "oltp_read_only"        // BEGIN, point selects, ranges, COMMIT
	WriteOnly      Workload = "oltp_write_only"       // BEGIN, updates, delete+insert, COMMIT
	PointSelect    Workload = "oltp_point_select"     // one point select, no transaction
	UpdateIndex    Workload = "oltp_update_index"     // --index-updates UPDATE k=k+1, no transaction
	UpdateNonIndex Workload = "oltp_update_non_index" // --non-index-updates UPDATE c=?, no transaction
	Insert         Workload = "oltp_insert"           // one INSERT, no transaction
	Delete         Workload = "oltp_delete"           // one DELETE, no transaction
)

// Workloads lists every workload, in the order help texts show them.
func Workloads() []Workload {
	return []Workload{ReadWrite, ReadOnly, WriteOnly, PointSelect, UpdateIndex, UpdateNonIndex, Insert, Delete}
}

// ParseWorkload returns the workload named s; the error lists valid names.
func ParseWorkload(s string) (Workload, error) {
	w := Workload(strings.TrimSuffix(strings.TrimSpace(s), ".lua"))
	if slices.Contains(Workloads(), w) {
		return w, nil
	}
	return "", fmt.Errorf("unknown workload %q (valid: %s)", s, workloadList())
}

func workloadList() string {
	names := make([]string, 0, len(Workloads()))
	for _, w := range Workloads() {
		names = append(names, string(w))
	}
	return strings.Join(names, ", ")
}

// RandType is a --rand-type distribution of row ids.
type RandType string

// The --rand-type distributions (sysbench src/sb_rand.c). Special is the
// 1.0.20 default and Zipfian exists only in master; vmbench offers both and
// defaults to Uniform, as sysbench master does.
const (
	RandUniform  RandType = "uniform"
	RandGaussian RandType = "gaussian"
	RandSpecial  RandType = "special"
	RandPareto   RandType = "pareto"
	RandZipfian  RandType = "zipfian"
)

// RandTypes lists the valid --rand-type values.
func RandTypes() []RandType {
	return []RandType{RandUniform, RandGaussian, RandSpecial, RandPareto, RandZipfian}
}

// RandOptions are the --rand-* options.
type RandOptions struct {
	// Type is --rand-type (default uniform, as sysbench master).
	Type RandType
	// Seed is --rand-seed: 0 seeds from the clock; any other value makes the
	// run and the loaded data reproducible (each thread and each table gets
	// its own stream derived from Seed).
	Seed int64
	// SpecIter is --rand-spec-iter (12): uniforms averaged by gaussian.
	SpecIter int
	// SpecPct is --rand-spec-pct (1): the hot window of special, in percent
	// of the range.
	SpecPct float64
	// SpecRes is --rand-spec-res (75): percent of special's draws that fall
	// in the hot window.
	SpecRes float64
	// ParetoH is --rand-pareto-h (0.2), the pareto shape parameter.
	ParetoH float64
	// ZipfianExp is --rand-zipfian-exp (0.8), the zipfian exponent theta.
	ZipfianExp float64
}

// Config is everything a sysbench workload needs: the workload, its data
// and statement-mix options, the random distribution, the connection and
// the run options. Field comments name the sysbench option and its default.
type Config struct {
	// Workload is the script name (default oltp_read_write).
	Workload Workload

	// Tables is --tables (1): tables sbtest1..sbtestN.
	Tables int
	// TableSize is --table-size (10000): rows per table at prepare.
	TableSize int64
	// AutoInc is --auto-inc (on): the server assigns id; off writes id=i at
	// load and makes oltp_insert draw unique ids itself.
	AutoInc bool
	// CreateSecondary is --create-secondary (on): index k_<n> on k, created
	// after the load.
	CreateSecondary bool

	// RangeSize is --range-size (100): rows of each range select.
	RangeSize int
	// PointSelects .. DeleteInserts are the per-event statement counts
	// (--point-selects 10, the others 1).
	PointSelects    int
	SimpleRanges    int
	SumRanges       int
	OrderRanges     int
	DistinctRanges  int
	IndexUpdates    int
	NonIndexUpdates int
	DeleteInserts   int
	// RangeSelects is --range-selects (on); off drops all four range kinds.
	RangeSelects bool
	// SkipTrx is --skip-trx (off); on runs the statements in autocommit.
	SkipTrx bool

	Rand RandOptions
	// Conn is where the database is: --db-driver (mysql: MySQL, MariaDB,
	// Percona; pgsql: PostgreSQL, see PgSQL; or sqlite), --mysql-host (localhost, over TCP),
	// --mysql-port (3306), --mysql-socket (used instead of the host),
	// --mysql-user (sbtest), --mysql-password (else
	// $SYSBENCH_MYSQL_PASSWORD, else $MYSQL_PWD; never in output or
	// Results), --mysql-db (sbtest) and --sqlite-path (sbtest.db). Params
	// (go-sql-driver options, session variables) have no flag and are not
	// recorded in Results.
	Conn dialect.Config
	// PgSQL are the --pgsql-* options, from which Conn is made with
	// --db-driver pgsql (see PgSQLOptions).
	PgSQL PgSQLOptions

	// Threads is --threads (1).
	Threads int
	// Time is --time (10 s; 0 = no limit).
	Time time.Duration
	// Events is --events (0 = no limit).
	Events int64
	// WarmupTime is --warmup-time (0): a precondition phase excluded from
	// the results.
	WarmupTime time.Duration
	// ReportInterval is --report-interval (0 = no interval lines).
	ReportInterval time.Duration
	// Rate is --rate in transactions per second (0 = closed loop).
	Rate float64
	// Percentile is --percentile (95; 0 disables the percentile figure).
	Percentile float64
	// IgnoreErrors is --mysql-ignore-errors (1213,1020,1205).
	IgnoreErrors IgnoreErrors
}

// DefaultConfig returns sysbench 1.0's defaults (rand-type uniform, as in
// master).
func DefaultConfig() Config {
	return Config{
		Workload:  ReadWrite,
		Tables:    1,
		TableSize: 10000, AutoInc: true, CreateSecondary: true,
		RangeSize: 100, PointSelects: 10, SimpleRanges: 1, SumRanges: 1, OrderRanges: 1, DistinctRanges: 1,
		IndexUpdates: 1, NonIndexUpdates: 1, DeleteInserts: 1, RangeSelects: true,
		IgnoreErrors: DefaultIgnoreErrors(),
		Rand:         RandOptions{Type: RandUniform, SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2, ZipfianExp: 0.8},
		Conn:         dialect.DefaultConfig(dialect.MySQL),
		PgSQL:        DefaultPgSQLOptions(),

		Threads: 1, Time: 10 * time.Second, Percentile: 95,
	}
}

// MaxTableSize is the largest --table-size: id is a signed 32-bit INTEGER.
const MaxTableSize = math.MaxInt32

// Validate returns every problem with c at once (joined), each naming the
// option and what is valid, including the upper bounds of bounds.go; it
// allocates nothing per thread, table or interval, so it is safe on any
// value a user types.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if _, err := ParseWorkload(string(c.Workload)); err != nil {
		bad("workload: %v", err)
	}
	if c.Tables < 1 {
		bad("--tables: %d is not valid (at least 1)", c.Tables)
	}
	minSize := int64(1)
	if c.Workload == Insert {
		minSize = 0 // inserting into empty tables is meaningful
	}
	if c.TableSize < minSize || c.TableSize > MaxTableSize {
		bad("--table-size: %d is not valid (%d to %d)", c.TableSize, minSize, int64(MaxTableSize))
	}
	if c.RangeSize < 1 {
		bad("--range-size: %d is not valid (at least 1)", c.RangeSize)
	}
	for _, n := range c.stmtCounts() {
		if n.v < 0 {
			bad("--%s: %d is negative", n.name, n.v)
		}
	}
	errs = append(errs, c.Rand.validate()...)
	errs = append(errs, validateConn(c.Conn)...)
	if err := c.runConfig().Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.Percentile < 0 || c.Percentile > 100 || math.IsNaN(c.Percentile) {
		bad("--percentile: %g is not valid (0 to 100; 0 disables it)", c.Percentile)
	}
	errs = append(errs, c.boundErrors()...)
	return errors.Join(errs...)
}

func (o RandOptions) validate() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !slices.Contains(RandTypes(), o.Type) {
		bad("--rand-type: %q is not valid (%s)", o.Type, randTypeList())
	}
	if o.SpecIter < 1 {
		bad("--rand-spec-iter: %d is not valid (at least 1)", o.SpecIter)
	}
	if !(o.SpecPct > 0 && o.SpecPct <= 100) {
		bad("--rand-spec-pct: %g is not valid (more than 0, at most 100)", o.SpecPct)
	}
	if !(o.SpecRes >= 0 && o.SpecRes <= 100) {
		bad("--rand-spec-res: %g is not valid (0 to 100)", o.SpecRes)
	}
	if !(o.ParetoH > 0 && o.ParetoH < 1) {
		bad("--rand-pareto-h: %g is not valid (between 0 and 1, exclusive)", o.ParetoH)
	}
	if !(o.ZipfianExp >= 0) || math.IsInf(o.ZipfianExp, 0) {
		bad("--rand-zipfian-exp: %g is not valid (0 or more)", o.ZipfianExp)
	}
	return errs
}

func randTypeList() string {
	var names []string
	for _, t := range RandTypes() {
		names = append(names, string(t))
	}
	return strings.Join(names, ", ")
}

// validateConn checks the connection options through dialect.Config.Validate
// and adds what the sbtest workloads need: a database name for MySQL.
func validateConn(o dialect.Config) []error {
	var errs []error
	if o.Driver == dialect.SQLServer {
		return []error{errors.New("--db-driver: sqlserver is not a sysbench database (valid: mysql, pgsql, sqlite; SQL Server runs `vmbench tpcc`)")}
	}
	if err := (Config{Conn: o}).DialectConfig().Validate(); err != nil {
		errs = append(errs, err)
	}
	if o.Driver == dialect.MySQL && o.Database == "" {
		errs = append(errs, errors.New("--mysql-db: empty (the sbtest tables live in a database; default sbtest)"))
	}
	if o.Driver == dialect.Postgres && o.Database == "" {
		errs = append(errs, errors.New("--pgsql-db: empty (the sbtest tables live in a database; default sbtest)"))
	}
	return errs
}

// runConfig is the part of the Runner's configuration that comes from c.
func (c Config) runConfig() oltp.RunConfig {
	return oltp.RunConfig{
		Threads: c.Threads, Time: c.Time, Events: c.Events, WarmupTime: c.WarmupTime,
		ReportInterval: c.ReportInterval, Rate: c.Rate, Arrival: oltp.Exponential, Seed: c.Rand.Seed,
	}
}

// RunConfig returns the oltp.RunConfig of c: threads, time, events,
// warm-up, report interval, rate (Poisson arrivals, as sysbench --rate),
// seed and Flags (workload.RecordedFlags: every option but where the
// database is, the passwords and --percentile). Callers may add Labels, StartAt and callbacks before
// passing it to Run.
func (c Config) RunConfig() oltp.RunConfig {
	rc := c.runConfig()
	rc.Flags = workload.RecordedFlags(&toolConfig{c})
	if c.Conn.Driver == dialect.SQLite {
		rc.ClientShares = dialect.SQLiteInProcess
	}
	return rc
}

// Environment variables that supply --mysql-password when the flag is not
// given, most specific first.
const (
	EnvPassword      = "SYSBENCH_MYSQL_PASSWORD"
	EnvMySQLPassword = "MYSQL_PWD"
)

// PasswordFromEnv fills Conn.Password from $SYSBENCH_MYSQL_PASSWORD, else
// $MYSQL_PWD, when it is empty. getenv is os.Getenv in the CLI.
func (c *Config) PasswordFromEnv(getenv func(string) string) {
	if c.Conn.Password != "" || getenv == nil {
		return
	}
	for _, k := range []string{EnvPassword, EnvMySQLPassword} {
		if v := getenv(k); v != "" {
			c.Conn.Password = v
			return
		}
	}
}

// DialectConfig returns the connection options, with Params copied.
func (c Config) DialectConfig() dialect.Config { return c.Conn.WithDatabase(c.Conn.Database) }
