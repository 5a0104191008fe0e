package tpcc

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"vmbench/dialect"
	"vmbench/oltp"
)

// Workload is the workload name in Results.
const Workload = "tpcc"

// Run drives the TPC-C workload on the database of cfg, which Prepare
// loaded, with the Runner configuration rc (start from cfg.RunConfig();
// add Labels, StartAt or callbacks) and returns the measure phase's
// Result. It prints nothing: the header, interval lines (WriteInterval)
// and report (WriteReport) are the Reporter of the workload contract
// (Tool's Config).
//
// Before it starts it checks that the database holds a complete load of
// cfg.Warehouses warehouses (another number is an error wrapping
// workload.ErrFlagValue, returned before anything runs), draws the run's NURand constants from the
// stored C-Load under the C-delta rule (TPC-C 2.1.6.1) and adds one to the
// stored run count.
//
// The measure phase is a Runner run of its own, which ends its window at
// --time as for any workload (Result.Planned; a late end is recorded in
// Result.Overruns): the transactions that completed by then count, those
// in flight are not counted. It starts with no transaction in flight (the
// precondition, when there is one, has ended: it runs as a Runner run of
// its own on the same connections).
//
// NOPM (CounterNOPMDelta) is the change of sum(d_next_o_id) over the
// measured window, from two readings taken with no transaction running:
// before the measure phase's Runner starts and after it has returned.
// The second also holds the New-Orders that transactions in flight at the
// end committed after it (CounterNOPMAfterEnd: the workers count every
// commit), which the delta leaves out; it is then exactly the client's
// count of committed New-Orders (New-Orders minus intended rollbacks),
// on --events too. After Ctrl-C or a failure, a transaction cancelled
// while it committed may be in the delta and not in the client's count.
//
// The Result is returned with any error: after Ctrl-C it covers what was
// measured and is marked Interrupted, and the error wraps
// oltp.ErrInterrupted.
func Run(ctx context.Context, cfg Config, rc oltp.RunConfig) (*oltp.Result, error) {
	return run(ctx, cfg, rc, nil, nil)
}

// run is Run; a warning that the run could not be counted goes to log
// (nil discards it), and once the checks pass what is about to run is
// announced as the header, when announce is given (the CLI's report
// writer prints it: workload.Announcer).
func run(ctx context.Context, cfg Config, rc oltp.RunConfig, log io.Writer, announce func(header string)) (*oltp.Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = io.Discard
	}
	dcfg := cfg.DialectConfig()
	if err := sqliteMustExist(dcfg); err != nil {
		return nil, err
	}
	db, err := open(ctx, dcfg)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxIdleConns(rc.Threads + 2) // reconnects reuse pooled connections
	m, err := readMeta(ctx, db, db.Dialect)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dcfg, err)
	}
	if m.Warehouses != cfg.Warehouses {
		return nil, flagMismatch(fmt.Errorf("--warehouses: %d, but %s holds %d (give --warehouses=%d, or clean up and prepare again)",
			cfg.Warehouses, dcfg, m.Warehouses, m.Warehouses))
	}
	consts := RunConstants(m.Load, NewRand(cfg.Seed, streamRun, m.Runs))
	rs := newRunState(db, cfg, consts)
	if announce != nil {
		var b strings.Builder
		writeHeader(&b, cfg, rc, dcfg.String(), m, consts)
		announce(b.String())
	}
	pool := &workerPool{rs: rs, workers: make([]*windowWorker, rc.Threads)}
	defer pool.close()
	p := &phases{ctx: ctx, rs: rs, rc: rc, log: log, pool: pool}
	res, err := p.run()
	if res != nil {
		res.Measured += "; " + waitWords(cfg)
	}
	return res, err
}

// sqliteMustExist refuses an SQLite file that does not exist, so that run
// and check never create an empty database (only prepare does).
func sqliteMustExist(dcfg dialect.Config) error {
	if dcfg.Driver != dialect.SQLite {
		return nil
	}
	if _, err := os.Stat(dcfg.SQLitePath); err != nil {
		return fmt.Errorf("--sqlite-path %s: %w", dcfg.SQLitePath, errNotPrepared)
	}
	return nil
}

// newSpec is the oltp.Spec of a run: the five transactions as operations,
// the counters, the pooled workers and the terminals.
func newSpec(rs *runState, pool *workerPool) oltp.Spec {
	return oltp.Spec{
		Workload: Workload, Ops: OpNames, Counters: counterNames,
		NewWorker:   pool.newWorker,
		NewTerminal: func(i int) oltp.Terminal { return rs.terms[i] },
	}
}

// sumNextOrderID returns sum(d_next_o_id) over every district: the
// number of New-Orders ever committed plus 3001 per district.
func sumNextOrderID(ctx context.Context, db *dialect.DB) (int64, error) {
	var n int64
	err := db.QueryRowContext(ctx, "SELECT SUM(d_next_o_id) FROM "+District).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("reading sum(d_next_o_id): %w", err)
	}
	return n, nil
}

// waitWords says how the run paced its terminals.
func waitWords(cfg Config) string {
	switch {
	case cfg.Threads > 0:
		return "no keying or think time (--threads)"
	case cfg.WaitScale == 0:
		return "no keying or think time (--wait-scale 0)"
	case cfg.WaitScale == 1:
		return "keying and think times of TPC-C 5.2.5"
	}
	return fmt.Sprintf("keying and think times of TPC-C 5.2.5 x %g", cfg.WaitScale)
}

// writeHeader prints what is about to run.
func writeHeader(out io.Writer, cfg Config, rc oltp.RunConfig, target string, m meta, c Constants) {
	fmt.Fprintf(out, "vmbench tpcc (TPC-C-like) on %s\n", target)
	fmt.Fprintf(out, "Warehouses: %d, ", cfg.Warehouses)
	if rc.Terminals > 0 {
		fmt.Fprintf(out, "terminals: %d sharing %d connections, %s\n", rc.Terminals, rc.Threads, waitWords(cfg))
	} else {
		fmt.Fprintf(out, "threads: %d, one connection each, %s\n", rc.Threads, waitWords(cfg))
	}
	fmt.Fprintf(out, "NURand C: load %d/%d/%d, run %d/%d/%d (C_LAST/C_ID/OL_I_ID; C_LAST delta %d), seed %d, run %d since the load\n",
		m.Load.CLast, m.Load.CID, m.Load.Item, c.CLast, c.CID, c.Item, abs(c.CLast-m.Load.CLast), cfg.Seed, m.Runs+1)
	if w := isolationWords(cfg.Isolation, cfg.Conn.Driver); w != "" {
		fmt.Fprintln(out, w)
	}
	fmt.Fprintf(out, "%s\n\n", rc.StopWords("transactions"))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
