package dialect

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"vmbench/internal/testdb"
)

// BulkInsert against the throwaway MariaDB of internal/testdb.

func TestBulkInsertMySQL(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)
	db := mustOpen(t, ctx, serverConfig(srv, srv.NewDatabase(t)))
	d := db.Dialect
	bulkTable(t, ctx, db, "t")
	c := mustConn(t, ctx, db)

	// One statement (16383 rows of 4 columns fit).
	if err := BulkInsert(ctx, c, d, "t", bulkCols, bulkRows(1, 5001)); err != nil {
		t.Fatal(err)
	}
	if n, sum, nulls := tableStats(t, ctx, c, d, "t"); n != 5000 || sum != idSum(1, 5001) || nulls != 500 {
		t.Errorf("after 5000 rows: count %d sum %d nulls %d", n, sum, nulls)
	}
	// Several statements: 333 rows each, the full one prepared once.
	if err := bulkInsertSQL(ctx, c, d, "t", bulkCols, bulkRows(10001, 11001), 333); err != nil {
		t.Fatal(err)
	}
	if n, sum, _ := tableStats(t, ctx, c, d, "t"); n != 6000 || sum != idSum(1, 5001)+idSum(10001, 11001) {
		t.Errorf("after 1000 more rows: count %d sum %d", n, sum)
	}
	var name string
	var at time.Time
	var v sql.NullFloat64
	if err := c.QueryRowContext(ctx, "SELECT name, at, v FROM t WHERE id = 10002").Scan(&name, &at, &v); err != nil {
		t.Fatal(err)
	}
	if name != "name-10002" || !at.Equal(time.Date(2026, 3, 1, 15, 16, 57, 0, time.UTC)) || !v.Valid || v.Float64 != 2500.5 {
		t.Errorf("row 10002: %q %v %v", name, at, v)
	}
}

// TestBulkInsertMySQLAllOrNothing: a duplicate key in the last of several
// statements rolls back the statements before it.
func TestBulkInsertMySQLAllOrNothing(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)
	db := mustOpen(t, ctx, serverConfig(srv, srv.NewDatabase(t)))
	d := db.Dialect
	bulkTable(t, ctx, db, "t")
	c := mustConn(t, ctx, db)

	rows := bulkRows(1, 1001)
	rows[950][0] = 3 // a duplicate within the batch, in its last statement
	err := bulkInsertSQL(ctx, c, d, "t", bulkCols, rows, 100)
	if err == nil {
		t.Fatal("a duplicate key was inserted")
	}
	if Classify(err) != Fatal || Name(err) != "duplicate_key" || Code(err) != 1062 {
		t.Errorf("%q: class %v name %q code %d", err, Classify(err), Name(err), Code(err))
	}
	if n, _, _ := tableStats(t, ctx, c, d, "t"); n != 0 {
		t.Errorf("%d rows left by the failed batch", n)
	}
	// Seen from another connection too (nothing was committed).
	if n, _, _ := tableStats(t, ctx, db, d, "t"); n != 0 {
		t.Errorf("%d rows visible to another connection", n)
	}
	if err := BulkInsert(ctx, c, d, "t", bulkCols, rows); err == nil || !strings.HasPrefix(err.Error(), "bulk insert into t: ") {
		t.Errorf("BulkInsert error %v does not name the table", err)
	}

	// The connection is outside any transaction and takes the retry.
	var inTrx int
	if err := c.QueryRowContext(ctx, "SELECT @@in_transaction").Scan(&inTrx); err == nil && inTrx != 0 {
		t.Error("the connection is still in a transaction")
	}
	rows[950][0] = 951
	if err := BulkInsert(ctx, c, d, "t", bulkCols, rows); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if n, sum, _ := tableStats(t, ctx, db, d, "t"); n != 1000 || sum != idSum(1, 1001) {
		t.Errorf("after the retry: count %d sum %d", n, sum)
	}
}
