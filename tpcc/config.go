package tpcc

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/workload"
)

// Config is everything the TPC-C workload needs. Field comments name the
// flag and its default.
type Config struct {
	// Conn says where the TPC-C database is. Flags take go-tpc's names
	// (--host/-H, --port/-P, --user/-U, --password/-p, --db/-D) and
	// sysbench's (--mysql-host ...), with --db-driver (mysql: MySQL,
	// MariaDB, Percona; sqlserver; sqlite), --mysql-socket and
	// --sqlite-path (tpcc.db). Zero port and user mean the driver's
	// default (3306 or 1433; root or sa: DialectConfig); the database
	// defaults to tpcc. The password comes from --password, else
	// $TPCC_PASSWORD, else the client's own variable ($MYSQL_PWD,
	// $PGPASSWORD, $SQLCMDPASSWORD); it never appears in output or
	// Results. Params
	// have no flag.
	Conn dialect.Config

	// Warehouses is --warehouses (1): the scale, W.
	Warehouses int
	// warehousesGiven says --warehouses was given: check then verifies
	// that the database holds as many (prepare and run always do).
	warehousesGiven bool
	// Seed is --seed (1): every random input of the load and of the run
	// derives from it, per warehouse and per terminal.
	Seed int64

	// Terminals is --terminals (10 per warehouse, TPC-C 4.2.2); terminal t
	// has home warehouse t%W+1 and, for Stock-Level, district t/W%10+1.
	Terminals int
	// Conns is --conns: the connections the terminals share (default: as
	// many as terminals without waits, else 2 per warehouse, at most one
	// per terminal).
	Conns int
	// WaitScale is --wait-scale (1): keying and think times of TPC-C
	// 5.2.5 times this factor; 0 runs without waits.
	WaitScale float64
	// Threads is --threads. In run it is go-tpc's shortcut: that many
	// terminals without waits, each with its own connection, in a closed
	// loop. In prepare it is the number of warehouses loaded in parallel
	// (default 4, at most W).
	Threads int

	// Time is --time (10 s; 0 = no limit); WarmupTime is --warmup-time, the
	// precondition phase (0); ReportInterval is --report-interval (10 s;
	// 0 = no interval lines); Events is --events (0 = no limit).
	Time           time.Duration
	WarmupTime     time.Duration
	ReportInterval time.Duration
	Events         int64
	// Retries is --retries (10): how often one transaction is restarted
	// after a deadlock or lock timeout before the run fails.
	Retries int
	// Isolation is --isolation (PostgreSQL only; "" = the server's
	// default, READ COMMITTED): see Isolation.
	Isolation Isolation
}

// Limits of the run options: beyond them the client itself would be what
// is measured (or run out of memory).
const (
	MaxWarehouses = 100000  // --warehouses (the review protocol loads 1,500 per VM)
	MaxTerminals  = 1000000 // --terminals (the review protocol uses 15,000 per VM)
	MaxConns      = 10000   // --conns and --threads
	MaxWaitScale  = 100     // --wait-scale
	// MaxRetries bounds --retries: beyond it a transaction that keeps
	// deadlocking would stall its terminal instead of failing the run.
	MaxRetries = 1000
)

// DefaultConfig returns the defaults: MySQL, database tpcc, 1 warehouse,
// spec waits, 10 s.
func DefaultConfig() Config {
	return Config{
		Conn:       dialect.Config{Driver: dialect.MySQL, Host: "localhost", Database: "tpcc", SQLitePath: "tpcc.db"},
		Warehouses: 1, Seed: 1, WaitScale: 1, Time: 10 * time.Second, ReportInterval: 10 * time.Second, Retries: 10,
	}
}

// NoWait reports whether the run uses --threads, the closed loop without
// waits.
func (c Config) NoWait() bool { return c.Threads > 0 && c.WaitScale == 0 }

// terminals returns the effective number of terminals.
func (c Config) terminals() int {
	switch {
	case c.Threads > 0:
		return c.Threads
	case c.Terminals > 0:
		return c.Terminals
	}
	return 10 * c.Warehouses
}

// conns returns the effective number of connections.
func (c Config) conns() int {
	t := c.terminals()
	switch {
	case c.Threads > 0:
		return c.Threads
	case c.Conns > 0:
		return min(c.Conns, t)
	case c.WaitScale == 0:
		return t
	}
	return min(t, 2*c.Warehouses)
}

// loadThreads returns how many warehouses prepare loads at once.
func (c Config) loadThreads() int {
	n := c.Threads
	if n == 0 {
		n = 4
	}
	return max(1, min(n, c.Warehouses, 4*runtime.GOMAXPROCS(0)))
}

// Validate returns every problem with c at once, naming the flags.
//
//nolint:gocognit // a flat validator: one check per flag, read in order
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if err := c.DialectConfig().Validate(); err != nil {
		errs = append(errs, inTPCCWords(err))
	}
	if err := validateIsolation(c.Isolation, c.Conn.Driver); err != nil {
		errs = append(errs, err)
	}
	if c.Conn.Driver != dialect.SQLite && c.Conn.Database == "" {
		bad("--db: empty (the TPC-C tables live in a database; default tpcc)")
	}
	if c.Warehouses < 1 || c.Warehouses > MaxWarehouses {
		bad("--warehouses: %d is not valid (1 to %d)", c.Warehouses, MaxWarehouses)
	}
	if c.Terminals < 0 || c.Terminals > MaxTerminals {
		bad("--terminals: %d is not valid (0 means 10 per warehouse; at most %d)", c.Terminals, MaxTerminals)
	}
	if c.Conns < 0 || c.Conns > MaxConns {
		bad("--conns: %d is not valid (0 means the default; at most %d)", c.Conns, MaxConns)
	}
	if c.Threads < 0 || c.Threads > MaxConns {
		bad("--threads: %d is not valid (0 for terminals, or 1 to %d)", c.Threads, MaxConns)
	}
	if c.Threads == 0 && c.Terminals == 0 && 10*c.Warehouses > MaxTerminals {
		bad("--warehouses: %d makes %d terminals, more than %d; give --terminals or --threads", c.Warehouses, 10*c.Warehouses, MaxTerminals)
	}
	if c.Conns == 0 && c.Threads == 0 && c.conns() > MaxConns {
		// Without waits every terminal gets a connection by default.
		if c.Terminals > 0 {
			bad("--terminals: %d without waits get a connection each by default, more than %d connections; give --conns", c.Terminals, MaxConns)
		} else {
			bad("--warehouses: %d make %d terminals, without waits a connection each by default, more than %d connections; give --conns or --terminals",
				c.Warehouses, c.terminals(), MaxConns)
		}
	}
	if !(c.WaitScale >= 0 && c.WaitScale <= MaxWaitScale) {
		bad("--wait-scale: %g is not valid (1 = the specification's keying and think times, 0 = none, at most %d)", c.WaitScale, MaxWaitScale)
	}
	if c.Threads > 0 && (c.Terminals > 0 || c.Conns > 0 || c.WaitScale != 0) {
		bad("--threads: it is the no-wait shortcut (that many terminals, one connection each, no keying or think time); " +
			"give --terminals, --conns and --wait-scale instead, or --threads alone")
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"--time", c.Time}, {"--warmup-time", c.WarmupTime}, {"--report-interval", c.ReportInterval}} {
		if d.v < 0 || (d.v > 0 && d.v < time.Second) {
			bad("%s: %s is not valid (0, or at least 1 s)", d.flag, d.v)
		}
	}
	if c.Events < 0 {
		bad("--events: %d is negative (0 means no limit)", c.Events)
	}
	if c.Retries < 0 || c.Retries > MaxRetries {
		bad("--retries: %d is not valid (0 to %d restarts of one transaction)", c.Retries, MaxRetries)
	}
	return errors.Join(errs...)
}

// RunConfig returns the oltp.RunConfig of c. With --threads it is a
// closed loop of Threads workers; otherwise a terminal-driven run of the
// terminals over the connections.
func (c Config) RunConfig() oltp.RunConfig {
	rc := oltp.RunConfig{
		Threads: c.conns(), Time: c.Time, Events: c.Events, WarmupTime: c.WarmupTime,
		ReportInterval: c.ReportInterval, Seed: c.Seed, Flags: workload.RecordedFlags(&toolConfig{c}),
	}
	if c.Threads == 0 {
		rc.Terminals = c.terminals()
	}
	if c.Conn.Driver == dialect.SQLite {
		rc.ClientShares = dialect.SQLiteInProcess
	}
	return rc
}

// DialectConfig maps the connection options onto dialect.Config, filling
// the driver's defaults for an unset port and user, and on PostgreSQL the
// session's isolation level of --isolation.
func (c Config) DialectConfig() dialect.Config {
	o := c.Conn
	def := dialect.DefaultConfig(o.Driver)
	dc := withIsolation(o.WithDatabase(o.Database), c.Isolation)
	if dc.Port == 0 {
		dc.Port = def.Port
	}
	if dc.User == "" {
		switch o.Driver {
		case dialect.SQLServer:
			dc.User = def.User
		case dialect.Postgres:
			dc.User = "postgres" // the superuser every cluster has
		default:
			dc.User = "root"
		}
	}
	return dc
}
