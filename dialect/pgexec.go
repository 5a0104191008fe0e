package dialect

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// PGExec runs prepared statements on one PostgreSQL connection through
// pgx's native pgconn interface instead of database/sql's driver
// interface, for the workloads' hot loop. What goes over the wire is the
// same (Bind and Execute of a named statement, text parameters), but
// pgx/v5/stdlib converts every argument into a new []any, decodes every
// column of every row into a driver.Value and allocates per statement;
// PGExec encodes the parameters as text into one reused buffer and reads
// the rows of a query without decoding them, as sysbench's client
// libraries do (libpq reads a whole result, nothing fetches its values).
// Measured with bench/pgsql-compare.sh (oltp_read_write, 4 x 10,000 rows,
// 8 threads, 10 s runs on a busy 2-core machine, so a rough figure): with
// Go's netpoller ($VMBENCH_NETPOLL=1) the client's CPU time per
// transaction went from 1,238-1,296 µs through stdlib to 1,134 µs through
// PGExec; the blocking sockets (blockConn) then took it to 794-1,125 µs
// over three runs of 2 rounds, against 906-1,306 µs for sysbench 1.0.20's
// pgsql driver in the rounds beside them.
//
// A PGExec belongs to the driver connection it was made from (NewPGExec),
// and is used by one goroutine at a time, as the connection is.
type PGExec struct {
	conn   *pgx.Conn
	pg     *pgconn.PgConn
	params [][]byte // the text of each parameter of the statement being run
	buf    []byte   // their bytes
	starts []int    // where each starts in buf
}

// NewPGExec returns the PGExec of dc, a driver connection of a PostgreSQL
// pool (what database/sql's Conn.Raw hands over), and false when dc is
// not pgx's.
func NewPGExec(dc any) (*PGExec, bool) {
	sc, ok := dc.(*stdlib.Conn)
	if !ok {
		return nil, false
	}
	return &PGExec{conn: sc.Conn(), pg: sc.Conn().PgConn()}, true
}

// Prepare prepares query on the server (pgx.Conn.Prepare, cached by its
// text on the connection) and returns the statement's server-side name.
func (e *PGExec) Prepare(ctx context.Context, query string) (string, error) {
	sd, err := e.conn.Prepare(ctx, query, query)
	if err != nil {
		return "", err
	}
	return sd.Name, nil
}

// Deallocate removes the statement Prepare made of query.
func (e *PGExec) Deallocate(ctx context.Context, query string) error {
	return e.conn.Deallocate(ctx, query)
}

// Query runs prepared statement name with args and reads its rows without
// decoding them; it returns how many rows there were.
func (e *PGExec) Query(ctx context.Context, name string, args []driver.NamedValue) (int, error) {
	if err := e.encode(args); err != nil {
		return 0, err
	}
	rr := e.pg.ExecPrepared(ctx, name, e.params, nil, nil)
	n := 0
	for rr.NextRow() {
		n++
	}
	_, err := rr.Close()
	return n, err
}

// Exec runs prepared statement name with args and returns the rows it
// affected.
func (e *PGExec) Exec(ctx context.Context, name string, args []driver.NamedValue) (int64, error) {
	if err := e.encode(args); err != nil {
		return 0, err
	}
	tag, err := e.pg.ExecPrepared(ctx, name, e.params, nil, nil).Close()
	return tag.RowsAffected(), err
}

// Simple sends query, without parameters, as a simple query (BEGIN,
// COMMIT, ROLLBACK).
func (e *PGExec) Simple(ctx context.Context, query string) error {
	_, err := e.pg.Exec(ctx, query).ReadAll()
	return err
}

// Rows runs prepared statement name with args and calls row with the
// text of each row's columns (nil for NULL; the slices are valid only
// until row returns), until row returns false or an error; the rest of
// the result is read and dropped. It returns how many rows it handed to
// row, and row's error or the statement's.
func (e *PGExec) Rows(ctx context.Context, name string, args []driver.NamedValue, row func(cols [][]byte) (bool, error)) (int, error) {
	if err := e.encode(args); err != nil {
		return 0, err
	}
	rr := e.pg.ExecPrepared(ctx, name, e.params, nil, nil)
	n := 0
	var rerr error
	for rr.NextRow() {
		n++
		more, err := row(rr.Values())
		if err != nil || !more {
			rerr = err
			break
		}
	}
	if _, err := rr.Close(); err != nil {
		return n, err
	}
	return n, rerr
}

// encode writes args as text parameters: int64 in decimal, float64 in
// the shortest form that reads back exactly, bool as t or f, time.Time as
// its wall clock "2006-01-02 15:04:05.999999" (for TIMESTAMP without time
// zone, as pgx drops the zone), string and []byte as they are, nil as
// NULL. Other types are an error naming the parameter.
func (e *PGExec) encode(args []driver.NamedValue) error {
	e.buf, e.params, e.starts = e.buf[:0], e.params[:0], e.starts[:0]
	for i, a := range args {
		e.starts = append(e.starts, len(e.buf))
		switch v := a.Value.(type) {
		case int64:
			e.buf = strconv.AppendInt(e.buf, v, 10)
		case string:
			e.buf = append(e.buf, v...)
		case []byte:
			e.buf = append(e.buf, v...)
		case float64:
			e.buf = strconv.AppendFloat(e.buf, v, 'g', -1, 64)
		case bool:
			e.buf = strconv.AppendBool(e.buf, v)
		case time.Time:
			e.buf = v.AppendFormat(e.buf, "2006-01-02 15:04:05.999999")
		case nil:
		default:
			return fmt.Errorf("parameter %d: %T is not an int64, float64, bool, time.Time, string or []byte", i+1, a.Value)
		}
	}
	for i, a := range args {
		end := len(e.buf)
		if i+1 < len(args) {
			end = e.starts[i+1]
		}
		if a.Value == nil {
			e.params = append(e.params, nil)
			continue
		}
		e.params = append(e.params, e.buf[e.starts[i]:end:end])
	}
	return nil
}
