// Package dialect holds what differs between the SQL databases vmbench
// drives: the statement text of each dialect (placeholders, quoting, DDL
// fragments), what each server can do (Capabilities), opening a *sql.DB from
// sysbench-style connection flags (Config, Open), and the classification of
// errors into retry / connection lost / server limit / fatal (Classify).
//
// Supported:
//
//   - MySQL, MariaDB and Percona Server through github.com/go-sql-driver/mysql
//     (Driver MySQL, "mysql").
//   - SQL Server 2014 and later through github.com/microsoft/go-mssqldb
//     (Driver SQLServer, "sqlserver"). No SQL Server runs where this package
//     is tested: its statements have golden-text tests and its errors are
//     classified from mssql.Error values built in the tests.
//   - SQLite through modernc.org/sqlite, pure Go and embedded, the default
//     that needs nothing installed (Driver SQLite, "sqlite").
//   - PostgreSQL through github.com/jackc/pgx/v5 (Driver Postgres,
//     "postgres"); see postgresDialect for which pgx interface is used
//     where.
//
// BulkInsert loads rows in one transaction by the fastest path each database
// offers (multi-row INSERT, or SQL Server's bulk-copy protocol); CopyFrom is
// PostgreSQL's COPY.
//
// This package imports nothing else from vmbench.
package dialect

import (
	"fmt"
	"strings"
)

// Driver names a database family and the Go driver used for it. Its values
// are what --db-driver accepts.
type Driver string

const (
	// MySQL is MySQL, MariaDB and Percona Server, through
	// github.com/go-sql-driver/mysql.
	MySQL Driver = "mysql"
	// SQLServer is Microsoft SQL Server (2014 and later, on Linux or
	// Windows), through github.com/microsoft/go-mssqldb.
	SQLServer Driver = "sqlserver"
	// SQLite is an embedded SQLite file through modernc.org/sqlite (pure Go,
	// no cgo, nothing to install).
	SQLite Driver = "sqlite"
	// Postgres is PostgreSQL (10 and later), through
	// github.com/jackc/pgx/v5.
	Postgres Driver = "postgres"
)

// Drivers lists every supported Driver in the order help texts show them:
// mysql, postgres, sqlserver, sqlite.
func Drivers() []Driver { return []Driver{MySQL, Postgres, SQLServer, SQLite} }

// ParseDriver returns the Driver named by s (case-insensitive; "mariadb" and
// "percona" are accepted as MySQL, "mssql" as SQLServer, "sqlite3" as
// SQLite, "pgsql" (sysbench's name), "postgresql" and "pg" as Postgres).
// The error lists the valid values.
func ParseDriver(s string) (Driver, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "mysql", "mariadb", "percona":
		return MySQL, nil
	case "sqlserver", "mssql":
		return SQLServer, nil
	case "sqlite", "sqlite3":
		return SQLite, nil
	case "postgres", "postgresql", "pgsql", "pg":
		return Postgres, nil
	}
	return "", fmt.Errorf("unknown database driver %q (valid: %s)", s, driverList())
}

func driverList() string {
	names := make([]string, 0, len(Drivers()))
	for _, d := range Drivers() {
		names = append(names, string(d))
	}
	return strings.Join(names, ", ")
}

// String returns the driver's name, e.g. "mysql".
func (d Driver) String() string { return string(d) }

// Dialect returns the SQL dialect of d, or nil for an unknown driver.
func (d Driver) Dialect() Dialect {
	switch d {
	case MySQL:
		return mysqlDialect{}
	case SQLServer:
		return sqlserverDialect{}
	case SQLite:
		return sqliteDialect{}
	case Postgres:
		return postgresDialect{}
	}
	return nil
}

// Dialect produces the statement text that differs between databases. All
// methods are pure: they build strings and never talk to a server.
// Identifiers passed in are quoted by the methods that build statements;
// QuoteIdent and QuoteIdents are for callers that write statements
// themselves.
type Dialect interface {
	// Driver returns the driver this dialect belongs to.
	Driver() Driver

	// Placeholder returns the bind-parameter marker for the n-th parameter
	// of a statement, n counting from 1: "?" for MySQL and SQLite, "@p1",
	// "@p2", ... for SQL Server.
	Placeholder(n int) string

	// Capabilities reports what the database supports; see Capabilities.
	Capabilities() Capabilities

	// QuoteIdent quotes a table, column or index name as one identifier:
	// MySQL `name`, SQL Server [name], SQLite "name"; the closing quote
	// character inside the name is doubled.
	QuoteIdent(name string) string

	// AutoIncrementPK returns the column definition, without the column name,
	// of an integer primary key whose value the server assigns when an
	// INSERT omits it (sysbench's --auto_inc=on id column).
	AutoIncrementPK() string

	// TableOptions returns the text that follows the closing parenthesis of
	// CREATE TABLE, with its leading space, or "" (MySQL " ENGINE=InnoDB").
	TableOptions() string

	// Begin returns the statement that starts a transaction ("BEGIN"), as
	// sysbench sends it (counted as an "other" query). Send it, and
	// everything up to Commit or Rollback, on one *sql.Conn.
	Begin() string
	// BeginWrite returns the statement that starts a transaction that will
	// write: the same as Begin where the database locks rows as they are
	// written (MySQL "BEGIN", SQL Server "BEGIN TRANSACTION"); SQLite
	// "BEGIN IMMEDIATE", which takes the database's write lock at once, so
	// that two writers never deadlock upgrading a read lock: a second
	// writer queues in BEGIN IMMEDIATE instead, in arrival order behind the
	// other writers of the file in this process, for up to busy_timeout
	// (see Open).
	BeginWrite() string
	// Commit returns the statement that commits a transaction ("COMMIT").
	Commit() string
	// Rollback returns the statement that rolls a transaction back
	// ("ROLLBACK"). With MySQL and SQL Server it also succeeds when no
	// transaction is open, as after a deadlock, where the server has rolled
	// back already; SQLite then fails with "no transaction is active".
	Rollback() string

	// Timestamp returns the column type, for CREATE TABLE, of a date and
	// time of day: MySQL "DATETIME" (whole seconds), SQL Server
	// "DATETIME2(3)" (milliseconds, the precision of TPC-C's dates),
	// SQLite "TIMESTAMP" (a name only: SQLite keeps what the driver binds,
	// modernc.org/sqlite writes a time.Time as text).
	Timestamp() string

	// ForUpdate returns the suffix, with its leading space, of a SELECT
	// that takes update (exclusive) locks on the rows it reads, as TPC-C
	// New-Order and Payment need: MySQL " FOR UPDATE"; "" for SQL Server
	// (which uses UpdateLockHint instead) and SQLite (no row locks: the
	// transaction's write lock, taken by BeginWrite, covers every row).
	ForUpdate() string

	// UpdateLockHint returns the table hint, with its leading space, that
	// is written right after a table name in FROM to take update locks on
	// the rows read: SQL Server " WITH (UPDLOCK, ROWLOCK)"; "" for MySQL
	// (ForUpdate) and SQLite. A statement uses both: "SELECT ... FROM t" +
	// UpdateLockHint() + " WHERE ..." + ForUpdate().
	UpdateLockHint() string

	// CreateIndex returns the statement creating a non-unique index name on
	// table(cols...), e.g. MySQL "CREATE INDEX `k_1` ON `sbtest1` (`k`)".
	CreateIndex(table, name string, cols ...string) string

	// DropTableIfExists returns the statement dropping table if it exists,
	// e.g. MySQL "DROP TABLE IF EXISTS `sbtest1`" (sysbench cleanup).
	DropTableIfExists(table string) string
}

// Capabilities reports what a database supports, so that workloads choose a
// statement shape without naming the database. Limits are the server's
// compiled or documented defaults; a value of 0 for an int means "no limit
// that matters here".
type Capabilities struct {
	// MultiRowInsert: INSERT ... VALUES (...), (...) in one statement, as
	// sysbench's and go-tpc's bulk loaders send.
	MultiRowInsert bool
	// MaxPlaceholders is the most bind parameters one statement may carry
	// (MySQL protocol: 65535; SQL Server: 2100 per request, of which
	// go-mssqldb's sp_executesql call takes 2, so 2098; SQLite
	// SQLITE_MAX_VARIABLE_NUMBER: 32766 since 3.32.0). A bulk INSERT with
	// bound values must keep rows x columns at or under it.
	MaxPlaceholders int
	// MaxRowsPerInsert is the most rows one INSERT ... VALUES may list, 0
	// when only MaxPlaceholders and the statement size limit it (SQL
	// Server: 1000, the limit of a table value constructor).
	MaxRowsPerInsert int
	// AutoIncrementKeyword: AutoIncrementPK declares a key the server fills
	// in, so a loader may omit the id column (sysbench --auto_inc=on).
	AutoIncrementKeyword bool
	// ServerSidePrepare: a prepared statement lives on the server (MySQL
	// COM_STMT_PREPARE) and counts against max_prepared_stmt_count. False
	// where preparing is in-process: SQLite compiles statements in the
	// client (preparing still saves the parse); go-mssqldb's Prepare only
	// keeps the text, and every execution is an sp_executesql request
	// whose plan SQL Server caches by text, with no handle and no limit.
	ServerSidePrepare bool
	// ForceIndexHint: SELECT ... FROM t FORCE INDEX (PRIMARY) is understood
	// (sysbench's prewarm scans with FORCE KEY).
	ForceIndexHint bool
	// SelectForUpdate: SELECT ... FOR UPDATE takes row locks (TPC-C
	// New-Order and Payment use it). SQL Server rejects the clause and takes
	// update locks through a table hint (Dialect.UpdateLockHint); SQLite has
	// no row locks and rejects the clause.
	SelectForUpdate bool
	// ConcurrentWriters: several connections can write at the same time.
	// False for SQLite, where one writer holds the database lock and other
	// writers queue for it (first in, first out within the process, see
	// Open) up to busy_timeout, then fail with SQLITE_BUSY (class Retry).
	ConcurrentWriters bool
	// Databases: the server holds named databases that EnsureDatabase
	// creates. False for SQLite, where a database is a file.
	Databases bool
}

// QuoteIdents returns names quoted by d.QuoteIdent and joined with ", ",
// as in a column list: MySQL "`a`, `b`"; "" for no names.
func QuoteIdents(d Dialect, names ...string) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.QuoteIdent(n))
	}
	return b.String()
}
