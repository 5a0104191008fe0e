package dialect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// RunPrepare is the frame of a workload's prepare: it creates cfg's
// database when it is missing (EnsureDatabase), saying so on progress
// ("Database bench did not exist: created it ..."), opens it (Open) and
// calls load with the pool and progress (io.Discard when nil), then
// closes the pool. It returns EnsureDatabase's, Open's or load's error.
func RunPrepare(ctx context.Context, cfg Config, progress io.Writer, load func(context.Context, *DB, io.Writer) error) error {
	if progress == nil {
		progress = io.Discard
	}
	missing := false
	if cfg.Driver != SQLite {
		if db, err := Open(ctx, cfg); err == nil {
			db.Close()
		} else {
			missing = IsUnknownDatabase(err)
		}
	}
	if err := EnsureDatabase(ctx, cfg); err != nil {
		return err
	}
	if missing {
		fmt.Fprintf(progress, "Database %s did not exist: created it (cleanup drops the tables, not the database)\n", cfg.Database)
	}
	db, err := Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	return load(ctx, db, progress)
}

// RunCleanup is the frame of a workload's cleanup: it opens cfg's
// database (Open) and calls drop with the pool and out (io.Discard when
// nil), then closes the pool. When there is nothing to drop, a SQLite file
// that does not exist (Open would create it) or a database the server does
// not know (IsUnknownDatabase), it writes one line to out, "<file> does
// not exist; nothing to drop" or "Database <name> does not exist; nothing
// to drop", and returns nil without calling drop. Other errors are Open's
// or drop's.
func RunCleanup(ctx context.Context, cfg Config, out io.Writer, drop func(context.Context, *DB, io.Writer) error) error {
	if out == nil {
		out = io.Discard
	}
	if cfg.Driver == SQLite {
		if _, err := os.Stat(cfg.SQLitePath); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(out, "%s does not exist; nothing to drop\n", cfg.SQLitePath)
			return nil
		}
	}
	db, err := Open(ctx, cfg)
	if err != nil {
		if IsUnknownDatabase(err) {
			fmt.Fprintf(out, "Database %s does not exist; nothing to drop\n", cfg.Database)
			return nil
		}
		return err
	}
	defer db.Close()
	return drop(ctx, db, out)
}

// DropTables drops the named tables in the order given, each with DROP
// TABLE IF EXISTS unless TableExists finds it missing (when the check
// fails, the drop is still tried). It returns the names of the tables
// that existed and were dropped, and every failure joined, each naming
// the table or the statement; once ctx has ended it stops at the next
// failure.
func DropTables(ctx context.Context, db *DB, names ...string) ([]string, error) {
	var dropped []string
	var errs []error
	for _, name := range names {
		ok, err := TableExists(ctx, db, db.Dialect, name)
		if err != nil {
			errs = append(errs, fmt.Errorf("checking for table %s: %w", name, err))
			if ctx.Err() != nil {
				break
			}
		}
		if !ok && err == nil {
			continue
		}
		q := db.Dialect.DropTableIfExists(name)
		if _, err := db.ExecContext(ctx, q); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", q, err))
			if ctx.Err() != nil {
				break
			}
			continue
		}
		if ok {
			dropped = append(dropped, name)
		}
	}
	return dropped, errors.Join(errs...)
}
