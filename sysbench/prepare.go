package sysbench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"vmbench/dialect"
	"vmbench/internal/progress"
	"vmbench/internal/textfmt"
)

// ErrTablesExist is wrapped by Prepare's error when sbtest tables already
// exist: prepare never loads into or over existing tables.
var ErrTablesExist = errors.New("sbtest tables already exist")

// BulkInsertBytes bounds one multi-row INSERT of the loader: 512 KiB,
// sysbench's bulk insert buffer (BULK_PACKET_SIZE), well under MySQL's
// max_allowed_packet (4 MiB or more since MySQL 5.6 and MariaDB 10.2).
const BulkInsertBytes = 512 << 10

// sqliteBatchesPerTrx is how many bulk INSERTs the SQLite loader commits
// together (one fsync per transaction rather than per statement).
const sqliteBatchesPerTrx = 8

// Prepare creates the sbtest tables of cfg and loads them (sysbench
// prepare): it creates the database when missing (MySQL), refuses to touch
// existing tables (ErrTablesExist, before creating anything) and more
// loaders than the server's max_connections leaves free (ErrFlagValue),
// then shares
// the tables out over --threads loaders as sysbench does (thread t loads
// tables t+1, t+1+threads, ...; on SQLite, which has one writer at a time,
// a single loader), each creating its table, inserting --table-size rows
// (MySQL: LOAD DATA LOCAL INFILE when the server allows it; PostgreSQL: one
// COPY per table, then the SERIAL sequence moved past the ids; else
// multi-row INSERTs of at most BulkInsertBytes, inside transactions on
// SQLite), creating the secondary index k_<n> on k after the load
// (--create-secondary) and checking that the table holds exactly
// --table-size rows with ids 1..table-size. For oltp_insert with
// --auto-inc=off the tables are left empty, as sysbench does. Row values come from the
// table's own random stream, so the same --rand-seed loads the same data.
//
// Progress goes to progress (nil discards it): with terminal set, one line
// redrawn in place with rows, percent and rows/s; otherwise a line every 5 s.
// On failure the tables created so far are left; the error says to run
// cleanup.
func Prepare(ctx context.Context, cfg Config, progress io.Writer, terminal bool) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	return dialect.RunPrepare(ctx, cfg.DialectConfig(), progress, func(ctx context.Context, db *dialect.DB, progress io.Writer) error {
		return prepare(ctx, db, cfg, progress, terminal)
	})
}

// prepare is Prepare on the open database db (dialect.RunPrepare).
func prepare(ctx context.Context, db *dialect.DB, cfg Config, progress io.Writer, terminal bool) error {
	dcfg, d := db.Config, db.Dialect

	var existing []string
	for n := 1; n <= cfg.Tables; n++ {
		ok, err := dialect.TableExists(ctx, db, d, tableName(n))
		if err != nil {
			return fmt.Errorf("checking for table %s: %w", tableName(n), err)
		}
		if ok {
			existing = append(existing, tableName(n))
		}
	}
	if len(existing) > 0 {
		return existingTablesError(existing, cfg, dcfg)
	}

	if cfg.Workload == Insert && !cfg.AutoInc {
		// sysbench 1.0 oltp_insert.lua: with --auto-inc=off the run draws
		// its own ids, so prepare creates empty tables.
		cfg.TableSize = 0
	}
	loaders := max(min(cfg.Threads, cfg.Tables), 1)
	if !d.Capabilities().ConcurrentWriters {
		loaders = 1
	}
	if err := checkServerLimits(ctx, db, d, loaders, 0, cfg); err != nil {
		return err
	}
	mode, err := dialect.ChooseLoadPath(ctx, db, db.Dialect, progress)
	if err != nil {
		return err
	}
	fmt.Fprintf(progress, "Creating %d table(s) sbtest1..sbtest%d of %s rows in %s, %d loader thread(s), %s\n",
		cfg.Tables, cfg.Tables, textfmt.Thousands(cfg.TableSize), dcfg, loaders, mode)
	p := newProgress(progress, terminal, cfg)
	mode.Note = func(line string) { p.tick.Logf("%s", line) }
	p.start()
	seed := cfg.Rand.seed()
	g, gctx := errgroup.WithContext(ctx)
	for l := range loaders {
		g.Go(func() error {
			for n := l + 1; n <= cfg.Tables; n += loaders {
				if err := loadTable(gctx, db, cfg, n, seed, p, mode); err != nil {
					return fmt.Errorf("table %s: %w", tableName(n), err)
				}
			}
			return nil
		})
	}
	err = g.Wait()
	elapsed := p.stop()
	if err != nil {
		// None of the tables existed before (checked above), so dropping
		// them all leaves nothing half-loaded behind, also after Ctrl-C.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		var dropErrs []error
		for n := 1; n <= cfg.Tables; n++ {
			if _, derr := db.ExecContext(dctx, d.DropTableIfExists(tableName(n))); derr != nil {
				dropErrs = append(dropErrs, derr)
			}
		}
		if hint := dialect.LimitHint(err); hint != "" {
			err = fmt.Errorf("%w; %s", err, hint)
		}
		if len(dropErrs) > 0 {
			return fmt.Errorf("prepare failed: %w; removing the partly loaded tables failed too (run 'vmbench sysbench cleanup'): %w", err, errors.Join(dropErrs...))
		}
		return fmt.Errorf("prepare failed, the partly loaded tables were removed: %w", err)
	}
	idx := ""
	if cfg.CreateSecondary {
		idx = fmt.Sprintf(", secondary index k_<n> on %d table(s)", cfg.Tables)
	}
	st := dialect.LoadStats{Rows: p.rows.Load(), Bytes: p.bytes.Load()}
	fmt.Fprintf(progress, "Loaded %s into %d table(s) in %s by %s%s; row counts checked\n",
		st.Size(), cfg.Tables, st.Rate(elapsed), mode, idx)
	return nil
}

// existingTablesError is prepare's refusal of tables that exist.
func existingTablesError(existing []string, cfg Config, dcfg dialect.Config) error {
	var other string
	switch cfg.Conn.Driver {
	case dialect.SQLite:
		other = "--sqlite-path"
	case dialect.Postgres:
		other = "--pgsql-db"
	default:
		other = "--mysql-db"
	}
	return fmt.Errorf("%w: %s in %s; run 'vmbench sysbench cleanup --tables=%d' first, or use another %s",
		ErrTablesExist, describeTables(existing), dcfg, cfg.Tables, other)
}

func describeTables(names []string) string {
	if len(names) <= 4 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, %s ... %s (%d tables)", names[0], names[1], names[len(names)-1], len(names))
}

// loadDataChunkRows bounds the rows of one LOAD DATA statement (one
// transaction): 1,000,000 rows, about 190 MB of sbtest rows, so that an
// interrupted load rolls back in seconds. (A variable for the tests.)
var loadDataChunkRows = 1_000_000

// loadTable creates, fills, indexes and checks table n on its own
// connection.
func loadTable(ctx context.Context, db *dialect.DB, cfg Config, n int, seed uint64, p *loadProgress, mode *dialect.LoadPath) error {
	d := db.Dialect
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	ddl := createTableSQL(d, tableName(n), cfg.AutoInc)
	if _, err := conn.ExecContext(ctx, ddl); err != nil {
		return fmt.Errorf("%s: %w", firstLine(ddl), err)
	}
	src := newRowSource(cfg, seed, n)
	for !src.done() && mode.LoadData() {
		chunk := &loadChunk{src: src, left: loadDataChunkRows, p: p}
		st, err := dialect.LoadData(ctx, conn, d, tableName(n), loadColumns, chunk)
		chunk.report()
		if err != nil && st.Rows == 0 && dialect.IsLoadDataRefused(err) {
			mode.FallBack(err.Error())
			break
		}
		if err != nil {
			return err
		}
		p.bytes.Add(st.Bytes)
	}
	if mode.Copy() && !src.done() {
		if err := copyRows(ctx, conn, d, n, cfg.AutoInc, src, p); err != nil {
			return err
		}
	}
	if err := insertRows(ctx, conn, d, n, cfg.AutoInc, src, p); err != nil {
		return err
	}
	if cfg.CreateSecondary {
		q := secondaryIndexSQL(d, n)
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		p.indexes.Add(1)
	}
	return checkTable(ctx, conn, d, n, cfg.TableSize)
}

// loadColumns are the columns LOAD DATA writes: id too with
// auto-increment, since a LOAD DATA is a "bulk insert" to InnoDB (ids
// reserved in growing batches, innodb_autoinc_lock_mode=1): the second
// statement into a table would leave a gap after the first's ids, and
// the run relies on ids 1..table-size. The server's counter then goes on
// from table-size+1, as after sysbench's INSERTs.
var loadColumns = []string{"id", "k", "c", "pad"}

// loadChunk is the dialect.RowSource of one LOAD DATA: at most left rows
// of src, counted into p every progressEvery rows.
type loadChunk struct {
	src     *rowSource
	left    int
	pending int64
	p       *loadProgress
}

const progressEvery = 4096

// NextRow writes the next row: id, k, c, pad, the values and random draws
// of rowSource.appendRow (which leaves id to the server with
// auto-increment).
func (c *loadChunk) NextRow(w *dialect.RowWriter) bool {
	s := c.src
	if c.left == 0 || s.done() {
		return false
	}
	w.Int(s.next)
	w.Int(s.rnd.K(s.size))
	w.EndField(s.rnd.AppendC(w.BeginField()))
	w.EndField(s.rnd.AppendPad(w.BeginField()))
	w.EndRow()
	s.next++
	c.left--
	if c.pending++; c.pending == progressEvery {
		c.report()
	}
	return true
}

// report adds the rows not yet counted to the progress.
func (c *loadChunk) report() {
	c.p.rows.Add(c.pending)
	c.pending = 0
}

// insertRows inserts the rest of src with multi-row INSERTs of at most
// BulkInsertBytes (inside transactions on SQLite).
func insertRows(ctx context.Context, conn *sql.Conn, d dialect.Dialect, n int, autoInc bool, src *rowSource, p *loadProgress) error {
	caps := d.Capabilities()
	prefix := insertPrefix(d, n, autoInc)
	inTrx := !caps.ConcurrentWriters
	buf := make([]byte, 0, BulkInsertBytes+1024)
	batches := 0
	exec := func(q string) error {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", firstLine(q), err)
		}
		return nil
	}
	for !src.done() {
		if inTrx && batches%sqliteBatchesPerTrx == 0 {
			if err := exec(d.Begin()); err != nil {
				return err
			}
		}
		buf = append(buf[:0], prefix...)
		rows := 0
		for !src.done() && len(buf) < BulkInsertBytes && (caps.MaxRowsPerInsert == 0 || rows < caps.MaxRowsPerInsert) {
			if rows > 0 {
				buf = append(buf, ',')
			}
			buf = src.appendRow(buf)
			rows++
		}
		if _, err := conn.ExecContext(ctx, string(buf)); err != nil {
			return fmt.Errorf("%s... (%d rows): %w", prefix, rows, err)
		}
		batches++
		if inTrx && (batches%sqliteBatchesPerTrx == 0 || src.done()) {
			if err := exec(d.Commit()); err != nil {
				return err
			}
		}
		p.rows.Add(int64(rows))
		p.bytes.Add(int64(len(buf) - len(prefix)))
	}
	return nil
}

// checkTable verifies that sbtest<n> holds exactly size rows with ids
// 1..size, which the run's id draws rely on.
func checkTable(ctx context.Context, q queryer, d dialect.Dialect, n int, size int64) error {
	query := "SELECT COUNT(*), COALESCE(MIN(id), 0), COALESCE(MAX(id), 0) FROM " + d.QuoteIdent(tableName(n))
	var count, lo, hi int64
	if err := q.QueryRowContext(ctx, query).Scan(&count, &lo, &hi); err != nil {
		return fmt.Errorf("%s: %w", query, err)
	}
	if count != size {
		return fmt.Errorf("holds %d rows after the load, expected --table-size=%d", count, size)
	}
	if size > 0 && (lo != 1 || hi != size) {
		return fmt.Errorf("ids run from %d to %d after the load, expected 1 to %d (is auto_increment_increment or auto_increment_offset not 1? try --auto-inc=off)",
			lo, hi, size)
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// loadProgress reports the loader's advance to a writer.
type loadProgress struct {
	tick    *progress.Ticker
	total   int64
	tables  int
	secIdx  bool
	rows    atomic.Int64
	bytes   atomic.Int64 // of the generated data: the LOAD DATA stream, or the INSERTs' VALUES lists
	indexes atomic.Int64
}

func newProgress(w io.Writer, terminal bool, cfg Config) *loadProgress {
	return &loadProgress{tick: progress.New(w, terminal), total: int64(cfg.Tables) * cfg.TableSize, tables: cfg.Tables,
		secIdx: cfg.CreateSecondary}
}

func (p *loadProgress) start() { p.tick.Start(p.print) }

// stop ends the display, clears a terminal line and returns the time since
// start.
func (p *loadProgress) stop() time.Duration { return p.tick.Stop() }

func (p *loadProgress) print(elapsed time.Duration) {
	p.tick.Print(p.line(p.rows.Load(), p.indexes.Load(), elapsed))
}

// line formats one progress line, e.g. "loading: 1,234,567/4,000,000 rows
// (30.9%), 345,678 rows/s, indexes 0/4, 3.6s".
func (p *loadProgress) line(rows, indexes int64, elapsed time.Duration) string {
	pct := 100.0
	if p.total > 0 {
		pct = 100 * float64(rows) / float64(p.total)
	}
	rate := int64(0)
	if elapsed > 0 {
		rate = int64(float64(rows) / elapsed.Seconds())
	}
	s := fmt.Sprintf("loading: %s/%s rows (%.1f%%), %s rows/s", textfmt.Thousands(rows), textfmt.Thousands(p.total), pct, textfmt.Thousands(rate))
	if p.secIdx {
		s += fmt.Sprintf(", indexes %d/%d", indexes, p.tables)
	}
	return s + fmt.Sprintf(", %.1fs", elapsed.Seconds())
}
