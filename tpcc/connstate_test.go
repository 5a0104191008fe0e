package tpcc

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"vmbench/dialect"
	"vmbench/internal/fakesql"
	"vmbench/oltp/hist"
)

// TestSettleSQLServer: what a worker does with its connection after a
// transaction cancelled between two statements, on the SQL Server dialect.
// No SQL Server runs here, so internal/fakesql stands in for go-mssqldb,
// which like it keeps a connection whose context was cancelled between
// statements: the worker sends "IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION"
// under a fresh context with a deadline, keeps the connection when that
// succeeds and discards it (closed, not pooled) when it fails.
// TestStoppedTransactionLeavesNoTransaction runs the whole on MariaDB.
func TestSettleSQLServer(t *testing.T) {
	for _, fail := range []bool{false, true} {
		name := map[bool]string{false: "rollback succeeds", true: "rollback fails"}[fail]
		t.Run(name, func(t *testing.T) {
			fc := &fakesql.Connector{FailRollback: fail}
			cfg := DefaultConfig()
			cfg.Conn.Driver, cfg.Warehouses = dialect.SQLServer, 1
			pool := sql.OpenDB(fc)
			defer pool.Close()
			db := &dialect.DB{DB: pool, Dialect: dialect.SQLServer.Dialect(), Config: cfg.DialectConfig()}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			w, err := newWorker(ctx, db, newRunState(db, cfg, Constants{}), 0, hist.NewRegistry(OpNames, counterNames).NewHandle())
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			err = w.transact(ctx, "payment", w.d.BeginWrite(), func(ctx context.Context) error {
				if _, err := w.exec(ctx, stPayWarehouseUpdate, cents(100), 1); err != nil {
					return err
				}
				cancel()
				_, err := w.exec(ctx, stPayDistrictUpdate, cents(100), 1, 1)
				return err
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("transact: %v, want context.Canceled", err)
			}
			log := fc.Log()
			last := log[len(log)-1]
			if last.SQL != "IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION" || last.CtxErr != nil || !last.HasDeadline {
				t.Errorf("last statement %+v, want the ROLLBACK under a live context with a deadline", last)
			}
			if kept := w.conn != nil; kept == fail {
				t.Errorf("connection kept: %v, want %v", kept, !fail)
			}
			w.Close()
			want := map[bool]int{false: 0, true: 1}[fail]
			if _, closed := fc.Counts(); closed != want {
				t.Errorf("%d connections closed after the worker's Close, want %d (pooled when rolled back, else discarded)", closed, want)
			}
		})
	}
}
