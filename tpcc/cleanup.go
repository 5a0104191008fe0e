package tpcc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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
	if out == nil {
		out = io.Discard
	}
	dcfg := cfg.DialectConfig()
	if cfg.Conn.Driver == dialect.SQLite {
		if _, err := os.Stat(dcfg.SQLitePath); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(out, "%s does not exist; nothing to drop\n", dcfg.SQLitePath)
			return nil
		}
	}
	db, err := dialect.Open(ctx, dcfg)
	if err != nil {
		if dialect.IsUnknownDatabase(err) {
			fmt.Fprintf(out, "Database %s does not exist; nothing to drop\n", cfg.Conn.Database)
			return nil
		}
		return err
	}
	defer db.Close()
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
	var dropped []string
	var errs []error
	for _, name := range order {
		ok, err := dialect.TableExists(ctx, db, db.Dialect, name)
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
	if len(dropped) == 0 {
		fmt.Fprintf(out, "No TPC-C tables in %s; nothing dropped\n", dcfg)
	} else {
		fmt.Fprintf(out, "Dropped %d table(s) from %s: %s\n", len(dropped), dcfg, strings.Join(dropped, ", "))
	}
	return errors.Join(errs...)
}
