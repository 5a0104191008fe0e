package dialect

import "strings"

// mysqlDialect is the dialect of MySQL, MariaDB and Percona Server.
type mysqlDialect struct{}

var _ Dialect = mysqlDialect{}

// Driver returns MySQL.
func (mysqlDialect) Driver() Driver { return MySQL }

// Placeholder returns "?" whatever n is.
func (mysqlDialect) Placeholder(int) string { return "?" }

// Capabilities of MySQL/MariaDB with InnoDB.
func (mysqlDialect) Capabilities() Capabilities {
	return Capabilities{
		MultiRowInsert:       true,
		MaxPlaceholders:      65535, // the binary protocol's 2-byte parameter count
		AutoIncrementKeyword: true,
		ServerSidePrepare:    true,
		ForceIndexHint:       true,
		SelectForUpdate:      true,
		ConcurrentWriters:    true,
		Databases:            true,
	}
}

// QuoteIdent returns `name`, with ` doubled inside.
func (mysqlDialect) QuoteIdent(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// AutoIncrementPK returns "INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY",
// sysbench's id column with --auto_inc=on (oltp_common.lua).
func (mysqlDialect) AutoIncrementPK() string { return "INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY" }

// TableOptions returns " ENGINE=InnoDB" (sysbench --mysql_storage_engine
// default innodb).
func (mysqlDialect) TableOptions() string { return " ENGINE=InnoDB" }

// Begin returns "BEGIN".
func (mysqlDialect) Begin() string { return "BEGIN" }

// BeginWrite returns "BEGIN": InnoDB locks rows as they are written.
func (mysqlDialect) BeginWrite() string { return "BEGIN" }

// Commit returns "COMMIT".
func (mysqlDialect) Commit() string { return "COMMIT" }

// Rollback returns "ROLLBACK" (a no-op without an open transaction).
func (mysqlDialect) Rollback() string { return "ROLLBACK" }

// Timestamp returns "DATETIME": whole seconds, no time zone, 1000-01-01 to
// 9999-12-31 (go-sql-driver with parseTime=true scans it into time.Time).
func (mysqlDialect) Timestamp() string { return "DATETIME" }

// ForUpdate returns " FOR UPDATE": InnoDB takes exclusive next-key locks
// on the rows read.
func (mysqlDialect) ForUpdate() string { return " FOR UPDATE" }

// UpdateLockHint returns "": MySQL locks with ForUpdate.
func (mysqlDialect) UpdateLockHint() string { return "" }

// CreateIndex returns "CREATE INDEX `name` ON `table` (`c1`, `c2`)".
func (d mysqlDialect) CreateIndex(table, name string, cols ...string) string {
	return createIndex(d, table, name, cols)
}

// DropTableIfExists returns "DROP TABLE IF EXISTS `table`".
func (d mysqlDialect) DropTableIfExists(table string) string {
	return "DROP TABLE IF EXISTS " + d.QuoteIdent(table)
}

// createIndex builds CREATE INDEX with d's quoting; MySQL and SQLite share
// the shape.
func createIndex(d Dialect, table, name string, cols []string) string {
	return "CREATE INDEX " + d.QuoteIdent(name) + " ON " + d.QuoteIdent(table) + " (" + QuoteIdents(d, cols...) + ")"
}
