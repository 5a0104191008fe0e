package workload

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/pflag"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/report"
)

// Connector is a Config that runs against a database. A campaign calls
// SetDatabase with each VM's database before Validate; the CLI leaves the
// one its connection flags built.
type Connector interface {
	// Database is the connection the flags built (password included).
	Database() dialect.Config
	// SetDatabase replaces it.
	SetDatabase(db dialect.Config)
	// ConnectionFlags are the names of the flags (without dashes) that
	// set the connection, aliases included: a campaign sets them itself
	// for each VM and refuses them in a file.
	ConnectionFlags() []string
	// Supports returns nil when the tool runs on driver d, else an error
	// that says which drivers it runs on (sysbench refuses SQL Server
	// here, not in any caller).
	Supports(d dialect.Driver) error
	// Clone returns a copy that SetDatabase changes alone: a campaign
	// parses a workload once and gives each VM a copy on its database.
	Clone() Config
}

// DatabaseOwner is a Config whose data lives in a database of its own
// that a campaign creates for each VM and drops at the end.
type DatabaseOwner interface {
	// CreateDatabase creates the Connector's database and fails when it
	// exists already, so a campaign only ever drops what it created (for
	// SQLite: fails when the file exists).
	CreateDatabase(ctx context.Context) error
	// DropDatabase removes it.
	DropDatabase(ctx context.Context) error
}

// ErrCheckFailed is wrapped by a Checker's error when a check ran and
// failed (not when the data could not be read).
var ErrCheckFailed = errors.New("a consistency check failed")

// ErrFlagValue is wrapped by the errors a Prepare or Run finds once
// connected that a flag value causes (sysbench's tables of another
// --table-size, --threads beyond the server's max_connections): nothing
// was loaded or run, and the CLI exits 2 as for any bad flag.
var ErrFlagValue = errors.New("a flag does not fit the database")

// Checker is a Config with consistency checks of its data (tpcc's TPC-C
// clause 3.3.2 conditions).
type Checker interface {
	// Check runs the checks, writing one line per check to env.Log, and
	// returns ErrCheckFailed (wrapped) when one fails.
	Check(ctx context.Context, env Env) error
}

// Column is one review-table column that a tool adds for its runs: a
// figure per VM's Result, summed over the VMs in the aggregate row as the
// reviews sum TPS (a column is a rate: New-Orders per minute, IOPS).
type Column struct {
	// Header is the column's title, with its unit ("tpmC", "NOPM").
	Header string
	// Value returns the figure of one VM's measure-phase Result.
	Value func(r *oltp.Result) float64
	// Digits is the number of decimals shown (thousands are grouped).
	Digits int
	// Note, when set, is a line printed under the table that explains
	// the column (how NOPM was read).
	Note string
}

// Reviewer is a Config whose review table has columns beyond the
// common ones (TPS, average and p99 latency): tpcc's tpmC and NOPM, the
// block suite's curve summary. The campaign never names a tool's ops or
// counters; it asks for these.
type Reviewer interface {
	ReviewColumns() []Column
}

// Reporter is a Config whose peer tool has its own text formats, kept
// exactly (golden files): sysbench's interval lines and final report,
// tpcc's per-transaction table, vdbench's interval lines and curve table.
type Reporter interface {
	// IntervalWriter returns an Observer that writes each interval line
	// to w as the peer tool does; when it is an Announcer, Run announces
	// to it the peer tool's header.
	IntervalWriter(w io.Writer) Observer
	// WriteReport writes the final report of o to w.
	WriteReport(w io.Writer, o *Output) error
}

// FlagScoper is a Config whose options apply to some commands only
// (tpcc's --seed to prepare, --time to run). The CLI hides the others in
// a command's help and accepts and ignores them, so that one set of
// options serves every command (as sysbench's commands take all theirs);
// a campaign takes the union of prepare's and run's.
type FlagScoper interface {
	// FlagApplies reports whether command verb uses option flag (its
	// name as bound, without dashes).
	FlagApplies(verb Verb, flag string) bool
	// FlagUsage is the help text of option flag in command verb when the
	// option means something of its own there (tpcc's --threads:
	// terminals in run, loaders in prepare); "" keeps BindFlags's text.
	FlagUsage(verb Verb, flag string) string
}

// ConnectionCounter is a Config that says how many database connections
// a command opens at once (sysbench: run's --threads, prepare's
// loaders), so that the CLI refuses, before anything connects, a command
// that needs more open files than the process may have; 0 for a command
// it does not count.
type ConnectionCounter interface {
	Connections(verb Verb) int
}

// FlagError is a problem that the value of one or more options caused,
// found by Validate or by a Preflighter's checks: Flags names them
// (without dashes), Err says what is wrong. A campaign that set the
// options from a file names the line of each; its message is Err's. A
// Run or RunDir that returns one (wrapped or not) has created nothing,
// and the CLI exits 2, as for any bad flag.
type FlagError struct {
	Flags []string
	Err   error
}

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// Preflighter is a Config that can say, before anything is created, what
// its Run will do and whether this host and its targets can do it (the
// block suite's profiles on their block devices or files).
type Preflighter interface {
	// Plan is one line saying what Run will do ("4k-random-read (4K
	// random read): 2 target(s), 8 threads in all, 3 points, about 6s").
	Plan() string
	// CheckHost checks, creating nothing, the host's bounds (threads,
	// open files, memory, CPUs) and the free space for the files Prepare
	// creates. A problem caused by an option is a *FlagError naming it.
	CheckHost() error
	// CheckTargets opens every target as Run will (for writing when it
	// writes, with the safety checks) and closes it; it creates nothing.
	// Before Prepare a missing file that Prepare creates is accepted.
	CheckTargets() error
}

// RowReviewer is a Config whose review is one row per run read from its
// whole Output (vdbench's curve: start, crossings, peak), where a
// Reviewer's columns read one Result, and whose curves the HTML report
// draws: the block suite's review. The campaign never names the tool; it
// asks for these.
type RowReviewer interface {
	// Title is the run's name in headings ("4K random read").
	Title() string
	// ReviewColumns are the row's columns, the same for every run of the
	// tool; the first names the run.
	ReviewColumns() []RowColumn
	// ReviewRow returns o's row: one cell per ReviewColumns entry, and
	// notes on it.
	ReviewRow(o *Output) ReviewRow
	// ReviewCurves are o's curves (latency against the achieved rate:
	// service time, and from the intended start where it was measured),
	// drawn on the run's chart; nil for none.
	ReviewCurves(o *Output) []report.Curve
	// ReviewFigures are the row's figures as numbers, the ones a
	// comparison of two runs computes changes of (peak IOPS, peak
	// latency...).
	ReviewFigures(o *Output) []report.Figure
}

// TableReporter is a Reporter whose report of a campaign's merged Result
// adds to the review what its table does not show (tpcc's
// per-transaction response times, tpmC and NOPM of the merged window,
// errors, the audit of the inputs): a campaign's report shows it, its
// table as a table and the rest as text. A Reporter that is no
// TableReporter (sysbench's report repeats the review table) adds
// nothing to a campaign's report.
type TableReporter interface {
	Reporter
	// ReportTable is the table the report opens with (tpcc's
	// per-transaction table), with the units in its headers; nil for no
	// Result.
	ReportTable(o *Output) (*report.Table, error)
	// WriteReportSummary writes the rest of the report of o: WriteReport
	// without the table.
	WriteReportSummary(w io.Writer, o *Output) error
	// ReportContents say what the table and the rest hold, for their
	// captions ("per transaction (response times)").
	ReportContents() (table, summary string)
}

// RowColumn is one column of a RowReviewer's review table.
type RowColumn struct {
	// Header is the column's title, its unit in brackets ("peak latency
	// (µs)"); a rate's name says its unit ("peak IOPS").
	Header string
	// Numeric says each cell is one number as shown, thousands grouped
	// ("2,358,609", "212.4"), in the Header's unit: CSV writes it plain
	// and JSON as a number with the digits shown. A cell in words where
	// there is no figure ("not reached (up to 4,000 IOPS)", "–") is
	// empty in CSV and null in JSON (report.Column.Numeric).
	Numeric bool
}

// ReviewRow is one run's row of a RowReviewer's review table.
type ReviewRow struct {
	// Cells are finished text, one per ReviewColumns entry.
	Cells []string
	// Notes are lines printed under the table about this run (a start
	// point that fell short of its request), each naming the run; nil
	// for none.
	Notes []string
}

// ResultWriter is a Config whose Output has files of its own beside a
// campaign's: vdbench's record, charts and interval text.
type ResultWriter interface {
	// WriteResults writes o's files into dir, atomically, each named base
	// plus a suffix (base.json, base.svg...), and returns their names.
	WriteResults(dir, base string, o *Output) ([]string, error)
}

// Commander is a Config whose CLI commands differ in more than a
// FlagScoper says: an option bound with another help text, an argument
// that is not a WORKLOAD (Command.Arg), messages that name the command
// (vdbench's run, profiles and parse). A campaign does not use it.
type Commander interface {
	// BindCommand binds to fs the options that command verb takes, in
	// place of BindFlags; the Config keeps verb.
	BindCommand(verb Verb, fs *pflag.FlagSet)
	// SetCommand is called once the flags are parsed, before Complete
	// (which gets no workload name), with the command's path ("vmbench
	// vdbench run") and every positional argument. The errors of
	// Validate, Info and RunDir then start with the path where they
	// should; the CLI adds nothing to them.
	SetCommand(path string, args []string)
}

// Informer is a Config with commands that only show information: a
// Command whose Name is a verb of the tool's own (vdbench's profiles
// and parse). Complete and Validate check the command's input first,
// every problem a usage error (exit 2).
type Informer interface {
	// Info writes what command verb shows to w (standard output).
	Info(w io.Writer, verb Verb) error
}

// DirRunner is a Config whose run writes a results directory of its
// own, run by run as each completes (vdbench's -o: each rd's record
// and charts, summary.txt, the parameters as run). The CLI's run
// command calls RunDir in place of Run, the Reporter and --result-file.
type DirRunner interface {
	// RunDir runs every run in order, writing the peer tool's interval
	// lines and each run's report to out and progress to env.Log. A
	// problem of the input that it finds before it creates anything (the
	// host's bounds, a target, the results directory) is a *FlagError.
	RunDir(ctx context.Context, out io.Writer, env Env) error
}

// ResultReader is a ResultWriter that reads its files back, for a report
// re-rendered from a results directory (`vmbench report DIR`) without
// running anything.
type ResultReader interface {
	// ReadResults reads the files WriteResults wrote for base in dir and
	// returns the Output (Result and Record as Run returned them, as far
	// as the files hold them) and the names of those files present, in
	// WriteResults's order. A file of an unknown (newer) version is
	// refused with an error naming the file and the versions read.
	ReadResults(dir, base string) (*Output, []string, error)
}

// OutputMerger is a Config whose Outputs of one run in several VMs at
// once merge into one Output beyond what oltp.Merge of their Results
// holds (vdbench's curves, merged point by point), and whose Record an
// agent writes as JSON (record.json) for the campaign to read back.
type OutputMerger interface {
	// DecodeRecord reads a Record as the agent wrote it; name (where it
	// was read) is in its errors, as is a record of an unknown version.
	DecodeRecord(name string, b []byte) (any, error)
	// MergeOutputs merges outs, the Outputs of VMs names (in the same
	// order; a nil Output is a VM that measured nothing), into one
	// Output whose Result and Record hold the merged figures. It refuses
	// Outputs of different runs, and none at all.
	MergeOutputs(names []string, outs []*Output) (*Output, error)
	// Results are every measured Result of o, in run order (each curve
	// point's, precondition inside), for timing the run; nil for none.
	Results(o *Output) []*oltp.Result
}

// DataShaper is a Config whose prepared data is determined by a few of its
// flags, so that data prepared once with the same shape, on the same
// database engine and version, stands for a fresh prepare: a campaign with
// data source prebuilt restores a copy of it instead of loading (vmbench
// campaign prepare-data makes it).
type DataShaper interface {
	// DataShape returns the flags that shape the data, by flag name, each
	// as its flag would be written ("tables": "4", "auto-inc": "on").
	DataShape() map[string]string
}

// optional are the optional interfaces, by name, in the order the package
// doc lists them: Optional reads them, and a test checks that every
// interface the package declares beside Tool, Config and Observer is here.
var optional = []struct {
	name string
	is   func(any) bool
}{
	{"Reporter", is[Reporter]}, {"FlagScoper", is[FlagScoper]},
	{"Connector", is[Connector]}, {"DatabaseOwner", is[DatabaseOwner]}, {"ConnectionCounter", is[ConnectionCounter]},
	{"Reviewer", is[Reviewer]}, {"TableReporter", is[TableReporter]}, {"RowReviewer", is[RowReviewer]},
	{"Preflighter", is[Preflighter]}, {"ResultWriter", is[ResultWriter]}, {"ResultReader", is[ResultReader]},
	{"OutputMerger", is[OutputMerger]}, {"DataShaper", is[DataShaper]},
	{"Checker", is[Checker]}, {"Commander", is[Commander]}, {"Informer", is[Informer]}, {"DirRunner", is[DirRunner]},
	{"Announcer", is[Announcer]}, {"PartialRecord", is[PartialRecord]}, {"RecordedValue", is[RecordedValue]},
}

func is[T any](v any) bool {
	_, ok := v.(T)
	return ok
}

// Optional names the optional interfaces of this package that v (a
// Config, an Observer, an Output's Record) implements, in the order the
// package doc lists them. A tool's test compares them with the ones it
// asserts (var _ workload.X = (*T)(nil)), so that a method that comes to
// match an interface by its name alone is seen.
func Optional(v any) []string {
	var names []string
	for _, o := range optional {
		if o.is(v) {
			names = append(names, o.name)
		}
	}
	return names
}

// Unjoin returns the errors a joined error holds (errors.Join, as Parse
// and a Preflighter's checks return every problem at once), or err alone;
// nil for nil.
func Unjoin(err error) []error {
	if err == nil {
		return nil
	}
	var j interface{ Unwrap() []error }
	if errors.As(err, &j) {
		return j.Unwrap()
	}
	return []error{err}
}
