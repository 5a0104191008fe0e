package sysbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/workload"
)

// toolConfig is a Config as the workload contract runs it (Tool's
// NewConfig): BindFlags, Validate and Flags are Config's own.
type toolConfig struct{ Config }

// The optional parts of the workload contract sysbench implements (its
// DataShaper and Checker are in dataset.go), and its IntervalWriter's
// Announcer.
var (
	_ workload.Connector         = (*toolConfig)(nil)
	_ workload.DatabaseOwner     = (*toolConfig)(nil)
	_ workload.Reporter          = (*toolConfig)(nil)
	_ workload.ConnectionCounter = (*toolConfig)(nil)
	_ workload.Announcer         = (*reportWriter)(nil)
)

// Complete sets the workload by name ("" keeps oltp_read_write) and, unless
// --mysql-password was given, the password from $SYSBENCH_MYSQL_PASSWORD or
// $MYSQL_PWD; with --db-driver pgsql it makes the connection from the
// --pgsql-* options and libpq's PG* variables (resolveConn). It refuses --sqlite-path without --db-driver sqlite and the
// --mysql-* options with it (dialect.DriverFlags).
func (c *toolConfig) Complete(name string, getenv func(string) string, changed func(string) bool) error {
	// The --pgsql-* options are resolveConn's to refuse.
	if err := dialect.DriverFlags(c.Conn.Driver, changed, connectionFlags[:len(connectionFlags)-len(pgsqlFlags)], "mysql"); err != nil {
		return err
	}
	if err := c.resolveConn(getenv, changed); err != nil {
		return err
	}
	if !changed("mysql-password") && c.Conn.Driver != dialect.Postgres {
		c.PasswordFromEnv(getenv)
	}
	if name == "" {
		return nil
	}
	w, err := ParseWorkload(name)
	if err != nil {
		return err
	}
	c.Workload = w
	return nil
}

// Bounds is how the run is timed: --time, --events, --warmup-time, --rate.
func (c *toolConfig) Bounds() oltp.RunConfig { return c.runConfig() }

// Prepare creates and loads the sbtest tables (package Prepare), progress
// to env.Log.
func (c *toolConfig) Prepare(ctx context.Context, env workload.Env) error {
	return Prepare(ctx, c.Config, env.Log, env.Terminal)
}

// Run runs the workload (package Run) with env's start, labels and
// observer, announcing sysbench's header to it (env.Announce) once the
// run's checks have passed.
func (c *toolConfig) Run(ctx context.Context, env workload.Env) (*workload.Output, error) {
	res, err := run(ctx, c.Config, env.RunConfig(c.RunConfig()), env.Announce)
	if res == nil {
		return nil, err
	}
	return &workload.Output{Result: res}, err
}

// Cleanup drops the sbtest tables (package Cleanup), reporting to env.Log.
func (c *toolConfig) Cleanup(ctx context.Context, env workload.Env) error {
	return Cleanup(ctx, c.Config, env.Log)
}

// Database is the connection the flags built.
func (c *toolConfig) Database() dialect.Config { return c.DialectConfig() }

// SetDatabase replaces the connection options with db's.
func (c *toolConfig) SetDatabase(db dialect.Config) { c.Conn = db.WithDatabase(db.Database) }

// connectionFlags are the options that say where the database is: a
// campaign sets them itself for each VM.
var connectionFlags = []string{"db-driver", "mysql-host", "mysql-port", "mysql-socket", "mysql-user", "mysql-password", "mysql-db", "sqlite-path",
	"pgsql-host", "pgsql-port", "pgsql-user", "pgsql-password", "pgsql-db"}

// ConnectionFlags are the --db-driver, --mysql-*, --pgsql-* and
// --sqlite-path options.
func (c *toolConfig) ConnectionFlags() []string { return slices.Clone(connectionFlags) }

// Supports refuses SQL Server: the sbtest workloads run on MySQL,
// PostgreSQL and SQLite.
func (c *toolConfig) Supports(d dialect.Driver) error {
	if d == dialect.SQLServer {
		return errors.New("sqlserver is not a sysbench database (valid: mysql, postgres; SQL Server runs tool: tpcc)")
	}
	return nil
}

// Clone returns a copy of c that shares nothing SetDatabase or a run
// changes.
func (c *toolConfig) Clone() workload.Config {
	cp := *c
	cp.Conn = c.Conn.WithDatabase(c.Conn.Database)
	cp.IgnoreErrors.Codes = slices.Clone(c.IgnoreErrors.Codes)
	return &cp
}

// CreateDatabase creates the database of the connection; it fails when it
// exists (dialect.CreateDatabase).
func (c *toolConfig) CreateDatabase(ctx context.Context) error {
	return dialect.CreateDatabase(ctx, c.DialectConfig())
}

// DropDatabase drops the database of the connection.
func (c *toolConfig) DropDatabase(ctx context.Context) error {
	return dialect.DropDatabase(ctx, c.DialectConfig())
}

// Connections returns how many connections command verb opens at once:
// run's --threads, prepare's loaders (none counted on SQLite, which loads
// with one writer); 0 for the others. The CLI checks them against the
// process's open-file limit.
func (c *toolConfig) Connections(verb workload.Verb) int {
	switch {
	case verb == workload.VerbRun:
		return c.Threads
	case verb == workload.VerbPrepare && c.Conn.Driver != dialect.SQLite:
		return min(c.Threads, c.Tables)
	}
	return 0
}

// IntervalWriter returns the observer that prints what sysbench prints
// while it runs: the header (an Announcer: see Run), the warm-up's start
// and end and an interval line per --report-interval (WriteInterval).
func (c *toolConfig) IntervalWriter(w io.Writer) workload.Observer { return &reportWriter{w: w, c: c} }

// WriteReport writes sysbench's final report of o (WriteSummary) after a
// blank line.
func (c *toolConfig) WriteReport(w io.Writer, o *workload.Output) error {
	if o == nil || o.Result == nil {
		return nil
	}
	fmt.Fprintln(w)
	return WriteSummary(w, o.Result, c.Percentile)
}

// reportWriter is the observer of IntervalWriter.
type reportWriter struct {
	w io.Writer
	c *toolConfig
}

// Announce prints sysbench's header.
func (r *reportWriter) Announce(header string) { _, _ = io.WriteString(r.w, header) }

// Phase prints the warm-up's start and end, when there is a warm-up.
func (r *reportWriter) Phase(phase oltp.Phase, length time.Duration) {
	workload.WarmupNotice(r.w, r.c.WarmupTime, phase, length, "Warm-up for %s (excluded from the results)...", "Warm-up done; measuring.")
}

// Interval prints sysbench's interval line, with --report-interval.
func (r *reportWriter) Interval(rep oltp.IntervalReport) {
	if r.c.ReportInterval > 0 {
		_ = WriteInterval(r.w, rep, r.c.Percentile)
	}
}
