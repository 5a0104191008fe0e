package tpcc

import (
	"errors"
	"strings"
	"testing"

	"vmbench/dialect"
)

// The dialect's messages name sysbench's options; tpcc's say its own,
// and the error underneath is still the dialect's.
func TestInTPCCWords(t *testing.T) {
	c := DefaultConfig()
	c.Conn.Driver, c.Conn.Host, c.Conn.Database = dialect.Postgres, "127.0.0.1", strings.Repeat("x", 70)
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "--db: ") || strings.Contains(err.Error(), "--pgsql-") {
		t.Errorf("Validate: %v; want --db named, no --pgsql-* option", err)
	}
	base := errors.New("database does not exist: create the database first (prepare does) or check --pgsql-db")
	got := inTPCCWords(base)
	if got.Error() != "database does not exist: create the database first (prepare does) or check --db" || !errors.Is(got, base) {
		t.Errorf("inTPCCWords: %q (is the original: %v)", got, errors.Is(got, base))
	}
	if inTPCCWords(nil) != nil {
		t.Error("inTPCCWords(nil) is not nil")
	}
}

// On PostgreSQL the libpq variables stand in for the options not given,
// as in psql and sysbench; options given win.
func TestPostgresEnvironment(t *testing.T) {
	env := map[string]string{"PGHOST": "envhost", "PGPORT": "6543", "PGUSER": "envuser", "PGDATABASE": "envdb"}
	getenv := func(k string) string { return env[k] }
	c, err := parse(map[string]string{"db-driver": "postgres", "user": "flaguser"}, getenv)
	if err != nil || c.Conn.Host != "envhost" || c.Conn.Port != 6543 || c.Conn.User != "flaguser" || c.Conn.Database != "envdb" {
		t.Errorf("parse: %+v, %v", c.Conn, err)
	}
	if c, err := parse(map[string]string{"db-driver": "mysql"}, getenv); err != nil || c.Conn.Host == "envhost" || c.Conn.Port == 6543 {
		t.Errorf("MySQL read the PG* variables: %+v, %v", c.Conn, err)
	}
	env["PGPORT"] = "0"
	if _, err := parse(map[string]string{"db-driver": "postgres"}, getenv); err == nil || !strings.Contains(err.Error(), "$PGPORT") {
		t.Errorf("PGPORT=0: %v", err)
	}
}
