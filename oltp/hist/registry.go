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
	retired []int32 // per handle: the buffer retired by the current Tick
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
	n := len(r.counters)
	h := &Handle{buf: [2][]*Histogram{newSet(len(r.ops)), newSet(len(r.ops))},
		evc: [2][]int64{make([]int64, n), make([]int64, n)}, pend: make([]int64, n), ctr: make([]atomic.Int64, n)}
	r.mu.Lock()
	r.handles = append(r.handles, h)
	r.lastCtr = append(r.lastCtr, make([]int64, n)...)
	r.mu.Unlock()
	return h
}

// Handle is one worker's recorder. Record, RecordPair, Add, AddToEvent and
// DropEvent may be called by one goroutine at a time (its worker); Tick
// may run concurrently with them.
type Handle struct {
	active atomic.Int32 // index of the buffer the worker writes
	busy   atomic.Int32 // 1 + the buffer the worker is writing inside Record; 0 outside
	buf    [2][]*Histogram
	// evc holds, per buffer, the counters added with events (AddToEvent):
	// written inside Record's busy window, so they swap with the latencies.
	evc     [2][]int64
	pend    []int64 // staged by AddToEvent for the next Record
	pending bool
	ctr     []atomic.Int64
}

// Record adds latency d for operation op (an index from Registry.Ops),
// with the counters staged by AddToEvent.
//
// The hand-off with Tick: the worker announces which buffer it is about to
// write (busy = 1 + index), then reads the active index again and writes
// only if it is unchanged; Tick flips the index of every handle, then waits
// while a handle's busy names the retired buffer. With sequentially
// consistent atomics either Tick sees that busy (and waits for the write to
// finish) or the worker sees the new index, so the retired buffer is never
// written while Tick reads it; a worker writing the new buffer never holds
// Tick up.
func (h *Handle) Record(op int, d time.Duration) {
	a := h.enter()
	h.buf[a][op].Record(d)
	h.commit(a)
	h.busy.Store(0)
}

// RecordPair records two latencies of one event (its service time and its
// latency from the intended start) and its staged counters in the same
// interval.
func (h *Handle) RecordPair(op int, d time.Duration, op2 int, d2 time.Duration) {
	a := h.enter()
	h.buf[a][op].Record(d)
	h.buf[a][op2].Record(d2)
	h.commit(a)
	h.busy.Store(0)
}

// enter announces a write and returns the buffer it may write.
func (h *Handle) enter() int32 {
	for {
		a := h.active.Load()
		h.busy.Store(a + 1)
		if h.active.Load() == a {
			return a
		}
		h.busy.Store(0) // Tick flipped in between: write the new buffer
	}
}

func (h *Handle) commit(a int32) {
	if !h.pending {
		return
	}
	for c, n := range h.pend {
		h.evc[a][c] += n
	}
	clear(h.pend)
	h.pending = false
}

// Add adds n to counter c (an index from Registry.Counters) at once.
func (h *Handle) Add(c int, n int64) { h.ctr[c].Add(n) }

// AddToEvent adds n to counter c as part of the event being run: the
// amount is staged and lands with the event's latency at the next Record
// or RecordPair, in the same interval, or is dropped with the event by
// DropEvent (an event in flight at the end, which is not counted). Use it
// for what must add up exactly with the event count, such as the bytes of
// an I/O.
func (h *Handle) AddToEvent(c int, n int64) {
	h.pend[c] += n
	h.pending = true
}

// DropEvent discards what AddToEvent staged since the last Record.
func (h *Handle) DropEvent() {
	if h.pending {
		clear(h.pend)
		h.pending = false
	}
}

// Counter returns the handle's running total of counter c as added by Add
// (amounts added with events are not included).
func (h *Handle) Counter(c int) int64 { return h.ctr[c].Load() }

// flip makes the worker write the other buffer from now on and returns
// the index of the retired one.
func (h *Handle) flip() int32 {
	old := h.active.Load()
	h.active.Store(1 - old)
	return old
}

// drain waits until the worker no longer writes the retired buffer old: at
// most the one Record it was inside when flip ran.
func (h *Handle) drain(old int32) {
	for h.busy.Load() == old+1 {
		runtime.Gosched()
	}
}

// Tick is one merge of all handles.
type Tick struct {
	// At is the instant of the swap: read right after every handle's
	// buffer was swapped, before anything is merged. What was recorded
	// before the swap is in Interval; what is recorded after it goes to
	// the next tick. Swap is how long swapping every handle took, the
	// uncertainty of that edge (microseconds unless a worker was
	// descheduled inside Record).
	At   time.Time
	Swap time.Duration
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

// Tick swaps every handle's buffer in one pass, stamps the instant, and
// then merges what was recorded since the previous tick into the interval
// and cumulative views.
func (r *Registry) Tick() Tick {
	r.mu.Lock()
	defer r.mu.Unlock()
	begin := time.Now()
	r.retired = r.retired[:0]
	// Every handle is flipped first and the instant stamped, then each is
	// drained: a worker descheduled inside Record delays the merge, never
	// the edge (on a host with more busy threads than cores, waiting for
	// each handle in turn took seconds).
	for _, h := range r.handles {
		r.retired = append(r.retired, h.flip())
	}
	at := time.Now()
	for hi, h := range r.handles {
		h.drain(r.retired[hi])
	}
	ictr := make([]int64, len(r.counters))
	for hi, h := range r.handles {
		// Counters added at once (Add) are read right after the swap,
		// before the merge, so that events ending during the merge count
		// in the next interval on both sides: at most the one event in
		// flight per handle can have such counters and its latency in
		// different intervals. Counters added with events (AddToEvent)
		// are in the retired buffer, exactly with their latencies.
		last := r.lastCtr[hi*len(r.counters) : (hi+1)*len(r.counters)]
		for c := range r.counters {
			v := h.ctr[c].Load()
			ictr[c] += v - last[c]
			last[c] = v
		}
	}
	for _, s := range r.scratch {
		s.Reset()
	}
	for hi, h := range r.handles {
		old := r.retired[hi]
		for c, n := range h.evc[old] {
			ictr[c] += n
		}
		clear(h.evc[old])
		for i, s := range h.buf[old] {
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
	return Tick{At: at, Swap: at.Sub(begin), Interval: r.scratch, Cumulative: r.cum, IntervalCounters: ictr,
		CumulativeCounters: append([]int64(nil), r.cumCtr...)}
}

// ResetCumulative empties the cumulative view and counters (used at a phase
// boundary, after the final Tick of the phase that ends). It swaps nothing:
// the cumulative view changes only in Tick, so what is recorded between
// that Tick and ResetCumulative goes to the next phase, and the boundary
// is the instant of that Tick (Tick.At).
func (r *Registry) ResetCumulative() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.cum {
		c.Reset()
	}
	clear(r.cumCtr)
}
