package sysbench

import (
	"fmt"
	"time"

	"vmbench/internal/textfmt"
)

// Upper bounds of the counts a user types, checked by Config.Validate
// before anything is allocated or connected: a run allocates per thread, per
// table and per interval, so an unchecked count is a request for memory. Each
// bound is derived from what the server or the client can do; the error
// names the flag, the bound and the reason. Once connected, Run and Prepare
// also compare --threads and --tables with the server's own limits
// (checkServerLimits).
const (
	// MaxThreads is the largest --threads: every thread is one connection,
	// and MySQL and MariaDB run one server thread per connection, each with
	// its own stack (thread_stack: 1 MiB on MySQL 8, 292 KiB on MariaDB), so
	// 10,000 threads already ask 3 to 10 GiB of the server for stacks
	// alone. Once connected, --threads is also compared with the server's
	// max_connections.
	MaxThreads = 10_000
	// MaxTables is the largest --tables: every thread prepares one
	// statement per statement kind on every table (9 for
	// oltp_read_write), so 10,000 tables are 90,000 statements per
	// connection, five times MySQL's default max_prepared_stmt_count
	// (16,382) for a single thread; each table is also a file of its own
	// under InnoDB's file-per-table.
	MaxTables = 10_000
	// MaxPreparedStatements bounds --threads x --tables x the statement
	// kinds of the workload, the server-side prepared statements a run
	// holds: 4,194,304 is the largest max_prepared_stmt_count MySQL 8.0
	// accepts. Once connected, the same product is compared with the
	// server's max_prepared_stmt_count.
	MaxPreparedStatements = 4_194_304
	// MaxStatementsPerEvent bounds the statements of one event (BEGIN,
	// the --point-selects .. --delete-inserts counts, COMMIT; sysbench's
	// default is 20): an event is one transaction, which holds its row
	// locks and undo until COMMIT, so 100,000 statements already make an
	// event of seconds that blocks every other thread touching its rows.
	MaxStatementsPerEvent = 100_000
	// MaxRate is the largest --rate, in transactions per second: ten
	// million is an arrival every 100 ns, beyond what one client process
	// can start (each transaction costs it microseconds of CPU time), so a
	// larger value can only be a typo.
	MaxRate = 10_000_000
	// MaxRunTime bounds --time and --warmup-time: a year. Longer is a
	// mistake in the unit (the two must also add up within Go's
	// time.Duration of 292 years).
	MaxRunTime = 365 * 24 * time.Hour
	// MinReportInterval is the shortest --report-interval other than 0:
	// every interval swaps and merges every thread's histograms.
	MinReportInterval = time.Millisecond
	// MaxIntervals bounds the interval lines of one phase (--time or
	// --warmup-time divided by --report-interval): each keeps a compressed
	// histogram (up to a few KiB) in the Result, so 100,000 intervals (a
	// day at 1 s is 86,400) are already hundreds of MiB.
	MaxIntervals = 100_000
	// MaxSpecIter is the largest --rand-spec-iter: every gaussian (and
	// special) draw sums that many uniforms, so 1,000 already costs
	// microseconds per row id, as much as a statement; the bell no longer
	// changes visibly past a few dozen (sysbench's default is 12).
	MaxSpecIter = 1_000
)

// boundErrors returns the bound checks of Validate, one error per flag
// beyond its bound. Flags below their minimum are Validate's.
func (c Config) boundErrors() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Threads > MaxThreads {
		bad("--threads: %d is more than %s (each thread is a connection, and on MySQL a server thread with its own stack: 10,000 already take gigabytes of the server)",
			c.Threads, textfmt.Thousands(MaxThreads))
	}
	if c.Tables > MaxTables {
		bad("--tables: %d is more than %s (each thread prepares every statement on every table: 10,000 tables of oltp_read_write are 90,000 prepared statements per connection)",
			c.Tables, textfmt.Thousands(MaxTables))
	}
	if c.Threads >= 1 && c.Threads <= MaxThreads && c.Tables >= 1 && c.Tables <= MaxTables {
		if n := c.preparedStatements(); n > MaxPreparedStatements {
			bad("--threads x --tables: %d x %d tables x %d statement kinds of %s = %s prepared statements, more than %s (the largest max_prepared_stmt_count MySQL accepts); use fewer threads or tables",
				c.Threads, c.Tables, len(mixFor(c).kinds(c.AutoInc)), c.Workload, textfmt.Thousands(n), textfmt.Thousands(MaxPreparedStatements))
		}
	}
	for _, n := range c.stmtCounts() {
		if n.v > MaxStatementsPerEvent {
			bad("--%s: %d is more than %s (an event is one transaction, holding its row locks until COMMIT; sysbench's default event has 20 statements)",
				n.name, n.v, textfmt.Thousands(MaxStatementsPerEvent))
		}
	}
	if s := c.eventStatements(); s > MaxStatementsPerEvent {
		bad("--point-selects .. --delete-inserts: one %s event would send %s statements, more than %s (an event is one transaction, holding its row locks until COMMIT)",
			c.Workload, textfmt.Thousands(int64(s)), textfmt.Thousands(MaxStatementsPerEvent))
	}
	if c.Rate > MaxRate {
		bad("--rate: %g is more than %s transactions per second (an arrival every 100 ns, beyond what one client process can start)", c.Rate, textfmt.Thousands(MaxRate))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"time", c.Time}, {"warmup-time", c.WarmupTime}} {
		if d.v > MaxRunTime {
			bad("--%s: %s is more than a year (%s); check the unit (plain numbers are seconds)", d.name, d.v, MaxRunTime)
		}
	}
	if c.ReportInterval > 0 {
		if c.ReportInterval < MinReportInterval {
			bad("--report-interval: %s is less than %s (every interval merges every thread's histograms); 0 turns interval lines off",
				c.ReportInterval, MinReportInterval)
		} else {
			for _, d := range []struct {
				name string
				v    time.Duration
			}{{"time", c.Time}, {"warmup-time", c.WarmupTime}} {
				if n := int64(d.v / c.ReportInterval); n > MaxIntervals && d.v <= MaxRunTime {
					bad("--report-interval: %s over --%s=%s is %s intervals, more than %s (each keeps a histogram in the Result); use a longer interval",
						c.ReportInterval, d.name, d.v, textfmt.Thousands(n), textfmt.Thousands(MaxIntervals))
				}
			}
		}
	}
	if c.RangeSize > MaxTableSize {
		bad("--range-size: %d is more than %s (ids are 32-bit, as --table-size: a longer range holds no more rows)", c.RangeSize, textfmt.Thousands(MaxTableSize))
	}
	if c.Rand.SpecIter > MaxSpecIter {
		bad("--rand-spec-iter: %d is more than %s (each draw sums that many uniforms; the distribution stops changing long before)",
			c.Rand.SpecIter, textfmt.Thousands(MaxSpecIter))
	}
	return errs
}

// countFlag is a per-event statement count and its flag name.
type countFlag struct {
	name string
	v    int
}

// stmtCounts returns the per-event statement counts by flag name.
func (c Config) stmtCounts() []countFlag {
	return []countFlag{{"point-selects", c.PointSelects}, {"simple-ranges", c.SimpleRanges}, {"sum-ranges", c.SumRanges},
		{"order-ranges", c.OrderRanges}, {"distinct-ranges", c.DistinctRanges}, {"index-updates", c.IndexUpdates},
		{"non-index-updates", c.NonIndexUpdates}, {"delete-inserts", c.DeleteInserts}}
}

// eventStatements returns the statements of one event of c, 0 when a
// count is out of its range (Validate reports those).
func (c Config) eventStatements() int {
	for _, n := range c.stmtCounts() {
		if n.v < 0 || n.v > MaxStatementsPerEvent {
			return 0
		}
	}
	return mixFor(c).statements()
}

// preparedStatements returns the server-side prepared statements a run
// of c holds: one per thread, table and statement kind. c.Threads and
// c.Tables must be within their bounds.
func (c Config) preparedStatements() int64 {
	return int64(c.Threads) * int64(c.Tables) * int64(len(mixFor(c).kinds(c.AutoInc)))
}
