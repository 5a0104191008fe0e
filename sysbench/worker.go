package sysbench

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/oltp/hist"
)

// MaxRestarts bounds how many times in a row one event is restarted after
// ignored errors (deadlocks, lock wait timeouts, lost connections) before
// the worker gives up with an error. sysbench restarts without a bound.
const MaxRestarts = 100

// txPolicy is how a worker restarts its events (see NewSpec): after the
// errors --mysql-ignore-errors lists and after lost connections, up to
// MaxRestarts failures in a row; reconnecting waits 1 ms after the first
// failed connect, doubling up to 1 s, and gives up only on a Fatal error
// (the run's context bounds the whole).
func (s *spec) txPolicy() dialect.TxPolicy {
	return dialect.TxPolicy{
		Restartable: func(err error, _ dialect.Class) bool { return s.cfg.IgnoreErrors.restart(err, s.d.Driver()) },
		MaxRestarts: -1, MaxReconnects: -1, MaxFailures: MaxRestarts,
		ReconnectMin: time.Millisecond, ReconnectMax: time.Second,
		KeepConnecting: func(c dialect.Class) bool { return c != dialect.Fatal },
	}
}

// retryErrorNames lists the dialect.Name values of the errors a worker
// survives (classes Retry and ConnLost), each counted as "errors.<name>".
// Any other survived error is counted as "errors.other".
var retryErrorNames = map[dialect.Driver][]string{
	dialect.MySQL:    {"deadlock", "lock_wait_timeout", "record_changed", "conn_lost"},
	dialect.SQLite:   {"busy", "locked", "conn_lost"},
	dialect.Postgres: {"deadlock", "serialization_failure", "lock_wait_timeout", "duplicate_key", "conn_lost"},
}

// spec is what every worker of one run shares.
type spec struct {
	cfg     Config
	db      *dialect.DB
	d       dialect.Dialect
	mix     mix
	kinds   []stmtKind
	texts   [][nKinds]string // [table][kind]
	begin   string
	seed    uint64
	ctr     counterIndex
	errCtr  map[string]int
	errLast int // index of "errors.other"

	// How the statements talk to the driver (see worker.query and
	// worker.param): go-sql-driver reads the rest of a result set off the
	// connection when its rows are closed, and sends []byte and string
	// parameters alike.
	closeDrains bool
	bytesParams bool
}

type counterIndex struct{ read, write, other, retries, reconnects int }

// NewSpec returns the oltp.Spec of cfg.Workload on db: one operation,
// "transaction"; counters queries.read/write/other, retries, reconnects and
// errors.<name>; and a NewWorker that gives each thread its own connection
// with server-side prepared statements for every table and statement kind
// the workload uses (sysbench 1.0 behaviour), and its own random stream
// derived from --rand-seed and the thread number (with --rand-seed=0 one
// seed is taken from the clock for the whole Spec). The Spec is for
// cfg.Threads threads: oltp_insert --auto-inc=off shares its id space out
// by thread.
//
// A worker restarts the whole event after a Retry-class error (deadlock
// 1213, lock wait timeout 1205, 1020, SQLITE_BUSY: ROLLBACK first) and
// after a lost connection (reconnect with backoff, prepare again), up to
// MaxRestarts times in a row; the event's latency keeps running, as with
// sysbench's event restart. Any other error is fatal and names the
// statement. A server limit hit while starting (too many connections,
// max_prepared_stmt_count) fails NewWorker with dialect.LimitHint's advice.
func NewSpec(cfg Config, db *dialect.DB) (oltp.Spec, error) {
	if err := cfg.Validate(); err != nil {
		return oltp.Spec{}, err
	}
	s := &spec{cfg: cfg, db: db, d: db.Dialect, mix: mixFor(cfg), seed: cfg.Rand.seed()}
	s.closeDrains = s.d.Driver() == dialect.MySQL
	s.bytesParams = s.d.Driver() == dialect.MySQL || s.d.Driver() == dialect.Postgres // PGExec sends both as text
	s.kinds = s.mix.kinds(cfg.AutoInc)
	s.begin = beginStmt(s.d, s.mix)
	s.texts = make([][nKinds]string, cfg.Tables)
	for t := range s.texts {
		for _, k := range s.kinds {
			s.texts[t][k] = stmtText(s.d, k, tableName(t+1))
		}
	}
	counters := []string{CounterRead, CounterWrite, CounterOther, CounterRetries, CounterReconnects}
	s.ctr = counterIndex{0, 1, 2, 3, 4}
	s.errCtr = map[string]int{}
	for _, n := range retryErrorNames[s.d.Driver()] {
		s.errCtr[n] = len(counters)
		counters = append(counters, ErrorCounterPrefix+n)
	}
	s.errLast = len(counters)
	counters = append(counters, ErrorCounterPrefix+"other")
	return oltp.Spec{
		Workload: string(cfg.Workload), Ops: []string{OpTransaction}, Counters: counters,
		NewWorker: func(ctx context.Context, t int, h *hist.Handle) (oltp.Worker, error) { return s.newWorker(ctx, t, h) },
	}, nil
}

// beginStmt returns the statement that opens an event's transaction: the
// dialect's BeginWrite when the event writes, else its Begin. On SQLite
// that is BEGIN IMMEDIATE: the transaction queues for the write lock
// first (in arrival order, see dialect.Open) instead of reading under a
// deferred BEGIN and then failing at once with SQLITE_BUSY when two
// transactions both try to upgrade to the write lock.
func beginStmt(d dialect.Dialect, m mix) string {
	for _, s := range m.steps {
		if s.g >= gIndexUpdate {
			return d.BeginWrite()
		}
	}
	return d.Begin()
}

func tableName(n int) string { return "sbtest" + strconv.Itoa(n) }

// worker is one thread: a dedicated connection, its prepared statements
// and its random stream.
//
// The statements of an event run on the driver's connection directly
// (database/sql's Conn.Raw, once per attempt), not through *sql.Stmt: the
// per-statement work of database/sql (argument conversion, a Rows with its
// dependency bookkeeping and locks, a result wrapper) cost more client CPU
// than the driver's own work, and what goes over the wire is the same:
// COM_STMT_EXECUTE of the server-side prepared statement with the same
// parameters, and the whole result set read (see query).
type worker struct {
	s      *spec
	thread int // 0-based
	h      *hist.Handle
	tx     *dialect.TxRunner     // owns conn: restarts, reconnects, settles
	conn   *sql.Conn             // tx's connection while prepared (nil when it has none)
	stmts  [][nKinds]driver.Stmt // [table][kind] on conn's driver connection, nil for kinds not used
	rnd    *Rand
	ids    *uniqueIDs
	n      struct{ read, write, other int64 } // since the last flush

	// Scratch space reused by every statement, so that an event allocates
	// next to nothing of its own.
	args   [4]driver.NamedValue // parameters of the statement being run
	c, pad []byte               // the c and pad values of the statement being run
	dest   []driver.Value       // row buffer when a result set is read row by row

	// The attempt: attemptFn is w.attempt and rawFn w.rawAttempt (run
	// inside conn.Raw), bound once; actx is the statement context of the
	// event and dc the driver connection while an attempt runs.
	attemptFn func(*sql.Conn) error
	rawFn     func(any) error
	actx      context.Context
	dc        driver.Conn

	// PostgreSQL: the statements run through pgx's native interface
	// (pgsql_worker.go); pgNames are their server-side names,
	// [table][kind].
	pg      *dialect.PGExec
	pgNames [][nKinds]string

	// Cancellation (dialect.Killer): MySQL statements run under a context
	// that cannot be cancelled; a cancelled event context kills the
	// statement in flight from another connection instead.
	kill *dialect.Killer

	// onRestart, if set (tests), is called before each restart of an event.
	onRestart func(error)
	// betweenSteps, if set (tests), is called after each step of an
	// attempt; an error it returns ends the attempt as a statement's would.
	betweenSteps func(step int) error
}

func (s *spec) newWorker(ctx context.Context, t int, h *hist.Handle) (*worker, error) {
	w := &worker{s: s, thread: t, h: h, rnd: NewRand(s.cfg.Rand, s.seed, uint64(t)),
		ids: newUniqueIDs(t, s.cfg.Threads, s.seed),
		c:   make([]byte, 0, cLen), pad: make([]byte, 0, padLen), kill: dialect.NewKiller(s.db)}
	for i := range w.args {
		w.args[i].Ordinal = i + 1
	}
	w.attemptFn, w.rawFn = w.attempt, w.rawAttempt
	w.tx = dialect.NewTxRunner(s.db, s.txPolicy(), dialect.TxHooks{
		Prepare: w.prepare, Release: w.release, Rollback: w.rollback, Observe: w.observe,
	})
	if err := w.tx.Connect(ctx); err != nil {
		if dialect.IsServerLimit(err) {
			return nil, fmt.Errorf("%s (%w)", dialect.LimitHint(err), err)
		}
		return nil, err
	}
	return w, nil
}

// prepare is the worker's dialect.TxHooks.Prepare: it prepares the
// statements on conn's driver connection.
func (w *worker) prepare(ctx context.Context, conn *sql.Conn) error {
	w.conn = conn
	if w.s.d.Driver() == dialect.MySQL {
		// The second column sizes go-sql-driver's read buffer: it starts
		// at 4 KiB and keeps the size of the largest packet read since (see
		// readBufferHint).
		var id int64
		var filler []byte
		if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID(), REPEAT(' ', "+strconv.Itoa(readBufferHint)+")").
			Scan(&id, &filler); err != nil {
			return fmt.Errorf("SELECT CONNECTION_ID(): %w", err)
		}
		w.kill.SetConnID(id)
	}
	if w.s.d.Driver() == dialect.Postgres {
		return conn.Raw(func(dc any) error { return w.pgPrepare(ctx, dc) })
	}
	w.stmts = make([][nKinds]driver.Stmt, len(w.s.texts))
	return conn.Raw(func(dc any) error {
		prep, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("the %s driver's connection does not implement driver.ConnPrepareContext", w.s.d.Driver())
		}
		if _, ok := dc.(driver.ExecerContext); !ok {
			return fmt.Errorf("the %s driver's connection does not implement driver.ExecerContext", w.s.d.Driver())
		}
		for t := range w.s.texts {
			for _, k := range w.s.kinds {
				st, err := prep.PrepareContext(ctx, w.s.texts[t][k])
				if err != nil {
					return fmt.Errorf("preparing %s: %w", w.s.texts[t][k], err)
				}
				w.stmts[t][k] = st
				_, qok := st.(driver.StmtQueryContext)
				_, eok := st.(driver.StmtExecContext)
				if !qok || !eok {
					return fmt.Errorf("the %s driver's statements do not implement driver.StmtQueryContext and StmtExecContext", w.s.d.Driver())
				}
			}
		}
		return nil
	})
}

// readBufferHint is the length of the string read at connect to grow
// go-sql-driver's read buffer from 4 KiB to 16 KiB (it rounds the largest
// packet up to a multiple of 4 KiB and keeps that), the server's default
// net_buffer_length: a default range select's result (100 rows of c, 12.6
// KB) then arrives in one read(2) instead of four, which cut the client's
// read calls from 40 to 30 per oltp_read_write transaction. The bytes on
// the wire are the same; the cost is 16 KiB per connection.
const readBufferHint = 16000

// release is the worker's dialect.TxHooks.Release: it closes the
// statements on the server before the runner closes or discards conn.
func (w *worker) release(conn *sql.Conn) {
	// A broken connection fails Raw; its statements went with it.
	_ = conn.Raw(func(any) error {
		if w.pg != nil {
			ctx, cancel := context.WithTimeout(context.Background(), dialect.RollbackTimeout)
			defer cancel()
			w.pgRelease(ctx)
		}
		for t := range w.stmts {
			for k, st := range w.stmts[t] {
				if st != nil {
					_ = st.Close()
					w.stmts[t][k] = nil
				}
			}
		}
		return nil
	})
	w.stmts, w.conn, w.pg, w.pgNames = nil, nil, nil, nil
	w.kill.SetConnID(0)
}

// Close releases the statements and the connection.
func (w *worker) Close() error {
	w.kill.Close()
	w.tx.Close()
	return nil
}

// Event runs one event, restarting it after ignored errors (see NewSpec).
func (w *worker) Event(ctx context.Context) (int, error) {
	w.actx = w.kill.Context(ctx)
	w.kill.Enter()
	defer w.kill.Leave()
	err := w.tx.Run(ctx, w.attemptFn)
	w.actx = nil
	if err == nil || errors.Is(err, ctx.Err()) || dialect.Classify(err) == dialect.Canceled {
		return 0, err
	}
	return 0, w.eventError(err)
}

// eventError words the error that ended an event. It is a function of its
// own so that the error variables errors.As needs are allocated only on
// this path, not for every event.
func (w *worker) eventError(err error) error {
	var gu *dialect.GiveUpError
	var re *dialect.ReconnectError
	switch {
	case errors.As(err, &gu):
		return fmt.Errorf("thread %d: gave up after %d restarts in a row of one %s transaction; last error: %w",
			w.thread+1, w.tx.Policy.MaxFailures, w.s.cfg.Workload, gu.Err)
	case errors.As(err, &re), !dialect.IsServerLimit(err):
		return fmt.Errorf("thread %d: %w", w.thread+1, err)
	}
	return fmt.Errorf("thread %d: %w; %s", w.thread+1, err, dialect.LimitHint(err))
}

// observe is the worker's dialect.TxHooks.Observe: every error an event
// survives (and the one it gives up on) counts as errors.<name> and as a
// retry, every new connection as a reconnect.
func (w *worker) observe(e dialect.TxEvent) {
	switch e.Kind {
	case dialect.TxFailed:
		if e.Action != dialect.TxEnd {
			w.countError(e.Err)
		}
		if e.Action == dialect.TxGiveUp {
			w.h.Add(w.s.ctr.retries, 1)
		}
	case dialect.TxRestarting:
		w.h.Add(w.s.ctr.retries, 1)
		if w.onRestart != nil {
			w.onRestart(e.Err)
		}
	case dialect.TxReconnected:
		w.h.Add(w.s.ctr.reconnects, 1)
	}
}

func (w *worker) countError(err error) {
	if i, ok := w.s.errCtr[dialect.Name(err)]; ok {
		w.h.Add(i, 1)
		return
	}
	w.h.Add(w.s.errLast, 1)
}

// flush adds the statement counts of the last attempt to the counters.
func (w *worker) flush() {
	if w.n.read != 0 {
		w.h.Add(w.s.ctr.read, w.n.read)
	}
	if w.n.write != 0 {
		w.h.Add(w.s.ctr.write, w.n.write)
	}
	if w.n.other != 0 {
		w.h.Add(w.s.ctr.other, w.n.other)
	}
	w.n.read, w.n.write, w.n.other = 0, 0, 0
}

// stmtError names the statement that failed.
type stmtError struct {
	sql string
	err error
}

func (e *stmtError) Error() string { return e.sql + ": " + e.err.Error() }
func (e *stmtError) Unwrap() error { return e.err }

// attempt runs the event's statements once, on conn's driver connection,
// and adds their counts to the counters.
func (w *worker) attempt(conn *sql.Conn) error {
	err := conn.Raw(w.rawFn)
	w.dc = nil
	w.flush()
	return err
}

// rawAttempt is attempt's body, run by conn.Raw with the driver connection.
func (w *worker) rawAttempt(dc any) error {
	w.dc = dc.(driver.Conn)
	m := w.s.mix
	if m.trx {
		if err := w.text(w.s.begin); err != nil {
			return err
		}
	}
	cfg := &w.s.cfg
	for i, st := range m.steps {
		if wc := w.kill.Watched(); wc != nil && wc.Err() != nil {
			return wc.Err() // cancelled between statements: stop here
		}
		t := int(w.rnd.Uniform(1, int64(cfg.Tables))) - 1
		for range st.count {
			if err := w.run(st.g, t); err != nil {
				return err
			}
		}
		if w.betweenSteps != nil {
			if err := w.betweenSteps(i); err != nil {
				return err
			}
		}
	}
	if m.trx {
		return w.text(w.s.d.Commit())
	}
	return nil
}

// run executes one statement (a delete/insert pair for gDeleteInsert) of
// group g on table index t.
func (w *worker) run(g group, t int) error {
	cfg := &w.s.cfg
	a := &w.args
	switch g {
	case gPoint:
		a[0].Value = w.id()
		return w.query(t, kPoint, 1)
	case gSimpleRange, gSumRange, gOrderRange, gDistinctRange:
		lo := w.id()
		a[0].Value, a[1].Value = lo, lo+int64(cfg.RangeSize)-1
		return w.query(t, rangeKind[g], 2)
	case gIndexUpdate:
		a[0].Value = w.id()
		return w.exec(t, kIndexUpdate, 1)
	case gNonIndexUpdate:
		a[0].Value = w.newC()
		a[1].Value = w.id()
		return w.exec(t, kNonIndexUpdate, 2)
	case gDelete:
		a[0].Value = w.id()
		return w.exec(t, kDelete, 1)
	case gDeleteInsert:
		id := w.id()
		a[0].Value = id
		if err := w.exec(t, kDelete, 1); err != nil {
			return err
		}
		a[0].Value, a[1].Value, a[2].Value, a[3].Value = id, w.rnd.K(cfg.TableSize), w.newC(), w.newPad()
		return w.exec(t, kInsert, 4)
	case gInsert:
		if cfg.AutoInc {
			a[0].Value, a[1].Value, a[2].Value = w.rnd.K(cfg.TableSize), w.newC(), w.newPad()
			return w.exec(t, kInsertAuto, 3)
		}
		a[0].Value, a[1].Value, a[2].Value, a[3].Value = w.ids.id(), w.rnd.K(cfg.TableSize), w.newC(), w.newPad()
		return w.exec(t, kInsert, 4)
	}
	panic("sysbench: unknown group")
}

// rangeKind is the statement kind of each range group.
var rangeKind = [...]stmtKind{
	gSimpleRange: kSimpleRange, gSumRange: kSumRange, gOrderRange: kOrderRange, gDistinctRange: kDistinctRange,
}

// id draws a row id by --rand-type.
func (w *worker) id() int64 { return w.rnd.Default(1, w.s.cfg.TableSize) }

// newC and newPad draw new c and pad values into the worker's buffers, as
// statement parameters (see param); each stays valid until the next call
// of the same function, which comes after the statement that sends it.
func (w *worker) newC() driver.Value {
	w.c = w.rnd.AppendC(w.c[:0])
	return w.param(w.c)
}

func (w *worker) newPad() driver.Value {
	w.pad = w.rnd.AppendPad(w.pad[:0])
	return w.param(w.pad)
}

// param returns b as a string parameter: b itself for MySQL, where []byte
// and string are the same parameter type on the wire (MYSQL_TYPE_STRING)
// and the driver copies it into the packet; a string for other drivers,
// which may store []byte differently (SQLite: as a BLOB).
func (w *worker) param(b []byte) driver.Value {
	if w.s.bytesParams {
		return b
	}
	return string(b)
}

// query runs a statement that returns rows and reads them all: a read.
//
// go-sql-driver's Rows.Close reads the rest of the result set off the
// connection without decoding it (the protocol requires every row to be
// read before the next command), so for MySQL closing the rows at once
// reads exactly what a rows.Next loop reads, without converting each
// column into a driver.Value (an allocation per row). sysbench 1.0 does
// the same: mysql_stmt_store_result reads the rows, nothing fetches them.
// Other drivers produce rows as they are stepped through (SQLite), so
// there every row is read with Next.
func (w *worker) query(t int, k stmtKind, nargs int) error {
	if w.pg != nil {
		return w.pgQuery(t, k, nargs)
	}
	st := w.stmts[t][k].(driver.StmtQueryContext)
	rows, err := st.QueryContext(w.actx, w.args[:nargs])
	if err != nil {
		return &stmtError{w.s.texts[t][k], err}
	}
	if !w.s.closeDrains {
		err = w.drain(rows)
	}
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &stmtError{w.s.texts[t][k], err}
	}
	w.n.read++
	return nil
}

// drain reads every row of rows.
func (w *worker) drain(rows driver.Rows) error {
	if n := len(rows.Columns()); len(w.dest) < n {
		w.dest = make([]driver.Value, n)
	}
	dest := w.dest[:len(rows.Columns())]
	for {
		err := rows.Next(dest)
		// driver.Rows.Next returns io.EOF itself at the end of the rows;
		// a wrapped io.EOF is a failed read, not the end.
		if err == io.EOF { //nolint:errorlint // see above
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// exec runs a statement without a result set: a write when it affected
// rows, else other (sysbench's MySQL driver accounting).
func (w *worker) exec(t int, k stmtKind, nargs int) error {
	if w.pg != nil {
		return w.pgExec(t, k, nargs)
	}
	st := w.stmts[t][k].(driver.StmtExecContext)
	res, err := st.ExecContext(w.actx, w.args[:nargs])
	if err != nil {
		return &stmtError{w.s.texts[t][k], err}
	}
	if n, err := res.RowsAffected(); err == nil && n > 0 {
		w.n.write++
	} else {
		w.n.other++
	}
	return nil
}

// text sends an unprepared statement without a result set (BEGIN, COMMIT):
// other.
func (w *worker) text(q string) error {
	if w.pg != nil {
		return w.pgText(q)
	}
	if _, err := w.dc.(driver.ExecerContext).ExecContext(w.actx, q, nil); err != nil {
		return &stmtError{q, err}
	}
	w.n.other++
	return nil
}
