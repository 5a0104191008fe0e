package sysbench

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"vmbench/dialect"
	"vmbench/internal/testdb"
)

// sbRow is one loaded sbtest row.
type sbRow struct {
	id, k  int64
	c, pad string
}

// generatedRows returns the rows the generator gives table n of cfg:
// ids 1..table-size in order, k, c and pad drawn as rowSource.appendRow
// draws them.
func generatedRows(cfg Config, n int) []sbRow {
	src := newRowSource(cfg, cfg.Rand.seed(), n)
	var rows []sbRow
	for id := int64(1); id <= cfg.TableSize; id++ {
		k := src.rnd.K(src.size)
		c := string(src.rnd.AppendC(nil))
		pad := string(src.rnd.AppendPad(nil))
		rows = append(rows, sbRow{id, k, c, pad})
	}
	return rows
}

// checkLoadedRows compares every row of the tables of cfg with the
// generator's.
func checkLoadedRows(t *testing.T, ctx context.Context, db *dialect.DB, cfg Config) {
	t.Helper()
	for n := 1; n <= cfg.Tables; n++ {
		want := generatedRows(cfg, n)
		rows, err := db.QueryContext(ctx, fmt.Sprintf("SELECT id, k, c, pad FROM %s ORDER BY id", tableName(n)))
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for ; rows.Next(); i++ {
			var r sbRow
			if err := rows.Scan(&r.id, &r.k, &r.c, &r.pad); err != nil {
				t.Fatal(err)
			}
			// PostgreSQL returns CHAR(n) padded with spaces; MySQL strips them.
			r.c, r.pad = strings.TrimRight(r.c, " "), strings.TrimRight(r.pad, " ")
			if i >= len(want) || r != want[i] {
				rows.Close()
				t.Fatalf("%s row %d is %+v, the generator's is %+v", tableName(n), i, r, want[min(i, len(want)-1)])
			}
		}
		if err := rows.Err(); err != nil || i != len(want) {
			t.Fatalf("%s: %d rows read back (%v), want %d", tableName(n), i, err, len(want))
		}
		rows.Close()
	}
}

// TestPrepareLoadsTheGeneratorsRows: LOAD DATA (the test server has
// local_infile=ON) loads exactly the generator's rows, with and without
// auto-increment, and the summary gives rows, MB and both rates.
func TestPrepareLoadsTheGeneratorsRows(t *testing.T) {
	for _, autoInc := range []bool{true, false} {
		t.Run(fmt.Sprintf("auto-inc=%v", autoInc), func(t *testing.T) {
			c := mariaConfig(t, ReadWrite)
			c.TableSize, c.AutoInc = 3000, autoInc
			// Several LOAD DATA statements per table: the ids stay
			// 1..table-size with auto-increment too (checkTable).
			defer func(n int) { loadDataChunkRows = n }(loadDataChunkRows)
			loadDataChunkRows = 1100
			ctx := ctxT(t)
			var out bytes.Buffer
			if err := Prepare(ctx, c, &out, false); err != nil {
				t.Fatal(err)
			}
			if s := out.String(); !strings.Contains(s, "Loaded 6,000 rows (1.1 MB) into 2 table(s) in ") ||
				!strings.Contains(s, " rows/s, ") || !strings.Contains(s, " MB/s (MB = 10^6 bytes) by LOAD DATA LOCAL INFILE, secondary index") ||
				strings.Contains(s, "not available") {
				t.Errorf("prepare output:\n%s", s)
			}
			checkLoadedRows(t, ctx, openT(t, c), c)
		})
	}
}

// TestPrepareFallsBackToInserts: on a server with local_infile=OFF, LOAD
// DATA is refused (IsLoadDataRefused), and prepare says so once and loads
// the same rows with INSERTs.
func TestPrepareFallsBackToInserts(t *testing.T) {
	testdb.Shared(t) // skips when no server binary exists
	srv, err := testdb.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Error(err)
		}
	})
	c := DefaultConfig()
	c.Conn.Host, c.Conn.Port, c.Conn.User, c.Conn.Database = srv.Host(), srv.Port(), srv.User(), "sbtest"
	c.Tables, c.TableSize, c.Threads, c.Rand.Seed = 2, 3000, 2, 12345
	ctx := ctxT(t)
	admin, err := dialect.Open(ctx, dialect.Config{Driver: dialect.MySQL, Host: srv.Host(), Port: srv.Port(), User: srv.User()})
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.ExecContext(ctx, "SET GLOBAL local_infile = 0"); err != nil {
		t.Fatal(err)
	}

	var out bytes.Buffer
	if err := Prepare(ctx, c, &out, false); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	note := "LOAD DATA LOCAL INFILE is not available (the server has local_infile=OFF): loading with multi-row INSERTs"
	if strings.Count(s, note) != 1 || !strings.Contains(s, "Loaded 6,000 rows (1.1 MB) into 2 table(s)") || !strings.Contains(s, "by multi-row INSERTs") {
		t.Errorf("prepare output:\n%s", s)
	}
	db := openT(t, c)
	checkLoadedRows(t, ctx, db, c)

	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	st, err := dialect.LoadData(ctx, conn, db.Dialect, tableName(1), loadColumns, &loadChunk{src: newRowSource(c, 1, 1), left: 10, p: &loadProgress{}})
	if !dialect.IsLoadDataRefused(err) || st.Rows != 0 {
		t.Errorf("LoadData with local_infile=OFF: %+v %v (code %d), want a refusal", st, err, dialect.Code(err))
	}
}
