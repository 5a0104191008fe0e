package sysbench

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"vmbench/dialect"
)

// NormalizeFlagName maps sysbench's underscore spellings onto the dashed
// names (--table_size is --table-size, --skip_trx is --skip-trx). Install it
// with FlagSet.SetNormalizeFunc; BindFlags does.
func NormalizeFlagName(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	return pflag.NormalizedName(strings.ReplaceAll(name, "_", "-"))
}

// BindFlags registers every option of c on fs under sysbench's names, with
// c's current values as defaults (start from DefaultConfig), and installs
// NormalizeFlagName so underscore spellings work. Boolean options take
// sysbench's on/off (also true/false, yes/no, 1/0; a bare --skip-trx means
// on). Durations take Go durations ("20s", "1m") or plain seconds ("60"),
// as sysbench's --time=60.
func (c *Config) BindFlags(fs *pflag.FlagSet) {
	fs.SetNormalizeFunc(NormalizeFlagName)
	c.bindDataFlags(fs)
	c.bindRandFlags(fs)
	c.bindConnFlags(fs)
	c.bindRunFlags(fs)
}

func (c *Config) bindDataFlags(fs *pflag.FlagSet) {
	fs.IntVar(&c.Tables, "tables", c.Tables, "number of tables sbtest1..sbtestN")
	fs.Int64Var(&c.TableSize, "table-size", c.TableSize, "rows per table at prepare")
	boolFlag(fs, &c.AutoInc, "auto-inc", "on: the server assigns id (AUTO_INCREMENT); off: the loader writes id and oltp_insert draws unique ids")
	boolFlag(fs, &c.CreateSecondary, "create-secondary", "create the secondary index k_<n> on k after the load")
	fs.IntVar(&c.RangeSize, "range-size", c.RangeSize, "rows of each range SELECT (id BETWEEN x AND x+range-size-1)")
	fs.IntVar(&c.PointSelects, "point-selects", c.PointSelects, "point SELECTs per transaction")
	fs.IntVar(&c.SimpleRanges, "simple-ranges", c.SimpleRanges, "simple range SELECTs per transaction")
	fs.IntVar(&c.SumRanges, "sum-ranges", c.SumRanges, "SUM(k) range SELECTs per transaction")
	fs.IntVar(&c.OrderRanges, "order-ranges", c.OrderRanges, "ORDER BY range SELECTs per transaction")
	fs.IntVar(&c.DistinctRanges, "distinct-ranges", c.DistinctRanges, "DISTINCT range SELECTs per transaction")
	fs.IntVar(&c.IndexUpdates, "index-updates", c.IndexUpdates, "UPDATEs of the indexed column k per transaction")
	fs.IntVar(&c.NonIndexUpdates, "non-index-updates", c.NonIndexUpdates, "UPDATEs of the non-indexed column c per transaction")
	fs.IntVar(&c.DeleteInserts, "delete-inserts", c.DeleteInserts, "DELETE + INSERT pairs (same id) per transaction")
	boolFlag(fs, &c.RangeSelects, "range-selects", "run the range SELECTs (off drops all four kinds)")
	boolFlag(fs, &c.SkipTrx, "skip-trx", "run statements in autocommit mode, without BEGIN/COMMIT")
}

func (c *Config) bindRandFlags(fs *pflag.FlagSet) {
	fs.Var(&enumValue[RandType]{p: &c.Rand.Type, valid: RandTypes()}, "rand-type",
		"distribution of row ids: "+randTypeList()+" (sysbench 1.0.20 defaulted to special)")
	fs.Int64Var(&c.Rand.Seed, "rand-seed", c.Rand.Seed, "seed of the random numbers; 0 seeds from the clock, any other value makes runs and data reproducible")
	fs.IntVar(&c.Rand.SpecIter, "rand-spec-iter", c.Rand.SpecIter, "uniform draws averaged by gaussian (and special's gaussian part)")
	fs.Float64Var(&c.Rand.SpecPct, "rand-spec-pct", c.Rand.SpecPct, "special: size of the hot window, percent of the rows")
	fs.Float64Var(&c.Rand.SpecRes, "rand-spec-res", c.Rand.SpecRes, "special: percent of draws that fall in the hot window")
	fs.Float64Var(&c.Rand.ParetoH, "rand-pareto-h", c.Rand.ParetoH, "pareto: shape parameter h (0.2 = 80% of draws in the lowest 20% of ids)")
	fs.Float64Var(&c.Rand.ZipfianExp, "rand-zipfian-exp", c.Rand.ZipfianExp, "zipfian: exponent theta (0 = uniform)")
}

func (c *Config) bindConnFlags(fs *pflag.FlagSet) {
	fs.Var(&driverValue{&c.Conn.Driver}, "db-driver", "database driver: mysql (MySQL, MariaDB, Percona) or sqlite")
	fs.StringVar(&c.Conn.Host, "mysql-host", c.Conn.Host, "MySQL server host (TCP)")
	fs.IntVar(&c.Conn.Port, "mysql-port", c.Conn.Port, "MySQL server port")
	fs.StringVar(&c.Conn.Socket, "mysql-socket", c.Conn.Socket, "MySQL Unix socket path (used instead of --mysql-host)")
	fs.StringVar(&c.Conn.User, "mysql-user", c.Conn.User, "MySQL user")
	fs.StringVar(&c.Conn.Password, "mysql-password", c.Conn.Password,
		"MySQL password (default $"+EnvPassword+", else $"+EnvMySQLPassword+"; prefer the environment: flags show in ps)")
	fs.StringVar(&c.Conn.DB, "mysql-db", c.Conn.DB, "MySQL database (prepare creates it when missing)")
	fs.StringVar(&c.Conn.SQLitePath, "sqlite-path", c.Conn.SQLitePath, "SQLite database file, with --db-driver=sqlite")
}

func (c *Config) bindRunFlags(fs *pflag.FlagSet) {
	fs.IntVar(&c.Threads, "threads", c.Threads, "worker threads, one connection each (prepare: tables loaded in parallel)")
	fs.Var(&secondsValue{&c.Time}, "time", "length of the measured run (\"60\" = 60 s, or \"1m\"); 0 = no limit")
	fs.Int64Var(&c.Events, "events", c.Events, "stop after this many transactions; 0 = no limit")
	fs.Var(&secondsValue{&c.WarmupTime}, "warmup-time", "warm-up before the measured run, excluded from the results (seconds or duration)")
	fs.Var(&secondsValue{&c.ReportInterval}, "report-interval", "print an interval line this often (seconds or duration); 0 = none")
	fs.Float64Var(&c.Rate, "rate", c.Rate, "open loop: target transactions per second (Poisson arrivals); 0 = closed loop")
	fs.Float64Var(&c.Percentile, "percentile", c.Percentile, "latency percentile to report (0 to 100; 0 = off)")
	fs.Var(ignoreValue{&c.IgnoreErrors}, "mysql-ignore-errors",
		"server errors that restart the transaction instead of ending the run: a list, all, or none (SQLite busy and lost connections are always retried)")
	// sysbench 1.0.20 still accepts the 0.5-era names; so does vmbench.
	for alias, name := range map[string]string{"num-threads": "threads", "max-time": "time", "max-requests": "events", "tx-rate": "rate"} {
		f := fs.Lookup(name)
		fs.Var(f.Value, alias, "deprecated sysbench 0.5 name of --"+name)
		_ = fs.MarkHidden(alias)
	}
}

// ParseFlags parses sysbench-style options (e.g. "--tables=4",
// "--table_size", "10000", "--time=60") for workload (empty means
// oltp_read_write) on top of DefaultConfig, fills the password from the
// environment through getenv (may be nil) when --mysql-password is not
// given, and validates. It is the one parser of the CLI and of campaigns.
func ParseFlags(workload string, args []string, getenv func(string) string) (Config, error) {
	c := DefaultConfig()
	var errs []string
	if workload != "" {
		w, err := ParseWorkload(workload)
		if err != nil {
			errs = append(errs, err.Error())
		}
		c.Workload = w
	}
	fs := pflag.NewFlagSet("sysbench", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		return c, fmt.Errorf("%s", strings.Join(append(errs, err.Error()), "\n"))
	}
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Sprintf("unexpected argument %q (options are --name=value)", fs.Arg(0)))
	}
	if len(errs) > 0 {
		return c, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	c.PasswordFromEnv(getenv)
	return c, c.Validate()
}

// ParseMap is ParseFlags for a campaign's flag map, e.g. {"tables": "4",
// "table-size": "10000", "threads": "32", "time": "20s"}. Keys may carry
// the leading "--" or not, and use dashes or underscores.
func ParseMap(workload string, flags map[string]string, getenv func(string) string) (Config, error) {
	return ParseFlags(workload, ArgsFromMap(flags), getenv)
}

// ArgsFromMap turns a flag map into "--key=value" arguments, sorted by key.
func ArgsFromMap(flags map[string]string) []string {
	keys := make([]string, 0, len(flags))
	for k := range flags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	args := make([]string, 0, len(keys))
	for _, k := range keys {
		args = append(args, "--"+strings.TrimLeft(k, "-")+"="+flags[k])
	}
	return args
}

// boolFlag registers an on/off option whose bare form means on.
func boolFlag(fs *pflag.FlagSet, p *bool, name, usage string) {
	f := fs.VarPF(&onOffValue{p}, name, "", usage)
	f.NoOptDefVal = "on"
}

// onOffValue is a boolean option spelled as sysbench does: on/off.
type onOffValue struct{ p *bool }

func (v *onOffValue) String() string {
	if v.p == nil {
		return "off"
	}
	return onOff(*v.p)
}

func (v *onOffValue) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "on", "true", "yes", "1":
		*v.p = true
	case "off", "false", "no", "0":
		*v.p = false
	default:
		return fmt.Errorf("%q is not on or off", s)
	}
	return nil
}

func (v *onOffValue) Type() string { return "on|off" }

// secondsValue is a duration given as plain seconds ("60", "0.5") or as a
// Go duration ("1m30s").
type secondsValue struct{ p *time.Duration }

func (v *secondsValue) String() string {
	if v.p == nil || *v.p == 0 {
		return "0"
	}
	return v.p.String()
}

func (v *secondsValue) Set(s string) error {
	d, err := ParseSeconds(s)
	if err != nil {
		return err
	}
	*v.p = d
	return nil
}

func (v *secondsValue) Type() string { return "seconds" }

// ParseSeconds parses a duration written as plain seconds ("60", "0.5", as
// sysbench's --time) or as a Go duration ("90s", "1m30s").
func ParseSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f > float64(1<<63-1)/float64(time.Second) || f < -float64(1<<63-1)/float64(time.Second) {
			return 0, fmt.Errorf("%q is out of range", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (seconds like 60, or 90s, 1m30s)", s)
	}
	return d, nil
}

// enumValue is an option with a fixed set of string values.
type enumValue[T ~string] struct {
	p     *T
	valid []T
}

func (v *enumValue[T]) String() string {
	if v.p == nil {
		return ""
	}
	return string(*v.p)
}

func (v *enumValue[T]) Set(s string) error {
	t := T(strings.ToLower(strings.TrimSpace(s)))
	if !slices.Contains(v.valid, t) {
		names := make([]string, len(v.valid))
		for i, x := range v.valid {
			names[i] = string(x)
		}
		return fmt.Errorf("%q is not valid (%s)", s, strings.Join(names, ", "))
	}
	*v.p = t
	return nil
}

func (v *enumValue[T]) Type() string { return "string" }

// driverValue is --db-driver.
type driverValue struct{ p *dialect.Driver }

func (v *driverValue) String() string {
	if v.p == nil {
		return ""
	}
	return string(*v.p)
}

func (v *driverValue) Set(s string) error {
	d, err := dialect.ParseDriver(s)
	if err != nil {
		return err
	}
	*v.p = d
	return nil
}

func (v *driverValue) Type() string { return "mysql|sqlite" }
