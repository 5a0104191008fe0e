package blockio

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sync/atomic"

	"vmbench/oltp"
	"vmbench/oltp/hist"
	"vmbench/vdbench/parmfile"
)

// OpRead and OpWrite index the operations of every vdbench Result
// (Result.Ops "read" and "write"), as a worker's Event returns them.
const (
	OpRead  = 0
	OpWrite = 1
)

// Counter names in Result.Counters: the bytes transferred. A worker adds
// an I/O's bytes with the I/O itself (hist.Handle.AddToEvent), so they are
// counted exactly where the I/O is: in the same interval, and not at all
// for an I/O in flight at the end. Bytes over count is the mean transfer
// size, exactly.
const (
	CounterBytesRead    = "bytes_read"
	CounterBytesWritten = "bytes_written"
)

// Indexes of the counters in ioCounters.
const (
	ctrBytesRead    = 0
	ctrBytesWritten = 1
)

var (
	ioOps      = []string{"read", "write"}
	ioCounters = []string{CounterBytesRead, CounterBytesWritten}
)

// ErrEndOfSpan is returned by a worker whose sequential stream reached the
// end of its span under seekpct=eof. It ends that SD's run (every thread
// of the SD), as vdbench ends a run at end of file; the engine treats it
// as a normal end, not a failure.
var ErrEndOfSpan = errors.New("sequential stream reached the end of its span (seekpct=eof)")

// mix is one WD on one SD: what its I/Os look like.
type mix struct {
	wd     string
	span   parmfile.Span
	xfer   parmfile.XferPlan
	rdPct  float64 // fractions of 1
	rndPct float64
	rhPct  float64
	whPct  float64
	// hitEnd ends the hit area [span.Start, hitEnd) for rhpct/whpct hits.
	hitEnd int64
	eof    bool
}

// sdLoad is everything that runs on one SD: its backend, its WDs with
// their skew weights, and the sizes of the I/O buffers a thread needs.
type sdLoad struct {
	sd      parmfile.SD
	index   int
	backend Backend
	mixes   []*mix
	cum     []float64 // cumulative WD weights, last = 1
	// share is the SD's part of the run's I/O rate at a set iorate=: the
	// skew= of each of its WDs divided over the SDs that WD uses (vdbench:
	// skew is a WD's percentage of the total requested rate).
	share float64
	bufs  bufSizes
	ring  *ring // the io_uring engine's ring; nil for psync
}

// bufSizes are the bytes of a thread's read and write buffers: the
// largest transfer of the WDs that read (rdpct above 0) and of those that
// write (rdpct under 100); 0 for none.
type bufSizes struct{ read, write int64 }

// add makes room for the transfers of m.
func (b *bufSizes) add(m *mix) {
	if m.rdPct > 0 {
		b.read = max(b.read, m.xfer.Largest)
	}
	if m.rdPct < 1 {
		b.write = max(b.write, m.xfer.Largest)
	}
}

// newMix checks wd on sd (spans, transfer sizes) and returns its mix.
func newMix(sd parmfile.SD, wd parmfile.WD, capacity, blockSize int64) (*mix, error) {
	span, err := parmfile.SpanOf(sd, wd, capacity, blockSize)
	if err != nil {
		return nil, err
	}
	x, _, _ := parmfile.PlanXfer(wd.Xfer, blockSize) // checked by parmfile.SpanOf
	for _, p := range []struct {
		name string
		v    float64
	}{{"rdpct", wd.RdPct}, {"seekpct", wd.Seek.Pct}, {"rhpct", wd.RhPct}, {"whpct", wd.WhPct}} {
		if p.v < 0 || p.v > 100 || math.IsNaN(p.v) {
			return nil, fmt.Errorf("wd=%s: %s=%g is not a percentage", wd.Name, p.name, p.v)
		}
	}
	m := &mix{wd: wd.Name, span: span, xfer: x, rdPct: wd.RdPct / 100, rndPct: wd.Seek.Pct / 100,
		rhPct: wd.RhPct / 100, whPct: wd.WhPct / 100, eof: wd.Seek.EOF}
	if m.eof {
		m.rndPct = 0
	}
	hit := sd.HitArea
	if hit <= 0 {
		hit = 1 << 20 // vdbench's default hitarea
	}
	hit = (max(hit, x.Largest) + span.Unit - 1) / span.Unit * span.Unit
	m.hitEnd = min(span.Start+hit, span.End)
	return m, nil
}

// stream is the sequential stream of one WD on one SD, shared by the SD's
// threads: each claim takes the next transfer with a compare-and-swap, so
// no block is read twice before the span has been covered once. At the end
// it wraps to the start, or, under seekpct=eof, reports the end. The last
// transfer of a pass is shortened to fit the span.
type stream struct {
	next       atomic.Int64
	start, end int64
	eof        bool
}

func newStream(s parmfile.Span, eof bool) *stream {
	st := &stream{start: s.Start, end: s.End, eof: eof}
	st.next.Store(s.Start)
	return st
}

// claim returns the offset and length of the next sequential transfer of
// up to size bytes, or ok = false at the end of an eof stream.
func (s *stream) claim(size int64) (off, n int64, ok bool) {
	for {
		cur := s.next.Load()
		off := cur
		if off >= s.end {
			if s.eof {
				return 0, 0, false
			}
			off = s.start
		}
		n := min(size, s.end-off)
		if s.next.CompareAndSwap(cur, off+n) {
			return off, n, true
		}
	}
}

// jump moves the stream after a random transfer (vdbench: a sequential
// I/O continues from the last I/O of the stream, random or not).
func (s *stream) jump(to int64) { s.next.Store(to) }

// ioPath is how a worker issues its I/O: ReadAt and WriteAt of a Backend,
// or of its slot of the SD's io_uring.
type ioPath interface {
	ReadAt(p []byte, off int64) (int, error)
	WriteAt(p []byte, off int64) (int, error)
}

// worker is one thread of one SD: an oltp.Worker whose Event issues one
// I/O of the SD's WD mix.
type worker struct {
	load    *sdLoad
	dev     ioPath // the backend, or the thread's slot of the SD's ring
	streams []*stream
	rng     *rand.Rand
	// rbuf receives the thread's reads; wbuf holds its write pattern
	// (fillPattern, once, then scrambleWrite before each write), which
	// its reads never overwrite.
	rbuf, wbuf []byte
	ownBuf     bool   // rbuf and wbuf are the worker's to free (not its ring slot's)
	key        uint64 // the thread's scramble key (scrambleWrite)
	writes     uint64 // writes issued, for scrambleWrite
	h          *hist.Handle
}

// spec returns the oltp.Spec of this SD for one point: fresh sequential
// streams (each point starts its streams at the start of their spans, as
// each vdbench run does) and threads seeded from the run, point, SD and
// thread, so a rerun issues the same offsets.
func (l *sdLoad) spec(workload string, point int) oltp.Spec {
	streams := make([]*stream, len(l.mixes))
	for i, m := range l.mixes {
		streams[i] = newStream(m.span, m.eof)
	}
	hs := fnv.New64a()
	hs.Write([]byte(workload))
	seed := hs.Sum64() ^ uint64(point)<<48
	spec := oltp.Spec{
		Workload: workload, Ops: ioOps, Counters: ioCounters,
		NewWorker: func(_ context.Context, t int, h *hist.Handle) (oltp.Worker, error) {
			return l.newWorker(streams, seed, t, h)
		},
	}
	if l.ring != nil {
		spec.NewPipeline = l.newPipeline // closed loop: one goroutine per SD
	}
	return spec
}

// newWorker makes thread t's worker. Its read and write buffers are its
// ring slot's with the io_uring engine (registered with the ring), else
// its own; the write buffer is filled with the thread's pattern once.
func (l *sdLoad) newWorker(streams []*stream, seed uint64, t int, h *hist.Handle) (*worker, error) {
	var dev ioPath = l.backend
	var rbuf, wbuf []byte
	if l.ring != nil {
		slot := l.ring.slots[t]
		dev, rbuf, wbuf = slot, slot.rbuf, slot.wbuf
	} else {
		var err error
		if rbuf, wbuf, err = l.bufs.alloc(); err != nil {
			return nil, err
		}
	}
	thread := uint64(l.index)<<32 | uint64(t)
	fillPattern(wbuf, seed^thread)
	return &worker{load: l, dev: dev, streams: streams, rng: rand.New(rand.NewPCG(seed, thread)),
		rbuf: rbuf, wbuf: wbuf, key: seed ^ thread, h: h, ownBuf: l.ring == nil}, nil
}

// alloc returns aligned read and write buffers of b's sizes (nil for 0).
func (b bufSizes) alloc() (rbuf, wbuf []byte, err error) {
	if b.read > 0 {
		if rbuf, err = alignedBuffer(int(b.read)); err != nil {
			return nil, nil, err
		}
	}
	if b.write > 0 {
		if wbuf, err = alignedBuffer(int(b.write)); err != nil {
			freeBuffer(rbuf)
			return nil, nil, err
		}
	}
	return rbuf, wbuf, nil
}

// ioPlan is one I/O a worker chose: its op (OpRead, OpWrite), the counter
// its bytes go to, its offset and size in bytes, and the buffer it reads
// into or writes from (the worker's, size bytes long).
type ioPlan struct {
	op, ctr   int
	off, size int64
	buf       []byte
}

// next chooses the worker's next I/O: the WD (by skew), read or write
// (rdpct), the transfer size, and the offset: in the hit area for
// rhpct/whpct hits, else random (seekpct) or the next of the WD's shared
// sequential stream. A write's buffer is scrambled for it (scrambleWrite).
// The error is ErrEndOfSpan when a sequential stream has run out
// (seekpct=eof).
func (w *worker) next() (ioPlan, error) {
	mi := 0
	if len(w.load.mixes) > 1 {
		u := w.rng.Float64()
		for mi < len(w.load.cum)-1 && u >= w.load.cum[mi] {
			mi++
		}
	}
	m := w.load.mixes[mi]
	read := m.rdPct >= 1 || (m.rdPct > 0 && w.rng.Float64() < m.rdPct)
	size, grid := w.size(m)
	var off int64
	switch {
	case read && m.rhPct > 0 && w.rng.Float64() < m.rhPct,
		!read && m.whPct > 0 && w.rng.Float64() < m.whPct:
		off = w.random(m.span.Start, m.hitEnd, size, grid)
	case m.rndPct >= 1:
		off = w.random(m.span.Start, m.span.End, size, grid)
	case m.rndPct > 0 && w.rng.Float64() < m.rndPct:
		off = w.random(m.span.Start, m.span.End, size, grid)
		w.streams[mi].jump(off + size)
	default:
		var ok bool
		if off, size, ok = w.streams[mi].claim(size); !ok {
			return ioPlan{}, ErrEndOfSpan
		}
	}
	if read {
		return ioPlan{op: OpRead, ctr: ctrBytesRead, off: off, size: size, buf: w.rbuf[:size]}, nil
	}
	w.writes++
	io := ioPlan{op: OpWrite, ctr: ctrBytesWritten, off: off, size: size, buf: w.wbuf[:size]}
	scrambleWrite(io.buf, w.key, w.writes)
	return io, nil
}

// Event issues the worker's next I/O (next) and waits for it.
func (w *worker) Event(context.Context) (int, error) {
	io, err := w.next()
	if err != nil {
		return 0, err
	}
	if io.op == OpRead {
		_, err = w.dev.ReadAt(io.buf, io.off)
	} else {
		_, err = w.dev.WriteAt(io.buf, io.off)
	}
	return w.done(io, err)
}

// done settles the worker's I/O io, which ended with err: it returns io's
// op, and either an error naming the lun, offset and size, or nil after
// staging the bytes transferred for the event's record.
func (w *worker) done(io ioPlan, err error) (int, error) {
	if err != nil {
		return io.op, w.ioError(io.op, io.off, io.size, err)
	}
	w.h.AddToEvent(io.ctr, io.size)
	return io.op, nil
}

func (w *worker) ioError(op int, off, size int64, err error) error {
	return fmt.Errorf("sd=%s (lun %s): %s of %d bytes at offset %d failed: %w",
		w.load.sd.Name, w.load.sd.Lun, ioOps[op], size, off, err)
}

// size chooses a transfer size and the grid random offsets align to:
// the size itself (vdbench aligns random I/O to the transfer size), or
// align for the (min,max,align) form.
func (w *worker) size(m *mix) (size, grid int64) {
	x := &m.xfer
	if x.Align > 0 {
		n := (x.Max-x.Min)/x.Align + 1
		return x.Min + w.rng.Int64N(n)*x.Align, x.Align
	}
	if len(x.Sizes) == 1 {
		return x.Sizes[0], x.Sizes[0]
	}
	u := w.rng.Float64()
	i := 0
	for i < len(x.Cum)-1 && u >= x.Cum[i] {
		i++
	}
	return x.Sizes[i], x.Sizes[i]
}

// random returns an offset on grid, uniform over the transfers of size
// that fit in [lo, hi); lo and hi are multiples of grid.
func (w *worker) random(lo, hi, size, grid int64) int64 {
	slots := (hi-lo-size)/grid + 1
	if slots <= 1 {
		return lo
	}
	return lo + w.rng.Int64N(slots)*grid
}

// Close frees the thread's buffers, unless they are its ring slot's.
func (w *worker) Close() error {
	if w.ownBuf {
		freeBuffer(w.rbuf)
		freeBuffer(w.wbuf)
	}
	w.rbuf, w.wbuf = nil, nil
	return nil
}

// skewWeights returns the share of the run's I/O of each WD (fractions
// of 1): its skew=, or for WDs without one an equal part of what the
// others leave (vdbench's rule).
func skewWeights(wds []parmfile.WD) ([]float64, error) {
	var set float64
	unset := 0
	for _, wd := range wds {
		if wd.Skew < 0 || wd.Skew > 100 {
			return nil, fmt.Errorf("wd=%s: skew=%g is not a percentage", wd.Name, wd.Skew)
		}
		if wd.Skew == 0 {
			unset++
		}
		set += wd.Skew
	}
	rest := 100 - set
	switch {
	case unset == 0 && (rest > 0.01 || rest < -0.01):
		return nil, fmt.Errorf("the skew= of the run's WDs add up to %g, not 100", set)
	case unset > 0 && rest <= 0:
		return nil, fmt.Errorf("the skew= of the run's WDs add up to %g, leaving nothing for the %d WDs without one", set, unset)
	}
	w := make([]float64, len(wds))
	for i, wd := range wds {
		w[i] = wd.Skew / 100
		if wd.Skew == 0 {
			w[i] = rest / 100 / float64(unset)
		}
	}
	return w, nil
}
