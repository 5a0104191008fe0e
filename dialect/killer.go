package dialect

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Killer makes one worker's MySQL statements cancellable without a
// context watcher per statement.
//
// With a cancellable context, go-sql-driver hands every statement to its
// watcher goroutine and back: two goroutine wake-ups per statement, which
// cost about a third of the client's CPU time on sysbench's
// oltp_read_write and so skew the server's share of a machine the client
// shares with it. So a worker's MySQL statements run under Context(ctx), a
// context without cancellation, and when ctx is cancelled while the worker
// is inside an event (Enter .. Leave) Killer sends KILL QUERY for the
// worker's connection (SetConnID) from a pooled connection of db, which
// ends a statement waiting for a lock or scanning at once. The worker
// checks ctx itself between statements. Other databases' statements take
// ctx as it is, and Killer does nothing for them.
//
// One Killer serves one worker; its methods are safe to call while the
// cancellation runs in another goroutine.
type Killer struct {
	db      *DB
	mysql   bool
	connID  atomic.Int64 // CONNECTION_ID() of the worker's connection; 0 when unknown
	busy    atomic.Bool  // inside an event: a kill has something to end
	mu      sync.Mutex   // held while a KILL QUERY is sent, and by Settle
	watched context.Context
	quiet   context.Context
	stop    func() bool
}

// KillTimeout bounds the KILL QUERY sent on cancellation.
const KillTimeout = 5 * time.Second

// NewKiller returns the Killer of a worker whose connection comes from db.
func NewKiller(db *DB) *Killer { return &Killer{db: db, mysql: db.Dialect.Driver() == MySQL} }

// Context returns the context the worker's statements run under for an
// event under ctx: ctx itself except on MySQL, where it is ctx without its
// cancellation, and a cancellation of ctx kills the statement in flight.
func (k *Killer) Context(ctx context.Context) context.Context {
	if !k.mysql {
		return ctx
	}
	if ctx != k.watched {
		if k.stop != nil {
			k.stop()
		}
		k.watched, k.quiet = ctx, context.WithoutCancel(ctx)
		k.stop = context.AfterFunc(ctx, k.kill)
	}
	return k.quiet
}

// Watched is the event context Context was last given (nil before), so
// that the worker can check it between statements.
func (k *Killer) Watched() context.Context { return k.watched }

// SetConnID records the worker's connection id (SELECT CONNECTION_ID());
// 0 when the worker has no connection.
func (k *Killer) SetConnID(id int64) { k.connID.Store(id) }

// ConnID is the connection id last recorded.
func (k *Killer) ConnID() int64 { return k.connID.Load() }

// Enter and Leave bound an event: a cancellation outside them kills
// nothing (a worker between events, the normal end of a run).
func (k *Killer) Enter() { k.busy.Store(true) }

// Leave ends what Enter began.
func (k *Killer) Leave() { k.busy.Store(false) }

// Settle runs fn (the ROLLBACK that settles a failed or cancelled
// transaction) so that no KILL QUERY ends it: it waits for one under way
// and lets none start until fn returns; the event is killable again
// afterwards.
func (k *Killer) Settle(fn func() error) error {
	k.mu.Lock()
	k.busy.Store(false)
	k.mu.Unlock()
	defer k.busy.Store(true)
	return fn()
}

// Close stops watching the last event context.
func (k *Killer) Close() {
	if k.stop != nil {
		k.stop()
	}
}

// kill ends the statement in flight on the worker's connection.
func (k *Killer) kill() {
	k.mu.Lock()
	defer k.mu.Unlock()
	id := k.connID.Load()
	if id == 0 || !k.busy.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), KillTimeout)
	defer cancel()
	_, _ = k.db.ExecContext(ctx, "KILL QUERY "+strconv.FormatInt(id, 10))
}
