package dialect

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"
)

// writeGate is a first-in, first-out lock for the writers of one SQLite
// database file in this process: a writer holds it from the start of its
// write transaction (BEGIN IMMEDIATE, or the first write of a deferred
// transaction, or one autocommit write statement) to its end (COMMIT or
// ROLLBACK), and the next writer in arrival order gets it handed over at
// once.
//
// SQLite's own wait for its write lock is a busy handler that sleeps 1, 2,
// 5, ... up to 100 ms between tries (sqliteDefaultBusyCallback, kept by
// modernc.org/sqlite): a writer that has waited a while sleeps 100 ms while
// newcomers, trying at 1 ms, take the lock before it. Under load a few
// writers starve for the whole busy_timeout and fail with SQLITE_BUSY, the
// average latency ends above the 95th percentile and errors appear in a
// healthy run. Queuing in-process writers here, before SQLite sees them,
// leaves SQLite's lock free whenever a writer asks for it; the busy handler
// only still matters for writers of other processes.
type writeGate struct {
	mu      sync.Mutex
	held    bool
	waiters []chan struct{} // in arrival order; a send hands the gate over
	// onWait, if set (tests), is called with the queue length each time a
	// writer starts waiting, with mu held.
	onWait func(queued int)
}

// gateBusyError is the error of a writer that waited busy_timeout for the
// gate: it is classified and coded as SQLITE_BUSY (class Retry, name
// "busy"), what SQLite itself returns after the same wait.
type gateBusyError struct{ wait time.Duration }

func (e *gateBusyError) Error() string {
	return fmt.Sprintf("database is locked (SQLITE_BUSY): waited %s for the writers ahead in this process", e.wait)
}

// acquire takes the gate, waiting in line behind the writers that asked
// before. It gives up after timeout (0: at once when the gate is held;
// negative: never) with a *gateBusyError, or when ctx ends with ctx.Err().
func (g *writeGate) acquire(ctx context.Context, timeout time.Duration) error {
	g.mu.Lock()
	if !g.held {
		g.held = true
		g.mu.Unlock()
		return nil
	}
	if timeout == 0 {
		g.mu.Unlock()
		return &gateBusyError{0}
	}
	ch := make(chan struct{}, 1)
	g.waiters = append(g.waiters, ch)
	if g.onWait != nil {
		g.onWait(len(g.waiters))
	}
	g.mu.Unlock()

	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	var err error
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-expired:
		err = &gateBusyError{timeout}
	}
	g.mu.Lock()
	for i, w := range g.waiters {
		if w == ch {
			g.waiters = append(g.waiters[:i], g.waiters[i+1:]...)
			g.mu.Unlock()
			return err
		}
	}
	g.mu.Unlock()
	// Handed over while giving up: pass it on.
	<-ch
	g.release()
	return err
}

// release hands the gate to the longest waiting writer, or frees it.
func (g *writeGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.held {
		panic("dialect: release of a SQLite write gate that is not held")
	}
	if len(g.waiters) == 0 {
		g.held = false
		return
	}
	next := g.waiters[0]
	g.waiters = g.waiters[1:]
	next <- struct{}{} // stays held: ownership moves to next
}

// writeGates holds the gate of every SQLite file opened in this process,
// by canonical path, so that every pool on one file shares one gate. Gates
// are a few words each and live as long as the process.
var writeGates sync.Map // string -> *writeGate

// gateFor returns the gate of the database file at absolute path abs.
func gateFor(abs string) *writeGate {
	key := canonicalPath(abs)
	if g, ok := writeGates.Load(key); ok {
		return g.(*writeGate)
	}
	g, _ := writeGates.LoadOrStore(key, &writeGate{})
	return g.(*writeGate)
}

// canonicalPath resolves symbolic links in abs (in its directory when the
// file does not exist yet), so that two names of one file share a gate.
func canonicalPath(abs string) string {
	if p, err := filepath.EvalSymlinks(abs); err == nil {
		return p
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(d, filepath.Base(abs))
	}
	return filepath.Clean(abs)
}
