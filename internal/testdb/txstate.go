package testdb

import (
	"context"
	"database/sql"
	"testing"
)

// CheckNoTransaction fails t when a connection of pool is inside a
// transaction (@@in_transaction, MariaDB) or when a row is still locked:
// on a new connection of other, with innodb_lock_wait_timeout = 1, each
// of lockQueries (SELECT ... FOR UPDATE) must run and return its one row.
// It holds every connection of pool at once, so each is asked.
func CheckNoTransaction(t testing.TB, ctx context.Context, pool, other *sql.DB, lockQueries ...string) {
	t.Helper()
	n := pool.Stats().OpenConnections
	for i := range n {
		conn, err := pool.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var inTx int
		if err := conn.QueryRowContext(ctx, "SELECT @@in_transaction").Scan(&inTx); err != nil {
			t.Fatal(err)
		}
		if inTx != 0 {
			t.Errorf("pooled connection %d of %d: @@in_transaction = %d, want 0", i+1, n, inTx)
		}
	}
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET SESSION innodb_lock_wait_timeout = 1"); err != nil {
		t.Fatal(err)
	}
	for _, q := range lockQueries {
		var v any
		if err := conn.QueryRowContext(ctx, q).Scan(&v); err != nil {
			t.Errorf("another session: %s: %v", q, err)
		}
	}
}
