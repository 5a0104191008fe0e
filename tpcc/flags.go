package tpcc

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"vmbench/dialect"
	"vmbench/internal/flagvalue"
	"vmbench/oltp"
	"vmbench/workload"
)

// Environment variables that supply the password when --password is not
// given, most specific first: vmbench's, then the clients' own.
const (
	EnvPassword          = "TPCC_PASSWORD"
	EnvMySQLPassword     = "MYSQL_PWD"
	EnvSQLServerPassword = "SQLCMDPASSWORD"
)

// BindFlags registers every option of c on fs, with c's values as
// defaults (start from DefaultConfig). Names are go-tpc's and sysbench's;
// underscores work as dashes.
func (c *Config) BindFlags(fs *pflag.FlagSet) {
	fs.SetNormalizeFunc(flagvalue.Normalize)
	o := &c.Conn
	fs.Var(flagvalue.Parsed(&o.Driver, dialect.ParseDriver, "mysql|postgres|sqlserver|sqlite"), "db-driver",
		"database: mysql (MySQL, MariaDB, Percona), postgres (PostgreSQL), sqlserver or sqlite")
	fs.StringVarP(&o.Host, "host", "H", o.Host, "database server host")
	fs.VarP(flagvalue.Parsed(&o.Port, flagvalue.ParsePort, "int"), "port", "P", "database server port (default 3306 for MySQL, 5432 for PostgreSQL, 1433 for SQL Server)")
	fs.StringVar(&o.Socket, "mysql-socket", o.Socket, "MySQL Unix socket path (used instead of --host)")
	fs.StringVarP(&o.User, "user", "U", o.User, "database user (default root for MySQL, postgres for PostgreSQL, sa for SQL Server)")
	fs.StringVarP(&o.Password, "password", "p", o.Password,
		"password (default $"+EnvPassword+", else $"+EnvMySQLPassword+", $"+dialect.EnvPGPassword+" or $"+EnvSQLServerPassword+"; prefer the environment: flags show in ps)")
	fs.StringVarP(&o.Database, "db", "D", o.Database, "database (prepare creates it when missing)")
	fs.StringVar(&o.SQLitePath, "sqlite-path", o.SQLitePath, "SQLite database file, with --db-driver=sqlite")
	for alias, name := range map[string]string{"mysql-host": "host", "mysql-port": "port", "mysql-user": "user",
		"mysql-password": "password", "mysql-db": "db"} {
		fs.Var(fs.Lookup(name).Value, alias, "sysbench's name of --"+name)
		_ = fs.MarkHidden(alias)
		workload.Alias(fs, alias, name)
	}

	fs.IntVar(&c.Warehouses, "warehouses", c.Warehouses, "number of warehouses, the TPC-C scale")
	fs.Int64Var(&c.Seed, "seed", c.Seed, "seed of every random input of the load and the run")
	fs.IntVar(&c.Terminals, "terminals", c.Terminals, "emulated terminals (0 = 10 per warehouse, as TPC-C)")
	fs.IntVar(&c.Conns, "conns", c.Conns, "connections the terminals share (0 = as many as terminals without waits, else 2 per warehouse)")
	fs.Var(&waitValue{&c.WaitScale}, "wait-scale", "keying and think times as a multiple of the specification's (1), 0 = none")
	fs.Var(&waitValue{&c.WaitScale}, "wait", "go-tpc's --wait: true is --wait-scale=1, false is 0, a number scales")
	fs.Lookup("wait").NoOptDefVal = "1"
	fs.IntVarP(&c.Threads, "threads", "T", c.Threads,
		"run: that many terminals without waits, one connection each (go-tpc's closed loop); prepare: warehouses loaded in parallel (default 4)")
	fs.Var(flagvalue.Seconds(&c.Time), "time", oltp.TimeHelp("Transactions"))
	fs.Var(flagvalue.Seconds(&c.WarmupTime), "warmup-time", "precondition phase before the measured run, excluded from the results")
	fs.Var(flagvalue.Seconds(&c.ReportInterval), "report-interval", "print interval lines this often; 0 = none")
	fs.Int64Var(&c.Events, "events", c.Events, "stop after this many transactions; 0 = no limit")
	fs.IntVar(&c.Retries, "retries", c.Retries, "restarts of one transaction after a deadlock or lock timeout before the run fails")
	fs.StringVar((*string)(&c.Isolation), "isolation", string(c.Isolation),
		"PostgreSQL: the sessions' isolation level, "+isolationValues()+" (default: the server's, READ COMMITTED)")
	// go-tpc's names.
	for alias, name := range map[string]string{"interval": "report-interval", "count": "events", "ramp": "warmup-time"} {
		fs.Var(fs.Lookup(name).Value, alias, "go-tpc's name of --"+name)
		_ = fs.MarkHidden(alias)
		workload.Alias(fs, alias, name)
	}
	c.markRecorded(fs)
}

// markRecorded says what of fs is recorded (workload.RecordedFlags): not
// where the database is nor the password, which a campaign sets for each
// VM (--db-driver is: it shapes the run), nor --wait, another spelling of
// --wait-scale; --terminals and --conns as the run has them (0 stands for
// a number derived from --warehouses), and not beside --threads, which
// sets both.
func (c *Config) markRecorded(fs *pflag.FlagSet) {
	workload.NotRecorded(fs, "host", "port", "mysql-socket", "user", "password", "db", "sqlite-path")
	workload.Alias(fs, "wait", "wait-scale")
	for name, n := range map[string]func() int{"terminals": func() int { return c.terminals() }, "conns": func() int { return c.conns() }} {
		workload.RecordAs(fs, name, func(string) string {
			if c.Threads > 0 {
				return ""
			}
			return strconv.Itoa(n())
		})
	}
}

// connectionFlags are the options that say where the database is; every
// subcommand takes them.
var connectionFlags = []string{"db-driver", "host", "port", "mysql-socket", "user", "password", "db", "sqlite-path",
	"mysql-host", "mysql-port", "mysql-user", "mysql-password", "mysql-db"}

// Subcommands lists the tpcc subcommands and, beside the connection
// options, the options each one uses; nil means all of them. Every
// subcommand accepts every option, as sysbench's commands do, so that
// one set of options serves prepare, run, check and cleanup; the ones it
// does not use are ignored and left out of its help. check reads the
// scale from the database and verifies it against --warehouses when
// given; cleanup drops whatever scale is there.
var Subcommands = map[string][]string{
	"prepare": {"warehouses", "seed", "threads"},
	"run":     nil,
	"check":   {"warehouses"},
	"cleanup": {},
}

// FlagApplies reports whether the option name (as BindFlags registers it,
// without dashes) is used by subcommand sub; the others are accepted and
// ignored.
func FlagApplies(sub, name string) bool {
	own, ok := Subcommands[sub]
	return ok && (own == nil || slices.Contains(own, name) || slices.Contains(connectionFlags, name))
}

// subcommandUsage are the help texts of the options whose meaning
// depends on the subcommand, by subcommand and option; BindFlags's text
// describes every use at once.
var subcommandUsage = map[string]map[string]string{
	"prepare": {"threads": "warehouses loaded in parallel (default 4)"},
	"check":   {"warehouses": "when given, check fails unless the database holds that many warehouses (default: check the warehouses it holds)"},
	"run": {"threads": "that many terminals without waits, one connection each (go-tpc's closed loop); " +
		"default 0 = terminal mode: --terminals (10 per warehouse) with TPC-C's keying and think times (--wait-scale) sharing --conns connections"},
}

// FlagUsage returns the help text of option name (as BindFlags registers
// it) in subcommand sub, or "" when BindFlags's own text is the one.
func FlagUsage(sub, name string) string { return subcommandUsage[sub][name] }

// FlagUsers names the subcommands that use option name, for messages:
// "prepare and run".
func FlagUsers(name string) string {
	var subs []string
	for _, sub := range []string{"prepare", "run", "check", "cleanup"} {
		if FlagApplies(sub, name) {
			subs = append(subs, sub)
		}
	}
	if len(subs) > 1 {
		return strings.Join(subs[:len(subs)-1], ", ") + " and " + subs[len(subs)-1]
	}
	return strings.Join(subs, "")
}

// waitValue is --wait-scale, also spelled as go-tpc's boolean --wait.
type waitValue struct{ p *float64 }

func (v *waitValue) String() string { return strconv.FormatFloat(*v.p, 'g', -1, 64) }
func (v *waitValue) Type() string   { return "factor" }

// Get returns the factor, a float64: what campaign.yaml records as a
// number (workload.TypedFlags).
func (v *waitValue) Get() any { return *v.p }
func (v *waitValue) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "on", "yes":
		*v.p = 1
		return nil
	case "false", "off", "no":
		*v.p = 0
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("%q is not a factor (1 = the specification's waits, 0 = none, 0.2 = a fifth)", s)
	}
	*v.p = f
	return nil
}

// complete applies what the options given (changed) imply, as go-tpc
// reads them: --threads without --wait-scale means no waits, and
// --threads N --wait N workers with waits on a connection each; whether
// --warehouses was given (check verifies it); then the
// password from the environment (getenv may be nil) when none is set,
// and on PostgreSQL the libpq variables ($PGHOST, $PGPORT, $PGUSER,
// $PGDATABASE, $PGSSLMODE) for the options not given, as psql and
// sysbench's pgsql driver read them. A bad variable is an error naming it.
func (c *Config) complete(changed func(string) bool, getenv func(string) string) error {
	switch {
	case changed("threads") && !changed("wait-scale") && !changed("wait"):
		c.WaitScale = 0
	case changed("threads") && changed("wait") && !changed("wait-scale") && c.WaitScale > 0 &&
		!changed("terminals") && !changed("conns"):
		// go-tpc's --threads N --wait: N workers with keying and think
		// times, each on its own connection.
		c.Terminals, c.Conns, c.Threads = c.Threads, c.Threads, 0
	}
	c.warehousesGiven = changed("warehouses")
	c.passwordFromEnv(getenv)
	if c.Conn.Driver == dialect.Postgres {
		return c.Conn.PostgresEnv(getenv, changed) // its fields are tpcc's option names: host, port, user, password, db
	}
	return nil
}

func (c *Config) passwordFromEnv(getenv func(string) string) {
	if c.Conn.Password != "" || getenv == nil {
		return
	}
	var client string
	switch c.Conn.Driver {
	case dialect.SQLServer:
		client = EnvSQLServerPassword
	case dialect.Postgres:
		client = dialect.EnvPGPassword
	default:
		client = EnvMySQLPassword
	}
	for _, k := range []string{EnvPassword, client} {
		if v := getenv(k); v != "" {
			c.Conn.Password = v
			return
		}
	}
}
