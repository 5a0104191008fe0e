package dialect

import (
	"testing"

	"vmbench/internal/testdb"
)

// TestMySQLPredicates asks every predicate about errors got from the
// throwaway MariaDB: a missing table, an index created twice, a lock wait
// that times out at once (innodb_lock_wait_timeout = 0), a missing
// database and a wrong password at Open (through Open's hints). The
// deadlock, the killed connection and the connection limit are asked in
// TestMySQLDeadlockIsRetry, TestMySQLKilledConnectionIsConnLost and
// TestMySQLTooManyConnectionsIsLimit.
func TestMySQLPredicates(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)
	db, c1, c2 := twoRows(t, ctx, srv)
	d := db.Dialect
	mustExec(t, ctx, db, d.CreateIndex("t", "v_1", "v"))

	_, err := db.QueryContext(ctx, "SELECT 1 FROM missing WHERE 1=0")
	checkPredicates(t, err, "no_such_table")
	for table, want := range map[string]bool{"t": true, "missing": false} {
		if ok, err := TableExists(ctx, db, d, table); ok != want || err != nil {
			t.Errorf("TableExists(%s) = %v, %v; want %v", table, ok, err, want)
		}
	}
	_, err = db.ExecContext(ctx, d.CreateIndex("t", "v_1", "v"))
	checkPredicates(t, err, "index_exists")

	mustExec(t, ctx, c1, d.Begin(), "UPDATE t SET v = 1 WHERE id = 1")
	mustExec(t, ctx, c2, "SET SESSION innodb_lock_wait_timeout = 0", d.Begin())
	_, err = c2.ExecContext(ctx, "UPDATE t SET v = 2 WHERE id = 1")
	checkPredicates(t, err, "lock_timeout")
	mustExec(t, ctx, c2, d.Rollback())
	mustExec(t, ctx, c1, d.Rollback())
	_, err = c1.ExecContext(ctx, d.Rollback()) // MariaDB accepts a ROLLBACK outside a transaction
	checkPredicates(t, err)

	_, err = Open(ctx, serverConfig(srv, "vmbench_no_such_db"))
	checkPredicates(t, err, "unknown_database")
	wrong := serverConfig(srv, "")
	wrong.Password = "hunter2"
	_, err = Open(ctx, wrong)
	checkPredicates(t, err, "access_denied")
}
