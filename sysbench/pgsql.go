package sysbench

// PostgreSQL (issue 14): sysbench 1.0's pgsql driver options, the
// connection they make, the COPY loader and the server's connection limit.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"vmbench/dialect"
	"vmbench/internal/flagvalue"
	"vmbench/internal/textfmt"
)

// PgSQLOptions are sysbench 1.0's pgsql driver options (src/drivers/pgsql/
// drv_pgsql.c), used with --db-driver pgsql (or postgres). Defaults are
// sysbench's: localhost, 5432, sbtest, no password, sbtest. A value not
// given as a flag comes from libpq's variable when it is set ($PGHOST,
// $PGPORT, $PGUSER, $PGPASSWORD, $PGDATABASE; $PGSSLMODE sets sslmode), so
// flags win over the environment and the environment over the defaults.
type PgSQLOptions struct {
	Host     string // --pgsql-host
	Port     int    // --pgsql-port
	User     string // --pgsql-user
	Password string // --pgsql-password; never in output or Results
	DB       string // --pgsql-db
}

// DefaultPgSQLOptions returns sysbench 1.0's pgsql defaults.
func DefaultPgSQLOptions() PgSQLOptions {
	return PgSQLOptions{Host: dialect.DefaultMySQLHost, Port: dialect.DefaultPostgresPort, User: dialect.DefaultMySQLUser, DB: dialect.DefaultDatabase}
}

// pgsqlFlags are the --pgsql-* options' names, in pgFieldOf's order.
var pgsqlFlags = []string{"pgsql-host", "pgsql-port", "pgsql-user", "pgsql-password", "pgsql-db"}

// mysqlOnlyFlags are the options that mean nothing to PostgreSQL.
var mysqlOnlyFlags = []string{"mysql-host", "mysql-port", "mysql-socket", "mysql-user", "mysql-password", "mysql-db", "mysql-ignore-errors"}

func (c *Config) bindPgSQLFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.PgSQL.Host, "pgsql-host", c.PgSQL.Host, "PostgreSQL server host (default $PGHOST, else localhost; a directory is a Unix socket directory)")
	fs.Var(flagvalue.Parsed(&c.PgSQL.Port, flagvalue.ParsePort, "int"), "pgsql-port", "PostgreSQL server port ($PGPORT when not given)")
	fs.StringVar(&c.PgSQL.User, "pgsql-user", c.PgSQL.User, "PostgreSQL user (default $PGUSER, else sbtest)")
	fs.StringVar(&c.PgSQL.Password, "pgsql-password", c.PgSQL.Password, "PostgreSQL password (default $PGPASSWORD; prefer the environment: flags show in ps)")
	fs.StringVar(&c.PgSQL.DB, "pgsql-db", c.PgSQL.DB, "PostgreSQL database (default $PGDATABASE, else sbtest; prepare creates it when missing)")
}

// resolveConn completes the connection after the flags are parsed. With
// --db-driver postgres, Conn is made from the --pgsql-* options, then
// libpq's variables for the ones not given (changed reports a flag given,
// by name), and --mysql-* options given are refused; with another driver,
// --pgsql-* options given are refused. Errors name the flags.
func (c *Config) resolveConn(getenv func(string) string, changed func(string) bool) error {
	if c.Conn.Driver != dialect.Postgres {
		var errs []error
		for _, f := range pgsqlFlags {
			if changed(f) {
				errs = append(errs, fmt.Errorf("--%s applies to --db-driver pgsql; add --db-driver pgsql or drop it", f))
			}
		}
		return errors.Join(errs...)
	}
	var errs []error
	for _, f := range mysqlOnlyFlags {
		if changed(f) {
			errs = append(errs, fmt.Errorf("--%s applies to --db-driver mysql, not pgsql; use the --pgsql-* options", f))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	params := c.Conn.Params
	c.Conn = dialect.DefaultConfig(dialect.Postgres)
	c.Conn.Params = params
	o := c.PgSQL
	c.Conn.User, c.Conn.Port, c.Conn.Password, c.Conn.Database = o.User, o.Port, o.Password, o.DB
	c.Conn.Host = o.Host
	if strings.HasPrefix(o.Host, "/") {
		c.Conn.Host, c.Conn.Socket = "", o.Host
	}
	return c.Conn.PostgresEnv(getenv, func(field string) bool { return changed("pgsql-" + field) })
}

// restartPostgres reports whether err restarts the event on PostgreSQL, as
// sysbench 1.0's pgsql driver does (drv_pgsql.c: SQLSTATE 40P01
// deadlock_detected, 40001 serialization_failure and 23505
// unique_violation are "ignorable"), plus 55P03 lock_not_available
// (lock_timeout), the counterpart of MySQL's 1205. 23505 is what two
// events that delete and re-insert the same id meet under READ COMMITTED:
// the second DELETE finds the row gone, and its INSERT then collides with
// the first event's new row.
func restartPostgres(err error) bool {
	return dialect.Classify(err) == dialect.Retry || dialect.IsDuplicateKey(err)
}

// checkPostgresLimits compares conns connections (the connection of q is
// one of them) with the server's max_connections less
// superuser_reserved_connections and the client sessions other than q's.
func checkPostgresLimits(ctx context.Context, q queryer, conns int) error {
	var maxConns, reserved, others int64
	query := "SELECT current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int, " +
		"(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid())"
	if err := q.QueryRowContext(ctx, query).Scan(&maxConns, &reserved, &others); err != nil {
		return fmt.Errorf("reading the server's max_connections: %w", err)
	}
	if free := maxConns - reserved - others; int64(conns) > free {
		return flagErr("--threads: %d connections, but the server's max_connections is %s, %s of them reserved for superusers, and other clients hold %s (%s free); raise it (ALTER SYSTEM SET max_connections = %d, then restart the server) or use fewer threads",
			conns, textfmt.Thousands(maxConns), textfmt.Thousands(reserved), textfmt.Thousands(others), textfmt.Thousands(max(free, 0)), int64(conns)+reserved+others+10)
	}
	return nil
}

// copyColumns are the columns the COPY loader writes: id too, so that the
// ids are 1..table-size whatever the sequence says; with --auto-inc=on the
// SERIAL sequence is then moved past them (dialect.SyncSerialSQL), so
// that oltp_insert's INSERTs without id go on from table-size+1, as after
// sysbench's INSERTs.
var copyColumns = []string{"id", "k", "c", "pad"}

// copyRows loads the rest of src into table n with one COPY (all rows or
// none), counting rows and bytes into p.
func copyRows(ctx context.Context, conn *sql.Conn, d dialect.Dialect, n int, autoInc bool, src *rowSource, p *loadProgress) error {
	cs := &copySource{src: src, p: p}
	_, err := dialect.CopyFrom(ctx, conn, d, tableName(n), copyColumns, cs)
	cs.report()
	if err != nil {
		return err
	}
	if autoInc {
		q := dialect.SyncSerialSQL(tableName(n), "id")
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// copySource is the dialect.CopySource of one table: id, k, c, pad, the
// values and random draws of rowSource.appendRow.
type copySource struct {
	src     *rowSource
	row     [4]any
	c, pad  []byte
	pending int64
	bytes   int64
	p       *loadProgress
}

// Next advances to the next row.
func (s *copySource) Next() bool { return !s.src.done() }

// Values draws the row's k, c and pad and returns id, k, c, pad.
func (s *copySource) Values() ([]any, error) {
	r := s.src
	k := r.rnd.K(r.size) // the order of appendRow's draws
	s.c = r.rnd.AppendC(s.c[:0])
	s.pad = r.rnd.AppendPad(s.pad[:0])
	s.row = [4]any{r.next, k, string(s.c), string(s.pad)}
	r.next++
	s.bytes += int64(len(s.c) + len(s.pad) + 16)
	if s.pending++; s.pending == progressEvery {
		s.report()
	}
	return s.row[:], nil
}

// Err returns nil: generated rows do not fail.
func (s *copySource) Err() error { return nil }

// report adds the rows and bytes not yet counted to the progress.
func (s *copySource) report() {
	s.p.rows.Add(s.pending)
	s.p.bytes.Add(s.bytes)
	s.pending, s.bytes = 0, 0
}
