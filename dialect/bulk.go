package dialect

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	mssql "github.com/microsoft/go-mssqldb"
)

// rollbackTimeout bounds the ROLLBACK after a failed bulk insert; it runs
// even when the caller's context has ended, so that the connection is not
// left inside a transaction.
const rollbackTimeout = 30 * time.Second

// BulkInsert inserts rows into table in one transaction on conn: all rows or
// none. cols names the columns, unquoted; every row holds one value per
// column, in that order, of a type the driver binds (rows[i][j] goes to
// cols[j]). An empty rows does nothing. conn must not be inside a
// transaction.
//
// MySQL and SQLite: multi-row INSERT INTO t (cols) VALUES (...), (...)
// statements with bound parameters (InsertStatement), each with as many rows
// as Capabilities allow (rows x columns <= MaxPlaceholders, rows <=
// MaxRowsPerInsert when non-zero), between d.BeginWrite() and d.Commit()
// sent as statements (SQLite: BEGIN IMMEDIATE, so the write lock is taken
// at once). The statement of a full chunk is prepared once per call. With
// MySQL each statement must also fit the server's max_allowed_packet
// (MariaDB's default 16 MiB): the caller bounds the bytes of one call.
//
// PostgreSQL: one COPY table (cols) FROM STDIN through pgx's CopyFrom (see
// CopyFrom), atomic as one statement; ctx's end cancels it.
//
// SQL Server: go-mssqldb's bulk-copy protocol (INSERT BULK, as bcp and
// SqlBulkCopy use), prepared with mssql.CopyIn inside conn.BeginTx: one Exec
// per row streams it, a final Exec without arguments ends the stream, then
// the transaction commits. The options keep INSERT's meaning: CHECK and
// FOREIGN KEY constraints are checked, triggers fire, NULL stays NULL rather
// than the column default. table may be "name" or "schema.name"
// (go-mssqldb quotes each part); cols must be spelled as the table defines
// them (go-mssqldb matches them exactly) and should not include an IDENTITY
// column (v1.11.2 has no KEEPIDENTITY option, and without it a bulk load
// ignores the values given for one, as BULK INSERT does). The rows are one
// bulk-load batch.
//
// On any error BulkInsert rolls back (even when ctx has ended, for up to
// 30 s) and returns "bulk insert into <table>: <cause>", wrapping the
// driver's error so that Classify, Code and Name work on it; the caller may
// retry the whole call. If the rollback fails too, its error is joined to
// the cause (the cause still decides Classify), and the connection's
// transaction state is unknown: close conn rather than reuse it. Errors
// found before anything is sent (no columns, a row of the wrong length, too
// many columns for one statement) are Fatal.
func BulkInsert(ctx context.Context, conn *sql.Conn, d Dialect, table string, cols []string, rows [][]any) error {
	if err := checkBulkShape(d, table, cols, rows); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	var err error
	switch d.Driver() {
	case SQLServer:
		err = bulkCopy(ctx, conn, table, cols, rows)
	case Postgres:
		// One COPY is one statement: all rows or none, like the
		// transaction of the other paths.
		_, err = copyFrom(ctx, conn, table, cols, pgx.CopyFromRows(rows))
	default:
		per := rowsPerStatement(d.Capabilities(), len(cols))
		err = bulkInsertSQL(ctx, conn, d, table, cols, rows, per)
	}
	if err != nil {
		return fmt.Errorf("bulk insert into %s: %w", table, err)
	}
	return nil
}

// checkBulkShape returns the error of a call BulkInsert cannot send.
func checkBulkShape(d Dialect, table string, cols []string, rows [][]any) error {
	if d == nil {
		return fmt.Errorf("bulk insert into %s: no dialect", table)
	}
	if len(cols) == 0 {
		return fmt.Errorf("bulk insert into %s: no columns", table)
	}
	for i, r := range rows {
		if len(r) != len(cols) {
			return fmt.Errorf("bulk insert into %s: row %d has %d values for %d columns", table, i, len(r), len(cols))
		}
	}
	if d.Driver() != SQLServer && d.Driver() != Postgres && rowsPerStatement(d.Capabilities(), len(cols)) < 1 {
		return fmt.Errorf("bulk insert into %s: %d columns exceed the %d bind parameters one statement may carry",
			table, len(cols), d.Capabilities().MaxPlaceholders)
	}
	return nil
}

// rowsPerStatement returns how many rows of ncols values one INSERT may
// carry under caps: MaxPlaceholders / ncols, at most MaxRowsPerInsert when
// that is non-zero, 1 without MultiRowInsert. 0 means not even one row fits.
func rowsPerStatement(caps Capabilities, ncols int) int {
	if !caps.MultiRowInsert {
		if caps.MaxPlaceholders > 0 && ncols > caps.MaxPlaceholders {
			return 0
		}
		return 1
	}
	n := 1 << 30
	if caps.MaxPlaceholders > 0 {
		n = caps.MaxPlaceholders / ncols
	}
	if caps.MaxRowsPerInsert > 0 && n > caps.MaxRowsPerInsert {
		n = caps.MaxRowsPerInsert
	}
	return n
}

// bulkInsertSQL inserts rows with multi-row INSERTs of at most per rows
// each, in one transaction begun by d.BeginWrite() on conn.
func bulkInsertSQL(ctx context.Context, conn *sql.Conn, d Dialect, table string, cols []string, rows [][]any, per int) error {
	return inTextTx(ctx, conn, d, d.BeginWrite(), func() error { return insertChunks(ctx, conn, d, table, cols, rows, per) })
}

// inTextTx runs body between begin and d.Commit() sent as statements on
// conn; on any error it rolls back (even when ctx has ended, see
// rollback) and returns the error with the rollback's joined.
func inTextTx(ctx context.Context, conn *sql.Conn, d Dialect, begin string, body func() error) (err error) {
	if _, err := conn.ExecContext(ctx, begin); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			err = rollback(ctx, err, func(rctx context.Context) error {
				_, rerr := conn.ExecContext(rctx, d.Rollback())
				return rerr
			})
		}
	}()
	if err := body(); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, d.Commit())
	return err
}

// insertChunks sends rows as multi-row INSERTs of at most per rows each.
func insertChunks(ctx context.Context, conn *sql.Conn, d Dialect, table string, cols []string, rows [][]any, per int) (err error) {
	var full *sql.Stmt // the statement of a chunk of per rows, prepared once
	defer func() {
		if full != nil {
			full.Close()
		}
	}()
	args := make([]any, 0, min(per, len(rows))*len(cols))
	for start := 0; start < len(rows); start += per {
		chunk := rows[start:min(start+per, len(rows))]
		args = args[:0]
		for _, r := range chunk {
			args = append(args, r...)
		}
		text := insertStatement(d, table, cols, len(chunk))
		switch {
		case len(chunk) == per && full == nil && len(rows) >= 2*per:
			if full, err = conn.PrepareContext(ctx, text); err != nil {
				return err
			}
			fallthrough
		case len(chunk) == per && full != nil:
			_, err = full.ExecContext(ctx, args...)
		default:
			_, err = conn.ExecContext(ctx, text, args...)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// bulkCopy streams rows through go-mssqldb's bulk copy inside a transaction
// on conn.
func bulkCopy(ctx context.Context, conn *sql.Conn, table string, cols []string, rows [][]any) (err error) {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			// database/sql's Tx.Rollback takes no context. go-mssqldb
			// answers a rollback after a server-side one (deadlock) with
			// nil, and database/sql one after its own (ctx ended, or a
			// failed Commit) with ErrTxDone: both mean rolled back.
			err = rollback(ctx, err, func(context.Context) error {
				if rerr := tx.Rollback(); !errors.Is(rerr, sql.ErrTxDone) {
					return rerr
				}
				return nil
			})
		}
	}()
	stmt, err := tx.PrepareContext(ctx, bulkCopyStatement(table, cols, len(rows)))
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i, r := range rows {
		if _, err = stmt.ExecContext(ctx, r...); err != nil {
			// End the half-sent stream (go-mssqldb sends what it has and
			// reads the reply), so that the session can take the rollback;
			// the rows sent are rolled back with the transaction.
			// Its own error is the stream's failure again: err says why.
			_, _ = stmt.ExecContext(context.WithoutCancel(ctx))
			return fmt.Errorf("row %d: %w", i, err)
		}
	}
	if _, err = stmt.ExecContext(ctx); err != nil {
		return err
	}
	return tx.Commit()
}

// bulkCopyStatement returns the mssql.CopyIn statement BulkInsert prepares:
// "INSERTBULK " and JSON of table, columns and options (go-mssqldb turns it
// into INSERT BULK [table] (...) WITH (CHECK_CONSTRAINTS, FIRE_TRIGGERS,
// KEEP_NULLS, ROWS_PER_BATCH = nrows)).
func bulkCopyStatement(table string, cols []string, nrows int) string {
	return mssql.CopyIn(table, mssql.BulkOptions{
		CheckConstraints: true,
		FireTriggers:     true,
		KeepNulls:        true,
		RowsPerBatch:     nrows,
	}, cols...)
}

// rollback runs roll with a context that outlives ctx by up to
// rollbackTimeout and returns cause, joined with the rollback's error if
// there is one.
func rollback(ctx context.Context, cause error, roll func(context.Context) error) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	defer cancel()
	if rerr := roll(rctx); rerr != nil {
		return errors.Join(cause, fmt.Errorf("rollback: %w", rerr))
	}
	return cause
}

// InsertStatement returns the multi-row INSERT of nrows rows into table's
// cols with bound parameters, in d's quoting and placeholders:
// MySQL "INSERT INTO `t` (`a`, `b`) VALUES (?, ?), (?, ?)",
// SQL Server "INSERT INTO [t] ([a], [b]) VALUES (@p1, @p2), (@p3, @p4)".
// Its arguments are the rows' values, row after row. nrows < 1 is taken
// as 1. The caller keeps nrows x len(cols) within
// Capabilities().MaxPlaceholders and nrows within MaxRowsPerInsert.
func InsertStatement(d Dialect, table string, cols []string, nrows int) string {
	var b strings.Builder
	ncols := len(cols)
	b.Grow(32 + len(table) + 4*ncols + nrows*(4+6*ncols))
	b.WriteString("INSERT INTO ")
	b.WriteString(d.QuoteIdent(table))
	b.WriteString(" (")
	b.WriteString(QuoteIdents(d, cols...))
	b.WriteString(") VALUES ")
	n := 0
	for r := range max(nrows, 1) {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for i := range ncols {
			if i > 0 {
				b.WriteString(", ")
			}
			n++
			b.WriteString(d.Placeholder(n))
		}
		b.WriteByte(')')
	}
	return b.String()
}

// stmtCacheMax bounds the statement cache: a loader needs two texts per
// table (a full chunk and a remainder); past the bound texts are built
// each time.
const stmtCacheMax = 4096

// stmtKey identifies one cached INSERT text. cols is the column list, each
// name preceded by its length, so that no two lists share a key.
type stmtKey struct {
	driver Driver
	table  string
	cols   string
	nrows  int
}

var (
	stmtCache     sync.Map // stmtKey -> string
	stmtCacheSize atomic.Int64
)

// insertStatement returns InsertStatement's text, built once per
// (driver, table, columns, nrows) and reused.
func insertStatement(d Dialect, table string, cols []string, nrows int) string {
	var b strings.Builder
	for _, c := range cols {
		b.WriteString(strconv.Itoa(len(c)))
		b.WriteByte(':')
		b.WriteString(c)
	}
	key := stmtKey{d.Driver(), table, b.String(), nrows}
	if s, ok := stmtCache.Load(key); ok {
		return s.(string)
	}
	s := InsertStatement(d, table, cols, nrows)
	if stmtCacheSize.Load() < stmtCacheMax {
		if _, loaded := stmtCache.LoadOrStore(key, s); !loaded {
			stmtCacheSize.Add(1)
		}
	}
	return s
}
