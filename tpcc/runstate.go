package tpcc

import (
	"sync/atomic"
	"time"

	"vmbench/dialect"
)

// runState is what every worker of one run shares: the database, the
// configuration, the run's NURand constants, the statements in the
// database's dialect and the terminals.
type runState struct {
	db     *dialect.DB
	cfg    Config
	consts Constants
	stmts  *statements
	// terms are the run's terminals, cfg.terminals() of them (hand
	// terms[i] to oltp.Spec.NewTerminal). In a terminal-driven run the
	// Runner calls their Next and Think and the workers draw transaction
	// inputs from them; with --threads worker t owns terms[t].
	terms []*terminal
	// now stamps o_entry_d, h_date and ol_delivery_d.
	now func() time.Time
	// committed counts the New-Orders the workers committed (not those
	// rolled back on purpose), counted or not by the Runner (see window).
	committed atomic.Int64
	// pgDriverStmts (tests only) has PostgreSQL workers run pgx's
	// database/sql driver statements instead of dialect.PGExec, so that
	// BenchmarkTransactionPG can compare the two paths in one process.
	pgDriverStmts bool
}

// newRunState makes the terminals of cfg and the statements of db's
// dialect. consts are the run's NURand constants (RunConstants of the
// stored C-Load).
func newRunState(db *dialect.DB, cfg Config, consts Constants) *runState {
	r := &runState{db: db, cfg: cfg, consts: consts, stmts: newStatements(db.Dialect), now: dbNow}
	r.terms = make([]*terminal, cfg.terminals())
	for i := range r.terms {
		r.terms[i] = newTerminal(cfg, i)
	}
	return r
}

// dbNow is the current time as stored in the database: UTC, to the
// millisecond (the precision of SQL Server's DATETIME2(3); MySQL's
// DATETIME keeps whole seconds).
func dbNow() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }
