package dialect

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"vmbench/internal/testdb"
)

// LoadData against the throwaway MariaDB of internal/testdb.

// loadValues are strings with every byte the encoding escapes.
var loadValues = []string{"plain", "", `back\slash`, "tab\tin", "new\nline", "cr\rx", "nul\x00x", `\N`, "ü-ß", `\\t`}

func loadRows(n int) [][]any {
	at := time.Date(2026, 3, 1, 12, 30, 15, 0, time.UTC)
	rows := make([][]any, n)
	for i := range rows {
		var v any = float64(i) / 4
		if i%7 == 0 {
			v = nil
		}
		rows[i] = []any{i + 1, fmt.Sprintf("%s-%d", loadValues[i%len(loadValues)], i), at.Add(time.Duration(i) * time.Second), v}
	}
	return rows
}

func TestLoadDataRoundTrip(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)
	db := mustOpen(t, ctx, serverConfig(srv, srv.NewDatabase(t)))
	d := db.Dialect
	mustExec(t, ctx, db, "CREATE TABLE t (id INTEGER NOT NULL PRIMARY KEY, name VARCHAR(40) NOT NULL, at DATETIME NOT NULL, v DOUBLE NULL)")
	c := mustConn(t, ctx, db)
	if ok, why, err := LoadDataAvailable(ctx, c, d); !ok || err != nil {
		t.Fatalf("LoadDataAvailable = %v %q %v on the test server", ok, why, err)
	}
	rows := loadRows(3 * 1000) // several 64 KiB fills
	st, err := LoadData(ctx, c, d, "t", bulkCols, RowsSource(rows))
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows != int64(len(rows)) || st.Bytes != EncodedSize(rows) {
		t.Errorf("LoadStats %+v, want %d rows of %d bytes", st, len(rows), EncodedSize(rows))
	}
	got, err := db.QueryContext(ctx, "SELECT id, name, at, v FROM t ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	i := 0
	for ; got.Next(); i++ {
		var id int
		var name string
		var at time.Time
		var v sql.NullFloat64
		if err := got.Scan(&id, &name, &at, &v); err != nil {
			t.Fatal(err)
		}
		want := rows[i]
		wv, wantNull := want[3].(float64)
		if id != want[0] || name != want[1] || !at.Equal(want[2].(time.Time)) || v.Valid != wantNull || v.Float64 != wv {
			t.Fatalf("row %d read back as %d %q %v %v, loaded %v", i, id, name, at, v, want)
		}
	}
	if err := got.Err(); err != nil || i != len(rows) {
		t.Fatalf("read back %d rows (%v), loaded %d", i, err, len(rows))
	}
}

// endless writes rows 1, 2, ... and calls stop once it has written at.
type endless struct {
	n, at int
	stop  func()
}

func (e *endless) NextRow(w *RowWriter) bool {
	e.n++
	w.Int(int64(e.n))
	w.Str("x")
	w.Str("2026-03-01 00:00:00")
	w.Null()
	w.EndRow()
	if e.n == e.at {
		e.stop()
	}
	return true
}

// failing is endless with a source error after at rows.
type failing struct{ endless }

func (f *failing) NextRow(w *RowWriter) bool { return f.n < f.at && f.endless.NextRow(w) }
func (f *failing) Err() error                { return errors.New("generator broke") }

// A load that ends early (ctx cancelled, the source failed, a bad value)
// leaves no row: go-sql-driver ends the file early, and the transaction
// rolls back what the server took.
func TestLoadDataAllOrNothing(t *testing.T) {
	srv := testdb.Shared(t)
	ctx := testContext(t)
	db := mustOpen(t, ctx, serverConfig(srv, srv.NewDatabase(t)))
	d := db.Dialect
	bulkTable(t, ctx, db, "t")

	c := mustConn(t, ctx, db)
	cctx, cancel := context.WithCancel(ctx)
	_, err := LoadData(cctx, c, d, "t", bulkCols, &endless{at: 50_000, stop: cancel})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled load: %v, want context.Canceled", err)
	}
	if n, _, _ := tableStats(t, ctx, db, d, "t"); n != 0 {
		t.Errorf("%d rows left by the cancelled load", n)
	}

	c = mustConn(t, ctx, db)
	_, err = LoadData(ctx, c, d, "t", bulkCols, &failing{endless{at: 20_000, stop: func() {}}})
	if err == nil || !strings.Contains(err.Error(), "generator broke") || !strings.HasPrefix(err.Error(), "load data into t: ") {
		t.Errorf("failed source: %v", err)
	}
	if n, _, _ := tableStats(t, ctx, db, d, "t"); n != 0 {
		t.Errorf("%d rows left by the failed source", n)
	}

	rows := loadRows(100)
	rows[90][0] = "not a number"
	if _, err := LoadData(ctx, c, d, "t", bulkCols, RowsSource(rows)); err == nil {
		t.Error("a bad value was loaded")
	}
	// LOAD DATA LOCAL turns a duplicate key into a warning (as IGNORE
	// does); LoadData makes it an error.
	rows[90][0] = 5
	if _, err := LoadData(ctx, c, d, "t", bulkCols, RowsSource(rows)); err == nil || !strings.Contains(err.Error(), "Duplicate entry '5'") {
		t.Errorf("duplicate key: %v", err)
	}
	if n, _, _ := tableStats(t, ctx, db, d, "t"); n != 0 {
		t.Errorf("%d rows left by the failed loads", n)
	}
	var inTrx int
	if err := c.QueryRowContext(ctx, "SELECT @@in_transaction").Scan(&inTrx); err != nil || inTrx != 0 {
		t.Errorf("the connection is in a transaction (%d, %v)", inTrx, err)
	}
	rows[90][0] = 91
	if st, err := LoadData(ctx, c, d, "t", bulkCols, RowsSource(rows)); err != nil || st.Rows != 100 {
		t.Fatalf("retry: %+v %v", st, err)
	}
	if n, sum, _ := tableStats(t, ctx, db, d, "t"); n != 100 || sum != idSum(1, 101) {
		t.Errorf("after the retry: count %d sum %d", n, sum)
	}
}
