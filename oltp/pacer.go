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
// it (begin). restart begins a new schedule (the measure phase after the
// precondition): arrivals due and not started are dropped and counted,
// and claims made before it are void, so their workers claim again from
// the new schedule.
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
	epoch     int64   // bumped by restart
	started   int64   // arrivals of this epoch started
}

func newPacer(start time.Time, rate float64, arrival Arrival, seed int64) *pacer {
	if arrival == "" {
		arrival = Exponential
	}
	return &pacer{start: start, rate: rate, arrival: arrival, rng: rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))}
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

// next claims the next intended start (for tests: the epoch is dropped).
func (p *pacer) next() time.Time {
	t, _ := p.claim()
	return t
}

// claim claims the next intended start, in the schedule's current epoch.
func (p *pacer) claim() (time.Time, int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ahead) == 0 {
		p.generate()
	}
	at := p.ahead[0]
	p.ahead = p.ahead[1:]
	return p.start.Add(at), p.epoch
}

// begin counts a claimed arrival as started, unless restart voided its
// epoch (then it returns false and the worker claims again).
func (p *pacer) begin(epoch int64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if epoch != p.epoch {
		return false
	}
	p.started++
	return true
}

// restart drops the arrivals due by at and not started, returning how
// many, and begins a new schedule whose first arrival is at at.
func (p *pacer) restart(at time.Time) (dropped int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	dropped = p.backlogLocked(at)
	p.start, p.ahead, p.generated, p.last, p.started = at, p.ahead[:0], 0, 0, 0
	p.epoch++
	return dropped
}

// maxAhead bounds the arrivals backlog draws ahead of the workers.
const maxAhead = 1 << 16

// backlog counts the arrivals due at or before now that have not started:
// sysbench's "queue length". When the oldest unclaimed arrival is not yet
// due, every due arrival has been claimed by a worker, which starts it at
// once: no backlog.
func (p *pacer) backlog(now time.Time) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.backlogLocked(now)
}

func (p *pacer) backlogLocked(now time.Time) int64 {
	started := p.started
	due := now.Sub(p.start)
	for len(p.ahead) == 0 || p.ahead[len(p.ahead)-1] <= due {
		if len(p.ahead) >= maxAhead {
			// Far behind: count the rest of the due arrivals from the
			// rate instead of drawing them all (at 10^9 events/s that
			// would take all memory).
			extra := int64((due - p.ahead[len(p.ahead)-1]).Seconds() * p.rate)
			return max(p.generated+extra-started, 0)
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
	return max(n-started, 0)
}
