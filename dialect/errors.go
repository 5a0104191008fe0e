package dialect

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strconv"
	"syscall"

	"github.com/go-sql-driver/mysql"
	"modernc.org/sqlite"
)

// Class says what a worker should do about an error. Every decision about
// MySQL error numbers and SQLite result codes is made in this file, about
// SQL Server error numbers in errors_mssql.go, about PostgreSQL SQLSTATEs in
// errors_pg.go.
type Class int

const (
	// None is the class of a nil error.
	None Class = iota
	// Fatal errors end the run: a bad statement, a missing table, a
	// duplicate key, anything not listed below.
	Fatal
	// Retry errors abort the transaction but leave the connection usable:
	// roll back (ROLLBACK) and re-run the whole transaction from its start.
	// MySQL 1213 deadlock, 1205 lock wait timeout, 1020 record changed since
	// last read (sysbench 1.0 --mysql-ignore-errors default 1213,1020,1205);
	// SQLite SQLITE_BUSY and SQLITE_LOCKED with any extended code; SQL
	// Server 1205 deadlock victim, 1222 lock request timeout, 3960 snapshot
	// update conflict; PostgreSQL 40001 serialization failure, 40P01
	// deadlock, 55P03 lock not available (lock_timeout). After MySQL 1205
	// InnoDB has rolled back only the
	// failed statement (unless innodb_rollback_on_timeout), and after SQL
	// Server 1222 the transaction stays open, so the ROLLBACK matters.
	Retry
	// ConnLost errors mean the connection is gone: reconnect (a new *sql.Conn,
	// statements prepared again) and re-run the transaction. driver.ErrBadConn,
	// mysql.ErrInvalidConn, io.EOF and io.ErrUnexpectedEOF, net errors (reset,
	// refused, broken pipe, timeouts), MariaDB 1927 connection killed, 1053
	// server shutdown, 1152/1184 aborted connection, 1158-1161 network
	// read/write errors and the client-library codes 2006, 2013, 2055 that
	// sysbench reconnects on; go-mssqldb's StreamError, ServerError and
	// unwrapped send failures, SQL Server 596 session killed and 6005
	// shutdown in progress; PostgreSQL SQLSTATE class 08 (connection
	// exception), 57P01 admin shutdown (pg_terminate_backend), 57P02,
	// 57P03, 57P05, and pgx's "conn closed".
	ConnLost
	// Limit errors mean a server-side limit was hit: 1040 too many
	// connections, 1203 max_user_connections, 1226 a per-account resource
	// limit, 1461 max_prepared_stmt_count, 1135 no thread for a new
	// connection, 1114 table full; SQLite SQLITE_FULL; SQL Server 701 out
	// of memory, 1204 lock resources, 1105 filegroup full, 9002 log full,
	// 17809 user connections; PostgreSQL 53300 too many connections,
	// 53100 disk full, 53200 out of memory, 53400 configuration limit.
	// Retrying does not help; LimitHint says what to raise.
	Limit
	// Canceled errors come from the caller's context (canceled or past its
	// deadline): the run is stopping, nothing is wrong with the database.
	// SQLite SQLITE_INTERRUPT is here too: the driver interrupts a statement
	// only when its context ends; so is PostgreSQL 57014 after a cancel
	// request (pgx sends one only when the context ends), but not after
	// statement_timeout (Fatal, "statement_timeout").
	Canceled
)

// String returns the class's name: "none", "fatal", "retry", "conn_lost",
// "limit" or "canceled".
func (c Class) String() string {
	switch c {
	case None:
		return "none"
	case Fatal:
		return "fatal"
	case Retry:
		return "retry"
	case ConnLost:
		return "conn_lost"
	case Limit:
		return "limit"
	case Canceled:
		return "canceled"
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// codeInfo is what this package knows about one server error number.
type codeInfo struct {
	class Class
	name  string // Name's counter name
	hint  string // LimitHint's sentence, for class Limit
}

// mysqlCodes maps MySQL/MariaDB error numbers (include/mysqld_error.h,
// include/errmsg.h for the 2xxx client codes) to their class and name.
// Numbers not listed are Fatal and named "mysql_<number>".
var mysqlCodes = map[uint16]codeInfo{
	// Retry: sysbench 1.0 --mysql-ignore-errors default 1213,1020,1205.
	1213: {Retry, "deadlock", ""},          // ER_LOCK_DEADLOCK
	1205: {Retry, "lock_wait_timeout", ""}, // ER_LOCK_WAIT_TIMEOUT
	1020: {Retry, "record_changed", ""},    // ER_CHECKREAD

	// ConnLost.
	1053: {ConnLost, "conn_lost", ""}, // ER_SERVER_SHUTDOWN
	1152: {ConnLost, "conn_lost", ""}, // ER_ABORTING_CONNECTION
	1158: {ConnLost, "conn_lost", ""}, // ER_NET_READ_ERROR
	1159: {ConnLost, "conn_lost", ""}, // ER_NET_READ_INTERRUPTED
	1160: {ConnLost, "conn_lost", ""}, // ER_NET_ERROR_ON_WRITE
	1161: {ConnLost, "conn_lost", ""}, // ER_NET_WRITE_INTERRUPTED
	1184: {ConnLost, "conn_lost", ""}, // ER_NEW_ABORTING_CONNECTION
	1927: {ConnLost, "conn_lost", ""}, // ER_CONNECTION_KILLED (MariaDB)
	2006: {ConnLost, "conn_lost", ""}, // CR_SERVER_GONE_ERROR
	2013: {ConnLost, "conn_lost", ""}, // CR_SERVER_LOST
	2055: {ConnLost, "conn_lost", ""}, // CR_SERVER_LOST_EXTENDED

	// Limit.
	1040: {Limit, "too_many_connections",
		"the server refused a connection: max_connections is reached (1040); raise max_connections (SET GLOBAL max_connections=N) or lower --threads"},
	1203: {Limit, "max_user_connections",
		"the server refused a connection: max_user_connections is reached for this user (1203); raise max_user_connections (SET GLOBAL max_user_connections=N, 0 = no limit) or lower --threads"},
	1226: {Limit, "user_resource_limit",
		"the account hit a per-user resource limit (1226: MAX_USER_CONNECTIONS, MAX_QUERIES_PER_HOUR, MAX_UPDATES_PER_HOUR or MAX_CONNECTIONS_PER_HOUR); raise or remove it (ALTER USER ... WITH MAX_USER_CONNECTIONS 0 ...) or lower --threads"},
	1461: {Limit, "max_prepared_stmt_count",
		"the server refused to prepare a statement: max_prepared_stmt_count is reached (1461); raise max_prepared_stmt_count (SET GLOBAL max_prepared_stmt_count=N; each thread prepares about 9 x tables + 2 statements for oltp_read_write) or lower --threads or --tables"},
	1135: {Limit, "cant_create_thread",
		"the server could not create a thread for a new connection (1135); raise the server's process limits (ulimit -u, systemd TasksMax/LimitNPROC) or lower --threads"},
	1114: {Limit, "table_full",
		"a table is full (1114): the disk holding the data directory is out of space or a size limit is reached (max_heap_table_size for MEMORY tables, a fixed-size innodb_data_file_path); free space or raise the limit, or lower --table-size"},

	// Fatal, named so that they read well in counters and messages.
	1045: {Fatal, "access_denied", ""},     // ER_ACCESS_DENIED_ERROR
	1049: {Fatal, "unknown_database", ""},  // ER_BAD_DB_ERROR
	1061: {Fatal, "index_exists", ""},      // ER_DUP_KEYNAME
	1062: {Fatal, "duplicate_key", ""},     // ER_DUP_ENTRY
	1146: {Fatal, "no_such_table", ""},     // ER_NO_SUCH_TABLE
	1317: {Fatal, "query_interrupted", ""}, // ER_QUERY_INTERRUPTED (KILL QUERY)
	1969: {Fatal, "statement_timeout", ""}, // ER_STATEMENT_TIMEOUT (MariaDB max_statement_time)
}

// SQLite primary result codes (sqlite3.h); an extended code carries the
// primary one in its low byte (SQLITE_BUSY_SNAPSHOT = 517 = 5 | 2<<8).
const (
	sqliteInterrupt  = 9
	sqliteBusy       = 5
	sqliteLocked     = 6
	sqliteFull       = 13
	sqliteConstraint = 19
)

// sqliteCodes maps SQLite primary result codes to class and name. Codes not
// listed are Fatal and named "sqlite_<primary code>".
var sqliteCodes = map[int]codeInfo{
	sqliteBusy:      {Retry, "busy", ""},
	sqliteLocked:    {Retry, "locked", ""},
	sqliteInterrupt: {Canceled, "interrupted", ""},
	sqliteFull: {Limit, "disk_full",
		"the SQLite database is full (SQLITE_FULL): the disk holding --sqlite-path is out of space or PRAGMA max_page_count is reached; free space or raise the limit, or lower --table-size"},
	sqliteConstraint: {Fatal, "constraint", ""},
	1:                {Fatal, "sqlite_error", ""},
	8:                {Fatal, "readonly", ""},
	10:               {Fatal, "ioerr", ""},
	11:               {Fatal, "corrupt", ""},
	14:               {Fatal, "cantopen", ""},
}

// info returns what is known about err, and whether err carries a database
// error at all. Canceled contexts take precedence over everything else, so
// an error that wraps both a context error and a network error (a read
// interrupted by cancellation) is Canceled.
func info(err error) codeInfo {
	if err == nil {
		return codeInfo{class: None}
	}
	if errors.Is(err, context.Canceled) {
		return codeInfo{class: Canceled, name: "canceled"}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return codeInfo{class: Canceled, name: "deadline"}
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		if ci, ok := mysqlCodes[me.Number]; ok {
			return ci
		}
		return codeInfo{class: Fatal, name: "mysql_" + strconv.Itoa(int(me.Number))}
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		primary := se.Code() & 0xff
		if ci, ok := sqliteCodes[primary]; ok {
			return ci
		}
		return codeInfo{class: Fatal, name: "sqlite_" + strconv.Itoa(primary)}
	}
	var ge *gateBusyError
	if errors.As(err, &ge) {
		return sqliteCodes[sqliteBusy]
	}
	if ci, ok := mssqlInfo(err); ok {
		return ci
	}
	if ci, ok := pgInfo(err); ok {
		return ci
	}
	if connLost(err) {
		return codeInfo{class: ConnLost, name: "conn_lost"}
	}
	return codeInfo{class: Fatal, name: "error"}
}

// connLost reports whether err says the connection is gone.
func connLost(err error) bool {
	for _, target := range []error{
		driver.ErrBadConn, mysql.ErrInvalidConn, mysql.ErrMalformPkt,
		io.EOF, io.ErrUnexpectedEOF,
		syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.ECONNABORTED, syscall.EPIPE,
		syscall.ETIMEDOUT, syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.ENETDOWN,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// Classify returns the class of err, looking through wrapped errors: None for
// nil, Canceled for context errors, then by MySQL error number, SQLite
// result code or SQL Server error number, then ConnLost for
// connection-level errors, else Fatal.
func Classify(err error) Class { return info(err).class }

// Code returns the server's error number carried by err: the MySQL/MariaDB
// error number (1213 for a deadlock), the SQLite extended result code (5
// SQLITE_BUSY, 517 SQLITE_BUSY_SNAPSHOT), or the SQL Server error number
// (1205 for a deadlock victim; of the errors one request returned, the
// first this package knows, else the first: 2627, not the 3621 "statement
// has been terminated" that follows it). It returns 0 when err carries
// none (nil, a network error, a context error) and for PostgreSQL errors,
// whose SQLSTATE SQLState returns.
func Code(err error) int {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return int(me.Number)
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()
	}
	var ge *gateBusyError
	if errors.As(err, &ge) {
		return sqliteBusy // the in-process wait for the write gate (writeGate)
	}
	if n, ok := mssqlCode(err); ok {
		return n
	}
	return 0
}

// Name returns a short stable name for err, for per-error counters in
// results: "deadlock", "lock_wait_timeout" (MySQL and SQL Server Retry),
// "record_changed" (MySQL), "update_conflict" (SQL Server), "busy",
// "locked" (SQLite Retry), "conn_lost" (every ConnLost error),
// "too_many_connections", "max_user_connections", "user_resource_limit",
// "max_prepared_stmt_count", "cant_create_thread", "table_full",
// "disk_full", "out_of_memory", "lock_resources", "log_full" (Limit),
// "serialization_failure", "configuration_limit" (PostgreSQL),
// "canceled", "deadline", "interrupted" (Canceled), a few named Fatal ones
// ("duplicate_key", "no_such_table", "access_denied", "unknown_database",
// "index_exists", "constraint", "database_exists", "no_active_transaction",
// ...),
// "statement_timeout", "in_failed_transaction", "mysql_<number>",
// "mssql_<number>", "pg_<SQLSTATE>" and "sqlite_<primary code>" for other
// server errors, "error" for anything else, and "" for nil.
func Name(err error) string { return info(err).name }

// LimitHint returns one sentence naming the server limit that err hit and
// what to set, e.g. for 1040 "the server refused a connection:
// max_connections is reached (1040); raise max_connections (SET GLOBAL
// max_connections=N) or lower --threads". It returns "" when err is not of
// class Limit.
func LimitHint(err error) string {
	ci := info(err)
	if ci.class != Limit {
		return ""
	}
	return ci.hint
}
