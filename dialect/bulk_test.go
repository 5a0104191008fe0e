package dialect

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BulkInsert runs here against SQLite (a real file) and, in
// bulk_mysql_test.go, against MariaDB. SQL Server's path (go-mssqldb bulk
// copy) cannot run here: only the statement it prepares is checked.

func TestInsertStatement(t *testing.T) {
	cols := []string{"ol_o_id", "ol_d_id", "ol_w_id"}
	tests := []struct {
		d     Driver
		nrows int
		want  string
	}{
		{MySQL, 1, "INSERT INTO `order_line` (`ol_o_id`, `ol_d_id`, `ol_w_id`) VALUES (?, ?, ?)"},
		{MySQL, 2, "INSERT INTO `order_line` (`ol_o_id`, `ol_d_id`, `ol_w_id`) VALUES (?, ?, ?), (?, ?, ?)"},
		{SQLServer, 1, "INSERT INTO [order_line] ([ol_o_id], [ol_d_id], [ol_w_id]) VALUES (@p1, @p2, @p3)"},
		{SQLServer, 3, "INSERT INTO [order_line] ([ol_o_id], [ol_d_id], [ol_w_id]) VALUES (@p1, @p2, @p3), (@p4, @p5, @p6), (@p7, @p8, @p9)"},
		{SQLite, 2, `INSERT INTO "order_line" ("ol_o_id", "ol_d_id", "ol_w_id") VALUES (?, ?, ?), (?, ?, ?)`},
		{MySQL, 0, "INSERT INTO `order_line` (`ol_o_id`, `ol_d_id`, `ol_w_id`) VALUES (?, ?, ?)"}, // taken as 1
	}
	for _, tt := range tests {
		if got := InsertStatement(tt.d.Dialect(), "order_line", cols, tt.nrows); got != tt.want {
			t.Errorf("%s, %d rows:\n got %s\nwant %s", tt.d, tt.nrows, got, tt.want)
		}
	}
	// The largest SQL Server statement numbers its parameters up to the
	// limit and lists at most 1000 rows.
	d := SQLServer.Dialect()
	n := rowsPerStatement(d.Capabilities(), 2)
	s := InsertStatement(d, "t", []string{"a", "b"}, n)
	if n != 1000 || !strings.HasSuffix(s, "(@p1999, @p2000)") || strings.Count(s, "@p") != 2000 {
		t.Errorf("%d rows: ...%s", n, s[len(s)-40:])
	}
	n = rowsPerStatement(d.Capabilities(), 3)
	s = InsertStatement(d, "t", []string{"a", "b", "c"}, n)
	if n != 699 || !strings.HasSuffix(s, "(@p2095, @p2096, @p2097)") {
		t.Errorf("%d rows: ...%s", n, s[len(s)-40:])
	}
}

func TestRowsPerStatement(t *testing.T) {
	tests := []struct {
		d     Driver
		ncols int
		want  int
	}{
		{MySQL, 1, 65535}, {MySQL, 4, 16383}, {MySQL, 21, 3120},
		{SQLite, 1, 32766}, {SQLite, 4, 8191}, {SQLite, 17, 1927},
		{SQLServer, 1, 1000}, {SQLServer, 2, 1000}, {SQLServer, 3, 699}, {SQLServer, 21, 99},
		{SQLServer, 2098, 1}, {SQLServer, 2099, 0},
	}
	for _, tt := range tests {
		caps := tt.d.Dialect().Capabilities()
		got := rowsPerStatement(caps, tt.ncols)
		if got != tt.want {
			t.Errorf("%s, %d columns: %d rows per statement, want %d", tt.d, tt.ncols, got, tt.want)
		}
		if got*tt.ncols > caps.MaxPlaceholders || (caps.MaxRowsPerInsert > 0 && got > caps.MaxRowsPerInsert) {
			t.Errorf("%s, %d columns: %d rows break the limits %+v", tt.d, tt.ncols, got, caps)
		}
	}
	if got := rowsPerStatement(Capabilities{MaxPlaceholders: 10}, 3); got != 1 {
		t.Errorf("without MultiRowInsert: %d rows per statement", got)
	}
	if got := rowsPerStatement(Capabilities{MultiRowInsert: true, MaxRowsPerInsert: 50}, 3); got != 50 {
		t.Errorf("without a parameter limit: %d rows per statement", got)
	}
}

// TestBulkCopyStatement pins what BulkInsert prepares on SQL Server:
// go-mssqldb's CopyIn text, whose JSON carries the table, the columns and
// the options (CHECK_CONSTRAINTS, FIRE_TRIGGERS, KEEP_NULLS, ROWS_PER_BATCH).
func TestBulkCopyStatement(t *testing.T) {
	got := bulkCopyStatement("order_line", []string{"ol_o_id", "ol_d_id"}, 3)
	want := `INSERTBULK {"TableName":"order_line","ColumnsName":["ol_o_id","ol_d_id"],"Options":{"CheckConstraints":true,"FireTriggers":true,"KeepNulls":true,"KilobytesPerBatch":0,"RowsPerBatch":3,"Order":null,"Tablock":false}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestInsertStatementCache(t *testing.T) {
	d := SQLite.Dialect()
	cols := []string{"a", "b"}
	key := stmtKey{SQLite, "cache_t", "1:a1:b", 17}
	if _, ok := stmtCache.Load(key); ok {
		t.Fatal("cached before use")
	}
	first := insertStatement(d, "cache_t", cols, 17)
	if cached, ok := stmtCache.Load(key); !ok || cached.(string) != first {
		t.Fatalf("not cached: %v", ok)
	}
	if again := insertStatement(d, "cache_t", cols, 17); again != first || again != InsertStatement(d, "cache_t", cols, 17) {
		t.Errorf("cached text differs: %q", again)
	}
	// Other columns, rows or dialects are other entries.
	if insertStatement(d, "cache_t", []string{"a\x00b"}, 17) == first ||
		insertStatement(SQLServer.Dialect(), "cache_t", cols, 17) == first {
		t.Error("distinct statements share a cache entry")
	}
}

// bulkTable creates table t (id primary key, name, a timestamp, a nullable
// real) through d's DDL on db.
func bulkTable(t *testing.T, ctx context.Context, db *DB, table string) {
	t.Helper()
	d := db.Dialect
	mustExec(t, ctx, db, fmt.Sprintf("CREATE TABLE %s (id INTEGER NOT NULL PRIMARY KEY, name VARCHAR(40) NOT NULL, at %s NOT NULL, v REAL NULL)%s",
		d.QuoteIdent(table), d.Timestamp(), d.TableOptions()))
}

// bulkRows returns rows with ids from..to-1, a NULL v on every tenth.
func bulkRows(from, to int) [][]any {
	at := time.Date(2026, 3, 1, 12, 30, 15, 0, time.UTC)
	rows := make([][]any, 0, to-from)
	for id := from; id < to; id++ {
		var v any = float64(id) / 4
		if id%10 == 0 {
			v = nil
		}
		rows = append(rows, []any{id, fmt.Sprintf("name-%d", id), at.Add(time.Duration(id) * time.Second), v})
	}
	return rows
}

var bulkCols = []string{"id", "name", "at", "v"}

// tableStats returns COUNT(*), SUM(id) and the NULL count of v.
func tableStats(t *testing.T, ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, d Dialect, table string) (n, sum, nulls int64) {
	t.Helper()
	err := q.QueryRowContext(ctx, "SELECT COUNT(*), COALESCE(SUM(id), 0), COUNT(*) - COUNT(v) FROM "+d.QuoteIdent(table)).Scan(&n, &sum, &nulls)
	if err != nil {
		t.Fatal(err)
	}
	return n, sum, nulls
}

// idSum is the sum of from..to-1.
func idSum(from, to int) int64 { return int64(to-1+from) * int64(to-from) / 2 }

func TestBulkInsertSQLite(t *testing.T) {
	ctx := testContext(t)
	db := mustOpen(t, ctx, Config{Driver: SQLite, SQLitePath: filepath.Join(t.TempDir(), "bulk.db")})
	d := db.Dialect
	bulkTable(t, ctx, db, "t")
	c := mustConn(t, ctx, db)

	// 20000 rows of 4 columns: 8191 rows per statement, so two full
	// statements (prepared once) and a remainder.
	if err := BulkInsert(ctx, c, d, "t", bulkCols, bulkRows(1, 20001)); err != nil {
		t.Fatal(err)
	}
	if n, sum, nulls := tableStats(t, ctx, c, d, "t"); n != 20000 || sum != idSum(1, 20001) || nulls != 2000 {
		t.Errorf("after 20000 rows: count %d sum %d nulls %d", n, sum, nulls)
	}
	// Values arrive as bound: text, time, NULL.
	var name string
	var at time.Time
	var v sql.NullFloat64
	if err := c.QueryRowContext(ctx, "SELECT name, at, v FROM t WHERE id = 20").Scan(&name, &at, &v); err != nil {
		t.Fatal(err)
	}
	if name != "name-20" || !at.Equal(time.Date(2026, 3, 1, 12, 30, 35, 0, time.UTC)) || v.Valid {
		t.Errorf("row 20: %q %v %v", name, at, v)
	}

	// Small statements: 7 rows each, 14 full ones and a remainder of 2.
	if err := bulkInsertSQL(ctx, c, d, "t", bulkCols, bulkRows(30001, 30101), 7); err != nil {
		t.Fatal(err)
	}
	if n, sum, _ := tableStats(t, ctx, c, d, "t"); n != 20100 || sum != idSum(1, 20001)+idSum(30001, 30101) {
		t.Errorf("after 100 more rows: count %d sum %d", n, sum)
	}

	// Nothing to insert: no transaction, no error.
	if err := BulkInsert(ctx, c, d, "t", bulkCols, nil); err != nil {
		t.Errorf("no rows: %v", err)
	}
}

// TestBulkInsertSQLiteAllOrNothing puts a duplicate key in the middle of a
// batch split into many statements: nothing of the batch stays, the error
// names the table and is classified, and the connection stays usable and
// outside any transaction.
func TestBulkInsertSQLiteAllOrNothing(t *testing.T) {
	ctx := testContext(t)
	db := mustOpen(t, ctx, Config{Driver: SQLite, SQLitePath: filepath.Join(t.TempDir(), "bulk.db")})
	d := db.Dialect
	bulkTable(t, ctx, db, "t")
	c := mustConn(t, ctx, db)
	if err := BulkInsert(ctx, c, d, "t", bulkCols, bulkRows(1, 11)); err != nil {
		t.Fatal(err)
	}

	rows := bulkRows(11, 201)
	rows[150][0] = 5 // an id committed above
	for _, per := range []int{7, 1000} {
		err := bulkInsertSQL(ctx, c, d, "t", bulkCols, rows, per)
		if err == nil {
			t.Fatalf("%d rows per statement: a duplicate key was inserted", per)
		}
		if Classify(err) != Fatal || Name(err) != "constraint" || Code(err)&0xff != 19 {
			t.Errorf("%q: class %v name %q code %d", err, Classify(err), Name(err), Code(err))
		}
		if n, sum, _ := tableStats(t, ctx, c, d, "t"); n != 10 || sum != idSum(1, 11) {
			t.Errorf("%d rows per statement: after the failed batch count %d sum %d, want 10 %d", per, n, sum, idSum(1, 11))
		}
	}
	err := BulkInsert(ctx, c, d, "t", bulkCols, rows)
	if err == nil || !strings.HasPrefix(err.Error(), "bulk insert into t: ") {
		t.Errorf("BulkInsert error %q does not name the table", err)
	}

	// The caller retries the chunk (fixed) on the same connection.
	rows[150][0] = 161
	if err := BulkInsert(ctx, c, d, "t", bulkCols, rows); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if n, sum, _ := tableStats(t, ctx, c, d, "t"); n != 200 || sum != idSum(1, 201) {
		t.Errorf("after the retry: count %d sum %d", n, sum)
	}
}

func TestBulkInsertShapeErrors(t *testing.T) {
	ctx := testContext(t)
	db := mustOpen(t, ctx, Config{Driver: SQLite, SQLitePath: filepath.Join(t.TempDir(), "bulk.db")})
	d := db.Dialect
	bulkTable(t, ctx, db, "t")
	c := mustConn(t, ctx, db)
	wide := make([]string, 40000)
	for _, tt := range []struct {
		cols []string
		rows [][]any
		want string
	}{
		{nil, [][]any{{1}}, "bulk insert into t: no columns"},
		{bulkCols, [][]any{{1, "a", time.Now(), nil}, {2, "b"}}, "bulk insert into t: row 1 has 2 values for 4 columns"},
		{wide, nil, "bulk insert into t: 40000 columns exceed the 32766 bind parameters one statement may carry"},
	} {
		err := BulkInsert(ctx, c, d, "t", tt.cols, tt.rows)
		if err == nil || err.Error() != tt.want || Classify(err) != Fatal {
			t.Errorf("got %v, want %q", err, tt.want)
		}
	}
	if err := BulkInsert(ctx, c, nil, "t", bulkCols, nil); err == nil {
		t.Error("no dialect: no error")
	}
	if n, _, _ := tableStats(t, ctx, c, d, "t"); n != 0 {
		t.Errorf("%d rows after refused calls", n)
	}
}

// TestBulkInsertSQLiteWriteLock: BulkInsert begins with BEGIN IMMEDIATE, so
// while another connection holds the write lock it fails at once (with
// busy_timeout 0) with a Retry error, before sending any row.
func TestBulkInsertSQLiteWriteLock(t *testing.T) {
	ctx := testContext(t)
	path := filepath.Join(t.TempDir(), "bulk.db")
	db := mustOpen(t, ctx, Config{Driver: SQLite, SQLitePath: path})
	bulkTable(t, ctx, db, "t")
	holder := mustConn(t, ctx, db)
	mustExec(t, ctx, holder, "BEGIN IMMEDIATE")

	other := mustOpen(t, ctx, Config{Driver: SQLite, SQLitePath: path, Params: map[string]string{"_busy_timeout": "0"}})
	c := mustConn(t, ctx, other)
	err := BulkInsert(ctx, c, other.Dialect, "t", bulkCols, bulkRows(1, 3))
	if Classify(err) != Retry || Name(err) != "busy" {
		t.Errorf("%v: class %v name %q", err, Classify(err), Name(err))
	}
	mustExec(t, ctx, holder, "ROLLBACK")
	if err := BulkInsert(ctx, c, other.Dialect, "t", bulkCols, bulkRows(1, 3)); err != nil {
		t.Errorf("after the lock is released: %v", err)
	}
}

func TestBulkInsertSQLiteCanceled(t *testing.T) {
	ctx := testContext(t)
	db := mustOpen(t, ctx, Config{Driver: SQLite, SQLitePath: filepath.Join(t.TempDir(), "bulk.db")})
	d := db.Dialect
	bulkTable(t, ctx, db, "t")
	c := mustConn(t, ctx, db)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := BulkInsert(cctx, c, d, "t", bulkCols, bulkRows(1, 100)); Classify(err) != Canceled {
		t.Errorf("canceled: %v (class %v)", err, Classify(err))
	}
	if err := BulkInsert(ctx, c, d, "t", bulkCols, bulkRows(1, 100)); err != nil {
		t.Fatalf("after a canceled call: %v", err)
	}
	if n, _, _ := tableStats(t, ctx, c, d, "t"); n != 99 {
		t.Errorf("count %d, want 99", n)
	}
}
