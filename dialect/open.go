package dialect

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers database/sql driver "sqlite"
)

// DB is an open connection pool with the dialect and configuration it was
// opened with. The pool keeps database/sql's defaults (unlimited open
// connections, 2 idle): workers should each hold a *sql.Conn, or the caller
// sets SetMaxOpenConns/SetMaxIdleConns to --threads.
type DB struct {
	*sql.DB
	Dialect Dialect
	Config  Config
}

// Open validates cfg, opens a pool and pings the database.
//
// MySQL: go-sql-driver with parseTime=true, interpolateParams=false (so
// statements are prepared on the server, as with sysbench's default
// --db-ps-mode=auto), a 10 s dial timeout, a 60 s write timeout and no read
// timeout (bound statements with their context).
//
// SQL Server: go-mssqldb's connector for driver name "sqlserver" (native
// "@p1" parameters, no rewriting of "?"), a 10 s dial timeout, "app name"
// vmbench; the context of the call that opens a connection (Open's ping, a
// later Conn or query) bounds the login too (see sqlserverConnector);
// encryption as go-mssqldb decides when no "encrypt" parameter is given
// (TLS for the login packet only, server certificate trusted).
//
// SQLite: the file is created if missing, but its directory must exist (the
// error names it); WAL journal mode and busy_timeout=5000 ms. The writers
// of one file in this process queue in arrival order (first in, first out)
// on one in-process lock per file, shared by every pool Open returns for
// it, from BEGIN IMMEDIATE (Dialect.BeginWrite) or a deferred transaction's
// first write to COMMIT or ROLLBACK, or for one autocommit write; a writer
// waits at most busy_timeout there and then fails as SQLITE_BUSY. Readers
// are not queued (WAL lets them read beside the writer). A connection
// handed back to the pool inside a transaction is closed, not reused.
//
// PostgreSQL: pgx's database/sql driver (pgx/v5/stdlib) on the
// configuration of Config.pgxConfig (connect_timeout 10 s,
// application_name vmbench, sslmode as libpq: $PGSSLMODE or prefer); the
// native *pgx.Conn beneath is reached for COPY (CopyFrom).
//
// cfg.Params override all of these. Errors: cfg.Validate's, or "connecting
// to <cfg without password>: <cause>" wrapping the driver's error, so that
// Classify, Code and Name work on it, followed by LimitHint's sentence or
// another hint where one applies.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var db *sql.DB
	switch cfg.Driver {
	case MySQL:
		mc, err := cfg.mysqlConfig()
		if err != nil {
			return nil, fmt.Errorf("connecting to %s: %w", cfg, err)
		}
		conn, err := mysql.NewConnector(mc)
		if err != nil {
			return nil, fmt.Errorf("connecting to %s: %w", cfg, err)
		}
		db = sql.OpenDB(conn)
	case SQLServer:
		conn, err := newSQLServerConnector(cfg.sqlserverDSN())
		if err != nil {
			return nil, fmt.Errorf("connecting to %s: %w", cfg, err)
		}
		db = sql.OpenDB(conn)
	case Postgres:
		pc, err := cfg.pgxConfig()
		if err != nil {
			return nil, fmt.Errorf("connecting to %s: %w", cfg, err)
		}
		db = stdlib.OpenDB(*pc)
	case SQLite:
		abs, err := filepath.Abs(cfg.SQLitePath)
		if err != nil {
			return nil, fmt.Errorf("--sqlite-path: %w", err)
		}
		dir := filepath.Dir(abs)
		if fi, err := os.Stat(dir); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("--sqlite-path: directory %s does not exist (create it first)", dir)
			}
			return nil, fmt.Errorf("--sqlite-path: %w", err)
		} else if !fi.IsDir() {
			return nil, fmt.Errorf("--sqlite-path: %s is not a directory", dir)
		}
		dsn, err := cfg.sqliteDSN()
		if err != nil {
			return nil, err
		}
		conn, err := newSQLiteConnector(dsn, abs, cfg.sqliteBusyTimeout(), cfg.Params["_txlock"])
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", cfg, err)
		}
		db = sql.OpenDB(conn)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, openError(cfg, err)
	}
	return &DB{DB: db, Dialect: cfg.Driver.Dialect(), Config: cfg}, nil
}

// openError wraps a failed first connection with what to check.
func openError(cfg Config, err error) error {
	hint := LimitHint(err)
	if hint == "" && cfg.Driver == Postgres {
		hint = postgresOpenHint(cfg, err)
	}
	if hint == "" {
		switch name := Name(err); {
		case name == "access_denied":
			hint = "check --mysql-user and --mysql-password"
			if cfg.Driver == SQLServer {
				hint += " (and that the server allows SQL Server authentication)"
			}
		case name == "unknown_database":
			hint = "create the database first (prepare does) or check --mysql-db"
		case Classify(err) != ConnLost:
		case cfg.Driver == MySQL && cfg.useSocket():
			hint = "is a server listening on socket " + cfg.Socket + "?"
		case cfg.Driver == SQLServer && cfg.port() == 0:
			hint = fmt.Sprintf("is SQL Server instance %s running on %s, and the SQL Server Browser reachable on UDP port 1434?", cfg.Instance, cfg.Host)
		case cfg.Driver == MySQL, cfg.Driver == SQLServer:
			hint = fmt.Sprintf("is a server listening on %s port %d?", cfg.Host, cfg.port())
		}
	}
	if hint != "" {
		return fmt.Errorf("connecting to %s: %w; %s", cfg, err, hint)
	}
	return fmt.Errorf("connecting to %s: %w", cfg, err)
}

// EnsureDatabase creates cfg.Database if it does not exist (MySQL: CREATE
// DATABASE IF NOT EXISTS `db`, connecting without a default database; SQL
// Server: IF DB_ID(N'db') IS NULL CREATE DATABASE [db], connected to
// master; PostgreSQL: CREATE DATABASE "db" unless pg_database lists it,
// connected to the database postgres). For SQLite it does nothing: the file is created by Open. It
// returns Validate's errors, an error when cfg.Database is empty, or Open's
// and the statement's errors.
func EnsureDatabase(ctx context.Context, cfg Config) error {
	return databaseDDL(ctx, cfg, ensureDatabaseSQL)
}

// CreateDatabase creates cfg.Database and fails if it exists already
// (MySQL: CREATE DATABASE `db`, error 1007; SQL Server: CREATE DATABASE
// [db], error 1801), so that a caller that will later drop it only ever
// drops what it created. For SQLite it fails if the file exists and
// otherwise does nothing (Open creates the file).
func CreateDatabase(ctx context.Context, cfg Config) error {
	if cfg.Driver == SQLite {
		if err := cfg.Validate(); err != nil {
			return err
		}
		if _, err := os.Stat(cfg.SQLitePath); err == nil {
			return fmt.Errorf("%s exists already", cfg.SQLitePath)
		}
		return nil
	}
	return databaseDDL(ctx, cfg, createDatabaseSQL)
}

// DropDatabase removes cfg.Database if it exists (MySQL: DROP DATABASE IF
// EXISTS `db`; SQL Server: dropDatabaseSQL's batch, which first sets the
// database SINGLE_USER WITH ROLLBACK IMMEDIATE, so that other sessions,
// rolled back and disconnected, do not block the drop). For SQLite it
// removes the file cfg.SQLitePath and its -wal, -shm and -journal
// companions; no pool may have it open.
func DropDatabase(ctx context.Context, cfg Config) error {
	if cfg.Driver == SQLite {
		if err := cfg.Validate(); err != nil {
			return err
		}
		var errs []error
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			if err := os.Remove(cfg.SQLitePath + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
	return databaseDDL(ctx, cfg, dropDatabaseSQL)
}

// databaseDDL runs the statement stmt builds for cfg.Database, connected
// without a default database (SQL Server: to master, so that the session
// is never in the database it drops).
func databaseDDL(ctx context.Context, cfg Config, stmt func(Driver, string) string) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.Driver == SQLite {
		return nil
	}
	if cfg.Database == "" {
		return errors.New("--mysql-db: empty; name the database")
	}
	admin := cfg.WithDatabase("")
	switch cfg.Driver {
	case SQLServer:
		admin.Database = "master"
	case Postgres:
		admin.Database = postgresAdminDatabase
	case MySQL, SQLite: // MySQL: none; SQLite returned above
	}
	db, err := Open(ctx, admin)
	if err != nil {
		return err
	}
	defer db.Close()
	q := stmt(cfg.Driver, cfg.Database)
	if cfg.Driver == Postgres && q == "" {
		// PostgreSQL has no CREATE DATABASE IF NOT EXISTS.
		var n int
		err := db.QueryRowContext(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", cfg.Database).Scan(&n)
		if err != nil || n > 0 {
			return err
		}
		q = createDatabaseSQL(cfg.Driver, cfg.Database)
	}
	if _, err := db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}

// ensureDatabaseSQL returns the statement creating database name unless it
// exists: MySQL "CREATE DATABASE IF NOT EXISTS `name`", SQL Server
// "IF DB_ID(N'name') IS NULL CREATE DATABASE [name]".
func ensureDatabaseSQL(d Driver, name string) string {
	q := d.Dialect().QuoteIdent(name)
	switch d {
	case SQLServer:
		return "IF DB_ID(" + nString(name) + ") IS NULL CREATE DATABASE " + q
	case Postgres:
		return "" // databaseDDL looks in pg_database first
	default: // MySQL
		return "CREATE DATABASE IF NOT EXISTS " + q
	}
}

// createDatabaseSQL returns "CREATE DATABASE" and the quoted name; it fails
// when the database exists.
func createDatabaseSQL(d Driver, name string) string {
	return "CREATE DATABASE " + d.Dialect().QuoteIdent(name)
}

// dropDatabaseSQL returns the statement dropping database name if it
// exists: MySQL "DROP DATABASE IF EXISTS `name`"; SQL Server one batch,
// "IF DB_ID(N'name') IS NOT NULL BEGIN ALTER DATABASE [name] SET
// SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE [name]; END" (DROP
// DATABASE IF EXISTS needs SQL Server 2016); PostgreSQL "DROP DATABASE IF
// EXISTS "name" WITH (FORCE)" (PostgreSQL 13 and later: the server ends
// the other sessions in the database first).
func dropDatabaseSQL(d Driver, name string) string {
	q := d.Dialect().QuoteIdent(name)
	if d == Postgres {
		return "DROP DATABASE IF EXISTS " + q + " WITH (FORCE)"
	}
	if d == SQLServer {
		return "IF DB_ID(" + nString(name) + ") IS NOT NULL BEGIN ALTER DATABASE " + q +
			" SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE " + q + "; END"
	}
	return "DROP DATABASE IF EXISTS " + q
}
