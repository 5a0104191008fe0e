package oltp

import (
	"math/rand/v2"
	"sync"
	"time"
)

// pacer hands out intended start times for the open loop. Times are
// absolute (start + offset), so a slow event never shifts the schedule:
// a worker that claims a time already past starts at once, and the delay
// shows in the latency from the intended start.
type pacer struct {
	mu      sync.Mutex
	start   time.Time
	rate    float64
	arrival Arrival
	rng     *rand.Rand
	offset  float64 // seconds since start of the next intended start
	issued  int64
}

func newPacer(start time.Time, rate float64, arrival Arrival, seed int64) *pacer {
	if arrival == "" {
		arrival = Exponential
	}
	return &pacer{start: start, rate: rate, arrival: arrival, rng: rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))}
}

// next returns the next intended start.
func (p *pacer) next() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	at := p.offset
	if p.arrival == Exponential {
		p.offset += p.rng.ExpFloat64() / p.rate
	} else {
		p.offset = float64(p.issued+1) / p.rate
	}
	p.issued++
	return p.start.Add(time.Duration(at * float64(time.Second)))
}

// backlog counts intended starts at or before now that have not started.
// started is the number of events started so far.
func (p *pacer) backlog(now time.Time, started int64) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	due := int64(now.Sub(p.start).Seconds() * p.rate) // expected count; exact for uniform
	return max(due-started, 0)
}
