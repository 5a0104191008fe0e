package sysbench

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/oltp/hist"
)

// MaxRestarts bounds how many times in a row one event is restarted after
// ignored errors (deadlocks, lock wait timeouts, lost connections) before
// the worker gives up with an error. sysbench restarts without a bound.
const MaxRestarts = 100

// Reconnect backoff: the first retry waits reconnectMin, each failure
// doubles the wait up to reconnectMax; the run's context bounds the whole.
const (
	reconnectMin = time.Millisecond
	reconnectMax = time.Second
)

// retryErrorNames lists the dialect.Name values of the errors a worker
// survives (classes Retry and ConnLost), each counted as "errors.<name>".
// Any other survived error is counted as "errors.other".
var retryErrorNames = map[dialect.Driver][]string{
	dialect.MySQL:  {"deadlock", "lock_wait_timeout", "record_changed", "conn_lost"},
	dialect.SQLite: {"busy", "locked", "conn_lost"},
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
	s.bytesParams = s.d.Driver() == dialect.MySQL
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
	conn   *sql.Conn
	stmts  [][nKinds]driver.Stmt // [table][kind] on conn's driver connection, nil for kinds not used
	rnd    *Rand
	ids    *uniqueIDs
	n      struct{ read, write, other int64 } // since the last flush

	// Scratch space reused by every statement, so that an event allocates
	// next to nothing of its own.
	args   [4]driver.NamedValue // parameters of the statement being run
	c, pad []byte               // the c and pad values of the statement being run
	dest   []driver.Value       // row buffer when a result set is read row by row

	// The attempt run inside conn.Raw: attemptFn is w.rawAttempt, bound
	// once; actx is the statement context and dc the driver connection
	// while it runs.
	attemptFn func(any) error
	actx      context.Context
	dc        driver.Conn

	// Cancellation (see stmtCtx): MySQL statements run under a context
	// that cannot be cancelled; a cancelled event context kills the
	// statement in flight from another connection instead.
	connID    atomic.Int64 // CONNECTION_ID() of conn; 0 when unknown
	busy      atomic.Bool  // inside Event: a kill has something to end
	killMu    sync.Mutex   // held by killQuery while it sends KILL QUERY
	watched   context.Context
	quiet     context.Context
	stopWatch func() bool

	// dirty: conn may be inside a transaction (an attempt failed and no
	// ROLLBACK has succeeded since), so it must not go back to the pool;
	// see settle.
	dirty bool

	// onRestart, if set (tests), is called before each restart of an event.
	onRestart func(error)
	// betweenSteps, if set (tests), is called after each step of an
	// attempt; an error it returns ends the attempt as a statement's would.
	betweenSteps func(step int) error
	// maxRestarts is MaxRestarts; tests lower it.
	maxRestarts int
}

func (s *spec) newWorker(ctx context.Context, t int, h *hist.Handle) (*worker, error) {
	w := &worker{s: s, thread: t, h: h, rnd: NewRand(s.cfg.Rand, s.seed, uint64(t)),
		ids: newUniqueIDs(t, s.cfg.Threads, s.seed), maxRestarts: MaxRestarts,
		c: make([]byte, 0, cLen), pad: make([]byte, 0, padLen)}
	for i := range w.args {
		w.args[i].Ordinal = i + 1
	}
	w.attemptFn = w.rawAttempt
	if err := w.connect(ctx); err != nil {
		if dialect.Classify(err) == dialect.Limit {
			return nil, fmt.Errorf("%s (%w)", dialect.LimitHint(err), err)
		}
		return nil, err
	}
	return w, nil
}

// connect takes a connection from the pool and prepares the statements on
// its driver connection.
func (w *worker) connect(ctx context.Context) error {
	conn, err := w.s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", w.s.cfg.DialectConfig(), err)
	}
	w.conn = conn
	if w.s.d.Driver() == dialect.MySQL {
		// The second column sizes go-sql-driver's read buffer: it starts
		// at 4 KiB and keeps the size of the largest packet read since (see
		// readBufferHint).
		var id int64
		var filler []byte
		if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID(), REPEAT(' ', "+strconv.Itoa(readBufferHint)+")").
			Scan(&id, &filler); err != nil {
			w.closeConn()
			return fmt.Errorf("SELECT CONNECTION_ID(): %w", err)
		}
		w.connID.Store(id)
	}
	w.stmts = make([][nKinds]driver.Stmt, len(w.s.texts))
	err = conn.Raw(func(dc any) error {
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
	if err != nil {
		w.closeConn()
		return err
	}
	return nil
}

// readBufferHint is the length of the string read at connect to grow
// go-sql-driver's read buffer from 4 KiB to 16 KiB (it rounds the largest
// packet up to a multiple of 4 KiB and keeps that), the server's default
// net_buffer_length: a default range select's result (100 rows of c, 12.6
// KB) then arrives in one read(2) instead of four, which cut the client's
// read calls from 40 to 30 per oltp_read_write transaction. The bytes on
// the wire are the same; the cost is 16 KiB per connection.
const readBufferHint = 16000

// closeConn closes the statements on the server and hands the connection
// back to the pool (which closes it if it is broken); a connection whose
// transaction state is unknown (dirty) is discarded instead.
func (w *worker) closeConn() {
	if w.conn == nil {
		w.stmts = nil
		return
	}
	var end error
	if w.dirty {
		// Raw's driver.ErrBadConn makes database/sql close the driver
		// connection instead of pooling it; the server rolls back what
		// was open.
		end = driver.ErrBadConn
	}
	// A broken connection fails Raw; its statements went with it.
	_ = w.conn.Raw(func(any) error {
		for t := range w.stmts {
			for k, st := range w.stmts[t] {
				if st != nil {
					_ = st.Close()
					w.stmts[t][k] = nil
				}
			}
		}
		return end
	})
	w.stmts, w.dirty = nil, false
	w.connID.Store(0)
	_ = w.conn.Close()
	w.conn = nil
}

// Close releases the statements and the connection.
func (w *worker) Close() error {
	if w.stopWatch != nil {
		w.stopWatch()
	}
	w.closeConn()
	return nil
}

// Event runs one event, restarting it after ignored errors.
func (w *worker) Event(ctx context.Context) (int, error) {
	sctx := w.stmtCtx(ctx)
	w.busy.Store(true)
	defer w.busy.Store(false)
	for restarts := 0; ; restarts++ {
		err := w.attempt(sctx)
		w.flush()
		if err == nil {
			return 0, nil
		}
		if ctx.Err() != nil {
			w.settle(ctx)
			return 0, ctx.Err()
		}
		class := dialect.Classify(err)
		if (class == dialect.Retry || class == dialect.Fatal || class == dialect.Limit) && !w.s.cfg.IgnoreErrors.restart(err, w.s.d.Driver()) {
			w.settle(ctx)
			return 0, w.fatal(err) // --mysql-ignore-errors does not list it
		}
		switch class {
		case dialect.Retry, dialect.Fatal, dialect.Limit: // listed in --mysql-ignore-errors
			w.countError(err)
			if !w.settle(ctx) {
				if cerr := w.reconnect(ctx); cerr != nil {
					return 0, cerr
				}
			}
		case dialect.ConnLost:
			w.countError(err)
			if cerr := w.reconnect(ctx); cerr != nil {
				return 0, cerr
			}
		default: // canceled, or an unclassified nil-like state
			w.settle(ctx)
			return 0, err
		}
		w.h.Add(w.s.ctr.retries, 1)
		if restarts+1 >= w.maxRestarts {
			return 0, fmt.Errorf("thread %d: gave up after %d restarts in a row of one %s transaction; last error: %w",
				w.thread+1, w.maxRestarts, w.s.cfg.Workload, err)
		}
		if w.onRestart != nil {
			w.onRestart(err)
		}
	}
}

func (w *worker) fatal(err error) error {
	if dialect.Classify(err) == dialect.Limit {
		return fmt.Errorf("thread %d: %w; %s", w.thread+1, err, dialect.LimitHint(err))
	}
	return fmt.Errorf("thread %d: %w", w.thread+1, err)
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

// driverBadConn stands for a connection closed by a failed reconnect; it
// is classified ConnLost, so the next event reconnects.
var driverBadConn = driver.ErrBadConn

// stmtError names the statement that failed.
type stmtError struct {
	sql string
	err error
}

func (e *stmtError) Error() string { return e.sql + ": " + e.err.Error() }
func (e *stmtError) Unwrap() error { return e.err }

// attempt runs the event's statements once, on the driver connection.
func (w *worker) attempt(ctx context.Context) error {
	if w.conn == nil {
		return driverBadConn
	}
	w.actx = ctx
	w.dirty = true
	err := w.conn.Raw(w.attemptFn)
	w.actx, w.dc = nil, nil
	if err == nil {
		w.dirty = false // committed, or autocommit statements only
	}
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
		if w.watched != nil && w.watched.Err() != nil {
			return w.watched.Err() // cancelled between statements: stop here
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
		switch err := rows.Next(dest); err {
		case nil:
		case io.EOF:
			return nil
		default:
			return err
		}
	}
}

// exec runs a statement without a result set: a write when it affected
// rows, else other (sysbench's MySQL driver accounting).
func (w *worker) exec(t int, k stmtKind, nargs int) error {
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
	if _, err := w.dc.(driver.ExecerContext).ExecContext(w.actx, q, nil); err != nil {
		return &stmtError{q, err}
	}
	w.n.other++
	return nil
}
