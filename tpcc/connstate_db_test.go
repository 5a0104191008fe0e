package tpcc

import (
	"context"
	"errors"
	"testing"

	"vmbench/internal/testdb"
	"vmbench/oltp/hist"
)

// TestStoppedTransactionLeavesNoTransaction: a worker's transaction
// stopped between two statements, after Payment's warehouse UPDATE, by a
// cancelled context (Ctrl-C, the end of a run) or by an error, leaves no
// transaction behind: every connection of the pool then reports
// @@in_transaction = 0, and another session locks the warehouse row at
// once. The schema is TPC-C's with one warehouse and district row, which
// is all these statements touch.
func TestStoppedTransactionLeavesNoTransaction(t *testing.T) {
	srv := testdb.Shared(t)
	cfg := DefaultConfig()
	cfg.Conn.Host, cfg.Conn.Port, cfg.Conn.User, cfg.Conn.Database = srv.Host(), srv.Port(), srv.User(), srv.NewDatabase(t)
	cfg.Warehouses = 1
	ctx := txnCtx(t)
	db := openTxnDB(t, cfg)
	db.SetMaxIdleConns(8)
	stmts := append(SchemaStatements(db.Dialect),
		"INSERT INTO warehouse VALUES (1, 'w', 's1', 's2', 'c', 'st', '123451111', 0.1, 300000)",
		"INSERT INTO district VALUES (1, 1, 'd', 's1', 's2', 'c', 'st', '123451111', 0.1, 30000, 3001)")
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rs := newRunState(db, cfg, Constants{})
	injected := errors.New("injected failure between two statements")
	for _, tc := range []struct {
		name string
		stop func(cancel context.CancelFunc) error
		want error
	}{
		{"cancelled", func(cancel context.CancelFunc) error { cancel(); return nil }, context.Canceled},
		{"failed", func(context.CancelFunc) error { return injected }, injected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := newWorker(ctx, db, rs, 0, hist.NewRegistry(OpNames, counterNames).NewHandle())
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			ectx, cancel := context.WithCancel(ctx)
			defer cancel()
			err = w.transact(ectx, "payment", w.d.BeginWrite(), func(ctx context.Context) error {
				if err := w.execOne(ctx, stPayWarehouseUpdate, cents(100), 1); err != nil {
					return err
				}
				if err := tc.stop(cancel); err != nil {
					return err
				}
				return w.execOne(ctx, stPayDistrictUpdate, cents(100), 1, 1)
			})
			if !errors.Is(err, tc.want) {
				t.Fatalf("transact: %v, want %v", err, tc.want)
			}
			t.Logf("worker connection after the stop: kept %v", w.conn != nil)
			w.Close()
			testdb.CheckNoTransaction(t, ctx, db.DB, openTxnDB(t, cfg).DB, "SELECT w_id FROM warehouse WHERE w_id = 1 FOR UPDATE")
			var ytd string
			if err := db.QueryRowContext(ctx, "SELECT w_ytd FROM warehouse WHERE w_id = 1").Scan(&ytd); err != nil || ytd != "300000.00" {
				t.Errorf("w_ytd = %s (%v), want 300000.00 (the stopped UPDATE rolled back)", ytd, err)
			}
		})
	}
}
