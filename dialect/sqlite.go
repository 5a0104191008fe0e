package dialect

import "strings"

// SQLiteInProcess says, for a Result's client cost (oltp.ClientCost.Shares),
// what else a SQLite run's process does: modernc.org/sqlite runs the
// database inside the client's process.
const SQLiteInProcess = "the SQLite database engine (it runs inside vmbench)"

// sqliteDialect is the dialect of SQLite 3 (modernc.org/sqlite ships 3.54).
type sqliteDialect struct{}

var _ Dialect = sqliteDialect{}

// Driver returns SQLite.
func (sqliteDialect) Driver() Driver { return SQLite }

// Placeholder returns "?" whatever n is.
func (sqliteDialect) Placeholder(int) string { return "?" }

// Capabilities of SQLite in WAL mode.
func (sqliteDialect) Capabilities() Capabilities {
	return Capabilities{
		MultiRowInsert:       true,
		MaxPlaceholders:      32766, // SQLITE_MAX_VARIABLE_NUMBER since 3.32.0
		AutoIncrementKeyword: true,
		ServerSidePrepare:    false,
		ForceIndexHint:       false, // SQLite has INDEXED BY, a different shape
		SelectForUpdate:      false,
		ConcurrentWriters:    false,
		Databases:            false,
	}
}

// QuoteIdent returns "name", with " doubled inside.
func (sqliteDialect) QuoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// AutoIncrementPK returns "INTEGER PRIMARY KEY": the column becomes the
// table's rowid, the B-tree key the rows are stored by (like InnoDB's
// clustered primary key), and an INSERT without it gets max(rowid)+1.
//
// AUTOINCREMENT is left out on purpose: it only adds the promise that ids of
// deleted rows are never reused, paid with a read and a write of the
// sqlite_sequence table on every INSERT, a cost MySQL does not have. sysbench
// re-inserts deleted rows with their own id, so the promise buys nothing.
func (sqliteDialect) AutoIncrementPK() string { return "INTEGER PRIMARY KEY" }

// TableOptions returns "": SQLite has no storage engines.
func (sqliteDialect) TableOptions() string { return "" }

// Begin returns "BEGIN" (a deferred transaction: it takes the write lock at
// its first write; add _txlock=immediate to Config.Params to make
// database/sql's BeginTx take it at once).
func (sqliteDialect) Begin() string { return "BEGIN" }

// BeginWrite returns "BEGIN IMMEDIATE": the transaction takes the
// database's write lock at once. With a deferred BEGIN, two transactions
// that both read and then write can fail when the second upgrades to a
// writer (SQLITE_BUSY, or SQLITE_BUSY_SNAPSHOT in WAL mode when the other
// has committed since it read), which no busy_timeout cures; with BEGIN
// IMMEDIATE the second writer queues in BEGIN, behind the writers of the
// file that asked before it (the in-process write gate of Open), and gets
// the lock, or after busy_timeout SQLITE_BUSY (class Retry).
func (sqliteDialect) BeginWrite() string { return "BEGIN IMMEDIATE" }

// Commit returns "COMMIT".
func (sqliteDialect) Commit() string { return "COMMIT" }

// Rollback returns "ROLLBACK"; it fails with "cannot rollback - no
// transaction is active" when no transaction is open.
func (sqliteDialect) Rollback() string { return "ROLLBACK" }

// Timestamp returns "TIMESTAMP". SQLite has no date type: the column has
// NUMERIC affinity and keeps what is bound (modernc.org/sqlite binds a
// time.Time as text, in time.Time.String's layout unless the DSN sets
// _time_format), and the declared name makes the driver parse the text
// back into a time.Time on Scan.
func (sqliteDialect) Timestamp() string { return "TIMESTAMP" }

// ForUpdate returns "": SQLite rejects FOR UPDATE and has no row locks; a
// transaction begun with BeginWrite holds the write lock on everything.
func (sqliteDialect) ForUpdate() string { return "" }

// UpdateLockHint returns "": SQLite has no table hints (see ForUpdate).
func (sqliteDialect) UpdateLockHint() string { return "" }

// CreateIndex returns `CREATE INDEX "name" ON "table" ("c1", "c2")`. Index
// names are per database in SQLite, not per table, so they must be unique
// across tables (sysbench's k_1, k_2, ... are).
func (d sqliteDialect) CreateIndex(table, name string, cols ...string) string {
	return createIndex(d, table, name, cols)
}

// DropTableIfExists returns `DROP TABLE IF EXISTS "table"`.
func (d sqliteDialect) DropTableIfExists(table string) string {
	return "DROP TABLE IF EXISTS " + d.QuoteIdent(table)
}
