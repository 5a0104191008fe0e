package tpcc

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/report"
	"vmbench/workload"
)

// toolConfig is a Config as the workload contract runs it (Tool's
// NewConfig): BindFlags and Validate are Config's own.
type toolConfig struct{ Config }

// The optional parts of the workload contract tpcc implements, and its
// IntervalWriter's Announcer.
var (
	_ workload.Connector     = (*toolConfig)(nil)
	_ workload.DatabaseOwner = (*toolConfig)(nil)
	_ workload.Checker       = (*toolConfig)(nil)
	_ workload.Reviewer      = (*toolConfig)(nil)
	_ workload.Reporter      = (*toolConfig)(nil)
	_ workload.TableReporter = (*toolConfig)(nil)
	_ workload.FlagScoper    = (*toolConfig)(nil)
	_ workload.DataShaper    = (*toolConfig)(nil)
	_ workload.Announcer     = (*reportWriter)(nil)
)

// Complete refuses a workload name other than tpcc, --sqlite-path without
// --db-driver sqlite and the server's options with it
// (dialect.DriverFlags), and applies what the options given imply
// (complete: go-tpc's --threads and --wait, the password from the
// environment).
func (c *toolConfig) Complete(name string, getenv func(string) string, changed func(string) bool) error {
	if name != "" && name != Workload {
		return fmt.Errorf("workload name %q is not valid for tool tpcc (valid: %s)", name, Workload)
	}
	if err := dialect.DriverFlags(c.Conn.Driver, changed, connectionFlags, "mysql or sqlserver"); err != nil {
		return err
	}
	return c.complete(changed, getenv)
}

// Bounds is how the run is timed: --time, --events, --warmup-time.
func (c *toolConfig) Bounds() oltp.RunConfig { return c.RunConfig() }

// Prepare loads the database (package Prepare), progress to env.Log.
func (c *toolConfig) Prepare(ctx context.Context, env workload.Env) error {
	return Prepare(ctx, c.Config, env.Log, env.Terminal)
}

// Run runs the mix (package Run) with env's start, labels and observer; a
// warning goes to env.Log. It announces the header to the observer
// (env.Announce) once the run's checks have passed.
func (c *toolConfig) Run(ctx context.Context, env workload.Env) (*workload.Output, error) {
	res, err := run(ctx, c.Config, env.RunConfig(c.RunConfig()), env.Log, env.Announce)
	if res == nil {
		return nil, err
	}
	return &workload.Output{Result: res}, err
}

// Cleanup drops the tables (package Cleanup), reporting to env.Log.
func (c *toolConfig) Cleanup(ctx context.Context, env workload.Env) error {
	return Cleanup(ctx, c.Config, env.Log)
}

// Check runs the consistency conditions (package Check), a line each to
// env.Log; a failed condition wraps workload.ErrCheckFailed.
func (c *toolConfig) Check(ctx context.Context, env workload.Env) error {
	results, err := Check(ctx, c.Config, env.Log)
	if err != nil && slices.ContainsFunc(results, func(r CheckResult) bool { return r.Skipped == "" && !r.Passed() }) {
		return checkFailed(err)
	}
	return err
}

// markedError is an error whose text is its own error's and which
// errors.Is also finds as mark (a workload sentinel the CLI tests for).
type markedError struct {
	error
	mark error
}

func (e markedError) Unwrap() error        { return e.error }
func (e markedError) Is(target error) bool { return target == e.mark }

// checkFailed is Check's error when a condition failed: its text is
// err's, and errors.Is finds workload.ErrCheckFailed.
func checkFailed(err error) error { return markedError{err, workload.ErrCheckFailed} }

// flagMismatch is the error of a flag that does not fit the loaded data
// (--warehouses or --seed of another load), found before anything is
// loaded or run: its text is err's, and errors.Is finds
// workload.ErrFlagValue, so the CLI exits 2 as for any bad flag.
func flagMismatch(err error) error { return markedError{err, workload.ErrFlagValue} }

// Database is the connection the flags built, with the driver's default
// port and user.
func (c *toolConfig) Database() dialect.Config { return c.DialectConfig() }

// SetDatabase replaces the connection options with db's.
func (c *toolConfig) SetDatabase(db dialect.Config) { c.Conn = db.WithDatabase(db.Database) }

// ConnectionFlags are the connection options with their go-tpc
// shorthands (-H, -P, -U, -p, -D).
func (c *toolConfig) ConnectionFlags() []string {
	return append(slices.Clone(connectionFlags), "H", "P", "U", "p", "D")
}

// Supports accepts every driver: MySQL, SQL Server and SQLite.
func (c *toolConfig) Supports(dialect.Driver) error { return nil }

// Clone returns a copy of c that shares nothing SetDatabase changes.
func (c *toolConfig) Clone() workload.Config {
	cp := *c
	cp.Conn = c.Conn.WithDatabase(c.Conn.Database)
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

// FlagApplies reports whether command verb takes option flag (package
// FlagApplies).
func (c *toolConfig) FlagApplies(verb workload.Verb, flag string) bool {
	return FlagApplies(string(verb), flag)
}

// FlagUsage returns the help text of option flag in command verb when it
// is the command's own (package FlagUsage: --threads), else "".
func (c *toolConfig) FlagUsage(verb workload.Verb, flag string) string {
	return FlagUsage(string(verb), flag)
}

// ReviewColumns are the TPC-C figures of a campaign's review table: tpmC
// and NOPM (ComputeFigures) per VM, summed over the VMs.
func (c *toolConfig) ReviewColumns() []workload.Column {
	return []workload.Column{
		{Header: "tpmC", Digits: 1, Value: func(r *oltp.Result) float64 { return ComputeFigures(r).TpmC },
			Note: "tpmC: New-Orders per minute (intended rollbacks included); NOPM: committed New-Orders per minute from sum(d_next_o_id)."},
		{Header: "NOPM", Digits: 1, Value: func(r *oltp.Result) float64 { return ComputeFigures(r).NOPM }},
	}
}

// IntervalWriter returns the observer that prints what `vmbench tpcc run`
// prints while it runs: the header (an Announcer: see Run), the
// precondition's start and end and an interval line per
// --report-interval (WriteInterval).
func (c *toolConfig) IntervalWriter(w io.Writer) workload.Observer { return &reportWriter{w: w, c: c} }

// ReportTable is the per-transaction table of o's Result with the units
// in its headers (TransactionTable): what an HTML report shows as a table
// before WriteReportSummary's text; nil for no Result.
func (c *toolConfig) ReportTable(o *workload.Output) (*report.Table, error) {
	if o == nil || o.Result == nil {
		return nil, nil
	}
	return TransactionTable(o.Result, true)
}

// ReportContents are the captions' words for what ReportTable and
// WriteReportSummary hold.
func (c *toolConfig) ReportContents() (table, summary string) {
	return "per transaction (response times)", "tpmC and NOPM of the merged window, errors and the audit of the inputs"
}

// WriteReportSummary writes WriteReport's text without the
// per-transaction table (WriteSummary), said to be the precondition's
// when nothing was measured.
func (c *toolConfig) WriteReportSummary(w io.Writer, o *workload.Output) error {
	if o == nil || o.Result == nil {
		return nil
	}
	if o.Result.Phase != oltp.PhaseMeasure {
		fmt.Fprintf(w, "Interrupted during the precondition: nothing was measured. What ran in the precondition:\n")
	}
	return WriteSummary(w, o.Result)
}

// WriteReport writes the report of o (package WriteReport) after a blank
// line, said to be the precondition's when nothing was measured.
func (c *toolConfig) WriteReport(w io.Writer, o *workload.Output) error {
	if o == nil || o.Result == nil {
		return nil
	}
	if o.Result.Phase != oltp.PhaseMeasure {
		fmt.Fprintf(w, "\nInterrupted during the precondition: nothing was measured. What ran in the precondition:\n")
	}
	fmt.Fprintln(w)
	return WriteReport(w, o.Result)
}

// reportWriter is the observer of IntervalWriter.
type reportWriter struct {
	w io.Writer
	c *toolConfig
}

// Announce prints the header.
func (r *reportWriter) Announce(header string) { _, _ = io.WriteString(r.w, header) }

// Phase prints the precondition's start and end, when there is one.
func (r *reportWriter) Phase(phase oltp.Phase, length time.Duration) {
	workload.WarmupNotice(r.w, r.c.WarmupTime, phase, length, "Precondition for %s (excluded from the results)...", "Precondition done; measuring.")
}

// Interval prints the interval line, with --report-interval.
func (r *reportWriter) Interval(rep oltp.IntervalReport) {
	if r.c.ReportInterval > 0 {
		_ = WriteInterval(r.w, rep)
	}
}

// DataShape returns the flags that shape the data the loader writes:
// --warehouses and --seed (every random input of the load derives from
// it, so the same seed loads the same rows).
func (c *toolConfig) DataShape() map[string]string {
	return map[string]string{"warehouses": strconv.Itoa(c.Warehouses), "seed": strconv.FormatInt(c.Seed, 10)}
}
