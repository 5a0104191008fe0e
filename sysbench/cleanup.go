package sysbench

import (
	"context"
	"fmt"
	"io"

	"vmbench/dialect"
)

// Cleanup drops the sbtest tables of cfg, sbtest1..sbtest<--tables>, with
// DROP TABLE IF EXISTS (sysbench cleanup; dialect.DropTables), so it may
// be run any number of times. A missing database or SQLite file is not an
// error: there is nothing to drop, and nothing is created
// (dialect.RunCleanup). It reports to out (nil discards) and returns every
// failure.
func Cleanup(ctx context.Context, cfg Config, out io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	names := make([]string, cfg.Tables)
	for i := range names {
		names[i] = tableName(i + 1)
	}
	return dialect.RunCleanup(ctx, cfg.DialectConfig(), out, func(ctx context.Context, db *dialect.DB, out io.Writer) error {
		_, err := dialect.DropTables(ctx, db, names...)
		fmt.Fprintf(out, "Dropped tables sbtest1..sbtest%d (where they existed) in %s\n", cfg.Tables, db.Config)
		return err
	})
}
