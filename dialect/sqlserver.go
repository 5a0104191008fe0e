package dialect

import (
	"strconv"
	"strings"
)

// sqlserverDialect is the dialect of Microsoft SQL Server 2014 and later
// (T-SQL), as spoken through github.com/microsoft/go-mssqldb. Statements
// stay within what SQL Server 2014 (version 12) understands: no
// DROP TABLE IF EXISTS (2016), no CREATE OR ALTER.
//
// Transactions begun by a plain batch: Begin, Commit and Rollback are sent
// as SQL text on one *sql.Conn, not through database/sql's BeginTx.
// go-mssqldb v1.11.2 follows such a transaction from the server's replies:
// the ENVCHANGE token of type 8 (begin transaction) stores the transaction
// descriptor in the session (token.go, processEnvChg: sess.tranid), every
// later request carries it in its ALL_HEADERS transaction-descriptor header
// (mssql.go, Stmt.sendQuery), and the ENVCHANGE types 9 and 10 (commit,
// rollback) reset it to 0, including when the server rolls back by itself
// (a deadlock victim, error 1205).
type sqlserverDialect struct{}

var _ Dialect = sqlserverDialect{}

// Driver returns SQLServer.
func (sqlserverDialect) Driver() Driver { return SQLServer }

// Placeholder returns "@p<n>", the parameter names go-mssqldb gives
// positional arguments under driver name "sqlserver" ("@p1" for n = 1).
func (sqlserverDialect) Placeholder(n int) string { return "@p" + strconv.Itoa(n) }

// Capabilities of SQL Server.
func (sqlserverDialect) Capabilities() Capabilities {
	return Capabilities{
		MultiRowInsert: true,
		// A request may carry 2100 parameters (SQL Server's "Maximum
		// Capacity Specifications"); go-mssqldb sends a statement with
		// arguments as an RPC to sp_executesql whose first two parameters
		// are the statement text and the parameter declarations
		// (mssql.go, Stmt.makeRPCParams: offset 2), leaving 2098.
		MaxPlaceholders: 2100 - 2,
		// A table value constructor (INSERT ... VALUES) lists at most 1000
		// rows (error 10738).
		MaxRowsPerInsert:     1000,
		AutoIncrementKeyword: true,
		// go-mssqldb's Prepare keeps the text only (mssql.go,
		// Conn.prepareContext); see Capabilities.ServerSidePrepare.
		ServerSidePrepare: false,
		ForceIndexHint:    false, // WITH (INDEX(...)) is a different shape
		SelectForUpdate:   false, // table hints instead: UpdateLockHint
		ConcurrentWriters: true,
		Databases:         true,
	}
}

// QuoteIdent returns [name], with ] doubled inside: one identifier part,
// whatever characters it holds (a '.' does not split it).
func (sqlserverDialect) QuoteIdent(name string) string {
	return "[" + strings.ReplaceAll(name, "]", "]]") + "]"
}

// AutoIncrementPK returns "INT IDENTITY(1,1) NOT NULL PRIMARY KEY": the
// server numbers rows from 1 when an INSERT omits the column. The key is
// clustered, like InnoDB's primary key.
func (sqlserverDialect) AutoIncrementPK() string { return "INT IDENTITY(1,1) NOT NULL PRIMARY KEY" }

// TableOptions returns "": tables go to the default filegroup.
func (sqlserverDialect) TableOptions() string { return "" }

// Begin returns "BEGIN TRANSACTION". See sqlserverDialect for how
// go-mssqldb keeps the transaction of a plain batch.
func (sqlserverDialect) Begin() string { return "BEGIN TRANSACTION" }

// BeginWrite returns "BEGIN TRANSACTION": SQL Server locks rows as they
// are written.
func (sqlserverDialect) BeginWrite() string { return "BEGIN TRANSACTION" }

// Commit returns "COMMIT TRANSACTION".
func (sqlserverDialect) Commit() string { return "COMMIT TRANSACTION" }

// Rollback returns "IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION". A deadlock
// victim's transaction (1205) has been rolled back by the server already,
// and a bare ROLLBACK TRANSACTION would then fail with error 3903 ("The
// ROLLBACK TRANSACTION request has no corresponding BEGIN TRANSACTION");
// the guard makes the statement succeed either way, as MySQL's ROLLBACK
// does.
func (sqlserverDialect) Rollback() string { return "IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION" }

// Timestamp returns "DATETIME2(3)": date and time to the millisecond, no
// time zone, years 1 to 9999 (SQL Server 2008 and later).
func (sqlserverDialect) Timestamp() string { return "DATETIME2(3)" }

// ForUpdate returns "": SQL Server rejects SELECT ... FOR UPDATE outside
// cursors and locks with UpdateLockHint.
func (sqlserverDialect) ForUpdate() string { return "" }

// UpdateLockHint returns " WITH (UPDLOCK, ROWLOCK)": update locks, which
// conflict with other update and exclusive locks but not with shared ones,
// held to the end of the transaction, on rows rather than pages.
func (sqlserverDialect) UpdateLockHint() string { return " WITH (UPDLOCK, ROWLOCK)" }

// CreateIndex returns "CREATE INDEX [name] ON [table] ([c1], [c2])"
// (non-clustered). Index names are per table in SQL Server.
func (d sqlserverDialect) CreateIndex(table, name string, cols ...string) string {
	return createIndex(d, table, name, cols)
}

// DropTableIfExists returns
// "IF OBJECT_ID(N'[table]', N'U') IS NOT NULL DROP TABLE [table]", which
// SQL Server 2014 understands (DROP TABLE IF EXISTS came with 2016). The
// name inside OBJECT_ID is quoted too, so that it is read as one part.
func (d sqlserverDialect) DropTableIfExists(table string) string {
	q := d.QuoteIdent(table)
	return "IF OBJECT_ID(" + nString(q) + ", N'U') IS NOT NULL DROP TABLE " + q
}

// nString returns s as a T-SQL Unicode string literal, N'...', with '
// doubled.
func nString(s string) string { return "N'" + strings.ReplaceAll(s, "'", "''") + "'" }
