package sysbench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"vmbench/dialect"
)

// TestPgSQLFlags: the --pgsql-* options and libpq's variables make the
// connection (flags over the environment over sysbench's defaults), the
// options of the other driver are refused by name, and the password shows
// nowhere.
func TestPgSQLFlags(t *testing.T) {
	env := map[string]string{"PGHOST": "envhost", "PGUSER": "envuser", "PGPASSWORD": "envsecret", "PGSSLMODE": "disable"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		args []string
		want dialect.Config // Driver, Host, Port, User, Database, Password, Socket compared
		err  string
	}{
		{args: []string{"--db-driver=pgsql"},
			want: dialect.Config{Host: "envhost", Port: 5432, User: "envuser", Database: "sbtest", Password: "envsecret"}},
		{args: []string{"--db-driver=postgres", "--pgsql-host=db1", "--pgsql-port=6432", "--pgsql-user=u", "--pgsql-password=flagsecret", "--pgsql-db=bench"},
			want: dialect.Config{Host: "db1", Port: 6432, User: "u", Database: "bench", Password: "flagsecret"}},
		{args: []string{"--db-driver=pgsql", "--pgsql-host=/run/postgresql"},
			want: dialect.Config{Socket: "/run/postgresql", Port: 5432, User: "envuser", Database: "sbtest", Password: "envsecret"}},
		{args: []string{"--db-driver=pgsql", "--mysql-host=x"}, err: "--mysql-host applies to --db-driver mysql, not pgsql"},
		{args: []string{"--pgsql-port=5433"}, err: "--pgsql-port applies to --db-driver pgsql"},
		{args: []string{"--db-driver=pgsql", "--pgsql-port=70000"}, err: `"70000" is not a port (1..65535`},
		{args: []string{"--db-driver=pgsql", "--pgsql-port=0"}, err: `for "--pgsql-port" flag: "0" is not a port (1..65535; leave the option out for the default)`},
		{args: []string{"--mysql-port=0"}, err: `for "--mysql-port" flag: "0" is not a port`},
		{args: []string{"--db-driver=pgsql", "--pgsql-db="}, err: "--pgsql-db: empty"},
	}
	for _, tt := range tests {
		c, err := parse("", flagMap(tt.args...), getenv)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%v: error %v, want %q", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tt.args, err)
			continue
		}
		got := c.Conn
		if got.Driver != dialect.Postgres || got.Host != tt.want.Host || got.Port != tt.want.Port || got.User != tt.want.User ||
			got.Database != tt.want.Database || got.Password != tt.want.Password || got.Socket != tt.want.Socket || got.Params["sslmode"] != "disable" {
			t.Errorf("%v: connection %+v, want %+v with sslmode=disable", tt.args, got, tt.want)
		}
		rec := c.RunConfig().Flags
		shown := fmt.Sprint(rec) + c.DialectConfig().String()
		if strings.Contains(shown, "secret") {
			t.Errorf("%v: the password shows in %s", tt.args, shown)
		}
		if rec["db-driver"] != "postgres" {
			t.Errorf("%v: recorded db-driver %q", tt.args, rec["db-driver"])
		}
	}
}

func TestRestartPostgres(t *testing.T) {
	for code, want := range map[string]bool{"40P01": true, "40001": true, "55P03": true, "23505": true, "23503": false, "42P01": false, "57014": false} {
		err := fmt.Errorf("UPDATE: %w", pgError(code))
		if got := (IgnoreErrors{}).restart(err, dialect.Postgres); got != want {
			t.Errorf("restart(%s) = %v, want %v", code, got, want)
		}
	}
}

func pgError(code string) error { return &pgconn.PgError{Severity: "ERROR", Code: code} }
