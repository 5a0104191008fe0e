package dialect

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// CopySource produces the rows of one CopyFrom call; it has the method set
// of pgx.CopyFromSource, so that callers need not import pgx.
type CopySource interface {
	// Next advances to the next row and reports whether there is one.
	Next() bool
	// Values returns the current row's values, one per column, of types
	// pgx encodes for the columns (int64 for INTEGER, string for CHAR,
	// time.Time for TIMESTAMP, ...). The slice may be reused by the next
	// call of Next.
	Values() ([]any, error)
	// Err returns the error that ended the rows, or nil.
	Err() error
}

// CopyFrom loads the rows of src into table's cols (unquoted) with
// PostgreSQL's COPY table (cols) FROM STDIN in pgx's binary format, through
// the native *pgx.Conn beneath conn (pgx.Conn.CopyFrom; database/sql
// cannot reach it). One COPY is one statement: all rows or none, in its own
// transaction unless conn is inside one. pgx first reads the columns'
// types (one round trip), then streams the rows as src produces them,
// buffered in 64 KiB messages. It returns the rows the server took.
// Errors: "copy into <table>: <cause>", wrapping pgx's error (Classify,
// SQLState and Name work on it); an error (Fatal) for a driver other than
// Postgres.
func CopyFrom(ctx context.Context, conn *sql.Conn, d Dialect, table string, cols []string, src CopySource) (int64, error) {
	if d == nil || d.Driver() != Postgres || len(cols) == 0 {
		return 0, fmt.Errorf("copy into %s: needs the postgres driver and at least one column", table)
	}
	n, err := copyFrom(ctx, conn, table, cols, src)
	if err != nil {
		return n, fmt.Errorf("copy into %s: %w", table, err)
	}
	return n, nil
}

// copyFrom is CopyFrom without its checks and its error's prefix.
func copyFrom(ctx context.Context, conn *sql.Conn, table string, cols []string, src pgx.CopyFromSource) (int64, error) {
	var n int64
	err := conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the connection is a %T, not pgx's", dc)
		}
		var err error
		n, err = sc.Conn().CopyFrom(ctx, pgx.Identifier{table}, cols, src)
		return err
	})
	return n, err
}
