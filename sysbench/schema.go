package sysbench

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"vmbench/dialect"
)

// createTableSQL returns the sbtest table of sysbench 1.0
// (oltp_common.lua): id INTEGER primary key (assigned by the server with
// --auto-inc=on), k INTEGER NOT NULL DEFAULT 0, c CHAR(120) NOT NULL
// DEFAULT ”, pad CHAR(60) NOT NULL DEFAULT ”, with the dialect's table
// options (MySQL: ENGINE=InnoDB). The secondary index on k comes after the
// load (secondaryIndexSQL).
func createTableSQL(d dialect.Dialect, table string, autoInc bool) string {
	id := "INTEGER NOT NULL PRIMARY KEY"
	if autoInc {
		id = d.AutoIncrementPK()
	}
	var b strings.Builder
	b.WriteString("CREATE TABLE ")
	b.WriteString(d.QuoteIdent(table))
	b.WriteString(" (\n")
	for i, col := range [][2]string{
		{"id", id},
		{"k", "INTEGER NOT NULL DEFAULT 0"},
		{"c", "CHAR(120) NOT NULL DEFAULT ''"},
		{"pad", "CHAR(60) NOT NULL DEFAULT ''"},
	} {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("  ")
		b.WriteString(d.QuoteIdent(col[0]))
		b.WriteString(" ")
		b.WriteString(col[1])
	}
	b.WriteString("\n)")
	b.WriteString(d.TableOptions())
	return b.String()
}

// secondaryIndexSQL returns CREATE INDEX k_<n> ON sbtest<n> (k).
func secondaryIndexSQL(d dialect.Dialect, n int) string {
	return d.CreateIndex(tableName(n), "k_"+strconv.Itoa(n), "k")
}

// insertPrefix returns "INSERT INTO sbtest<n> (k, c, pad) VALUES " (with
// id first when the loader writes ids), to which the loader appends rows.
func insertPrefix(d dialect.Dialect, n int, autoInc bool) string {
	cols := []string{"k", "c", "pad"}
	if !autoInc {
		cols = append([]string{"id"}, cols...)
	}
	return "INSERT INTO " + d.QuoteIdent(tableName(n)) + " (" + dialect.QuoteIdents(d, cols...) + ") VALUES "
}

// queryer is *sql.DB or *sql.Conn.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// countRows returns SELECT COUNT(*) of sbtest<n>.
func countRows(ctx context.Context, q queryer, d dialect.Dialect, n int) (int64, error) {
	var c int64
	query := "SELECT COUNT(*) FROM " + d.QuoteIdent(tableName(n))
	if err := q.QueryRowContext(ctx, query).Scan(&c); err != nil {
		return 0, fmt.Errorf("%s: %w", query, err)
	}
	return c, nil
}
