package dialect

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-sql-driver/mysql"
)

// LoadData: MySQL's and MariaDB's fastest way in for generated rows,
// LOAD DATA LOCAL INFILE from a stream the client generates as the server
// reads it (go-sql-driver's "Reader::<name>" handlers), so that no rows are
// held in memory and no SQL is parsed per row.

// RowSource produces the rows of one LoadData call.
type RowSource interface {
	// NextRow appends the next row to w (its fields, then w.EndRow) and
	// reports true, or appends nothing and reports false when there are
	// no more rows.
	NextRow(w *RowWriter) bool
}

// LoadStats is what one load sent: rows, and bytes of the generated data
// (LoadData: the tab-separated stream; the INSERT paths: the rows' values
// as the loader wrote them).
type LoadStats struct {
	Rows  int64
	Bytes int64
}

// Add adds o to s.
func (s *LoadStats) Add(o LoadStats) { s.Rows += o.Rows; s.Bytes += o.Bytes }

// loadFill is how many bytes of rows the stream generates ahead of the
// driver's reads (it reads 16 KiB at a time).
const loadFill = 64 << 10

// loadSeq makes every reader handler's name unique in the process.
var loadSeq atomic.Uint64

// LoadData loads the rows of src into table's cols (unquoted, in the order
// src writes the fields) with LOAD DATA LOCAL INFILE, in one transaction on
// conn: all rows or none. The stream is tab-separated, one row per line,
// backslash escapes, \N for NULL, utf8mb4 (RowWriter); it is generated as
// the driver sends it, under a go-sql-driver reader handler registered for
// this call only (mysql.RegisterReaderHandler "vmbench-<n>", deregistered
// on return; no allowAllFiles needed). After the load it checks that the
// server took exactly the rows sent and raised no warning (a truncated or
// converted value, or a duplicate key, which LOAD DATA LOCAL skips with a
// warning as IGNORE does, is an error naming the first warning), then
// commits.
//
// The server must allow local infile (local_infile=ON, see
// LoadDataAvailable); a refusal is an error for which IsLoadDataRefused is
// true, sent before any row, and the caller may use its INSERT path
// instead. A src with an Err() error method (SliceSource) is asked for it
// when its rows end; an error fails the load. A cancelled ctx ends the stream: go-sql-driver then ends the
// file early (the server would keep the rows so far), which the
// transaction rolls back. On any error LoadData rolls back (even when ctx
// has ended, for up to 30 s) and returns "load data into <table>: <cause>",
// wrapping the driver's error (Classify, Code and Name work on it). It is
// an error (Fatal) for a driver other than MySQL.
func LoadData(ctx context.Context, conn *sql.Conn, d Dialect, table string, cols []string, src RowSource) (st LoadStats, err error) {
	if d == nil || d.Driver() != MySQL || len(cols) == 0 {
		return st, fmt.Errorf("load data into %s: needs the mysql driver and at least one column", table)
	}
	r := &loadReader{ctx: ctx, src: src}
	r.w.buf = make([]byte, 0, loadFill+4096)
	name := "vmbench-" + strconv.FormatUint(loadSeq.Add(1), 10)
	mysql.RegisterReaderHandler(name, func() io.Reader { return r })
	defer mysql.DeregisterReaderHandler(name)
	err = loadDataTx(ctx, conn, d, LoadDataStatement(d, name, table, cols), r)
	st = LoadStats{Rows: r.w.rows, Bytes: r.sent}
	if err != nil {
		return st, fmt.Errorf("load data into %s: %w", table, err)
	}
	return st, nil
}

// loadDataTx runs the LOAD DATA statement q inside BEGIN ... COMMIT and
// checks what the server took.
func loadDataTx(ctx context.Context, conn *sql.Conn, d Dialect, q string, r *loadReader) error {
	return inTextTx(ctx, conn, d, d.Begin(), func() error {
		res, err := conn.ExecContext(ctx, q)
		if err == nil && r.err != nil {
			err = r.err // the driver ended the file early and the server took it
		}
		if err != nil {
			if r.err != nil && !errors.Is(err, r.err) {
				err = fmt.Errorf("%w (after the stream ended with: %w)", err, r.err)
			}
			return err
		}
		return checkLoaded(ctx, conn, res, r.w.rows)
	})
}

// checkLoaded returns an error unless the server took exactly sent rows
// without a warning.
func checkLoaded(ctx context.Context, conn *sql.Conn, res sql.Result, sent int64) error {
	var warnings int64
	if err := conn.QueryRowContext(ctx, "SELECT @@warning_count").Scan(&warnings); err != nil {
		return err
	}
	if warnings > 0 {
		var level, msg string
		var code int
		if err := conn.QueryRowContext(ctx, "SHOW WARNINGS LIMIT 1").Scan(&level, &code, &msg); err != nil {
			return fmt.Errorf("the server raised %d warning(s) (reading them: %w)", warnings, err)
		}
		return fmt.Errorf("the server raised %d warning(s), the first: %s %d: %s", warnings, level, code, msg)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != sent {
		return fmt.Errorf("the server took %d of the %d rows sent", n, sent)
	}
	return nil
}

// LoadDataStatement returns the LOAD DATA statement of LoadData for the
// reader handler name: LOAD DATA LOCAL INFILE 'Reader::name' INTO TABLE
// `t` CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\t' ESCAPED BY '\\'
// LINES TERMINATED BY '\n' (`a`, `b`).
func LoadDataStatement(d Dialect, name, table string, cols []string) string {
	return "LOAD DATA LOCAL INFILE 'Reader::" + name + "' INTO TABLE " + d.QuoteIdent(table) +
		` CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\t' ESCAPED BY '\\' LINES TERMINATED BY '\n' (` +
		QuoteIdents(d, cols...) + ")"
}

// loadReader is the io.Reader go-sql-driver reads the file from: it
// generates rows from src into w's buffer, loadFill bytes at a time.
type loadReader struct {
	ctx  context.Context
	src  RowSource
	w    RowWriter
	off  int   // bytes of w.buf already read
	sent int64 // bytes handed to the driver
	done bool
	err  error // ctx's or src's error, when it ended the stream
}

func (r *loadReader) Read(p []byte) (int, error) {
	if r.off == len(r.w.buf) {
		if r.done {
			return 0, io.EOF
		}
		if err := r.ctx.Err(); err != nil {
			r.err = err
			return 0, err
		}
		r.w.buf, r.off = r.w.buf[:0], 0
		for len(r.w.buf) < loadFill {
			if !r.src.NextRow(&r.w) {
				r.done = true
				if e, ok := r.src.(interface{ Err() error }); ok && e.Err() != nil {
					r.err = e.Err()
				}
				break
			}
		}
		if r.err != nil {
			return 0, r.err
		}
		if len(r.w.buf) == 0 {
			return 0, io.EOF
		}
	}
	n := copy(p, r.w.buf[r.off:])
	r.off += n
	r.sent += int64(n)
	return n, nil
}

// LoadDataAvailable reports whether LoadData can be used on q's server:
// the driver is MySQL and SELECT @@local_infile is 1. When it is not, why
// says so in a few words ("the server has local_infile=OFF"); err is a
// failed query.
func LoadDataAvailable(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, d Dialect) (ok bool, why string, err error) {
	if d.Driver() != MySQL {
		return false, "LOAD DATA is MySQL's", nil
	}
	var on sql.NullInt64
	if err := q.QueryRowContext(ctx, "SELECT @@local_infile").Scan(&on); err != nil {
		return false, "", fmt.Errorf("SELECT @@local_infile: %w", err)
	}
	if on.Int64 != 1 {
		return false, "the server has local_infile=OFF", nil
	}
	return true, "", nil
}

// MySQL and MariaDB error numbers of a refused LOAD DATA LOCAL.
const (
	erNotAllowedCommand       = 1148 // "The used command is not allowed with this MySQL version"
	erClientLocalFilesOff     = 3948 // MySQL 8: "Loading local data is disabled"
	erLoadInfileCapabilityOff = 4166 // MariaDB: "The used command is not allowed because the server ... local infile"
)

// IsLoadDataRefused reports whether err is the server's refusal of LOAD
// DATA LOCAL INFILE (MySQL/MariaDB errors 1148, 3948, 4166: local_infile
// is OFF or the server was built without it), after which the loader may
// use INSERTs instead.
func IsLoadDataRefused(err error) bool {
	switch Code(err) {
	case erNotAllowedCommand, erClientLocalFilesOff, erLoadInfileCapabilityOff:
		var me *mysql.MySQLError
		return errors.As(err, &me)
	}
	return false
}

// LoadPath is how one prepare loads: LOAD DATA LOCAL INFILE (LoadData)
// while the server takes it, else the dialect's INSERT path (BulkInsert,
// or a loader's own multi-row INSERTs). The switch to INSERTs after a
// refusal is said once, through Note.
type LoadPath struct {
	loadData atomic.Bool
	once     sync.Once
	driver   Driver
	// Note receives the one line of a switch to INSERTs during the load
	// (LoadFallbackNote); nil drops it.
	Note func(line string)
}

// ChooseLoadPath returns the LoadPath of q's server (LoadDataAvailable)
// and, on MySQL without LOAD DATA, writes LoadFallbackNote's line to w.
// err is the failed probe.
func ChooseLoadPath(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, d Dialect, w io.Writer) (*LoadPath, error) {
	ok, why, err := LoadDataAvailable(ctx, q, d)
	if err != nil {
		return nil, err
	}
	p := &LoadPath{driver: d.Driver()}
	p.loadData.Store(ok)
	if !ok && d.Driver() == MySQL && w != nil {
		fmt.Fprintln(w, LoadFallbackNote(why))
	}
	return p, nil
}

// LoadData reports whether loads should use LoadData.
func (p *LoadPath) LoadData() bool { return p.loadData.Load() }

// Copy reports whether loads should use CopyFrom: on PostgreSQL, always.
func (p *LoadPath) Copy() bool { return p.driver == Postgres }

// FallBack switches p to INSERTs and, the first time, sends
// LoadFallbackNote(why) to Note.
func (p *LoadPath) FallBack(why string) {
	p.loadData.Store(false)
	p.once.Do(func() {
		if p.Note != nil {
			p.Note(LoadFallbackNote(why))
		}
	})
}

// String names the path: "LOAD DATA LOCAL INFILE", "COPY" (PostgreSQL,
// CopyFrom), "bulk copy" (SQL Server, BulkInsert) or "multi-row INSERTs".
func (p *LoadPath) String() string {
	switch {
	case p.LoadData():
		return "LOAD DATA LOCAL INFILE"
	case p.Copy():
		return "COPY"
	case p.driver == SQLServer:
		return "bulk copy"
	}
	return "multi-row INSERTs"
}

// LoadFallbackNote returns the one line a loader prints when it uses
// INSERTs rather than LOAD DATA on MySQL, e.g. "LOAD DATA LOCAL INFILE is
// not available (the server has local_infile=OFF): loading with multi-row
// INSERTs (SET GLOBAL local_infile=ON for the faster path)".
func LoadFallbackNote(why string) string {
	return "LOAD DATA LOCAL INFILE is not available (" + strings.TrimSpace(why) +
		"): loading with multi-row INSERTs (SET GLOBAL local_infile=ON for the faster path)"
}
