package dialect

import (
	"strconv"
	"strings"
)

// postgresDialect is the dialect of PostgreSQL (10 and later; tested on 15),
// spoken through github.com/jackc/pgx/v5 v5.12.0.
//
// Which pgx interface is used where, and why:
//
//   - Connections are pgx's database/sql driver (pgx/v5/stdlib), so that
//     pools, the TxRunner, loaders and checks share one code path with the
//     other databases.
//   - The sysbench workers' statements run through pgx's native pgconn
//     (PGExec): prepared once per connection, then Bind/Execute of the
//     named statement with text parameters from one reused buffer, rows
//     read without decoding, BEGIN and COMMIT as simple queries. stdlib
//     would send the same messages but convert every argument and decode
//     every column, client CPU the measurements count (PGExec's comment
//     has the numbers). TPC-C's workers use PGExec too (Rows hands them
//     each row's text; tpcc/rawstmt_pg.go has their numbers).
//   - TCP connections use blocking sockets (blockConn, as MySQL's), the
//     larger saving: no netpoller wake-up per round trip.
//   - Bulk loads use the native *pgx.Conn (CopyFrom, see CopyFrom), which
//     database/sql has no way to reach: COPY FROM STDIN in pgx's binary
//     format, one stream per table, no statement parsed per row, several
//     times the rate of multi-row INSERTs.
//   - Cancellation is a CancelRequest to the server when a statement's
//     context ends (pgconn's CancelRequestContextWatcherHandler, set by
//     pgxConfig for every connection: context.AfterFunc, no goroutine per
//     statement until a cancellation), so the server ends a statement
//     waiting for a lock, the connection stays usable for the ROLLBACK,
//     and Killer does nothing for PostgreSQL. pgx's default only set the
//     socket's deadline and left the backend waiting.
type postgresDialect struct{}

var _ Dialect = postgresDialect{}

// Driver returns Postgres.
func (postgresDialect) Driver() Driver { return Postgres }

// Placeholder returns "$<n>", PostgreSQL's positional parameter ("$1" for
// n = 1).
func (postgresDialect) Placeholder(n int) string { return "$" + strconv.Itoa(n) }

// Capabilities of PostgreSQL.
func (postgresDialect) Capabilities() Capabilities {
	return Capabilities{
		MultiRowInsert: true,
		// The Bind message carries a 16-bit parameter count
		// (src/backend/tcop/postgres.c; pgx refuses more than 65535).
		MaxPlaceholders:      65535,
		AutoIncrementKeyword: true,
		ServerSidePrepare:    true, // Parse of a named statement, per session, no server-wide limit
		ForceIndexHint:       false,
		SelectForUpdate:      true,
		ConcurrentWriters:    true,
		Databases:            true,
	}
}

// QuoteIdent returns "name", with " doubled inside. Quoted names keep their
// case in PostgreSQL; the workloads' names are lower case, as unquoted names
// are folded to.
func (postgresDialect) QuoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// AutoIncrementPK returns "SERIAL PRIMARY KEY", sysbench 1.0's id column on
// pgsql with --auto_inc=on (oltp_common.lua: "SERIAL" and PRIMARY KEY (id)):
// an INTEGER with a sequence as its default. A loader that writes the ids
// itself must move the sequence past them (see SyncSerial).
func (postgresDialect) AutoIncrementPK() string { return "SERIAL PRIMARY KEY" }

// TableOptions returns "": PostgreSQL has no storage engines to choose.
func (postgresDialect) TableOptions() string { return "" }

// Begin returns "BEGIN" (READ COMMITTED unless the session's
// default_transaction_isolation says otherwise).
func (postgresDialect) Begin() string { return "BEGIN" }

// BeginWrite returns "BEGIN": PostgreSQL locks rows as they are written.
func (postgresDialect) BeginWrite() string { return "BEGIN" }

// Commit returns "COMMIT". In a transaction that has failed, PostgreSQL
// answers COMMIT with ROLLBACK and no error; the workloads stop at the
// failing statement, so they never commit one.
func (postgresDialect) Commit() string { return "COMMIT" }

// Rollback returns "ROLLBACK". Without an open transaction PostgreSQL
// answers with a warning, not an error, as MySQL does.
func (postgresDialect) Rollback() string { return "ROLLBACK" }

// Timestamp returns "TIMESTAMP": date and time of day to the microsecond,
// without time zone.
func (postgresDialect) Timestamp() string { return "TIMESTAMP" }

// ForUpdate returns " FOR UPDATE": row-level exclusive locks on the rows
// read, held to the end of the transaction.
func (postgresDialect) ForUpdate() string { return " FOR UPDATE" }

// UpdateLockHint returns "": PostgreSQL locks with ForUpdate.
func (postgresDialect) UpdateLockHint() string { return "" }

// CreateIndex returns `CREATE INDEX "name" ON "table" ("c1", "c2")`. Index
// names are per schema in PostgreSQL, as in SQLite, so they must be unique
// across tables (sysbench's k_1, k_2, ... are).
func (d postgresDialect) CreateIndex(table, name string, cols ...string) string {
	return createIndex(d, table, name, cols)
}

// DropTableIfExists returns `DROP TABLE IF EXISTS "table"` (a SERIAL
// column's sequence goes with its table).
func (d postgresDialect) DropTableIfExists(table string) string {
	return "DROP TABLE IF EXISTS " + d.QuoteIdent(table)
}

// SyncSerialSQL returns the statement that moves the sequence of table's
// SERIAL column col past the largest value in it, after a load that wrote
// the column itself (COPY with ids): SELECT setval(pg_get_serial_sequence(
// 'table', 'col'), GREATEST(MAX(col), 1), MAX(col) IS NOT NULL) FROM table.
// The next nextval then returns MAX(col)+1 (1 for an empty table). It is a
// PostgreSQL statement; other dialects have no such step.
func SyncSerialSQL(table, col string) string {
	d := postgresDialect{}
	lit := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	c := d.QuoteIdent(col)
	return "SELECT setval(pg_get_serial_sequence(" + lit(d.QuoteIdent(table)) + ", " + lit(col) + "), GREATEST(MAX(" + c +
		"), 1), MAX(" + c + ") IS NOT NULL) FROM " + d.QuoteIdent(table)
}
