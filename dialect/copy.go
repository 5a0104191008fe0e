package dialect

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// This file copies a whole database and names the engine that holds it:
// what a campaign needs to restore a pre-built data set instead of
// loading the data again.

// ServerVersion returns the engine and version cfg connects to, as
// "<driver> <version>": "sqlite 3.46.0" (sqlite_version()), "mysql
// 11.4.2-MariaDB-log" (VERSION()), "sqlserver 16.0.4135.4"
// (SERVERPROPERTY('ProductVersion')), "postgres 15.14 (Debian
// 15.14-0+deb12u1)" (SHOW server_version). Errors are Open's or the
// query's.
func ServerVersion(ctx context.Context, cfg Config) (string, error) {
	q := map[Driver]string{
		SQLite:    "SELECT sqlite_version()",
		MySQL:     "SELECT VERSION()",
		SQLServer: "SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128))",
		Postgres:  "SHOW server_version",
	}[cfg.Driver]
	if q == "" {
		return "", fmt.Errorf("driver %q: no version query", cfg.Driver)
	}
	if cfg.Driver == SQLite {
		if _, err := os.Stat(cfg.SQLitePath); err != nil {
			return "", fmt.Errorf("reading the SQLite version: %w", err) // Open would create the file
		}
	}
	db, err := Open(ctx, cfg)
	if err != nil {
		return "", err
	}
	defer db.Close()
	var v string
	if err := db.QueryRowContext(ctx, q).Scan(&v); err != nil {
		return "", fmt.Errorf("%s: %w", q, err)
	}
	return string(cfg.Driver) + " " + strings.TrimSpace(v), nil
}

// CopyDatabase copies every table of the database src into dst, on the
// same engine:
//   - SQLite: VACUUM INTO dst.SQLitePath, a consistent copy of the file
//     (indexes included) that fails when dst's file exists;
//   - MySQL, MariaDB: dst must exist and hold no tables; each base table
//     of src is made in dst with CREATE TABLE ... LIKE (columns, indexes,
//     engine; not foreign keys, which the workloads do not use) and
//     filled with INSERT ... SELECT *, so the auto-increment counter ends
//     past the copied ids. src and dst must be on one server;
//   - PostgreSQL: dst must exist and hold no tables; it is made again
//     with CREATE DATABASE dst TEMPLATE src (see copyPostgres), which
//     needs no session on src. src and dst must be on one server.
//
// SQL Server is not supported (a backup and restore is its way). Errors
// name the statement that failed.
func CopyDatabase(ctx context.Context, src, dst Config) error {
	if src.Driver != dst.Driver {
		return fmt.Errorf("copy from %s to %s: not the same engine", src.Driver, dst.Driver)
	}
	switch src.Driver {
	case SQLite:
		return copySQLite(ctx, src, dst)
	case MySQL, Postgres:
		if src.Host != dst.Host || src.Port != dst.Port {
			return fmt.Errorf("copy from %s:%d to %s:%d: a database is copied within one server", src.Host, src.Port, dst.Host, dst.Port)
		}
		if src.Driver == Postgres {
			return copyPostgres(ctx, src, dst)
		}
		return copyMySQL(ctx, src, dst)
	default: // SQL Server
		return fmt.Errorf("copying a %s database is not supported (use its backup and restore)", src.Driver)
	}
}

func copySQLite(ctx context.Context, src, dst Config) error {
	if _, err := os.Stat(dst.SQLitePath); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("copy to %s: the file exists already", dst.SQLitePath)
	}
	if _, err := os.Stat(src.SQLitePath); err != nil {
		return fmt.Errorf("copy from %s: %w", src.SQLitePath, err)
	}
	db, err := Open(ctx, src)
	if err != nil {
		return err
	}
	defer db.Close()
	q := "VACUUM INTO " + quoteSQLiteString(dst.SQLitePath)
	if _, err := db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}

func quoteSQLiteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func copyMySQL(ctx context.Context, src, dst Config) error {
	db, err := Open(ctx, dst)
	if err != nil {
		return err
	}
	defer db.Close()
	if have, err := mysqlTables(ctx, db, dst.Database); err != nil {
		return err
	} else if len(have) > 0 {
		return fmt.Errorf("copy to %s: it holds tables already (%s)", dst.Database, strings.Join(have, ", "))
	}
	names, err := mysqlTables(ctx, db, src.Database)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return fmt.Errorf("copy from %s: it has no tables", src.Database)
	}
	d := db.Dialect
	for _, t := range names {
		from, to := d.QuoteIdent(src.Database)+"."+d.QuoteIdent(t), d.QuoteIdent(dst.Database)+"."+d.QuoteIdent(t)
		for _, q := range []string{"CREATE TABLE " + to + " LIKE " + from, "INSERT INTO " + to + " SELECT * FROM " + from} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
	}
	return nil
}

// Tables returns the names of the base tables (not views) of the
// database cfg names, sorted: MySQL and MariaDB from
// information_schema.tables of the schema cfg.Database (connected without
// a default database); PostgreSQL from information_schema.tables of the
// current schema (public unless search_path says otherwise), connected to
// cfg.Database itself, since each database has its own catalogue; SQLite
// from sqlite_master, without its own sqlite_* tables (the file must
// exist: Open would create it). A database that does not exist is Open's
// error (IsUnknownDatabase on MySQL and PostgreSQL); SQL Server is not
// supported.
func Tables(ctx context.Context, cfg Config) ([]string, error) {
	var q string
	switch cfg.Driver {
	case MySQL:
		return tablesOf(ctx, cfg.WithDatabase(""), func(db *DB) ([]string, error) { return mysqlTables(ctx, db, cfg.Database) })
	case Postgres:
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"
	case SQLite:
		if _, err := os.Stat(cfg.SQLitePath); err != nil {
			return nil, fmt.Errorf("listing the tables of %s: %w", cfg.SQLitePath, err)
		}
		q = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
	default:
		return nil, fmt.Errorf("listing the tables of a %s database is not supported", cfg.Driver)
	}
	return tablesOf(ctx, cfg, func(db *DB) ([]string, error) { return queryNames(ctx, db, cfg.Database, q) })
}

// tablesOf opens cfg, calls list with the pool and closes it.
func tablesOf(ctx context.Context, cfg Config, list func(*DB) ([]string, error)) ([]string, error) {
	db, err := Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return list(db)
}

// mysqlTables lists the base tables of schema on db's MySQL server.
func mysqlTables(ctx context.Context, db *DB, schema string) ([]string, error) {
	return queryNames(ctx, db, schema, "SELECT table_name FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE' ORDER BY table_name", schema)
}

// queryNames runs q, whose rows are one name each, and returns the names;
// errors name the database whose tables were listed.
func queryNames(ctx context.Context, db *DB, database, q string, args ...any) ([]string, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("listing the tables of %s: %w", database, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
