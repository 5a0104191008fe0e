package tpcc

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"vmbench/dialect"
	"vmbench/internal/progress"
	"vmbench/internal/textfmt"
)

// The loader: one load unit at a time per connection, ITEM being unit 0
// and warehouse w unit w. A unit is loaded in chunks, each one
// dialect.BulkInsert call and one transaction, and recorded in
// vmbench_tpcc_load when its last chunk is in. A unit that is not recorded
// may hold some of its chunks: before it is loaded again its rows are
// deleted from every table (deleteUnits: by Prepare, before the loaders
// start, for the units an earlier prepare left unfinished; by the loader
// after a failed attempt), so that no chunk is ever inserted twice.

// loadAttempts bounds the loads of one unit: a lost connection, a deadlock
// or a lock timeout restarts the unit on a fresh connection, after a pause
// of loadBackoff times the attempt number.
const (
	loadAttempts = 5
	loadBackoff  = 500 * time.Millisecond
)

// loader loads units into db.
type loader struct {
	db    *dialect.DB
	d     dialect.Dialect
	seed  int64
	cLoad Constants
	at    time.Time
	prog  *loadProgress
	path  *dialect.LoadPath // LOAD DATA or INSERTs (bulk copy on SQL Server)
}

// loadDataScale is how many times chunkRows one chunk holds on the LOAD
// DATA path, where a chunk is one statement whatever its size (4,000 to
// 20,000 rows, under 4 MB of customer rows).
const loadDataScale = 4

// insert loads the rows of b on conn, by LOAD DATA while l.path allows it,
// else by dialect.BulkInsert, and returns their rows and bytes (the LOAD
// DATA stream's, or the same encoding's length on the INSERT path).
func (l *loader) insert(ctx context.Context, conn *sql.Conn, b *rowBatch) (dialect.LoadStats, error) {
	if l.path != nil && l.path.LoadData() {
		st, err := dialect.LoadData(ctx, conn, l.d, b.table, b.cols, dialect.RowsSource(b.Rows()))
		if err == nil || st.Rows > 0 || !dialect.IsLoadDataRefused(err) {
			return st, err
		}
		l.path.FallBack(err.Error())
	}
	if err := dialect.BulkInsert(ctx, conn, l.d, b.table, b.cols, b.Rows()); err != nil {
		return dialect.LoadStats{}, err
	}
	return dialect.LoadStats{Rows: int64(b.n), Bytes: dialect.EncodedSize(b.Rows())}, nil
}

// unitName names unit w in messages: "item" or "warehouse 3".
func unitName(w int) string {
	if w == 0 {
		return "item"
	}
	return "warehouse " + strconv.Itoa(w)
}

// unit loads unit w on a connection of its own, restarting the whole unit
// (delete, then load again) on a fresh connection after a lost connection
// or a retryable error, at most loadAttempts times. It returns ctx's error
// when ctx ends, else the last error, which names the table and unit.
func (l *loader) unit(ctx context.Context, w int) error {
	dirty := false // a unit starts empty: Prepare deleted the rows of an interrupted one
	var lastErr error
	for attempt := 1; attempt <= loadAttempts; attempt++ {
		if attempt > 1 {
			l.prog.logf("%s: loading it again on a new connection (attempt %d of %d) after: %s",
				unitName(w), attempt, loadAttempts, strings.ReplaceAll(lastErr.Error(), "\n", "; "))
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(attempt-1) * loadBackoff):
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		st, err := l.attempt(ctx, w, dirty)
		if err == nil {
			l.prog.unitDone(w)
			return nil
		}
		l.prog.rows.Add(-st.Rows) // they are deleted before the next attempt
		l.prog.bytes.Add(-st.Bytes)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		switch dialect.Classify(err) {
		case dialect.ConnLost, dialect.Retry:
		default:
			return err
		}
		lastErr = err
		dirty = true
	}
	return fmt.Errorf("%w (gave up after %d attempts)", lastErr, loadAttempts)
}

// attempt makes one attempt at unit w on a new connection: the deletion
// of its partial rows when dirty, its chunks, then its load record. It
// returns the rows it inserted and their bytes.
func (l *loader) attempt(ctx context.Context, w int, dirty bool) (sum dialect.LoadStats, err error) {
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return sum, fmt.Errorf("connecting for %s: %w", unitName(w), err)
	}
	defer func() {
		if err != nil {
			// Never hand a failed connection back to the pool, so that the
			// next attempt gets a new one: database/sql closes a
			// connection whose Raw returns driver.ErrBadConn.
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		conn.Close()
	}()
	if dirty {
		if err := deleteUnits(ctx, conn, l.d, []int{w}); err != nil {
			return sum, err
		}
	}
	g := &loadRows{seed: l.seed, cLoad: l.cLoad, at: l.at, emit: func(b *rowBatch) error {
		st, err := l.insert(ctx, conn, b)
		if err != nil {
			return fmt.Errorf("loading %s of %s: %w", b.table, unitName(w), err)
		}
		sum.Add(st)
		l.prog.rows.Add(st.Rows)
		l.prog.bytes.Add(st.Bytes)
		return nil
	}}
	if l.path != nil && l.path.LoadData() {
		g.scale = loadDataScale
	}
	if w == 0 {
		err = g.items()
	} else {
		err = g.warehouse(w)
	}
	if err != nil {
		return sum, err
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", l.d.QuoteIdent(loadTable), l.d.QuoteIdent("w_id"), l.d.Placeholder(1))
	if _, err := conn.ExecContext(ctx, q, w); err != nil {
		return sum, fmt.Errorf("recording %s as loaded: %w", unitName(w), err)
	}
	return sum, nil
}

// deleteGroup bounds the warehouses of one DELETE ... IN (...), well
// under every database's bind-parameter limit.
const deleteGroup = 500

// deleteUnits removes whatever an earlier attempt or an interrupted
// prepare left of units (0 = item): their load records, then their rows
// in every table, by DELETE ... WHERE <warehouse column> IN (...) per table
// and group of deleteGroup units (all of ITEM when unit 0 is among them).
// Each statement commits on its own; a failure leaves the units unrecorded,
// so deleting again later is always safe. Errors name the table and the
// first unit of the group.
func deleteUnits(ctx context.Context, q execer, d dialect.Dialect, units []int) error {
	var ws []int
	for _, w := range units {
		if w == 0 {
			if _, err := q.ExecContext(ctx, "DELETE FROM "+d.QuoteIdent(loadTable)+" WHERE "+d.QuoteIdent("w_id")+" = 0"); err != nil {
				return fmt.Errorf("deleting the load record of item: %w", err)
			}
			if _, err := q.ExecContext(ctx, "DELETE FROM "+d.QuoteIdent(Item)); err != nil {
				return fmt.Errorf("deleting the partial rows of item: %w", err)
			}
			continue
		}
		ws = append(ws, w)
	}
	tables := []table{{name: loadTable, wcol: "w_id"}}
	for _, t := range schema {
		if t.wcol != "" {
			tables = append(tables, t)
		}
	}
	for from := 0; from < len(ws); from += deleteGroup {
		group := ws[from:min(from+deleteGroup, len(ws))]
		args := make([]any, len(group))
		marks := make([]string, len(group))
		for i, w := range group {
			args[i], marks[i] = w, d.Placeholder(i+1)
		}
		what := unitName(group[0])
		if len(group) > 1 {
			what = fmt.Sprintf("%d warehouses from %d", len(group), group[0])
		}
		for _, t := range tables {
			stmt := fmt.Sprintf("DELETE FROM %s WHERE %s IN (%s)", d.QuoteIdent(t.name), d.QuoteIdent(t.wcol), strings.Join(marks, ", "))
			if _, err := q.ExecContext(ctx, stmt, args...); err != nil {
				return fmt.Errorf("deleting the partial rows of %s from %s: %w", what, t.name, err)
			}
		}
	}
	return nil
}

// loadProgress reports the loader's advance: with terminal set, one line
// redrawn in place every half second, otherwise a line every 5 s; logf
// lines (a unit loaded again) go in between.
type loadProgress struct {
	tick       *progress.Ticker
	warehouses int
	rows       atomic.Int64 // rows inserted by this prepare and not deleted since
	bytes      atomic.Int64 // their generated data (dialect.LoadStats.Bytes)
	done       atomic.Int64 // warehouses recorded as loaded, also before this prepare
}

func newLoadProgress(w io.Writer, terminal bool, warehouses, done int) *loadProgress {
	p := &loadProgress{tick: progress.New(w, terminal), warehouses: warehouses}
	p.done.Store(int64(done))
	return p
}

// unitDone counts unit w as loaded (item is not a warehouse).
func (p *loadProgress) unitDone(w int) {
	if w > 0 {
		p.done.Add(1)
	}
}

func (p *loadProgress) start() { p.tick.Start(p.print) }

// stop ends the display, clears a terminal line and returns the time since
// start.
func (p *loadProgress) stop() time.Duration { return p.tick.Stop() }

func (p *loadProgress) print(elapsed time.Duration) {
	p.tick.Print(p.line(p.done.Load(), p.rows.Load(), elapsed))
}

// logf writes one message line, above the progress line on a terminal.
func (p *loadProgress) logf(format string, args ...any) { p.tick.Logf(format, args...) }

// line formats one progress line, e.g. "loading: 3/10 warehouses,
// 1,234,567 rows, 123,456 rows/s, 10.0s".
func (p *loadProgress) line(done, rows int64, elapsed time.Duration) string {
	return fmt.Sprintf("loading: %d/%d warehouses, %s rows, %s rows/s, %.1fs",
		done, p.warehouses, textfmt.Thousands(rows), textfmt.Thousands(perSecond(rows, elapsed)), elapsed.Seconds())
}

// perSecond returns n per second of elapsed, 0 for no time.
func perSecond(n int64, elapsed time.Duration) int64 {
	if elapsed <= 0 {
		return 0
	}
	return int64(float64(n) / elapsed.Seconds())
}
