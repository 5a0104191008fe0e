package dialect

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"

	"github.com/go-sql-driver/mysql"
	"modernc.org/sqlite"
)

// Typed error predicates: what a workload asks about an error, so that no
// workload compares raw error numbers, result codes or names itself. Each
// looks through wrapped and joined errors (errors.As) and is false for nil.
// A SQL Server error is judged by the error of its request that says what
// happened (see mssqlPrimary), as Classify and Code judge it.

// IsDeadlock reports whether err says the transaction was chosen as a
// deadlock victim and rolled back: MySQL/MariaDB 1213 (ER_LOCK_DEADLOCK),
// SQL Server 1205, PostgreSQL 40P01 (deadlock_detected). SQLite detects no deadlocks: a writer that cannot get
// the lock waits and fails with SQLITE_BUSY, a lock timeout.
func IsDeadlock(err error) bool { return deadlockCodes.match(err) }

// IsLockTimeout reports whether err says a statement waited too long for a
// lock: MySQL/MariaDB 1205 (ER_LOCK_WAIT_TIMEOUT, innodb_lock_wait_timeout),
// SQL Server 1222 (SET LOCK_TIMEOUT), PostgreSQL 55P03 (lock_not_available:
// lock_timeout or NOWAIT), SQLite SQLITE_BUSY (5) and
// SQLITE_LOCKED (6) with any extended code (busy_timeout), and the wait for
// this process's SQLite write lock past busy_timeout (see Open).
func IsLockTimeout(err error) bool { return lockTimeoutCodes.match(err) }

// IsNoSuchTable reports whether err says a table does not exist:
// MySQL/MariaDB 1146 (ER_NO_SUCH_TABLE), SQL Server 208 (invalid object
// name), PostgreSQL 42P01 (undefined_table), SQLite SQLITE_ERROR (1) "no
// such table".
func IsNoSuchTable(err error) bool { return noSuchTableCodes.match(err) }

// IsUnknownDatabase reports whether err says the database does not exist:
// MySQL/MariaDB 1049 (ER_BAD_DB_ERROR), SQL Server 4060 (cannot open
// database requested by the login), PostgreSQL 3D000
// (invalid_catalog_name). SQLite has none: Open creates a
// missing file.
func IsUnknownDatabase(err error) bool { return unknownDatabaseCodes.match(err) }

// IsIndexExists reports whether err says an index of that name exists
// already: MySQL/MariaDB 1061 (ER_DUP_KEYNAME), SQL Server 1913,
// PostgreSQL 42P07 (duplicate_table, said of an index's name too), SQLite
// SQLITE_ERROR (1) "already exists" (which SQLite says of a table too).
func IsIndexExists(err error) bool { return indexExistsCodes.match(err) }

// IsAccessDenied reports whether err says the server refused the login:
// MySQL/MariaDB 1045 (ER_ACCESS_DENIED_ERROR), SQL Server 18456,
// PostgreSQL 28P01 (invalid_password) and 28000 (no pg_hba.conf entry).
func IsAccessDenied(err error) bool { return accessDeniedCodes.match(err) }

// IsSerializationFailure reports whether err says a REPEATABLE READ or
// SERIALIZABLE transaction could not be serialized with others and was
// rolled back: PostgreSQL 40001 (serialization_failure). Run it again.
func IsSerializationFailure(err error) bool { return serializationCodes.match(err) }

// IsDuplicateKey reports whether err says a row would duplicate a unique
// key: MySQL/MariaDB 1062 (ER_DUP_ENTRY), SQL Server 2627 and 2601,
// PostgreSQL 23505 (unique_violation). (SQLite reports it as one of its
// SQLITE_CONSTRAINT codes, which this does not tell apart.)
// sysbench 1.0's pgsql driver restarts the event on 23505: two
// transactions that delete and re-insert the same id under READ COMMITTED
// meet it.
func IsDuplicateKey(err error) bool { return duplicateKeyCodes.match(err) }

// IsNoActiveTransaction reports whether err is a ROLLBACK's or COMMIT's
// answer when no transaction is open, harmless before a restart: SQLite
// SQLITE_ERROR (1) "no transaction is active" (the failed statement was
// BEGIN, or SQLite has rolled back itself), SQL Server 3903. MySQL/MariaDB
// and PostgreSQL accept a ROLLBACK outside a transaction (PostgreSQL with
// a warning).
func IsNoActiveTransaction(err error) bool { return noActiveTransactionCodes.match(err) }

// IsConnLost reports whether err says the connection is gone, so the
// transaction must run again on a new one: Classify's class ConnLost
// (driver.ErrBadConn, network errors, MySQL/MariaDB 1053, 1152, 1158-1161,
// 1184, 1927, 2006, 2013, 2055, SQL Server 596, 6005, go-mssqldb's stream
// and server errors).
func IsConnLost(err error) bool { return Classify(err) == ConnLost }

// IsServerLimit reports whether err says a server-side limit was hit, which
// retrying does not cure (LimitHint says what to raise): Classify's class
// Limit (MySQL/MariaDB 1040, 1114, 1135, 1203, 1226, 1461; SQL Server 701,
// 1105, 1204, 9002, 17809; SQLite SQLITE_FULL).
func IsServerLimit(err error) bool { return Classify(err) == Limit }

// codeSet lists the server errors that stand for one condition.
type codeSet struct {
	pg     []string // PostgreSQL SQLSTATEs
	mysql  []uint16 // MySQL/MariaDB error numbers
	mssql  []int32  // SQL Server error numbers
	sqlite []int    // SQLite primary result codes
	// sqliteText, when set, also matches a plain SQLITE_ERROR whose
	// message holds it (SQLite has no code of its own for these).
	sqliteText string
}

var (
	deadlockCodes            = codeSet{mysql: []uint16{1213}, mssql: []int32{1205}, pg: []string{"40P01"}}
	lockTimeoutCodes         = codeSet{mysql: []uint16{1205}, mssql: []int32{1222}, sqlite: []int{sqliteBusy, sqliteLocked}, pg: []string{"55P03"}}
	noSuchTableCodes         = codeSet{mysql: []uint16{1146}, mssql: []int32{208}, sqliteText: "no such table", pg: []string{"42P01"}}
	unknownDatabaseCodes     = codeSet{mysql: []uint16{1049}, mssql: []int32{4060}, pg: []string{"3D000"}}
	indexExistsCodes         = codeSet{mysql: []uint16{1061}, mssql: []int32{1913}, sqliteText: "already exists", pg: []string{"42P07"}}
	accessDeniedCodes        = codeSet{mysql: []uint16{1045}, mssql: []int32{18456}, pg: []string{"28P01", "28000"}}
	serializationCodes       = codeSet{pg: []string{"40001"}}
	duplicateKeyCodes        = codeSet{mysql: []uint16{1062}, mssql: []int32{2627, 2601}, pg: []string{"23505"}}
	noActiveTransactionCodes = codeSet{mssql: []int32{3903}, sqliteText: "no transaction is active"}
)

// sqliteError is SQLite's generic result code, SQLITE_ERROR.
const sqliteError = 1

// match reports whether err carries one of s's errors.
func (s codeSet) match(err error) bool {
	if err == nil {
		return false
	}
	if SQLState(err) != "" {
		return pgMatch(err, s.pg)
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return slices.Contains(s.mysql, me.Number)
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		primary := se.Code() & 0xff
		if slices.Contains(s.sqlite, primary) {
			return true
		}
		return primary == sqliteError && s.sqliteText != "" && strings.Contains(se.Error(), s.sqliteText)
	}
	var ge *gateBusyError
	if errors.As(err, &ge) {
		return slices.Contains(s.sqlite, sqliteBusy)
	}
	if e, ok := mssqlError(err); ok {
		return slices.Contains(s.mssql, mssqlPrimary(e).Number)
	}
	return false
}

// Querier is what TableExists queries: *sql.DB, *sql.Conn or *sql.Tx.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// TableExists reports whether table exists in the database q is
// connected to, by a query in dialect d that reads no row
// (SELECT 1 FROM table WHERE 1=0) and fails only when the table is
// missing (IsNoSuchTable). Other errors (no connection, access denied)
// are returned.
func TableExists(ctx context.Context, q Querier, d Dialect, table string) (bool, error) {
	rows, err := q.QueryContext(ctx, "SELECT 1 FROM "+d.QuoteIdent(table)+" WHERE 1=0")
	if err == nil {
		return true, rows.Close()
	}
	if IsNoSuchTable(err) {
		return false, nil
	}
	return false, err
}
