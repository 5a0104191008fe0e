package sysbench

import (
	"context"
	"fmt"
	"io"
	"maps"
	"strings"

	"vmbench/dialect"
	"vmbench/internal/textfmt"
	"vmbench/oltp"
)

// Run runs cfg.Workload against the database of cfg with the Runner
// configuration rc (start from cfg.RunConfig(); add Labels, StartAt or
// callbacks as needed) and returns the measure phase's Result. It prints
// nothing: sysbench's interval lines and report are the Reporter of the
// workload contract (Tool's Config: IntervalWriter, WriteReport). It opens
// and closes its own connection pool, one connection per thread.
//
// Before anything starts it checks, once connected, that --threads fits the
// server's max_connections and the run's prepared statements its
// max_prepared_stmt_count (MySQL), and that the tables hold the data
// --tables and --table-size describe (checkData); a mismatch wraps
// ErrFlagValue.
//
// The Result is returned together with any error: on Ctrl-C (ctx
// cancelled) it covers what was measured and is marked Interrupted, and
// the error wraps oltp.ErrInterrupted and context.Canceled.
func Run(ctx context.Context, cfg Config, rc oltp.RunConfig) (*oltp.Result, error) {
	return run(ctx, cfg, rc, nil)
}

// run is Run; once the checks pass it announces what is about to run as
// sysbench's header, when announce is given (the CLI's report writer
// prints it: workload.Announcer).
func run(ctx context.Context, cfg Config, rc oltp.RunConfig, announce func(header string)) (*oltp.Result, error) {
	cfg.Threads = rc.Threads
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	dcfg := cfg.DialectConfig()
	if err := sqliteFileExists(dcfg); err != nil {
		return nil, err
	}
	db, err := dialect.Open(ctx, runConnConfig(dcfg))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := checkServerLimits(ctx, db, db.Dialect, rc.Threads, cfg.preparedStatements(), cfg); err != nil {
		return nil, err
	}
	if err := checkData(ctx, db, db.Dialect, cfg, dcfg.String()); err != nil {
		return nil, err
	}
	db.SetMaxIdleConns(rc.Threads + 1) // reconnects reuse pooled connections
	spec, err := NewSpec(cfg, db)
	if err != nil {
		return nil, err
	}
	if announce != nil {
		var b strings.Builder
		writeHeader(&b, cfg, rc, dcfg.String())
		announce(b.String())
	}
	return oltp.Run(ctx, spec, rc)
}

// runConnConfig returns the connection settings of a run: dcfg without
// go-sql-driver's write timeout (dialect.Open sets one for the bulk INSERTs
// of prepare), unless dcfg.Params sets one. A run sends statements of a few
// hundred bytes, one at a time per connection, so a write never waits for
// the server and the deadline never fires; but the driver re-arms it before
// every packet, a runtime timer update per statement that cost 2% of the
// client's CPU time on oltp_read_write.
func runConnConfig(dcfg dialect.Config) dialect.Config {
	if dcfg.Driver != dialect.MySQL {
		return dcfg
	}
	if _, ok := dcfg.Params[mysqlWriteTimeoutParam]; ok {
		return dcfg
	}
	p := maps.Clone(dcfg.Params)
	if p == nil {
		p = map[string]string{}
	}
	p[mysqlWriteTimeoutParam] = "0"
	dcfg.Params = p
	return dcfg
}

// mysqlWriteTimeoutParam is go-sql-driver's DSN parameter for the write
// timeout.
const mysqlWriteTimeoutParam = "writeTimeout"

// writeHeader prints what is about to run, sysbench-style.
func writeHeader(out io.Writer, cfg Config, rc oltp.RunConfig, target string) {
	fmt.Fprintf(out, "vmbench sysbench %s (sysbench 1.0 workload) on %s\n", cfg.Workload, target)
	fmt.Fprintln(out, "Running the test with following options:")
	fmt.Fprintf(out, "Number of threads: %d\n", rc.Threads)
	fmt.Fprintf(out, "Tables: %d x %s rows\n", cfg.Tables, textfmt.Thousands(cfg.TableSize))
	if rc.Rate > 0 {
		fmt.Fprintf(out, "Target transaction rate: %g per second (open loop, Poisson arrivals)\n", rc.Rate)
	}
	if rc.ReportInterval > 0 {
		fmt.Fprintf(out, "Report intermediate results every %s\n", rc.ReportInterval)
	}
	if cfg.Rand.Seed == 0 {
		fmt.Fprintf(out, "Random numbers: %s, seeded from the current time\n", cfg.Rand.Type)
	} else {
		fmt.Fprintf(out, "Random numbers: %s, seed %d\n", cfg.Rand.Type, cfg.Rand.Seed)
	}
	fmt.Fprintf(out, "%s\n\n", rc.StopWords("transactions"))
}
