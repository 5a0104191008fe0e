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
// SQLite: the file is created if missing, but its directory must exist (the
// error names it); WAL journal mode and busy_timeout=5000 ms.
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
		if db, err = sql.Open("sqlite", dsn); err != nil {
			return nil, fmt.Errorf("opening %s: %w", cfg, err)
		}
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
	if hint == "" {
		switch Code(err) {
		case 1045:
			hint = "check --mysql-user and --mysql-password"
		case 1049:
			hint = "create the database first (prepare does) or check --mysql-db"
		default:
			if Classify(err) == ConnLost && cfg.Driver == MySQL {
				if cfg.useSocket() {
					hint = "is a server listening on socket " + cfg.Socket + "?"
				} else {
					hint = fmt.Sprintf("is a server listening on %s port %d?", cfg.Host, cfg.port())
				}
			}
		}
	}
	if hint != "" {
		return fmt.Errorf("connecting to %s: %w; %s", cfg, err, hint)
	}
	return fmt.Errorf("connecting to %s: %w", cfg, err)
}

// EnsureDatabase creates cfg.Database if it does not exist (MySQL: CREATE
// DATABASE IF NOT EXISTS `db`, connecting without a default database). For
// SQLite it does nothing: the file is created by Open. It returns
// Validate's errors, an error when cfg.Database is empty, or Open's and the
// statement's errors.
func EnsureDatabase(ctx context.Context, cfg Config) error {
	return databaseDDL(ctx, cfg, "CREATE DATABASE IF NOT EXISTS ")
}

// CreateDatabase creates cfg.Database and fails if it exists already
// (MySQL: CREATE DATABASE `db`, error 1007), so that a caller that will
// later drop it only ever drops what it created. For SQLite it fails if
// the file exists and otherwise does nothing (Open creates the file).
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
	return databaseDDL(ctx, cfg, "CREATE DATABASE ")
}

// DropDatabase removes cfg.Database if it exists (MySQL: DROP DATABASE IF
// EXISTS `db`). For SQLite it removes the file cfg.SQLitePath and its -wal,
// -shm and -journal companions; no pool may have it open.
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
	return databaseDDL(ctx, cfg, "DROP DATABASE IF EXISTS ")
}

func databaseDDL(ctx context.Context, cfg Config, stmt string) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.Driver == SQLite {
		return nil
	}
	if cfg.Database == "" {
		return errors.New("--mysql-db: empty; name the database")
	}
	db, err := Open(ctx, cfg.WithDatabase(""))
	if err != nil {
		return err
	}
	defer db.Close()
	q := stmt + db.Dialect.QuoteIdent(cfg.Database)
	if _, err := db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}
