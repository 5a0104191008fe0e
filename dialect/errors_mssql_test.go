package dialect

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	mssql "github.com/microsoft/go-mssqldb"
)

// SQL Server cannot run here, so these tests build the errors go-mssqldb
// v1.11.2 returns by hand: mssql.Error with Number and Message as the
// server sends them (Number is the last error of the request, All lists
// them all), mssql.ServerError, mssql.StreamError and the unwrapped
// "failed to send" errors. mssql.RetryableError cannot be built outside
// go-mssqldb (its field is unexported and its zero value panics in Error);
// it answers errors.Is(err, driver.ErrBadConn), which the "bad conn" case
// covers. That the server really sends these numbers in these orders is
// not verified here; TestSQLServerOpenNoServer sees real go-mssqldb errors
// for a refused and a hung-up connection.

// msErr builds a mssql.Error the way go-mssqldb's doneStruct.getError does:
// the last of the errors, with All holding every one.
func msErr(errs ...mssql.Error) mssql.Error {
	e := errs[len(errs)-1]
	e.All = append([]mssql.Error(nil), errs...)
	return e
}

func one(n int32, msg string) mssql.Error { return mssql.Error{Number: n, Class: 16, Message: msg} }

func TestClassifySQLServer(t *testing.T) {
	deadlock := msErr(mssql.Error{Number: 1205, State: 51, Class: 13, Message: "Transaction (Process ID 57) was deadlocked on lock resources with another process and has been chosen as the deadlock victim. Rerun the transaction."})
	terminated := one(3621, "The statement has been terminated.")
	tests := []struct {
		name     string
		err      error
		class    Class
		code     int
		errName  string
		wantHint string // substring of LimitHint; "" = no hint
	}{
		{"deadlock", deadlock, Retry, 1205, "deadlock", ""},
		{"deadlock wrapped", fmt.Errorf("new order: %w", deadlock), Retry, 1205, "deadlock", ""},
		{"deadlock pointer", &deadlock, Retry, 1205, "deadlock", ""},
		{"deadlock without All", mssql.Error{Number: 1205, Message: "chosen as the deadlock victim"}, Retry, 1205, "deadlock", ""},
		{"lock timeout", msErr(one(1222, "Lock request time out period exceeded.")), Retry, 1222, "lock_wait_timeout", ""},
		{"update conflict", msErr(one(3960, "Snapshot isolation transaction aborted due to update conflict.")), Retry, 3960, "update_conflict", ""},
		// The server follows a constraint violation with 3621; the cause
		// decides, and Code reports it.
		{"primary key", msErr(one(2627, "Violation of PRIMARY KEY constraint 'PK_w'. Cannot insert duplicate key in object 'dbo.warehouse'. The duplicate key value is (1)."), terminated), Fatal, 2627, "duplicate_key", ""},
		{"unique index", msErr(one(2601, "Cannot insert duplicate key row in object 'dbo.customer' with unique index 'ix'."), terminated), Fatal, 2601, "duplicate_key", ""},
		{"out of memory", msErr(one(701, "There is insufficient system memory in resource pool 'default' to run this query.")), Limit, 701, "out_of_memory", "max server memory"},
		{"lock resources", msErr(one(1204, "The instance of the SQL Server Database Engine cannot obtain a LOCK resource at this time.")), Limit, 1204, "lock_resources", "sp_configure 'locks'"},
		{"filegroup full", msErr(one(1105, "Could not allocate space for object 'dbo.stock' in database 'tpcc' because the 'PRIMARY' filegroup is full.")), Limit, 1105, "table_full", "MAXSIZE"},
		{"log full", msErr(one(9002, "The transaction log for database 'tpcc' is full due to 'LOG_BACKUP'.")), Limit, 9002, "log_full", "RECOVERY SIMPLE"},
		{"user connections", msErr(one(17809, "Could not connect because the maximum number of '10' user connections has already been reached.")), Limit, 17809, "too_many_connections", "sp_configure 'user connections'"},
		// A login to a missing database: 4060, then 18456; the first is the cause.
		{"cannot open database", msErr(one(4060, `login error: Cannot open database "tpcc" requested by the login. The login failed.`), one(18456, "login error: Login failed for user 'sa'.")), Fatal, 4060, "unknown_database", ""},
		{"login failed", msErr(one(18456, "login error: Login failed for user 'sa'.")), Fatal, 18456, "access_denied", ""},
		{"invalid object", msErr(one(208, "Invalid object name 'warehouse'.")), Fatal, 208, "no_such_table", ""},
		{"database exists", msErr(one(1801, "Database 'tpcc' already exists. Choose a different database name.")), Fatal, 1801, "database_exists", ""},
		{"unknown number", msErr(one(102, "Incorrect syntax near 'FOR'.")), Fatal, 102, "mssql_102", ""},
		{"unknown numbers: the first", msErr(one(156, "Incorrect syntax near the keyword 'FROM'."), one(102, "Incorrect syntax near ')'.")), Fatal, 156, "mssql_156", ""},
		{"session killed", msErr(one(596, "Cannot continue the execution because the session is in the kill state.")), ConnLost, 596, "conn_lost", ""},
		{"shutdown", msErr(one(6005, "SHUTDOWN is in progress.")), ConnLost, 6005, "conn_lost", ""},
		// Connection loss as go-mssqldb reports it.
		{"server error", mssql.ServerError{}, ConnLost, 0, "conn_lost", ""},
		{"stream error", mssql.StreamError{InnerError: io.ErrUnexpectedEOF}, ConnLost, 0, "conn_lost", ""},
		{"stream error wrapped", fmt.Errorf("payment: %w", mssql.StreamError{InnerError: errors.New("invalid size")}), ConnLost, 0, "conn_lost", ""},
		{"read on closed connection", &net.OpError{Op: "Read", Err: io.EOF}, ConnLost, 0, "conn_lost", ""},
		{"bad conn", fmt.Errorf("stock level: %w", driver.ErrBadConn), ConnLost, 0, "conn_lost", ""},
		{"send batch failed", errors.New("failed to send SQL Batch: write tcp 10.0.0.1:5000->10.0.0.2:1433: write: broken pipe"), ConnLost, 0, "conn_lost", ""},
		{"send rpc failed", fmt.Errorf("x: %w", errors.New("failed to send RPC: write tcp: connection reset by peer")), ConnLost, 0, "conn_lost", ""},
		{"commit send failed", errors.New("faild to send CommitXact: EOF"), ConnLost, 0, "conn_lost", ""},
		{"connection reset text", errors.New("read tcp 10.0.0.1:5000->10.0.0.2:1433: read: connection reset by peer"), ConnLost, 0, "conn_lost", ""},
		// Context errors win, as for the other drivers.
		{"canceled", errors.Join(context.Canceled, mssql.StreamError{InnerError: io.EOF}), Canceled, 0, "canceled", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.err); got != tt.class {
				t.Errorf("Classify = %v, want %v", got, tt.class)
			}
			if got := Code(tt.err); got != tt.code {
				t.Errorf("Code = %d, want %d", got, tt.code)
			}
			if got := Name(tt.err); got != tt.errName {
				t.Errorf("Name = %q, want %q", got, tt.errName)
			}
			hint := LimitHint(tt.err)
			switch {
			case tt.wantHint == "" && hint != "":
				t.Errorf("LimitHint = %q, want none", hint)
			case tt.wantHint != "" && !strings.Contains(hint, tt.wantHint):
				t.Errorf("LimitHint = %q, want it to contain %q", hint, tt.wantHint)
			}
		})
	}
}

func TestSQLServerCodesTable(t *testing.T) {
	for n, ci := range mssqlCodes {
		if ci.class == Limit && (ci.hint == "" || !strings.Contains(ci.hint, fmt.Sprintf("(%d", n))) {
			t.Errorf("Limit code %d: hint %q does not name the code", n, ci.hint)
		}
		if ci.class != Limit && ci.hint != "" {
			t.Errorf("code %d is %v but has a hint", n, ci.class)
		}
		if ci.name == "" {
			t.Errorf("code %d has no name", n)
		}
	}
	// Names shared with MySQL mean the same thing in counters.
	for my, ms := range map[uint16]int32{1213: 1205, 1205: 1222, 1062: 2627, 1045: 18456, 1049: 4060, 1146: 208, 1040: 17809, 1114: 1105} {
		if mysqlCodes[my].name != mssqlCodes[ms].name || mysqlCodes[my].class != mssqlCodes[ms].class {
			t.Errorf("MySQL %d (%v %s) and SQL Server %d (%v %s) differ", my, mysqlCodes[my].class, mysqlCodes[my].name, ms, mssqlCodes[ms].class, mssqlCodes[ms].name)
		}
	}
}

// TestOpenErrorSQLServer checks the hints Open adds to SQL Server errors.
func TestOpenErrorSQLServer(t *testing.T) {
	cfg := Config{Driver: SQLServer, Host: "db1", Port: 1433, User: "sa", Password: "hunter2"}
	for _, tt := range []struct {
		err  error
		cfg  Config
		want string
	}{
		{msErr(one(18456, "login error: Login failed for user 'sa'.")), cfg, "check --mysql-user and --mysql-password (and that the server allows SQL Server authentication)"},
		{msErr(one(4060, "Cannot open database"), one(18456, "Login failed")), cfg, "create the database first (prepare does) or check --mysql-db"},
		{msErr(one(17809, "user connections")), cfg, "sp_configure 'user connections'"},
		{&net.OpError{Op: "dial", Err: errors.New("refused")}, cfg, "is a server listening on db1 port 1433?"},
		{&net.OpError{Op: "dial", Err: errors.New("refused")}, Config{Driver: SQLServer, Host: "db1", User: "sa", Instance: "BENCH"},
			"is SQL Server instance BENCH running on db1, and the SQL Server Browser reachable on UDP port 1434?"},
	} {
		msg := openError(tt.cfg, tt.err).Error()
		if !strings.Contains(msg, tt.want) || !strings.HasPrefix(msg, "connecting to sqlserver://sa") {
			t.Errorf("openError(%v) = %q, want it to contain %q", tt.err, msg, tt.want)
		}
		if strings.Contains(msg, "hunter2") {
			t.Errorf("openError shows the password: %q", msg)
		}
	}
}
