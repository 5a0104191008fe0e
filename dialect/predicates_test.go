package dialect

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	mssql "github.com/microsoft/go-mssqldb"
)

// predicates are the typed error predicates by name, for the matrix tests:
// each case lists the ones that hold, every other must not.
var predicates = map[string]func(error) bool{
	"deadlock":              IsDeadlock,
	"lock_timeout":          IsLockTimeout,
	"no_such_table":         IsNoSuchTable,
	"unknown_database":      IsUnknownDatabase,
	"index_exists":          IsIndexExists,
	"access_denied":         IsAccessDenied,
	"no_active_transaction": IsNoActiveTransaction,
	"conn_lost":             IsConnLost,
	"server_limit":          IsServerLimit,
}

// checkPredicates fails t unless exactly the predicates named in want
// hold for err.
func checkPredicates(t *testing.T, err error, want ...string) {
	t.Helper()
	var got []string
	for name, is := range predicates {
		if is(err) {
			got = append(got, name)
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("%q (%T): predicates %v hold, want %v", err, err, got, want)
	}
}

func TestPredicatesMySQL(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"nil", nil, nil},
		{"deadlock 1213", myErr(1213, "Deadlock found when trying to get lock; try restarting transaction"), []string{"deadlock"}},
		{"deadlock wrapped", fmt.Errorf("payment: %w", fmt.Errorf("UPDATE: %w", myErr(1213, "Deadlock found"))), []string{"deadlock"}},
		{"lock wait timeout 1205", myErr(1205, "Lock wait timeout exceeded; try restarting transaction"), []string{"lock_timeout"}},
		{"lock wait joined", errors.Join(errors.New("rollback failed"), myErr(1205, "Lock wait timeout exceeded")), []string{"lock_timeout"}},
		{"record changed 1020", myErr(1020, "Record has changed since last read"), nil},
		{"no such table 1146", myErr(1146, "Table 'sbtest.sbtest1' doesn't exist"), []string{"no_such_table"}},
		{"unknown database 1049", myErr(1049, "Unknown database 'sbtest'"), []string{"unknown_database"}},
		{"index exists 1061", myErr(1061, "Duplicate key name 'k_1'"), []string{"index_exists"}},
		{"access denied 1045", myErr(1045, "Access denied for user 'sbtest'@'localhost' (using password: YES)"), []string{"access_denied"}},
		{"duplicate key 1062", myErr(1062, "Duplicate entry '1' for key 'PRIMARY'"), nil},
		{"server gone 2006", myErr(2006, "MySQL server has gone away"), []string{"conn_lost"}},
		{"server lost 2013", myErr(2013, "Lost connection to MySQL server during query"), []string{"conn_lost"}},
		{"connection killed 1927", myErr(1927, "Connection was killed"), []string{"conn_lost"}},
		{"invalid conn", fmt.Errorf("point select: %w", mysql.ErrInvalidConn), []string{"conn_lost"}},
		{"bad conn", driver.ErrBadConn, []string{"conn_lost"}},
		{"too many connections 1040", myErr(1040, "Too many connections"), []string{"server_limit"}},
		{"prepared statements 1461", myErr(1461, "Can't create more than max_prepared_stmt_count statements"), []string{"server_limit"}},
		{"syntax 1064", myErr(1064, "You have an error in your SQL syntax"), nil},
		// The message alone decides nothing: a MySQL error is judged by its number.
		{"message without number", errors.New("Table 'x' doesn't exist; no such table"), nil},
		{"canceled", context.Canceled, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkPredicates(t, tt.err, tt.want...) })
	}
}

func TestPredicatesSQLServer(t *testing.T) {
	terminated := one(3621, "The statement has been terminated.")
	deadlock := msErr(mssql.Error{Number: 1205, State: 51, Class: 13, Message: "Transaction (Process ID 57) was deadlocked on lock resources with another process and has been chosen as the deadlock victim. Rerun the transaction."})
	tests := []struct {
		name string
		err  error
		want []string
	}{
		// SQL Server's 1205 is a deadlock, MySQL's a lock wait timeout.
		{"deadlock victim 1205", deadlock, []string{"deadlock"}},
		{"deadlock pointer", &deadlock, []string{"deadlock"}},
		{"lock request timeout 1222", msErr(one(1222, "Lock request time out period exceeded."), terminated), []string{"lock_timeout"}},
		{"update conflict 3960", msErr(one(3960, "Snapshot isolation transaction aborted due to update conflict.")), nil},
		{"invalid object 208", fmt.Errorf("SELECT: %w", msErr(one(208, "Invalid object name 'warehouse'."))), []string{"no_such_table"}},
		// A login to a missing database: 4060, then 18456; the first is the cause.
		{"cannot open database 4060", msErr(one(4060, `Cannot open database "tpcc" requested by the login. The login failed.`), one(18456, "Login failed for user 'sa'.")), []string{"unknown_database"}},
		{"login failed 18456", msErr(one(18456, "Login failed for user 'sa'.")), []string{"access_denied"}},
		{"index exists 1913", msErr(one(1913, "The operation failed because an index or statistics with name 'idx_customer' already exists on table 'customer'.")), []string{"index_exists"}},
		{"no transaction 3903", msErr(one(3903, "The ROLLBACK TRANSACTION request has no corresponding BEGIN TRANSACTION.")), []string{"no_active_transaction"}},
		{"session killed 596", msErr(one(596, "Cannot continue the execution because the session is in the kill state.")), []string{"conn_lost"}},
		{"stream error", mssql.StreamError{InnerError: fmt.Errorf("read: %w", driver.ErrBadConn)}, []string{"conn_lost"}},
		{"user connections 17809", msErr(one(17809, "Could not connect because the maximum number of '10' user connections has already been reached.")), []string{"server_limit"}},
		{"log full 9002", msErr(one(9002, "The transaction log for database 'tpcc' is full due to 'LOG_BACKUP'.")), []string{"server_limit"}},
		{"primary key 2627", msErr(one(2627, "Violation of PRIMARY KEY constraint 'PK_w'."), terminated), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkPredicates(t, tt.err, tt.want...) })
	}
}

// TestPredicatesSQLite provokes each error on a real SQLite database
// (modernc.org/sqlite's *sqlite.Error values) and asks every predicate.
func TestPredicatesSQLite(t *testing.T) {
	ctx := testContext(t)
	path := filepath.Join(t.TempDir(), "p.db")
	db := mustOpen(t, ctx, Config{Driver: SQLite, SQLitePath: path})
	d := db.Dialect
	mustExec(t, ctx, db, "CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER)", d.CreateIndex("t", "k_1", "k"), "INSERT INTO t VALUES (1, 1)")
	other := mustOpen(t, ctx, Config{Driver: SQLite, SQLitePath: path, Params: map[string]string{"_busy_timeout": "0"}})
	exec := func(q string) error {
		_, err := db.ExecContext(ctx, q)
		return err
	}
	// busy holds the write lock on a connection of db while another pool
	// writes.
	busy := func() error {
		c := mustConn(t, ctx, db)
		defer c.Close()
		mustExec(t, ctx, c, "BEGIN IMMEDIATE", "INSERT INTO t VALUES (2, 2)")
		defer mustExec(t, ctx, c, "ROLLBACK")
		_, err := other.ExecContext(ctx, "INSERT INTO t VALUES (3, 3)")
		return err
	}
	tests := []struct {
		name string
		err  func() error
		want []string
	}{
		{"no such table", func() error {
			_, err := db.QueryContext(ctx, "SELECT 1 FROM missing WHERE 1=0")
			return err
		}, []string{"no_such_table"}},
		{"index exists", func() error { return exec(d.CreateIndex("t", "k_1", "k")) }, []string{"index_exists"}},
		// SQLite says "already exists" of any schema object.
		{"table exists", func() error { return exec("CREATE TABLE t (id INTEGER)") }, []string{"index_exists"}},
		{"no transaction", func() error { return exec(d.Rollback()) }, []string{"no_active_transaction"}},
		{"busy (another pool)", busy, []string{"lock_timeout"}},
		{"busy (this process's write gate)", func() error { return &gateBusyError{0} }, []string{"lock_timeout"}},
		{"constraint", func() error { return exec("INSERT INTO t VALUES (1, 1)") }, nil},
		{"syntax", func() error { return exec("SELEC 1") }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.err()
			if err == nil {
				t.Fatal("no error")
			}
			checkPredicates(t, err, tt.want...)
		})
	}
}

// TestPredicateSQLiteTextNeedsSQLiteError: the SQLite phrases match only
// inside a SQLite error, not in any error's text.
func TestPredicateSQLiteTextNeedsSQLiteError(t *testing.T) {
	for _, msg := range []string{"no such table: t", "index k_1 already exists", "cannot rollback - no transaction is active"} {
		if err := errors.New(msg); IsNoSuchTable(err) || IsIndexExists(err) || IsNoActiveTransaction(err) {
			t.Errorf("%q: a plain error matched", msg)
		}
		if strings.Contains(myErr(1064, msg).Error(), msg) && (IsNoSuchTable(myErr(1064, msg)) || IsIndexExists(myErr(1064, msg))) {
			t.Errorf("%q: a MySQL 1064 matched by its text", msg)
		}
	}
}
