package dialect

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// PostgreSQL errors are classified here by SQLSTATE (PostgreSQL manual,
// Appendix A, "PostgreSQL Error Codes"), the way errors.go classifies
// MySQL error numbers: a few codes by name, then whole classes (the first
// two characters) for connection exceptions.

// pgCodes maps SQLSTATE codes to their class and name. Codes not listed
// are classified by pgClasses, else Fatal and named "pg_<SQLSTATE>".
var pgCodes = map[string]codeInfo{
	// Retry: the transaction was rolled back (40xxx) or a lock was not
	// granted in time; run the whole transaction again. sysbench 1.0's
	// pgsql driver restarts the event on 40P01 and 40001 too.
	"40001": {Retry, "serialization_failure", ""}, // serialization_failure (REPEATABLE READ, SERIALIZABLE)
	"40P01": {Retry, "deadlock", ""},              // deadlock_detected
	"55P03": {Retry, "lock_wait_timeout", ""},     // lock_not_available (lock_timeout, NOWAIT)

	// ConnLost: the server ended the session.
	"57P01": {ConnLost, "conn_lost", ""}, // admin_shutdown (pg_terminate_backend, smart/fast shutdown)
	"57P02": {ConnLost, "conn_lost", ""}, // crash_shutdown
	"57P03": {ConnLost, "conn_lost", ""}, // cannot_connect_now (starting up, recovery)
	"57P05": {ConnLost, "conn_lost", ""}, // idle_session_timeout

	// Limit.
	"53300": {Limit, "too_many_connections",
		"the server refused a connection: max_connections, or the role's or database's CONNECTION LIMIT, is reached (SQLSTATE 53300); raise it (ALTER SYSTEM SET max_connections = N and restart the server; ALTER ROLE or ALTER DATABASE ... CONNECTION LIMIT N) or lower --threads"},
	"53100": {Limit, "disk_full",
		"the disk holding the PostgreSQL data directory is full (SQLSTATE 53100); free space or lower --table-size"},
	"53200": {Limit, "out_of_memory",
		"the PostgreSQL server ran out of memory (SQLSTATE 53200); lower work_mem or --threads, or give the server more memory"},
	"53400": {Limit, "configuration_limit",
		"a PostgreSQL configuration limit was exceeded (SQLSTATE 53400, e.g. max_locks_per_transaction); raise the setting the message names"},

	// Fatal, named so that they read well in counters and messages.
	"23505": {Fatal, "duplicate_key", ""},         // unique_violation
	"42P01": {Fatal, "no_such_table", ""},         // undefined_table
	"42P07": {Fatal, "index_exists", ""},          // duplicate_table (also for an index's name)
	"3D000": {Fatal, "unknown_database", ""},      // invalid_catalog_name
	"42P04": {Fatal, "database_exists", ""},       // duplicate_database
	"28P01": {Fatal, "access_denied", ""},         // invalid_password
	"28000": {Fatal, "access_denied", ""},         // invalid_authorization_specification (pg_hba.conf)
	"25P02": {Fatal, "in_failed_transaction", ""}, // in_failed_sql_transaction
}

// pgStatementTimeout is the start of the message of SQLSTATE 57014 that
// statement_timeout ends a statement with; 57014 otherwise is a cancel
// request ("canceling statement due to user request").
const pgStatementTimeout = "canceling statement due to statement timeout"

// pgInfo returns what is known about err when it carries a PostgreSQL
// error or one of pgconn's connection errors.
func pgInfo(err error) (codeInfo, bool) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if ci, ok := pgCodes[pe.Code]; ok {
			return ci, true
		}
		switch {
		case pe.Code == "57014" && strings.HasPrefix(pe.Message, pgStatementTimeout):
			return codeInfo{class: Fatal, name: "statement_timeout"}, true
		case pe.Code == "57014":
			// pgx sends a cancel request only when a statement's
			// context ends (as SQLite's interrupt).
			return codeInfo{class: Canceled, name: "interrupted"}, true
		case strings.HasPrefix(pe.Code, "08"): // connection_exception
			return codeInfo{class: ConnLost, name: "conn_lost"}, true
		}
		return codeInfo{class: Fatal, name: "pg_" + pe.Code}, true
	}
	if errors.Is(err, pgconn.ErrConnClosed) {
		return codeInfo{class: ConnLost, name: "conn_lost"}, true
	}
	return codeInfo{}, false
}

// SQLState returns the PostgreSQL SQLSTATE carried by err ("40P01" for a
// deadlock), or "" when err carries none (nil, another database's error,
// a network error). Code returns 0 for PostgreSQL errors: SQLSTATEs are
// not numbers.
func SQLState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// pgMatch reports whether err carries a PostgreSQL error whose SQLSTATE is
// one of codes.
func pgMatch(err error, codes []string) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	for _, c := range codes {
		if pe.Code == c {
			return true
		}
	}
	return false
}
