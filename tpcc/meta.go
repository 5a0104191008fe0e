package tpcc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"vmbench/dialect"
)

// schemaVersion is stored by prepare; run and check refuse other versions.
const schemaVersion = 1

// meta is what prepare stored in the vmbench_tpcc table: the scale, the
// seed and the C-Load constants every later run's C-Run must respect
// (TPC-C 2.1.6.1), and how many runs have touched the data since the load
// (consistency condition 3.3.2.11 holds only at zero).
type meta struct {
	Version    int
	Warehouses int
	Seed       int64
	Load       Constants
	Runs       int
	// LoadTime is the load's c_since, h_date and o_entry_d, in whole
	// seconds, UTC; prepare fixes it at the start, so that a resumed load
	// writes the same values (stored as "load_time", Unix seconds, when
	// set).
	LoadTime time.Time
	// Loading is set while prepare loads (stored as "loading" = 1): the
	// load is incomplete until every warehouse is in vmbench_tpcc_load and
	// the indexes exist, and readMeta refuses the database.
	Loading bool
}

func (m meta) pairs() [][2]string {
	i := strconv.Itoa
	p := [][2]string{{"version", i(m.Version)}, {"warehouses", i(m.Warehouses)}, {"seed", strconv.FormatInt(m.Seed, 10)},
		{"c_load_c_last", i(m.Load.CLast)}, {"c_load_c_id", i(m.Load.CID)}, {"c_load_ol_i_id", i(m.Load.Item)}, {"runs", i(m.Runs)}}
	if !m.LoadTime.IsZero() {
		p = append(p, [2]string{"load_time", strconv.FormatInt(m.LoadTime.Unix(), 10)})
	}
	if m.Loading {
		p = append(p, [2]string{"loading", "1"})
	}
	return p
}

// execer is what meta needs of a *sql.DB, *sql.Conn or *sql.Tx.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// writeMeta replaces the stored meta with m.
func writeMeta(ctx context.Context, db execer, d dialect.Dialect, m meta) error {
	t := d.QuoteIdent(metaTable)
	if _, err := db.ExecContext(ctx, "DELETE FROM "+t); err != nil {
		return fmt.Errorf("writing %s: %w", metaTable, err)
	}
	ins := fmt.Sprintf("INSERT INTO %s (%s, %s) VALUES (%s, %s)", t, d.QuoteIdent("name"), d.QuoteIdent("value"), d.Placeholder(1), d.Placeholder(2))
	for _, p := range m.pairs() {
		if _, err := db.ExecContext(ctx, ins, p[0], p[1]); err != nil {
			return fmt.Errorf("writing %s: %w", metaTable, err)
		}
	}
	return nil
}

// errNotPrepared is returned by readMeta when the database holds no
// complete TPC-C load.
var errNotPrepared = errors.New("no complete TPC-C load in this database (run `vmbench tpcc prepare` first)")

// readMeta reads the stored meta of a complete load. It returns
// errNotPrepared when the table is missing or empty, and wrapped in a
// message when prepare has not finished (meta.Loading).
func readMeta(ctx context.Context, db execer, d dialect.Dialect) (meta, error) {
	m, err := readStoredMeta(ctx, db, d)
	if err == nil && m.Loading {
		err = fmt.Errorf("%w: the load of %d warehouse(s) has not finished (run `vmbench tpcc prepare --warehouses=%d --seed=%d` to resume it)",
			errNotPrepared, m.Warehouses, m.Warehouses, m.Seed)
	}
	return m, err
}

// readStoredMeta reads the stored meta, complete or not (prepare resumes
// an unfinished load). It returns errNotPrepared when the table is missing
// or empty, and the meta read with an error when its version is not
// schemaVersion.
func readStoredMeta(ctx context.Context, db execer, d dialect.Dialect) (meta, error) {
	rows, err := db.QueryContext(ctx, fmt.Sprintf("SELECT %s, %s FROM %s", d.QuoteIdent("name"), d.QuoteIdent("value"), d.QuoteIdent(metaTable)))
	if err != nil {
		if dialect.Classify(err) == dialect.ConnLost {
			return meta{}, err
		}
		// Not prepared is what callers match; the query's failure
		// (no such table) is told, not wrapped.
		return meta{}, fmt.Errorf("%w: %v", errNotPrepared, err) //nolint:errorlint // see above
	}
	defer rows.Close()
	vals := map[string]int64{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return meta{}, err
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return meta{}, fmt.Errorf("%s: %s = %q is not a number", metaTable, k, v)
		}
		vals[k] = n
	}
	if err := rows.Err(); err != nil {
		return meta{}, err
	}
	if len(vals) == 0 {
		return meta{}, errNotPrepared
	}
	m := meta{Version: int(vals["version"]), Warehouses: int(vals["warehouses"]), Seed: vals["seed"], Runs: int(vals["runs"]),
		Load:    Constants{CLast: int(vals["c_load_c_last"]), CID: int(vals["c_load_c_id"]), Item: int(vals["c_load_ol_i_id"])},
		Loading: vals["loading"] != 0}
	if t, ok := vals["load_time"]; ok {
		m.LoadTime = time.Unix(t, 0).UTC()
	}
	if m.Version != schemaVersion {
		return m, fmt.Errorf("%s: schema version %d, this vmbench knows %d (prepare the database again)", metaTable, m.Version, schemaVersion)
	}
	return m, nil
}

// countRun adds one to the stored run count, before a run touches the data.
func countRun(ctx context.Context, db execer, d dialect.Dialect) error {
	_, err := db.ExecContext(ctx, fmt.Sprintf("UPDATE %s SET %s = %s WHERE %s = 'runs'", d.QuoteIdent(metaTable), d.QuoteIdent("value"),
		castIncrement(d), d.QuoteIdent("name")))
	return err
}

// castIncrement is value+1 on a VARCHAR column, in dialect d.
func castIncrement(d dialect.Dialect) string {
	v := d.QuoteIdent("value")
	if d.Driver() == dialect.SQLServer || d.Driver() == dialect.Postgres {
		// Neither adds a number to a VARCHAR without a cast.
		return "CAST(CAST(" + v + " AS INT) + 1 AS VARCHAR(64))"
	}
	if d.Driver() == dialect.MySQL {
		return "CAST(" + v + " + 1 AS CHAR)"
	}
	return "CAST(" + v + " + 1 AS TEXT)"
}

// markLoading sets the loading mark, so that run and check refuse the
// database (cleanup does this before it drops anything).
func markLoading(ctx context.Context, db execer, d dialect.Dialect) error {
	t, name, value := d.QuoteIdent(metaTable), d.QuoteIdent("name"), d.QuoteIdent("value")
	if _, err := db.ExecContext(ctx, fmt.Sprintf("DELETE FROM %s WHERE %s = 'loading'", t, name)); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s (%s, %s) VALUES ('loading', '1')", t, name, value))
	return err
}
