package tpcc

import (
	"context"
	"database/sql"
	"fmt"

	"vmbench/dialect"
)

// How a worker's MySQL statements are cancelled: as sysbench's worker
// does, through dialect.Killer. Statements run under a context without
// cancellation, each first checks the transaction's own context (live)
// so that a cancelled run starts no further statement, and a cancellation
// of that context while a statement is in flight (Ctrl-C, the end of the
// run) sends KILL QUERY for the worker's connection. Other databases'
// statements take the context as it is.

// readConnID records the MySQL connection id of conn for the Killer.
func (w *worker) readConnID(ctx context.Context, conn *sql.Conn) error {
	if w.d.Driver() != dialect.MySQL {
		return nil
	}
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		return fmt.Errorf("SELECT CONNECTION_ID(): %w", err)
	}
	w.kill.SetConnID(id)
	return nil
}

// rollback is the worker's dialect.TxHooks.Rollback on MySQL: the
// runner's ROLLBACK, which a KILL QUERY sent for the transaction's
// cancellation must not end (dialect.Killer.Settle).
func (w *worker) rollback(ctx context.Context, conn *sql.Conn) error {
	return w.kill.Settle(func() error {
		q := w.d.Rollback()
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		return nil
	})
}
