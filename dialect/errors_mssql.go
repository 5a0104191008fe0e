package dialect

import (
	"errors"
	"strconv"
	"strings"

	mssql "github.com/microsoft/go-mssqldb"
)

// SQL Server errors as github.com/microsoft/go-mssqldb v1.11.2 returns them:
//
//   - mssql.Error (a value, not a pointer) for the server's error messages.
//     Number is the LAST error of the request and All lists every one, in
//     order; a failed statement usually ends with a consequence such as
//     3621 "The statement has been terminated." after 2627, and a login to
//     a missing database ends with 18456 after 4060. The cause is looked for
//     in All: see mssqlPrimary.
//   - mssql.ServerError when a DONE token carries the server-error flag: the
//     server aborted the session and closed the connection. It unwraps to
//     the mssql.Error, so it is checked first.
//   - mssql.StreamError for a broken TDS stream, including a read cut short
//     by the server going away (io.ErrUnexpectedEOF inside); it does not
//     unwrap, so it is checked by type. go-mssqldb marks the connection bad.
//   - *net.OpError for a failed read at the start of a reply (a clean close
//     becomes an OpError around io.EOF) and for dial errors.
//   - mssql.RetryableError around the above when the request was not sent;
//     it answers errors.Is(err, driver.ErrBadConn). Once a connection is
//     marked bad, every call on it returns driver.ErrBadConn.
//   - "failed to send SQL Batch: ...", "failed to send RPC: ...", "faild to
//     send CommitXact: ..." (sic) and the like, formatted with %v, so the
//     network error is lost; they are recognised by their text (seen bare
//     only with the "disableretry" parameter).

// mssqlCodes maps SQL Server error numbers (sys.messages) to their class and
// name. Numbers not listed are Fatal and named "mssql_<number>".
var mssqlCodes = map[int32]codeInfo{
	// Retry: the transaction was rolled back (1205), or the statement
	// waited longer than SET LOCK_TIMEOUT (1222; the transaction stays open
	// unless XACT_ABORT is on, so roll it back), or a snapshot transaction
	// lost an update conflict (3960).
	1205: {Retry, "deadlock", ""},          // Transaction ... was deadlocked ... chosen as the deadlock victim
	1222: {Retry, "lock_wait_timeout", ""}, // Lock request time out period exceeded
	3960: {Retry, "update_conflict", ""},   // Snapshot isolation transaction aborted due to update conflict

	// ConnLost: the server ends the session.
	596:  {ConnLost, "conn_lost", ""}, // Cannot continue the execution because the session is in the kill state
	6005: {ConnLost, "conn_lost", ""}, // SHUTDOWN is in progress

	// Limit.
	701: {Limit, "out_of_memory",
		"SQL Server ran out of memory for a query (701: insufficient system memory in resource pool); raise max server memory (sp_configure 'max server memory (MB)') or the machine's memory, or lower --threads"},
	1204: {Limit, "lock_resources",
		"SQL Server could not obtain a lock resource (1204); let lock memory grow (sp_configure 'locks', 0 = dynamic) and raise max server memory, or lower --threads or the rows per transaction"},
	1105: {Limit, "table_full",
		"a SQL Server filegroup is full (1105): the disk holding the data files is out of space or a file's MAXSIZE is reached; free space or raise MAXSIZE (ALTER DATABASE ... MODIFY FILE), or lower the data size"},
	9002: {Limit, "log_full",
		"a SQL Server transaction log is full (9002): the disk holding the log is out of space, its MAXSIZE is reached, or the FULL recovery model keeps it until a log backup; back up the log or ALTER DATABASE ... SET RECOVERY SIMPLE, or free space or raise MAXSIZE"},
	17809: {Limit, "too_many_connections",
		"the server refused a connection: the maximum number of user connections is reached (17809); raise it (sp_configure 'user connections', 0 = the maximum, 32767) or lower --threads"},

	// Fatal, named so that they read well in counters and messages; the
	// names match MySQL's where the meaning does.
	2627:  {Fatal, "duplicate_key", ""},         // Violation of PRIMARY KEY / UNIQUE constraint
	2601:  {Fatal, "duplicate_key", ""},         // Cannot insert duplicate key row ... with unique index
	4060:  {Fatal, "unknown_database", ""},      // Cannot open database "x" requested by the login
	18456: {Fatal, "access_denied", ""},         // Login failed for user
	208:   {Fatal, "no_such_table", ""},         // Invalid object name
	1801:  {Fatal, "database_exists", ""},       // Database 'x' already exists
	1913:  {Fatal, "index_exists", ""},          // The operation failed because an index or statistics with name 'x' already exists
	3903:  {Fatal, "no_active_transaction", ""}, // The ROLLBACK TRANSACTION request has no corresponding BEGIN TRANSACTION
}

// mssqlSendFailures are the texts of go-mssqldb errors that stand for a
// lost connection but do not wrap the network error.
var mssqlSendFailures = []string{
	"failed to send sql batch", "failed to send rpc",
	"faild to send commitxact", "failed to send commitxact",
	"failed to send rollbackxact", "failed to send beginxact",
	"connection reset by peer", "broken pipe",
}

// mssqlError returns the SQL Server error carried by err, if any, looking
// through wrapping. A mssql.ServerError is not looked into: see mssqlInfo.
func mssqlError(err error) (mssql.Error, bool) {
	var e mssql.Error
	if errors.As(err, &e) {
		return e, true
	}
	var pe *mssql.Error
	if errors.As(err, &pe) && pe != nil {
		return *pe, true
	}
	return mssql.Error{}, false
}

// mssqlPrimary returns the error of e's request that says what happened:
// the first in e.All whose number is in mssqlCodes, else the first of
// e.All, else e itself.
func mssqlPrimary(e mssql.Error) mssql.Error {
	for _, one := range e.All {
		if _, ok := mssqlCodes[one.Number]; ok {
			return one
		}
	}
	if len(e.All) > 0 {
		return e.All[0]
	}
	return e
}

// mssqlInfo returns what is known about a go-mssqldb error, and false when
// err is not one (it may still be a plain network error: see connLost).
func mssqlInfo(err error) (codeInfo, bool) {
	var se mssql.ServerError
	if errors.As(err, &se) {
		return codeInfo{class: ConnLost, name: "conn_lost"}, true
	}
	var ste mssql.StreamError
	if errors.As(err, &ste) {
		return codeInfo{class: ConnLost, name: "conn_lost"}, true
	}
	if e, ok := mssqlError(err); ok {
		p := mssqlPrimary(e)
		if ci, ok := mssqlCodes[p.Number]; ok {
			return ci, true
		}
		return codeInfo{class: Fatal, name: "mssql_" + strconv.Itoa(int(p.Number))}, true
	}
	if mssqlSendFailure(err) {
		return codeInfo{class: ConnLost, name: "conn_lost"}, true
	}
	return codeInfo{}, false
}

// mssqlSendFailure reports whether err's text is one of go-mssqldb's
// unwrapped connection failures.
func mssqlSendFailure(err error) bool {
	msg := strings.ToLower(err.Error())
	for _, s := range mssqlSendFailures {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// mssqlCode returns the SQL Server error number Code reports for err: that
// of mssqlPrimary.
func mssqlCode(err error) (int, bool) {
	if e, ok := mssqlError(err); ok {
		return int(mssqlPrimary(e).Number), true
	}
	return 0, false
}
