package tpcc

import (
	"context"
	"sync"
)

// gate brackets the measured window of a run with the NOPM readings.
//
// Every transaction of the measure phase holds the gate shared from
// before its BEGIN until the Runner has recorded it (the release comes
// from the next call the Runner makes into tpcc for that terminal or
// worker: Think, or the next Event). A reading at a window edge holds it
// exclusively (hold): it waits until no transaction is between BEGIN and
// the Runner's record of it, and no transaction begins until the holder
// lets go (open, or end). So every New-Order the database counts between
// the two readings is one the Runner counted in the window, and the other
// way round.
//
// Waits are bounded by a context or by an abort channel: a Runner that
// stops on its own (an error, --events used up, Ctrl-C) may leave a
// shared hold that is never released, and the reading then happens after
// the run, when nothing runs any more.
type gate struct {
	mu      sync.Mutex
	shared  int  // transactions holding the gate
	held    bool // an exclusive holder waits or holds: no new transaction begins
	ended   bool // the window is over: no transaction begins any more
	changed chan struct{}
}

// newGate returns a gate held exclusively by its creator (the window has
// not opened).
func newGate() *gate { return &gate{held: true, changed: make(chan struct{})} }

// notify wakes every waiter; g.mu is held.
func (g *gate) notify() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// enter takes the gate shared before a transaction begins. It waits while
// the gate is held; once the window has ended it waits for ctx (the
// Runner cancels it after it has stopped, so the event is discarded) and
// returns ctx.Err().
func (g *gate) enter(ctx context.Context) error {
	g.mu.Lock()
	for g.held && !g.ended {
		ch := g.changed
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		g.mu.Lock()
	}
	if g.ended {
		g.mu.Unlock()
		<-ctx.Done()
		return ctx.Err()
	}
	g.shared++
	g.mu.Unlock()
	return nil
}

// leave releases a shared hold taken by enter.
func (g *gate) leave() {
	g.mu.Lock()
	g.shared--
	if g.shared == 0 {
		g.notify()
	}
	g.mu.Unlock()
}

// hold takes the gate exclusively: no new transaction begins, and it
// returns true once none holds it shared. It returns false, without the
// gate, when abort is closed first.
func (g *gate) hold(abort <-chan struct{}) bool {
	g.mu.Lock()
	g.held = true
	for g.shared > 0 {
		ch := g.changed
		g.mu.Unlock()
		select {
		case <-ch:
		case <-abort:
			g.mu.Lock()
			g.held = false
			g.notify()
			g.mu.Unlock()
			return false
		}
		g.mu.Lock()
	}
	g.mu.Unlock()
	return true
}

// open lets transactions begin again after hold (or after newGate).
func (g *gate) open() {
	g.mu.Lock()
	g.held = false
	g.notify()
	g.mu.Unlock()
}

// end closes the window for good: transactions waiting to begin, and any
// that try later, wait for their context instead.
func (g *gate) end() {
	g.mu.Lock()
	g.ended = true
	g.notify()
	g.mu.Unlock()
}
