package dialect

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/go-sql-driver/mysql"
)

func myErr(n uint16, msg string) *mysql.MySQLError {
	return &mysql.MySQLError{Number: n, Message: msg}
}

func TestClassify(t *testing.T) {
	deadlock := &mysql.MySQLError{Number: 1213, SQLState: [5]byte{'4', '0', '0', '0', '1'}, Message: "Deadlock found when trying to get lock; try restarting transaction"}
	opErr := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	tests := []struct {
		name      string
		err       error
		class     Class
		code      int
		errName   string
		wantHint  string // substring of LimitHint; "" = no hint
		wantClass string
	}{
		{"nil", nil, None, 0, "", "", "none"},
		{"deadlock", deadlock, Retry, 1213, "deadlock", "", "retry"},
		{"deadlock wrapped twice", fmt.Errorf("txn: %w", fmt.Errorf("UPDATE sbtest1: %w", deadlock)), Retry, 1213, "deadlock", "", "retry"},
		{"deadlock joined", errors.Join(errors.New("rollback failed"), deadlock), Retry, 1213, "deadlock", "", "retry"},
		{"lock wait timeout", myErr(1205, "Lock wait timeout exceeded; try restarting transaction"), Retry, 1205, "lock_wait_timeout", "", "retry"},
		{"record changed", myErr(1020, "Record has changed since last read in table 'sbtest1'"), Retry, 1020, "record_changed", "", "retry"},
		{"connection killed", myErr(1927, "Connection was killed"), ConnLost, 1927, "conn_lost", "", "conn_lost"},
		{"server shutdown", myErr(1053, "Server shutdown in progress"), ConnLost, 1053, "conn_lost", "", "conn_lost"},
		{"server gone", myErr(2006, "MySQL server has gone away"), ConnLost, 2006, "conn_lost", "", "conn_lost"},
		{"server lost", myErr(2013, "Lost connection to MySQL server during query"), ConnLost, 2013, "conn_lost", "", "conn_lost"},
		{"bad conn", driver.ErrBadConn, ConnLost, 0, "conn_lost", "", "conn_lost"},
		{"invalid conn wrapped", fmt.Errorf("point select: %w", mysql.ErrInvalidConn), ConnLost, 0, "conn_lost", "", "conn_lost"},
		{"EOF", io.EOF, ConnLost, 0, "conn_lost", "", "conn_lost"},
		{"unexpected EOF", fmt.Errorf("x: %w", io.ErrUnexpectedEOF), ConnLost, 0, "conn_lost", "", "conn_lost"},
		{"connection reset", opErr, ConnLost, 0, "conn_lost", "", "conn_lost"},
		{"broken pipe", fmt.Errorf("write: %w", syscall.EPIPE), ConnLost, 0, "conn_lost", "", "conn_lost"},
		{"connection refused", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, ConnLost, 0, "conn_lost", "", "conn_lost"},
		{"i/o timeout", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, ConnLost, 0, "conn_lost", "", "conn_lost"},
		{"too many connections", myErr(1040, "Too many connections"), Limit, 1040, "too_many_connections", "SET GLOBAL max_connections=N", "limit"},
		{"max_user_connections", myErr(1203, "User sbtest already has more than 'max_user_connections' active connections"), Limit, 1203, "max_user_connections", "max_user_connections", "limit"},
		{"user resource", myErr(1226, "User 'u' has exceeded the 'max_user_connections' resource (current value: 2)"), Limit, 1226, "user_resource_limit", "ALTER USER", "limit"},
		{"prepared statements", fmt.Errorf("prepare: %w", myErr(1461, "Can't create more than max_prepared_stmt_count statements (current value: 16382)")), Limit, 1461, "max_prepared_stmt_count", "9 x tables + 2", "limit"},
		{"table full", myErr(1114, "The table 'sbtest1' is full"), Limit, 1114, "table_full", "out of space", "limit"},
		{"duplicate key", myErr(1062, "Duplicate entry '1' for key 'PRIMARY'"), Fatal, 1062, "duplicate_key", "", "fatal"},
		{"unknown server error", myErr(1064, "You have an error in your SQL syntax"), Fatal, 1064, "mysql_1064", "", "fatal"},
		{"plain error", errors.New("boom"), Fatal, 0, "error", "", "fatal"},
		{"no rows", sql.ErrNoRows, Fatal, 0, "error", "", "fatal"},
		{"canceled", context.Canceled, Canceled, 0, "canceled", "", "canceled"},
		{"deadline", fmt.Errorf("run: %w", context.DeadlineExceeded), Canceled, 0, "deadline", "", "canceled"},
		// A read cut short by cancellation wraps both; the context wins.
		{"canceled and net error", errors.Join(context.Canceled, opErr), Canceled, 0, "canceled", "", "canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.err); got != tt.class {
				t.Errorf("Classify = %v, want %v", got, tt.class)
			}
			if got := Classify(tt.err).String(); got != tt.wantClass {
				t.Errorf("Classify().String() = %q, want %q", got, tt.wantClass)
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

func TestLimitHintText(t *testing.T) {
	// The sentences users read; keep them stable and specific.
	want := map[uint16]string{
		1040: "the server refused a connection: max_connections is reached (1040); raise max_connections (SET GLOBAL max_connections=N) or lower --threads",
		1461: "the server refused to prepare a statement: max_prepared_stmt_count is reached (1461); raise max_prepared_stmt_count (SET GLOBAL max_prepared_stmt_count=N; each thread prepares about 9 x tables + 2 statements for oltp_read_write) or lower --threads or --tables",
	}
	for n, w := range want {
		if got := LimitHint(myErr(n, "")); got != w {
			t.Errorf("LimitHint(%d) =\n  %q\nwant\n  %q", n, got, w)
		}
	}
	for n, ci := range mysqlCodes {
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
}

func TestClassString(t *testing.T) {
	for c, want := range map[Class]string{None: "none", Fatal: "fatal", Retry: "retry", ConnLost: "conn_lost", Limit: "limit", Canceled: "canceled", Class(99): "Class(99)"} {
		if got := c.String(); got != want {
			t.Errorf("Class(%d).String() = %q, want %q", int(c), got, want)
		}
	}
}
