package tpcc

import (
	"time"

	"vmbench/oltp"
)

// terminal is one emulated user (TPC-C 5.2): a home warehouse, a fixed
// district for Stock-Level, a 23-card deck and a random stream from which
// it draws its cards, its think times and the inputs of its transactions.
//
// The Runner calls Next and Think, and a worker's Execute draws the
// inputs, never at the same time: a terminal has one event outstanding,
// and the hand-offs between the Runner's goroutines order the calls.
type terminal struct {
	id    int // 0-based
	w, d  int // home warehouse and Stock-Level district, 1-based
	rnd   *Rand
	deck  deck
	scale float64 // Config.WaitScale
	// started is set once the first Next, which carries the ramp, ran.
	started bool
}

var _ oltp.Terminal = (*terminal)(nil)

// newTerminal returns terminal t (0-based) of cfg: home warehouse t%W+1,
// district (t/W)%10+1, so that the terminals of one warehouse cover its
// ten districts before any district gets a second one; random stream
// (seed, streamTerminal, t).
func newTerminal(cfg Config, t int) *terminal {
	w := max(cfg.Warehouses, 1)
	return &terminal{
		id: t, w: t%w + 1, d: (t/w)%DistrictsPerWarehouse + 1,
		rnd: NewRand(cfg.Seed, streamTerminal, t), deck: newDeck(), scale: cfg.WaitScale,
	}
}

// Next deals the next card and returns its keying time (TPC-C 5.2.5.7)
// times the wait scale.
//
// The first call adds a ramp: a uniform random fraction of one mean cycle
// (keying plus think time averaged over the deck, 20.7 s at scale 1), so
// that the terminals of a run do not all submit at the same instant at the
// start but arrive spread as they would in a steady state. The ramp
// belongs to the terminal's first wait, not to any transaction's latency.
func (t *terminal) Next() (int, time.Duration) {
	op := t.deck.draw(t.rnd)
	keying := keyingTime(op, t.scale)
	if !t.started {
		t.started = true
		if t.scale != 0 {
			keying += time.Duration(t.rnd.Float() * float64(scaled(meanCycle, t.scale)))
		}
	}
	return op, keying
}

// Think returns the think time after op (TPC-C 5.2.5.4) times the wait
// scale.
func (t *terminal) Think(op int) time.Duration {
	return thinkTime(t.rnd, op, t.scale)
}
