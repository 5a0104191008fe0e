package hist

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Registry collects per-worker Handles and merges them on demand. The set
// of operation names and counter names is fixed when the Registry is made,
// so a worker records by index, with no map look-up and no lock.
//
// Tick swaps every handle's active buffer, merges the retired buffers into
// an interval view and adds that to the cumulative view. A worker never
// blocks on Tick: recording costs two atomic stores and one atomic load
// (a Dekker-style hand-off, see Handle.Record) beside the HDR update.
type Registry struct {
	ops      []string
	counters []string

	mu      sync.Mutex // guards handles, cum, cumCtr, lastCtr, and Tick itself
	handles []*Handle
	cum     []*Histogram
	cumCtr  []int64
	lastCtr []int64 // per handle: counter totals already folded in, flattened [handle][counter]
	scratch []*Histogram
}

// NewRegistry returns a Registry for the named operations and counters.
// Names must be unique within each list; a duplicate is a programmer error
// and panics.
func NewRegistry(ops, counters []string) *Registry {
	mustUnique(ops)
	mustUnique(counters)
	r := &Registry{ops: append([]string(nil), ops...), counters: append([]string(nil), counters...)}
	r.cum = newSet(len(ops))
	r.scratch = newSet(len(ops))
	r.cumCtr = make([]int64, len(counters))
	return r
}

func mustUnique(names []string) {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			panic("hist: duplicate name " + n)
		}
		seen[n] = true
	}
}

func newSet(n int) []*Histogram {
	s := make([]*Histogram, n)
	for i := range s {
		s[i] = New()
	}
	return s
}

// Ops returns the operation names, in index order.
func (r *Registry) Ops() []string { return r.ops }

// Counters returns the counter names, in index order.
func (r *Registry) Counters() []string { return r.counters }

// Op returns the index of the named operation, or -1.
func (r *Registry) Op(name string) int { return indexOf(r.ops, name) }

// Counter returns the index of the named counter, or -1.
func (r *Registry) Counter(name string) int { return indexOf(r.counters, name) }

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// NewHandle returns a Handle for one worker goroutine.
func (r *Registry) NewHandle() *Handle {
	h := &Handle{buf: [2][]*Histogram{newSet(len(r.ops)), newSet(len(r.ops))}, ctr: make([]atomic.Int64, len(r.counters))}
	r.mu.Lock()
	r.handles = append(r.handles, h)
	r.lastCtr = append(r.lastCtr, make([]int64, len(r.counters))...)
	r.mu.Unlock()
	return h
}

// Handle is one worker's recorder. Record and Add may be called by one
// goroutine at a time (its worker); Tick may run concurrently with them.
type Handle struct {
	active atomic.Int32 // index of the buffer the worker writes
	busy   atomic.Int32 // 1 while the worker is inside Record
	buf    [2][]*Histogram
	ctr    []atomic.Int64
}

// Record adds latency d for operation op (an index from Registry.Ops).
//
// The hand-off with Tick: the worker announces busy, then reads the active
// index; Tick flips the index, then waits until busy is clear. With
// sequentially consistent atomics either Tick sees busy (and waits for the
// write to finish) or the worker sees the new index, so the retired buffer
// is never written while Tick reads it.
func (h *Handle) Record(op int, d time.Duration) {
	h.busy.Store(1)
	h.buf[h.active.Load()][op].Record(d)
	h.busy.Store(0)
}

// Add adds n to counter c (an index from Registry.Counters).
func (h *Handle) Add(c int, n int64) { h.ctr[c].Add(n) }

// Counter returns the handle's running total of counter c.
func (h *Handle) Counter(c int) int64 { return h.ctr[c].Load() }

// retire flips the active buffer and returns the retired one once the
// worker is no longer writing to it.
func (h *Handle) retire() []*Histogram {
	old := h.active.Load()
	h.active.Store(1 - old)
	for h.busy.Load() != 0 {
		runtime.Gosched()
	}
	return h.buf[old]
}

// Tick is one merge of all handles.
type Tick struct {
	// Interval holds, per operation, what was recorded since the last tick
	// (or ResetCumulative). The histograms belong to the Registry and are
	// valid until the next call to Tick; Clone to keep them.
	Interval []*Histogram
	// Cumulative holds, per operation, everything since the registry was
	// made or last reset. Same ownership as Interval.
	Cumulative []*Histogram
	// IntervalCounters and CumulativeCounters are the counter deltas and
	// totals, in Registry.Counters order.
	IntervalCounters   []int64
	CumulativeCounters []int64
}

// Tick merges every handle's recordings since the previous tick and
// returns the interval and cumulative views.
func (r *Registry) Tick() Tick {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.scratch {
		s.Reset()
	}
	ictr := make([]int64, len(r.counters))
	for hi, h := range r.handles {
		retired := h.retire()
		// Counters are read right after the swap, before the merge, so
		// that events ending during the merge count in the next interval
		// on both sides: at most the one event in flight per handle can
		// have its counters and its latency in different intervals.
		last := r.lastCtr[hi*len(r.counters) : (hi+1)*len(r.counters)]
		for c := range r.counters {
			v := h.ctr[c].Load()
			ictr[c] += v - last[c]
			last[c] = v
		}
		for i, s := range retired {
			r.scratch[i].Merge(s)
			s.Reset()
		}
	}
	for i, s := range r.scratch {
		r.cum[i].Merge(s)
	}
	for c := range ictr {
		r.cumCtr[c] += ictr[c]
	}
	return Tick{Interval: r.scratch, Cumulative: r.cum, IntervalCounters: ictr, CumulativeCounters: append([]int64(nil), r.cumCtr...)}
}

// ResetCumulative empties the cumulative view and counters (used at a phase
// boundary, after a final Tick of the phase that ends).
func (r *Registry) ResetCumulative() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.cum {
		c.Reset()
	}
	clear(r.cumCtr)
}
