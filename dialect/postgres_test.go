package dialect

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func pgErr(code, msg string) *pgconn.PgError {
	return &pgconn.PgError{Severity: "ERROR", Code: code, Message: msg}
}

// TestClassifyPostgres pins the class and name of each SQLSTATE the
// workloads meet, wrapped as the workloads wrap them.
func TestClassifyPostgres(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		class   Class
		errName string
		hint    string // substring of LimitHint
	}{
		{"deadlock", fmt.Errorf("UPDATE sbtest1: %w", pgErr("40P01", "deadlock detected")), Retry, "deadlock", ""},
		{"serialization", pgErr("40001", "could not serialize access due to concurrent update"), Retry, "serialization_failure", ""},
		{"lock timeout", pgErr("55P03", "canceling statement due to lock timeout"), Retry, "lock_wait_timeout", ""},
		{"statement timeout", pgErr("57014", "canceling statement due to statement timeout"), Fatal, "statement_timeout", ""},
		{"cancel request", pgErr("57014", "canceling statement due to user request"), Canceled, "interrupted", ""},
		{"terminated", pgErr("57P01", "terminating connection due to administrator command"), ConnLost, "conn_lost", ""},
		{"connection failure", pgErr("08006", "connection failure"), ConnLost, "conn_lost", ""},
		{"protocol violation", pgErr("08P01", "protocol violation"), ConnLost, "conn_lost", ""},
		{"conn closed", fmt.Errorf("x: %w", pgconn.ErrConnClosed), ConnLost, "conn_lost", ""},
		{"too many clients", pgErr("53300", "sorry, too many clients already"), Limit, "too_many_connections", "max_connections"},
		{"disk full", pgErr("53100", "could not extend file"), Limit, "disk_full", "data directory is full"},
		{"duplicate key", pgErr("23505", "duplicate key value violates unique constraint"), Fatal, "duplicate_key", ""},
		{"no such table", pgErr("42P01", `relation "sbtest9" does not exist`), Fatal, "no_such_table", ""},
		{"unknown database", pgErr("3D000", `database "x" does not exist`), Fatal, "unknown_database", ""},
		{"password", pgErr("28P01", "password authentication failed"), Fatal, "access_denied", ""},
		{"other", pgErr("42601", "syntax error"), Fatal, "pg_42601", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.err); got != tt.class {
				t.Errorf("Classify = %v, want %v", got, tt.class)
			}
			if got := Name(tt.err); got != tt.errName {
				t.Errorf("Name = %q, want %q", got, tt.errName)
			}
			if got := LimitHint(tt.err); (tt.hint == "") != (got == "") || !strings.Contains(got, tt.hint) {
				t.Errorf("LimitHint = %q, want one containing %q", got, tt.hint)
			}
			if Code(tt.err) != 0 {
				t.Errorf("Code = %d, want 0 for a SQLSTATE", Code(tt.err))
			}
		})
	}
	if SQLState(fmt.Errorf("w: %w", pgErr("40P01", ""))) != "40P01" || SQLState(errors.New("x")) != "" {
		t.Error("SQLState does not find the SQLSTATE")
	}
}

func TestPostgresPredicates(t *testing.T) {
	for _, tt := range []struct {
		pred func(error) bool
		name string
		yes  string
		no   string
	}{
		{IsDeadlock, "IsDeadlock", "40P01", "40001"},
		{IsSerializationFailure, "IsSerializationFailure", "40001", "40P01"},
		{IsLockTimeout, "IsLockTimeout", "55P03", "57014"},
		{IsNoSuchTable, "IsNoSuchTable", "42P01", "42P07"},
		{IsUnknownDatabase, "IsUnknownDatabase", "3D000", "42P01"},
		{IsIndexExists, "IsIndexExists", "42P07", "42P01"},
		{IsAccessDenied, "IsAccessDenied", "28P01", "3D000"},
		{IsDuplicateKey, "IsDuplicateKey", "23505", "23503"},
	} {
		if !tt.pred(fmt.Errorf("w: %w", pgErr(tt.yes, ""))) || tt.pred(pgErr(tt.no, "")) || tt.pred(nil) {
			t.Errorf("%s: wrong answer for %s, %s or nil", tt.name, tt.yes, tt.no)
		}
	}
	if IsNoActiveTransaction(pgErr("25P01", "")) {
		t.Error("IsNoActiveTransaction is true for a PostgreSQL error")
	}
}

func TestPostgresDSN(t *testing.T) {
	tests := []struct {
		in   string
		want Config
		str  string
	}{
		{"postgres://sbtest:secret@db1:5433/sbtest?sslmode=disable",
			Config{Driver: Postgres, Host: "db1", Port: 5433, User: "sbtest", Password: "secret", Database: "sbtest", Params: map[string]string{"sslmode": "disable"}},
			"postgres://sbtest:xxxxx@db1:5433/sbtest?sslmode=disable"},
		{"postgresql://u@localhost/db",
			Config{Driver: Postgres, Host: "localhost", Port: 5432, User: "u", Database: "db"},
			"postgres://u@localhost:5432/db"},
		{"postgres://u@/db?host=/var/run/postgresql",
			Config{Driver: Postgres, Host: "localhost", Port: 5432, User: "u", Database: "db", Socket: "/var/run/postgresql"},
			"postgres://u@/db?host=/var/run/postgresql"},
		{"host=db2 port=6432 user=bench password='p w\\'d' dbname=tpcc sslmode=require",
			Config{Driver: Postgres, Host: "db2", Port: 6432, User: "bench", Password: "p w'd", Database: "tpcc", Params: map[string]string{"sslmode": "require"}},
			"postgres://bench:xxxxx@db2:6432/tpcc?sslmode=require"},
	}
	for _, tt := range tests {
		got, err := ParseDSN(tt.in)
		if err != nil {
			t.Errorf("ParseDSN(%q): %v", tt.in, err)
			continue
		}
		if got.String() != tt.str || fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("ParseDSN(%q) = %#v (%s), want %#v (%s)", tt.in, got, got, tt.want, tt.str)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("%q: Validate: %v", tt.in, err)
		}
	}
	for _, bad := range []string{"host=db1 port=x", "host='db1", "postgres://u@h:x/db"} {
		if _, err := ParseDSN(bad); err == nil {
			t.Errorf("ParseDSN(%q) succeeded", bad)
		}
	}
	if got := maskDSN("host=h password='se cret' user=u"); strings.Contains(got, "se cret") || strings.Contains(got, "cret") {
		t.Errorf("maskDSN left the password: %q", got)
	}
}

func TestPostgresValidateAndConfig(t *testing.T) {
	c := DefaultConfig(Postgres)
	if c.Port != 5432 || c.User != "sbtest" || c.Database != "sbtest" || c.Host != "localhost" {
		t.Fatalf("DefaultConfig(Postgres) = %+v", c)
	}
	c.Password = "hunter2"
	pc, err := c.pgxConfig()
	if err != nil {
		t.Fatal(err)
	}
	if pc.Host != "localhost" || pc.Port != 5432 || pc.User != "sbtest" || pc.Database != "sbtest" || pc.Password != "hunter2" ||
		pc.RuntimeParams["application_name"] != "vmbench" {
		t.Errorf("pgxConfig = host %q port %d user %q db %q params %v", pc.Host, pc.Port, pc.User, pc.Database, pc.RuntimeParams)
	}
	if strings.Contains(pc.ConnString(), "hunter2") || strings.Contains(c.String(), "hunter2") {
		t.Error("the password is in the connection string")
	}
	bad := c
	bad.Port, bad.User, bad.Host, bad.Database = 70000, "", "a,b", strings.Repeat("x", 64)
	err = bad.Validate()
	for _, want := range []string{"--pgsql-port: 70000", "--pgsql-user: empty", "--pgsql-host: \"a,b\" is a list", "--pgsql-db:"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %v, want %q in it", err, want)
		}
	}
}

func TestPostgresEnv(t *testing.T) {
	env := map[string]string{EnvPGHost: "envhost", EnvPGPort: "6543", EnvPGUser: "envuser", EnvPGPassword: "envpw", EnvPGDatabase: "envdb", EnvPGSSLMode: "disable"}
	getenv := func(k string) string { return env[k] }
	c := DefaultConfig(Postgres)
	given := map[string]bool{"user": true}
	c.User = "flaguser"
	if err := c.PostgresEnv(getenv, func(f string) bool { return given[f] }); err != nil {
		t.Fatal(err)
	}
	if c.Host != "envhost" || c.Port != 6543 || c.User != "flaguser" || c.Password != "envpw" || c.Database != "envdb" || c.Params["sslmode"] != "disable" {
		t.Errorf("after PostgresEnv: %+v", c)
	}
	env[EnvPGHost] = "/run/postgresql"
	c = DefaultConfig(Postgres)
	_ = c.PostgresEnv(getenv, nil)
	if c.Socket != "/run/postgresql" || c.Host != "" {
		t.Errorf("PGHOST as a directory: host %q socket %q", c.Host, c.Socket)
	}
	for _, bad := range []struct{ key, value, want string }{
		{EnvPGPort, "x", `$PGPORT: "x" is not a port`},
		{EnvPGPort, "0", `$PGPORT: "0" is not a port`},
		{EnvPGSSLMode, "bogus", `$PGSSLMODE: "bogus" is not an sslmode (valid: disable, allow, prefer, require, verify-ca, verify-full)`},
	} {
		old := env[bad.key]
		env[bad.key] = bad.value
		if err := c.PostgresEnv(getenv, nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s=%s: %v, want %q", bad.key, bad.value, err, bad.want)
		}
		env[bad.key] = old
	}
}

func TestSyncSerialSQL(t *testing.T) {
	const want = `SELECT setval(pg_get_serial_sequence('"sbtest1"', 'id'), GREATEST(MAX("id"), 1), MAX("id") IS NOT NULL) FROM "sbtest1"`
	if got := SyncSerialSQL("sbtest1", "id"); got != want {
		t.Errorf("SyncSerialSQL = %s\nwant %s", got, want)
	}
}
