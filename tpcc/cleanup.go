package tpcc

import (
	"context"
	"fmt"
	"io"
	"strings"

	"vmbench/dialect"
)

// Cleanup drops every table prepare creates with DROP TABLE IF EXISTS
// (go-tpc's and sysbench's cleanup), so it may be run any number of
// times, also after an interrupted prepare. It refuses a database that
// holds TPC-C tables but no vmbench_tpcc table: those were not made by
// prepare (or are another tool's), and are not vmbench's to drop. The
// meta table is marked as loading first and dropped last, and the load
// records go before the data: should cleanup stop halfway, run and check
// refuse the database, cleanup can run again, and prepare reloads every
// warehouse. It reports to out (nil discards) which tables it dropped. A
// missing database (MySQL, SQL Server) or SQLite file is not an error:
// there is nothing to drop, and nothing is created. It returns every
// failure, or Validate's errors.
func Cleanup(ctx context.Context, cfg Config, out io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	return dialect.RunCleanup(ctx, cfg.DialectConfig(), out, cleanup)
}

// cleanup is Cleanup on the open database db (dialect.RunCleanup).
func cleanup(ctx context.Context, db *dialect.DB, out io.Writer) error {
	dcfg := db.Config
	present := map[string]bool{}
	for _, name := range tableNames() {
		ok, err := dialect.TableExists(ctx, db, db.Dialect, name)
		if err != nil {
			return fmt.Errorf("checking for table %s: %w", name, err)
		}
		present[name] = ok
	}
	if !present[metaTable] {
		var foreign []string
		for _, name := range tableNames() {
			if present[name] {
				foreign = append(foreign, name)
			}
		}
		if len(foreign) > 0 {
			return fmt.Errorf("%s holds %s but no %s table: they were not created by `vmbench tpcc prepare`, so cleanup leaves them (drop them yourself if they are yours to drop)",
				dcfg, strings.Join(foreign, ", "), metaTable)
		}
	} else if err := markLoading(ctx, db, db.Dialect); err != nil {
		return fmt.Errorf("marking %s as being cleaned up: %w", metaTable, err)
	}
	order := []string{loadTable}
	for _, t := range schema {
		order = append(order, t.name)
	}
	order = append(order, metaTable)
	dropped, err := dialect.DropTables(ctx, db, order...)
	if len(dropped) == 0 {
		fmt.Fprintf(out, "No TPC-C tables in %s; nothing dropped\n", dcfg)
	} else {
		fmt.Fprintf(out, "Dropped %d table(s) from %s: %s\n", len(dropped), dcfg, strings.Join(dropped, ", "))
	}
	return err
}
