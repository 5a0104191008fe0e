package tpcc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"vmbench/dialect"
)

// Prepare creates the TPC-C database of cfg and loads its initial
// population (TPC-C clause 4.3.3.1): ITEM's 100,000 rows and, per
// warehouse, 1 WAREHOUSE, 10 DISTRICT, 100,000 STOCK, 30,000 CUSTOMER,
// 30,000 HISTORY, 30,000 ORDER, 9,000 NEW-ORDER and about 300,000
// ORDER-LINE rows (exactly the sum of o_ol_cnt), with the values of
// load_rows.go, each warehouse from random streams of its own.
//
// It creates the database when missing (dialect.RunPrepare), then the
// meta table vmbench_tpcc, in which it stores --warehouses, --seed, the
// C-Load constants (TPC-C 2.1.6.1) and the load time, marked as loading,
// before it creates the nine tables (those that do not exist) and loads
// the first row. ITEM, then warehouses 1..W, are loaded cfg.loadThreads()
// at a time (one on SQLite, which has one writer), each on a connection of
// its own, in chunks, each one transaction: on MySQL with local_infile=ON
// one LOAD DATA LOCAL INFILE of up to loadDataScale x maxChunkRows rows
// (dialect.LoadData; a server that refuses it is said once and the
// INSERT path used instead), else one dialect.BulkInsert of at most
// maxChunkRows rows (multi-row INSERTs, SQL Server's bulk copy); a loaded unit is recorded in vmbench_tpcc_load. A
// lost connection, a deadlock or a lock timeout during a unit deletes what
// the unit had inserted and loads it again on a new connection (at most
// loadAttempts times), so no chunk is ever inserted twice. Then the
// secondary indexes are created and the loading mark removed: only then
// do run and check (readMeta) accept the database.
//
// Run again on a complete load of the same --warehouses and --seed it says
// so and does nothing. On an unfinished load of the same values (an
// interrupted or failed prepare) it resumes: the recorded units are kept,
// the rows of the others deleted (deleteUnits) and loaded again. Stored
// values that differ from cfg are an error naming them and suggesting
// cleanup (it wraps workload.ErrFlagValue: nothing is loaded); so are TPC-C tables without vmbench's meta. Progress goes to
// progress (nil discards it): with terminal set, one line redrawn in
// place, otherwise a line every 5 s; at the end one line "Loaded W
// warehouses: N rows (M MB) in T s: R rows/s, B MB/s (MB = 10^6 bytes) by
// <path>; secondary indexes in I s", W and N counting what this prepare
// loaded (N includes ITEM's rows), M the size of their generated data
// (dialect.LoadStats), R and B its load rates over the load's time T (the
// indexes' time I apart), for scripts.
//
// When ctx ends, it stops promptly and returns an error wrapping ctx's;
// no unit is recorded as loaded unless all its rows are in, so prepare
// resumes later. Other errors name the table and the unit ("loading stock
// of warehouse 3: ..."), and Validate's errors come first.
func Prepare(ctx context.Context, cfg Config, progress io.Writer, terminal bool) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	err := dialect.RunPrepare(ctx, cfg.DialectConfig(), progress, func(ctx context.Context, db *dialect.DB, progress io.Writer) error {
		return prepare(ctx, db, cfg, progress, terminal)
	})
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		// The interruption is what callers match; the failure it caused
		// is told, not wrapped, so that it is not classified as a failure
		// of the load itself.
		err = fmt.Errorf("prepare interrupted (prepare again resumes the load): %w (%v)", ctx.Err(), err) //nolint:errorlint // see above
	}
	return err
}

// prepare is Prepare on the open database db (dialect.RunPrepare).
func prepare(ctx context.Context, db *dialect.DB, cfg Config, progress io.Writer, terminal bool) error {
	st, err := inspectDatabase(ctx, db)
	if err != nil {
		return err
	}
	m, err := st.decide(cfg, db.Config)
	if err != nil || m == nil {
		if err == nil {
			fmt.Fprintf(progress, "%s already holds a complete TPC-C load of %d warehouse(s) with --seed=%d; nothing to do "+
				"(`vmbench tpcc cleanup` removes it)\n", db.Config, cfg.Warehouses, cfg.Seed)
		}
		return err
	}
	fresh := !st.metaRows
	if err := createSchema(ctx, db, st, *m); err != nil {
		return err
	}
	p, err := planLoad(ctx, db, cfg, fresh, progress)
	if err != nil {
		return err
	}
	path, err := dialect.ChooseLoadPath(ctx, db, db.Dialect, progress)
	if err != nil {
		return err
	}
	l := &loader{db: db, d: db.Dialect, seed: m.Seed, cLoad: m.Load, at: m.LoadTime, path: path}
	l.prog = newLoadProgress(progress, terminal, cfg.Warehouses, p.already)
	path.Note = func(line string) { l.prog.logf("%s", line) }
	elapsed, err := l.run(ctx, p)
	if err != nil {
		state := fmt.Sprintf("%d of %d warehouses are loaded", l.prog.done.Load(), cfg.Warehouses)
		if ctx.Err() != nil {
			return fmt.Errorf("prepare interrupted, %s (prepare again resumes the load): %w", state, ctx.Err())
		}
		if hint := dialect.LimitHint(err); hint != "" {
			err = fmt.Errorf("%w; %s", err, hint)
		}
		return fmt.Errorf("prepare failed, %s (prepare again resumes the load, `vmbench tpcc cleanup` removes it): %w", state, err)
	}

	ixStart := time.Now()
	if err := createIndexes(ctx, db); err != nil {
		return err
	}
	if err := finishLoad(ctx, db, cfg.Warehouses); err != nil {
		return err
	}
	loaded := len(p.todo)
	if slices.Contains(p.todo, 0) {
		loaded--
	}
	sum := dialect.LoadStats{Rows: l.prog.rows.Load(), Bytes: l.prog.bytes.Load()}
	fmt.Fprintf(progress, "Loaded %s: %s in %s by %s; secondary indexes in %.2f s\n",
		warehouses(loaded), sum.Size(), sum.Rate(elapsed), path, time.Since(ixStart).Seconds())
	return nil
}

// createSchema creates the tables st lacks and, on a fresh database, stores
// the meta m. The meta tables come before the data tables: tables without
// meta are refused (decide), so an interruption in between must leave none.
func createSchema(ctx context.Context, db *dialect.DB, st dbState, m meta) error {
	if err := createTables(ctx, db, st.exists, metaTable, loadTable); err != nil {
		return err
	}
	if !st.metaRows {
		if err := storeMeta(ctx, db, m); err != nil {
			return err
		}
	}
	var data []string
	for _, t := range schema {
		data = append(data, t.name)
	}
	return createTables(ctx, db, st.exists, data...)
}

// loadPlan is what a prepare loads: the units (warehouses; 0 is ITEM) not
// loaded yet, how many warehouses are, and with how many threads.
type loadPlan struct {
	todo    []int
	already int
	threads int
}

// planLoad finds the units left to load, says what it will do on progress
// and, when resuming, deletes what an earlier prepare left of the
// unfinished units, before any loader starts (so that no DELETE, a table
// scan of history, which has no key, waits on or blocks their inserts).
func planLoad(ctx context.Context, db *dialect.DB, cfg Config, fresh bool, progress io.Writer) (loadPlan, error) {
	done, err := loadedUnits(ctx, db, cfg.Warehouses)
	if err != nil {
		return loadPlan{}, err
	}
	p := loadPlan{threads: cfg.loadThreads(), already: len(done)}
	for w := 0; w <= cfg.Warehouses; w++ {
		if !done[w] {
			p.todo = append(p.todo, w)
		}
	}
	if !db.Dialect.Capabilities().ConcurrentWriters {
		p.threads = 1
	}
	db.SetMaxIdleConns(p.threads + 1)
	if done[0] {
		p.already--
	}
	if fresh {
		fmt.Fprintf(progress, "Loading %d warehouse(s) with --seed=%d into %s, %d loader thread(s)\n", cfg.Warehouses, cfg.Seed, db.Config, p.threads)
		return p, nil
	}
	item := "to load"
	if done[0] {
		item = "loaded"
	}
	fmt.Fprintf(progress, "Resuming the load of %d warehouse(s) with --seed=%d into %s: %d loaded already, item %s; %d loader thread(s)\n",
		cfg.Warehouses, cfg.Seed, db.Config, p.already, item, p.threads)
	if len(p.todo) > 0 {
		start := time.Now()
		if err := deleteUnits(ctx, db, db.Dialect, p.todo); err != nil {
			return p, err
		}
		fmt.Fprintf(progress, "Deleted what an earlier prepare left of the %d unfinished unit(s) in %s\n", len(p.todo), time.Since(start).Round(10*time.Millisecond))
	}
	return p, nil
}

// run loads p's units, p.threads at a time, and returns how long it took.
func (l *loader) run(ctx context.Context, p loadPlan) (time.Duration, error) {
	l.prog.start()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.threads)
	for _, w := range p.todo {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error { return l.unit(gctx, w) })
	}
	err := g.Wait()
	return l.prog.stop(), err
}

// dbState is what a database holds before prepare.
type dbState struct {
	exists   map[string]bool // tables of tableNames() that exist
	meta     meta            // the stored meta, if metaRows
	metaRows bool            // vmbench_tpcc exists and has rows
	metaErr  error           // readStoredMeta's error other than "not prepared"
}

// inspectDatabase finds which tables exist and reads the stored meta.
func inspectDatabase(ctx context.Context, db *dialect.DB) (dbState, error) {
	st := dbState{exists: map[string]bool{}}
	for _, name := range tableNames() {
		ok, err := dialect.TableExists(ctx, db, db.Dialect, name)
		if err != nil {
			return st, fmt.Errorf("checking for table %s: %w", name, err)
		}
		st.exists[name] = ok
	}
	if !st.exists[metaTable] {
		return st, nil
	}
	m, err := readStoredMeta(ctx, db, db.Dialect)
	switch {
	case errors.Is(err, errNotPrepared):
	case err != nil && m.Version == 0:
		return st, err
	default:
		st.meta, st.metaRows, st.metaErr = m, true, err
	}
	return st, nil
}

// decide returns the meta to load with, or nil when the database holds a
// complete load of cfg already, or an error when it holds something else.
func (st dbState) decide(cfg Config, dcfg dialect.Config) (*meta, error) {
	cleanup := fmt.Sprintf("run `vmbench tpcc cleanup` first (it drops the TPC-C tables of %s)", dcfg)
	if !st.metaRows {
		var found []string
		for _, t := range schema {
			if st.exists[t.name] {
				found = append(found, t.name)
			}
		}
		if len(found) > 0 {
			return nil, fmt.Errorf("%s holds TPC-C tables (%s) but no vmbench load record (%s): they are another tool's, or a cleanup stopped halfway; %s",
				dcfg, strings.Join(found, ", "), metaTable, cleanup)
		}
		return &meta{Version: schemaVersion, Warehouses: cfg.Warehouses, Seed: cfg.Seed,
			Load: LoadConstants(NewRand(cfg.Seed, streamLoad, 0)), LoadTime: time.Now().UTC().Truncate(time.Second), Loading: true}, nil
	}
	m := st.meta
	if st.metaErr != nil {
		return nil, fmt.Errorf("%s holds a TPC-C load of another vmbench version (%w); %s", dcfg, st.metaErr, cleanup)
	}
	what := "a complete"
	if m.Loading {
		what = "an unfinished"
	}
	if m.Warehouses != cfg.Warehouses || m.Seed != cfg.Seed {
		return nil, flagMismatch(fmt.Errorf("%s holds %s TPC-C load of --warehouses=%d --seed=%d, not --warehouses=%d --seed=%d; %s, or prepare with --warehouses=%d --seed=%d",
			dcfg, what, m.Warehouses, m.Seed, cfg.Warehouses, cfg.Seed, cleanup, m.Warehouses, m.Seed))
	}
	if !m.Loading {
		return nil, nil
	}
	if m.LoadTime.IsZero() {
		m.LoadTime = time.Now().UTC().Truncate(time.Second)
	}
	return &m, nil
}

// createTables creates, in order, the tables names of SchemaStatements
// that do not exist. Secondary indexes come after the load
// (createIndexes).
func createTables(ctx context.Context, db *dialect.DB, exists map[string]bool, names ...string) error {
	stmts := SchemaStatements(db.Dialect) // the nine tables in schema order, meta, load, indexes
	create := map[string]string{metaTable: stmts[len(schema)], loadTable: stmts[len(schema)+1]}
	for i, t := range schema {
		create[t.name] = stmts[i]
	}
	for _, name := range names {
		if exists[name] {
			continue
		}
		if _, err := db.ExecContext(ctx, create[name]); err != nil {
			return fmt.Errorf("creating table %s: %w", name, err)
		}
	}
	return nil
}

// storeMeta writes m in one transaction, so that the meta table is never
// half written.
func storeMeta(ctx context.Context, db *dialect.DB, m meta) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("writing %s: %w", metaTable, err)
	}
	defer func() {
		// Undoes a failed write, whose error is the one returned; after
		// the Commit it does nothing (sql.ErrTxDone).
		_ = tx.Rollback()
	}()
	if err := writeMeta(ctx, tx, db.Dialect, m); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("writing %s: %w", metaTable, err)
	}
	return nil
}

// loadedUnits returns the units recorded in vmbench_tpcc_load (0 = item),
// among 0..warehouses.
func loadedUnits(ctx context.Context, db *dialect.DB, warehouses int) (map[int]bool, error) {
	q := fmt.Sprintf("SELECT %s FROM %s", db.Dialect.QuoteIdent("w_id"), db.Dialect.QuoteIdent(loadTable))
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", loadTable, err)
	}
	defer rows.Close()
	done := map[int]bool{}
	for rows.Next() {
		var w int
		if err := rows.Scan(&w); err != nil {
			return nil, fmt.Errorf("reading %s: %w", loadTable, err)
		}
		if w >= 0 && w <= warehouses {
			done[w] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", loadTable, err)
	}
	return done, nil
}

// createIndexes creates the secondary indexes of SchemaStatements; one
// that exists already (a resumed prepare) is kept.
func createIndexes(ctx context.Context, db *dialect.DB) error {
	stmts := SchemaStatements(db.Dialect)
	for i, q := range stmts[len(schema)+2:] {
		if _, err := db.ExecContext(ctx, q); err != nil && !dialect.IsIndexExists(err) {
			return fmt.Errorf("creating index %s: %w", indexes[i].name, err)
		}
	}
	return nil
}

// finishLoad checks that every unit 0..warehouses is in vmbench_tpcc_load
// and removes the loading mark, so that readMeta accepts the database.
func finishLoad(ctx context.Context, db *dialect.DB, warehouses int) error {
	done, err := loadedUnits(ctx, db, warehouses)
	if err != nil {
		return err
	}
	if len(done) != warehouses+1 {
		return fmt.Errorf("%s lists %d of the %d load units (item and %d warehouses) after the load; prepare again to resume",
			loadTable, len(done), warehouses+1, warehouses)
	}
	d := db.Dialect
	q := fmt.Sprintf("DELETE FROM %s WHERE %s = 'loading'", d.QuoteIdent(metaTable), d.QuoteIdent("name"))
	if _, err := db.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("marking the load complete in %s: %w", metaTable, err)
	}
	return nil
}

// warehouses is "1 warehouse" or "N warehouses".
func warehouses(n int) string {
	if n == 1 {
		return "1 warehouse"
	}
	return fmt.Sprintf("%d warehouses", n)
}
