package sysbench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"vmbench/dialect"
	"vmbench/internal/textfmt"
	"vmbench/workload"
)

// ErrFlagValue is wrapped by the errors Prepare and Run find once connected
// that a flag value causes: more --threads than the server's
// max_connections leaves free, more prepared statements than its
// max_prepared_stmt_count, tables that do not hold the data --tables and
// --table-size describe. The CLI exits with status 2 on it, as on any bad
// flag; nothing has been loaded or run when it is returned (Prepare may
// have created the empty database first, as it does before every load).
// It is workload.ErrFlagValue, which the CLI tests for every tool.
var ErrFlagValue = workload.ErrFlagValue

// flagErr returns an error wrapping ErrFlagValue with the message of
// format (which starts with the flag's name).
func flagErr(format string, args ...any) error {
	return &flagValueError{msg: fmt.Sprintf(format, args...)}
}

// flagValueError is the message of an ErrFlagValue error; errors.Is finds
// ErrFlagValue through it, and its text is the message alone.
type flagValueError struct{ msg string }

func (e *flagValueError) Error() string        { return e.msg }
func (e *flagValueError) Is(target error) bool { return target == ErrFlagValue }

// checkServerLimits compares what a run of cfg needs of a MySQL or MariaDB
// server with the server's limits, before anything starts: conns
// connections (--threads; the connection of q is one of them) against
// max_connections less the connections other clients hold, and stmts
// server-side prepared statements against max_prepared_stmt_count less the
// statements other sessions hold. Status counters the account may not read
// count as 0. PostgreSQL: connections only (checkPostgresLimits; its
// prepared statements have no server-wide limit). Other drivers have no
// such limits.
func checkServerLimits(ctx context.Context, q queryer, d dialect.Dialect, conns int, stmts int64, cfg Config) error {
	if d.Driver() == dialect.Postgres {
		return checkPostgresLimits(ctx, q, conns)
	}
	if d.Driver() != dialect.MySQL {
		return nil
	}
	var maxConns, maxStmts int64
	if err := q.QueryRowContext(ctx, "SELECT @@max_connections, @@max_prepared_stmt_count").Scan(&maxConns, &maxStmts); err != nil {
		return fmt.Errorf("reading the server's max_connections: %w", err)
	}
	connected := globalStatus(ctx, q, "Threads_connected")
	heldStmts := globalStatus(ctx, q, "Prepared_stmt_count")
	others := max(connected-1, 0) // q's own connection becomes one of the run's
	var errs []error
	if free := maxConns - others; int64(conns) > free {
		errs = append(errs, flagErr("--threads: %d connections, but the server's max_connections is %s and other clients hold %s of them (%s free); raise it (SET GLOBAL max_connections = %d) or use fewer threads",
			conns, textfmt.Thousands(maxConns), textfmt.Thousands(others), textfmt.Thousands(max(free, 0)), int64(conns)+others+10))
	}
	if free := maxStmts - heldStmts; stmts > 0 && stmts > free {
		errs = append(errs, flagErr("--threads x --tables: %d threads x %d tables x %d statement kinds of %s = %s prepared statements, but the server's max_prepared_stmt_count is %s and other sessions hold %s; raise it (SET GLOBAL max_prepared_stmt_count = %d) or use fewer threads or tables",
			cfg.Threads, cfg.Tables, len(mixFor(cfg).kinds(cfg.AutoInc)), cfg.Workload, textfmt.Thousands(stmts), textfmt.Thousands(maxStmts),
			textfmt.Thousands(heldStmts), stmts+heldStmts))
	}
	return errors.Join(errs...)
}

// globalStatus returns the server's global status variable name, or 0
// when it cannot be read.
func globalStatus(ctx context.Context, q queryer, name string) int64 {
	var n string
	var v int64
	if err := q.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&n, &v); err != nil {
		return 0
	}
	return v
}

// checkData checks, before a run starts, that the tables hold the data
// --tables and --table-size describe, as sysbench 1.0's prepare loads it:
// sbtest1..sbtest<--tables> exist and each has ids 1..--table-size. It
// reads each table's highest id (SELECT MAX(id), one primary-key lookup),
// then counts its rows in id windows spread over 1..--table-size
// (countSample: an exact COUNT(*) would scan every row, minutes for the
// review's 100 tables of 10 million rows). A workload that keeps the ids
// (its DELETE re-INSERTs the same id) needs the highest id to be
// --table-size and 99% of the ids counted to be there. oltp_insert adds
// rows above the highest id and oltp_delete removes random ones, so for
// them, in either order, a table is refused only when its highest id, or
// the rows counted, fall under half of --table-size; with oltp_insert
// --auto-inc=off prepare leaves the tables empty, so only their existence
// is checked. A mismatch wraps ErrFlagValue and names the flag, the
// table, its highest id, how the rows were counted and what was found,
// and the ways out.
func checkData(ctx context.Context, q queryer, d dialect.Dialect, cfg Config, where string) error {
	for n := 1; n <= cfg.Tables; n++ {
		query := "SELECT MAX(id) FROM " + d.QuoteIdent(tableName(n))
		var hi sql.NullInt64
		err := q.QueryRowContext(ctx, query).Scan(&hi)
		switch {
		case dialect.IsNoSuchTable(err) && n == 1:
			return flagErr("--tables: %s does not exist in %s; run 'vmbench sysbench prepare' with this run's --tables and --table-size first",
				tableName(1), where)
		case dialect.IsNoSuchTable(err):
			return flagErr("--tables: %s does not exist in %s (sbtest1..%s do); --tables is %d: prepare with that many or pass --tables %d",
				tableName(n), where, tableName(n-1), cfg.Tables, n-1)
		case err != nil:
			return fmt.Errorf("checking the size of %s: %s: %w", tableName(n), query, err)
		}
		if cfg.Workload == Insert && !cfg.AutoInc {
			continue
		}
		if err := checkRows(ctx, q, d, cfg, n, hi.Int64, where); err != nil {
			return err
		}
	}
	return nil
}

// checkRows is checkData's check of table n, whose highest id is hi (0
// when it is empty).
func checkRows(ctx context.Context, q queryer, d dialect.Dialect, cfg Config, n int, hi int64, where string) error {
	size := cfg.TableSize
	keep := cfg.Workload != Insert && cfg.Workload != Delete
	if hi == 0 {
		return flagErr("--table-size: %s in %s is empty; --table-size is %s: clean up and prepare with that size",
			tableName(n), where, textfmt.Thousands(size))
	}
	span, need := size, "99% of ids 1.."+textfmt.Thousands(size)
	okHi := hi == size
	if !keep {
		need, okHi = "half of ids 1.."+textfmt.Thousands(size), 2*hi >= size
	}
	if !okHi {
		span = hi // what the table holds, for the way out
	}
	s, err := countSample(ctx, q, d, n, span)
	if err != nil {
		return err
	}
	dense := keep && s.atLeast(99, 100) || !keep && s.atLeast(1, 2)
	switch {
	case okHi && dense:
		return nil
	case !okHi && keep && dense:
		return flagErr("--table-size: %s in %s holds ids 1..%s (highest id %s; %s); --table-size is %s: prepare with that size or pass --table-size %d",
			tableName(n), where, textfmt.Thousands(hi), textfmt.Thousands(hi), s.method(), textfmt.Thousands(size), hi)
	case !okHi && !keep:
		return flagErr("--table-size: %s in %s has highest id %s, under half of --table-size %s (%s): prepare with that size or pass --table-size %d",
			tableName(n), where, textfmt.Thousands(hi), textfmt.Thousands(size), s.method(), hi)
	}
	return flagErr("--table-size: %s in %s is missing rows: %s (highest id %s); --table-size %s needs rows for %s: clean up ('vmbench sysbench cleanup') and prepare again",
		tableName(n), where, s.method(), textfmt.Thousands(hi), textfmt.Thousands(size), need)
}

// sqliteFileExists returns an ErrFlagValue error when dcfg names an SQLite
// file that does not exist: opening it would create an empty one, a side
// effect of a run that cannot start (prepare creates the file).
func sqliteFileExists(dcfg dialect.Config) error {
	if dcfg.Driver != dialect.SQLite {
		return nil
	}
	if _, err := os.Stat(dcfg.SQLitePath); errors.Is(err, fs.ErrNotExist) {
		return flagErr("--sqlite-path: %s does not exist; run 'vmbench sysbench prepare' with this run's --tables and --table-size first", dcfg.SQLitePath)
	}
	return nil
}
