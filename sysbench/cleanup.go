package sysbench

import (
	"context"
	"errors"
	"fmt"
	"io"

	"vmbench/dialect"
)

// Cleanup drops the sbtest tables of cfg, sbtest1..sbtest<--tables>, with
// DROP TABLE IF EXISTS (sysbench cleanup), so it may be run any number of
// times. It reports to out (nil discards) and returns every failure.
func Cleanup(ctx context.Context, cfg Config, out io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if out == nil {
		out = io.Discard
	}
	dcfg := cfg.DialectConfig()
	if sqliteFileExists(dcfg) != nil { // nothing to drop; opening would create the file
		fmt.Fprintf(out, "%s does not exist; nothing to drop\n", dcfg.SQLitePath)
		return nil
	}
	db, err := dialect.Open(ctx, dcfg)
	if err != nil {
		if dialect.IsUnknownDatabase(err) { // nothing to drop
			fmt.Fprintf(out, "Database %s does not exist; nothing to drop\n", cfg.Conn.Database)
			return nil
		}
		return err
	}
	defer db.Close()
	var errs []error
	for n := 1; n <= cfg.Tables; n++ {
		q := db.Dialect.DropTableIfExists(tableName(n))
		if _, err := db.ExecContext(ctx, q); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", q, err))
			if ctx.Err() != nil {
				break
			}
		}
	}
	fmt.Fprintf(out, "Dropped tables sbtest1..sbtest%d (where they existed) in %s\n", cfg.Tables, dcfg)
	return errors.Join(errs...)
}
