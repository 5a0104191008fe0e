package tpcc

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/oltp/hist"
)

// Workload is the workload name in Results.
const Workload = "tpcc"

// Run drives the TPC-C workload on the database of cfg, which Prepare
// loaded, with the Runner configuration rc (start from cfg.RunConfig();
// add Labels, StartAt or callbacks), and writes to out (nil discards) a
// header, interval lines (WriteInterval) and the report (WriteReport).
//
// Before it starts it checks that the database holds a complete load of
// cfg.Warehouses warehouses, draws the run's NURand constants from the
// stored C-Load under the C-delta rule (TPC-C 2.1.6.1) and adds one to the
// stored run count. NOPM comes from sum(d_next_o_id) read when the measure
// phase starts and after the run; transactions that commit while either
// reading is taken (those in flight at the edges, and on SQLite what
// commits while the read waits) can fall on either side, so NOPM and the
// client's count of committed New-Orders differ by that much.
//
// The Result is returned with any error: after Ctrl-C it covers what was
// measured and is marked Interrupted, and the error wraps
// oltp.ErrInterrupted.
func Run(ctx context.Context, cfg Config, rc oltp.RunConfig, out io.Writer) (*oltp.Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if out == nil {
		out = io.Discard
	}
	dcfg := cfg.DialectConfig()
	if err := sqliteMustExist(dcfg); err != nil {
		return nil, err
	}
	db, err := dialect.Open(ctx, dcfg)
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
		return nil, fmt.Errorf("--warehouses: %d, but %s holds %d (give --warehouses=%d, or clean up and prepare again)",
			cfg.Warehouses, dcfg, m.Warehouses, m.Warehouses)
	}
	consts := RunConstants(m.Load, NewRand(cfg.Seed, streamRun, m.Runs))
	rs := newRunState(db, cfg, consts)
	writeHeader(out, cfg, rc, dcfg.String(), m, consts)

	// The run is counted (3.3.2.11 then no longer holds) when its first
	// phase starts: every connection is open and no transaction has run.
	var before int64
	var measured, counted bool
	userInterval, userPhase := rc.OnInterval, rc.OnPhase
	rc.OnPhase = func(phase string, length time.Duration) {
		if !counted {
			counted = true
			if err := countRun(ctx, db, db.Dialect); err != nil {
				fmt.Fprintf(out, "warning: counting the run in %s: %v (check may then test 3.3.2.11 wrongly)\n", metaTable, err)
			}
		}
		if phase == oltp.PhaseMeasure {
			var err error
			before, err = sumNextOrderID(ctx, db)
			measured = err == nil
		}
		if rc.WarmupTime > 0 {
			switch phase {
			case oltp.PhasePrecondition:
				fmt.Fprintf(out, "Precondition for %s (excluded from the results)...\n", length)
			case oltp.PhaseMeasure:
				fmt.Fprintln(out, "Precondition done; measuring.")
			}
		}
		if userPhase != nil {
			userPhase(phase, length)
		}
	}
	rc.OnInterval = func(rep oltp.IntervalReport) {
		if rc.ReportInterval > 0 {
			_ = WriteInterval(out, rep)
		}
		if userInterval != nil {
			userInterval(rep)
		}
	}
	res, err := oltp.Run(ctx, newSpec(rs), rc)
	if res == nil {
		return nil, err
	}
	res.Measured += "; " + waitWords(cfg)
	if res.Phase != oltp.PhaseMeasure {
		fmt.Fprintf(out, "\nInterrupted during the precondition: nothing was measured. What ran in the precondition:\n")
	}
	if measured && res.Phase == oltp.PhaseMeasure {
		// A fresh context: after Ctrl-C the reading is still wanted.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		after, aerr := sumNextOrderID(actx, db)
		cancel()
		if aerr == nil {
			res.Counters[CounterNOPMDelta] = after - before
		}
	}
	fmt.Fprintln(out)
	if werr := WriteReport(out, res); werr != nil && err == nil {
		err = werr
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
// the counters, workers on connections and the terminals.
func newSpec(rs *runState) oltp.Spec {
	return oltp.Spec{
		Workload: Workload, Ops: OpNames, Counters: counterNames,
		NewWorker: func(ctx context.Context, t int, h *hist.Handle) (oltp.Worker, error) {
			w, err := newWorker(ctx, rs.db, rs, t, h)
			if err != nil {
				return nil, err
			}
			return w, nil
		},
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
	fmt.Fprintf(out, "%s\n\n", rc.StopWords("transactions"))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
