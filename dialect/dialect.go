// Package dialect holds what differs between the SQL databases vmbench
// drives: the statement text of each dialect (placeholders, quoting, DDL
// fragments), what each server can do (Capabilities), opening a *sql.DB from
// sysbench-style connection flags (Config, Open), and the classification of
// errors into retry / connection lost / server limit / fatal (Classify).
//
// Supported today:
//
//   - MySQL, MariaDB and Percona Server through github.com/go-sql-driver/mysql
//     (Driver MySQL, "mysql").
//   - SQLite through modernc.org/sqlite, pure Go and embedded, the default
//     that needs nothing installed (Driver SQLite, "sqlite").
//
// SQL Server is planned; the Driver enum, the Dialect interface and the
// Capabilities struct are shaped to take it (Placeholder takes the parameter
// number for "@p1"-style markers, for instance).
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
	// SQLite is an embedded SQLite file through modernc.org/sqlite (pure Go,
	// no cgo, nothing to install).
	SQLite Driver = "sqlite"
)

// Drivers lists every supported Driver in the order help texts show them.
func Drivers() []Driver { return []Driver{MySQL, SQLite} }

// ParseDriver returns the Driver named by s (case-insensitive; "mariadb" and
// "percona" are accepted as MySQL, "sqlite3" as SQLite). The error lists the
// valid values.
func ParseDriver(s string) (Driver, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "mysql", "mariadb", "percona":
		return MySQL, nil
	case "sqlite", "sqlite3":
		return SQLite, nil
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
	case SQLite:
		return sqliteDialect{}
	}
	return nil
}

// Dialect produces the statement text that differs between databases. All
// methods are pure: they build strings and never talk to a server.
// Identifiers passed in are quoted by the methods that build statements;
// QuoteIdent is for callers that write statements themselves.
type Dialect interface {
	// Driver returns the driver this dialect belongs to.
	Driver() Driver

	// Placeholder returns the bind-parameter marker for the n-th parameter
	// of a statement, n counting from 1: "?" for MySQL and SQLite
	// (SQL Server will return "@p1", "@p2", ...).
	Placeholder(n int) string

	// Capabilities reports what the database supports; see Capabilities.
	Capabilities() Capabilities

	// QuoteIdent quotes a table, column or index name: MySQL `name`, SQLite
	// "name"; a quote character inside the name is doubled.
	QuoteIdent(name string) string

	// AutoIncrementPK returns the column definition, without the column name,
	// of an integer primary key whose value the server assigns when an
	// INSERT omits it (sysbench's --auto_inc=on id column).
	AutoIncrementPK() string

	// TableOptions returns the text that follows the closing parenthesis of
	// CREATE TABLE, with its leading space, or "" (MySQL " ENGINE=InnoDB").
	TableOptions() string

	// Begin returns the statement that starts a transaction ("BEGIN"), as
	// sysbench sends it (counted as an "other" query).
	Begin() string
	// Commit returns the statement that commits a transaction ("COMMIT").
	Commit() string
	// Rollback returns the statement that rolls a transaction back
	// ("ROLLBACK").
	Rollback() string

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
	// (MySQL protocol: 65535; SQLite SQLITE_MAX_VARIABLE_NUMBER: 32766 since
	// 3.32.0). A bulk INSERT with bound values must keep
	// rows x columns under it.
	MaxPlaceholders int
	// MaxRowsPerInsert is the most rows one INSERT ... VALUES may list, 0
	// when only MaxPlaceholders and the statement size limit it (SQL Server
	// will say 1000).
	MaxRowsPerInsert int
	// AutoIncrementKeyword: AutoIncrementPK declares a key the server fills
	// in, so a loader may omit the id column (sysbench --auto_inc=on).
	AutoIncrementKeyword bool
	// ServerSidePrepare: a prepared statement lives on the server (MySQL
	// COM_STMT_PREPARE) and counts against max_prepared_stmt_count. False
	// where preparing is in-process (SQLite compiles statements in the
	// client; preparing still saves the parse).
	ServerSidePrepare bool
	// ForceIndexHint: SELECT ... FROM t FORCE INDEX (PRIMARY) is understood
	// (sysbench's prewarm scans with FORCE KEY).
	ForceIndexHint bool
	// SelectForUpdate: SELECT ... FOR UPDATE takes row locks (TPC-C
	// New-Order and Payment use it). SQLite has no row locks and rejects the
	// clause.
	SelectForUpdate bool
	// ConcurrentWriters: several connections can write at the same time.
	// False for SQLite, where one writer holds the database lock and other
	// writers wait busy_timeout, then fail with SQLITE_BUSY (class Retry).
	ConcurrentWriters bool
	// Databases: the server holds named databases that EnsureDatabase
	// creates. False for SQLite, where a database is a file.
	Databases bool
}
