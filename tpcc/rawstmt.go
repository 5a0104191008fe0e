package tpcc

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"vmbench/dialect"
)

// The statements of a transaction run on the driver's connection directly
// (database/sql's Conn.Raw, once per attempt), not through *sql.Stmt, as
// sysbench's worker does: database/sql's per-statement work (argument
// conversion through reflection, a Rows with its locks, a close watcher
// and dependency bookkeeping, a Result wrapper) cost more client CPU than
// the driver's own. What goes over the wire is the same: the server-side
// prepared statement executed with the same parameters, and every row of
// a result read (closing a go-sql-driver result reads the rest of it).

// rowScanner reads the current row of a result into dest, converting as
// database/sql's Rows.Scan does for the destinations the transactions use
// (see assign).
type rowScanner interface {
	Scan(dest ...any) error
}

// rawRows is the rowScanner of a result read off the driver.
type rawRows struct{ vals []driver.Value }

// Scan assigns the row's values to dest, which has one pointer per column.
func (r *rawRows) Scan(dest ...any) error {
	if len(dest) != len(r.vals) {
		return fmt.Errorf("scan: %d destinations for %d columns", len(dest), len(r.vals))
	}
	for i, d := range dest {
		if err := assign(d, r.vals[i]); err != nil {
			return fmt.Errorf("scan column %d: %w", i, err)
		}
	}
	return nil
}

// assign stores the driver value v into the destination pointer dst: *int,
// *int64, *string, *sql.RawBytes (a copy, reusing its array), *any (a
// []byte copied) or a sql.Scanner (decimalScan, sql.NullInt64), which
// gets v itself and must not keep a []byte. NULL is an error but for *any
// and Scanners. Other types are an error naming them.
func assign(dst any, v driver.Value) error {
	switch d := dst.(type) {
	case sql.Scanner:
		return d.Scan(v)
	case *int:
		n, err := asInt(v)
		*d = int(n)
		return err
	case *int64:
		n, err := asInt(v)
		*d = n
		return err
	case *string:
		switch s := v.(type) {
		case []byte:
			*d = string(s)
		case string:
			*d = s
		case int64:
			*d = strconv.FormatInt(s, 10)
		default:
			return fmt.Errorf("cannot store %T in *string", v)
		}
		return nil
	case *sql.RawBytes:
		switch s := v.(type) {
		case []byte:
			*d = append((*d)[:0], s...)
		case string:
			*d = append((*d)[:0], s...)
		case nil:
			*d = (*d)[:0]
		default:
			return fmt.Errorf("cannot store %T in *sql.RawBytes", v)
		}
		return nil
	case *any:
		if b, ok := v.([]byte); ok {
			v = append([]byte(nil), b...)
		}
		*d = v
		return nil
	}
	return fmt.Errorf("unsupported scan destination %T", dst)
}

// asInt converts an integer column's value.
func asInt(v driver.Value) (int64, error) {
	switch n := v.(type) {
	case int64:
		return n, nil
	case []byte:
		return strconv.ParseInt(string(n), 10, 64)
	case string:
		return strconv.ParseInt(n, 10, 64)
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n), nil
		}
		return 0, fmt.Errorf("%v is not an integer", n)
	case nil:
		return 0, errors.New("NULL in an integer destination")
	}
	return 0, fmt.Errorf("cannot convert %T to an integer", v)
}

// rawConn is what the worker needs of a driver connection: prepared
// statements and statements without parameters (BEGIN, COMMIT).
type rawConn interface {
	driver.ConnPrepareContext
	driver.ExecerContext
}

// rawStmt is what the worker needs of a driver statement.
type rawStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

// prepareRaw prepares every statement of the run on the driver connection
// dc, into w.ds (on PostgreSQL through PGExec, see rawstmt_pg.go).
func (w *worker) prepareRaw(ctx context.Context, dc any) error {
	if pe, ok := dialect.NewPGExec(dc); ok && !w.r.pgDriverStmts {
		return w.preparePG(ctx, pe)
	}
	c, ok := dc.(rawConn)
	if !ok {
		return fmt.Errorf("the %s driver's connection does not implement driver.ConnPrepareContext and ExecerContext", w.d.Driver())
	}
	for i, text := range w.r.stmts.text {
		st, err := c.PrepareContext(ctx, text)
		if err != nil {
			return fmt.Errorf("preparing %s (%s): %w", stmtID(i), text, err)
		}
		rs, ok := st.(rawStmt)
		if !ok {
			_ = st.Close()
			return fmt.Errorf("the %s driver's statements do not implement driver.StmtExecContext and StmtQueryContext", w.d.Driver())
		}
		w.ds[i] = rs
	}
	return nil
}

// closeRaw closes the prepared statements (on a broken connection they
// went with it).
func (w *worker) closeRaw() {
	w.pe = nil // its statements go with the connection
	for i, st := range w.ds {
		if st != nil {
			_ = st.Close()
			w.ds[i] = nil
		}
	}
}

// bind fills the worker's parameter scratch with params (unless the
// attempt's context has ended, whose error it returns): int as int64,
// the driver's own types as they are, others through database/sql's
// default converter.
func (w *worker) bind(params []any) ([]driver.NamedValue, error) {
	if err := w.live.Err(); err != nil {
		return nil, err // the transaction's context ended: no further statement
	}
	nv := w.nv[:len(params)]
	for i, p := range params {
		var v driver.Value
		switch x := p.(type) {
		case int:
			v = int64(x)
		case int64, string, []byte, time.Time, float64, bool, nil:
			v = x
		default:
			var err error
			if v, err = driver.DefaultParameterConverter.ConvertValue(p); err != nil {
				return nil, fmt.Errorf("parameter %d: %w", i+1, err)
			}
		}
		nv[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return nv, nil
}

// rawExec runs statement id with params and returns the rows it affected.
func (w *worker) rawExec(ctx context.Context, id stmtID, params []any) (int64, error) {
	nv, err := w.bind(params)
	if err != nil {
		return 0, err
	}
	if w.pe != nil {
		return w.pe.Exec(ctx, w.pgNames[id], nv)
	}
	res, err := w.ds[id].ExecContext(ctx, nv)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// rawQuery runs query id with params and calls row for each row of its
// result, until row returns false or an error; the result is then closed
// (go-sql-driver reads the rest of it off the connection). It returns how
// many rows it handed to row.
func (w *worker) rawQuery(ctx context.Context, id stmtID, params []any, row func(*rawRows) (bool, error)) (n int, err error) {
	nv, err := w.bind(params)
	if err != nil {
		return 0, err
	}
	if w.pe != nil {
		return w.pgQuery(ctx, id, nv, row)
	}
	rs, err := w.ds[id].QueryContext(ctx, nv)
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := rs.Close(); err == nil {
			err = cerr
		}
	}()
	cols := len(rs.Columns())
	if cap(w.vals) < cols {
		w.vals = make([]driver.Value, cols)
	}
	r := &w.rr
	r.vals = w.vals[:cols]
	for {
		// driver.Rows.Next returns io.EOF itself at the end of the rows;
		// a wrapped io.EOF is a failed read, not the end.
		if err := rs.Next(r.vals); err == io.EOF { //nolint:errorlint // see above
			return n, nil
		} else if err != nil {
			return n, err
		}
		n++
		more, err := row(r)
		if err != nil || !more {
			return n, err
		}
	}
}
