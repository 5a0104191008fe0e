package oltp

import (
	"math/rand/v2"
	"sync"
	"time"
)

// pacer hands out intended start times for the open loop. Times are
// absolute (start + offset), so a slow event never shifts the schedule:
// a worker that claims a time already past starts at once, and the delay
// shows in the latency from the intended start. That is the catch-up
// policy CatchUpFullSpeed: after a stall the due arrivals start back to
// back until the schedule is met.
//
// A worker claims an arrival (claim), sleeps until it is due, then starts
// it (begin). cut drops, at a phase boundary, every arrival due before the
// boundary and not started: the unclaimed ones leave the schedule, and a
// claimed one is refused when its worker comes to begin it (that worker
// claims again). Arrivals from the boundary on are untouched: the same
// process goes on, with no backlog carried over.
type pacer struct {
	mu      sync.Mutex
	start   time.Time
	rate    float64
	arrival Arrival
	rng     *rand.Rand
	// ahead holds arrivals generated but not yet claimed, in order, as
	// offsets from start; generated counts every arrival generated.
	ahead     []time.Duration
	generated int64
	last      float64 // seconds: offset of the last generated arrival
	// pending holds the claimed arrivals not yet begun, by claim number:
	// at most one per worker.
	pending map[int64]time.Duration
	claims  int64 // claims made
	started int64 // arrivals begun
	dropped int64 // arrivals dropped by cut
}

func newPacer(start time.Time, rate float64, arrival Arrival, seed int64) *pacer {
	if arrival == "" {
		arrival = Exponential
	}
	return &pacer{start: start, rate: rate, arrival: arrival, pending: map[int64]time.Duration{},
		rng: rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))}
}

// generate appends the next arrival to ahead. The first arrival is at the
// start; then deterministic gaps are exactly 1/rate (computed from the
// arrival's index, so rounding never accumulates), uniform gaps are drawn
// from [0, 2/rate) and exponential gaps from an exponential distribution,
// both with mean 1/rate.
func (p *pacer) generate() {
	if p.generated > 0 {
		switch p.arrival {
		case Exponential:
			p.last += p.rng.ExpFloat64() / p.rate
		case Uniform:
			p.last += 2 * p.rng.Float64() / p.rate
		default:
			p.last = float64(p.generated) / p.rate
		}
	}
	p.generated++
	p.ahead = append(p.ahead, time.Duration(p.last*float64(time.Second)))
}

// next claims the next intended start (for tests: the claim number is
// dropped, so it cannot be begun).
func (p *pacer) next() time.Time {
	t, _ := p.claim()
	return t
}

// claim claims the next intended start; begin takes the claim number.
func (p *pacer) claim() (time.Time, int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ahead) == 0 {
		p.generate()
	}
	at := p.ahead[0]
	p.ahead = p.ahead[1:]
	n := p.claims
	p.claims++
	p.pending[n] = at
	return p.start.Add(at), n
}

// begin counts claim n as started, unless cut dropped it (then it returns
// false and the worker claims again).
func (p *pacer) begin(n int64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.pending[n]; !ok {
		return false
	}
	delete(p.pending, n)
	p.started++
	return true
}

// cut drops every arrival due before at and not started, returning how
// many: the precondition's backlog, which the measure phase starting at
// at does not inherit.
func (p *pacer) cut(at time.Time) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	edge := at.Sub(p.start)
	var n int64
	for c, off := range p.pending {
		if off < edge {
			delete(p.pending, c)
			n++
		}
	}
	for {
		i := 0
		for i < len(p.ahead) && p.ahead[i] < edge {
			i++
		}
		n += int64(i)
		p.ahead = p.ahead[i:]
		if len(p.ahead) > 0 {
			break
		}
		if (edge.Seconds()-p.last)*p.rate > maxAhead {
			// Far behind: skip the rest of the due arrivals, counted from
			// the rate, and go on from the edge (exponential gaps are
			// memoryless; deterministic ones stay on their grid).
			skip := int64((edge.Seconds() - p.last) * p.rate)
			n += skip
			p.generated += skip
			p.last = edge.Seconds()
		}
		p.generate()
	}
	p.dropped += n
	return n
}

// maxAhead bounds the arrivals backlog draws ahead of the workers.
const maxAhead = 1 << 16

// backlog counts the arrivals due at or before now that have not started
// (nor been dropped): sysbench's "queue length". When the oldest unclaimed
// arrival is not yet due, every due arrival has been claimed by a worker,
// which starts it at once: no backlog.
func (p *pacer) backlog(now time.Time) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	done := p.started + p.dropped
	due := now.Sub(p.start)
	for len(p.ahead) == 0 || p.ahead[len(p.ahead)-1] <= due {
		if len(p.ahead) >= maxAhead {
			// Far behind: count the rest of the due arrivals from the
			// rate instead of drawing them all (at 10^9 events/s that
			// would take all memory).
			extra := int64((due - p.ahead[len(p.ahead)-1]).Seconds() * p.rate)
			return max(p.generated+extra-done, 0)
		}
		p.generate()
	}
	if p.ahead[0] > due {
		return 0
	}
	n := p.generated // arrivals claimed or ahead
	for i := len(p.ahead) - 1; p.ahead[i] > due; i-- {
		n-- // ahead and not due yet
	}
	return max(n-done, 0)
}
