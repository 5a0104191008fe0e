//go:build linux

package blockio

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The io_uring ABI (include/uapi/linux/io_uring.h), as far as the ring
// uses it: x/sys/unix has the system-call numbers but not these.
const (
	iouOpNop        = 0  // IORING_OP_NOP
	iouOpReadFixed  = 4  // IORING_OP_READ_FIXED: on a registered buffer
	iouOpWriteFixed = 5  // IORING_OP_WRITE_FIXED
	iouOpRead       = 22 // IORING_OP_READ (Linux 5.6)
	iouOpWrite      = 23 // IORING_OP_WRITE

	iouRegisterBuffers = 0 // IORING_REGISTER_BUFFERS

	iouOffSQRing = 0          // IORING_OFF_SQ_RING
	iouOffCQRing = 0x8000000  // IORING_OFF_CQ_RING
	iouOffSQEs   = 0x10000000 // IORING_OFF_SQES

	iouEnterGetEvents = 1 // IORING_ENTER_GETEVENTS

	iouMaxEntries = 32768 // IORING_MAX_ENTRIES

	sqeSize = 64
	cqeSize = 16

	// closeTag is the user_data of the NOP that stops the reaper.
	closeTag = ^uint64(0)
)

// iouParams is struct io_uring_params (120 bytes).
type iouParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  iouRingOffsets
	cqOff                                                                  iouRingOffsets
}

// iouRingOffsets is struct io_sqring_offsets or io_cqring_offsets: the
// same layout of eight 32-bit offsets and a 64-bit address. After head,
// tail, ring_mask and ring_entries the SQ has flags, dropped, array; the
// CQ overflow, cqes, flags.
type iouRingOffsets struct {
	head, tail, ringMask, ringEntries, f4, f5, f6, resv1 uint32
	userAddr                                             uint64
}

func (o *iouRingOffsets) sqArray() uint32 { return o.f6 }
func (o *iouRingOffsets) cqes() uint32    { return o.f5 }

// iouSQE is struct io_uring_sqe (64 bytes), with the fields a read or
// write sets.
type iouSQE struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	rwFlags     uint32
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFdIn  int32
	addr3       uint64
	pad         uint64
}

// iouCQE is struct io_uring_cqe (16 bytes).
type iouCQE struct {
	userData uint64
	res      int32
	flags    uint32
}

// ring is one io_uring on one SD's descriptor, for the SD's threads= I/Os
// in flight: each thread (a slot) has at most one I/O in it, so the
// submission queue never fills. A thread queues its SQE under mu and
// submits it itself only when the reaper is blocked waiting; otherwise
// the reaper's next io_uring_enter submits every queued SQE with its wait
// (submit + wait in one call, as fio's io_uring engine does). The reaper
// goroutine reaps the completions and hands each to its slot's goroutine.
// A closed-loop point uses the ring without slot goroutines or reaper:
// ringPipeline queues every slot's I/O and reaps them itself (wait).
type ring struct {
	fd     int
	target int32 // the SD's descriptor
	sqMem  []byte
	cqMem  []byte
	sqeMem []byte
	sqes   []iouSQE
	sqTail *uint32
	sqMask uint32
	cqHead *uint32
	cqTail *uint32
	cqMask uint32
	cqes   []iouCQE
	slots  []*ringSlot
	// fixed is set when the slots' buffers are registered with the ring
	// (IORING_REGISTER_BUFFERS): an I/O on its slot's buffer is then a
	// READ_FIXED or WRITE_FIXED, which spares the kernel pinning its pages
	// on every I/O. Registration counts against RLIMIT_MEMLOCK; when it
	// is refused the buffers are used unregistered.
	fixed bool
	// perSlot is how many buffers each slot has (read, write: 0 to 2).
	perSlot int

	mu      sync.Mutex    // guards the SQ tail and the SQEs
	pending atomic.Uint32 // SQEs queued and not yet submitted
	waiting atomic.Bool   // the reaper is in (or about to enter) its wait
	failed  atomic.Pointer[error]
	closed  bool

	// The reaper goroutine runs only while slots do their own I/O
	// (ringSlot.do starts it); a pipeline (ringPipeline) stops it and
	// reaps on its own goroutine instead (wait).
	reaperMu sync.Mutex
	reaping  atomic.Bool
	done     chan struct{} // closed when the reaper returns
}

// ringSlot is one thread's place in the ring: its I/O's result arrives on
// done.
type ringSlot struct {
	ring *ring
	id   uint64
	// rbuf and wbuf are the thread's read and write buffers
	// (alignedBuffer; nil when its WDs never read or never write), owned
	// by the ring. Registered, they are the ring's fixed buffers in slot
	// order, each slot's read buffer before its write buffer.
	rbuf, wbuf []byte
	busy       atomic.Bool // an I/O of this slot is queued or in flight
	done       chan int32
}

// errURingUnavailable wraps every failure to set up a ring.
var errURingUnavailable = errors.New("io_uring is unavailable")

// newRing sets up an io_uring for slots I/Os in flight on fd, with an
// aligned read buffer and write buffer of bufs' sizes per slot (none for
// a size 0), registered with the ring when RLIMIT_MEMLOCK allows, and
// starts its reaper. An error wraps errURingUnavailable and says why (ENOSYS: a
// kernel without io_uring; EPERM: refused by seccomp, a container's
// profile or the kernel.io_uring_disabled sysctl).
func newRing(fd, slots int, bufs bufSizes) (*ring, error) {
	if slots < 1 || slots+1 > iouMaxEntries {
		return nil, fmt.Errorf("%w: threads=%d: io_uring takes 1 to %d I/Os in flight per target", errURingUnavailable, slots, iouMaxEntries-1)
	}
	var p iouParams
	rfd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(slots+1), uintptr(unsafe.Pointer(&p)), 0)
	if e != 0 {
		return nil, fmt.Errorf("%w: io_uring_setup: %w%s", errURingUnavailable, e, setupHint(e))
	}
	r := &ring{fd: int(rfd), target: int32(fd)}
	if err := r.mapRings(&p); err != nil {
		r.unmap()
		return nil, fmt.Errorf("%w: %w", errURingUnavailable, err)
	}
	r.slots = make([]*ringSlot, slots)
	var iovs []unix.Iovec
	for i := range r.slots {
		s := &ringSlot{ring: r, id: uint64(i), done: make(chan int32, 1)}
		r.slots[i] = s
		var err error
		if s.rbuf, s.wbuf, err = bufs.alloc(); err != nil {
			r.unmap()
			return nil, err
		}
		for _, b := range [][]byte{s.rbuf, s.wbuf} {
			if len(b) > 0 {
				iovs = append(iovs, unix.Iovec{Base: &b[0]})
				iovs[len(iovs)-1].SetLen(len(b))
			}
		}
	}
	r.perSlot = len(iovs) / slots
	if len(iovs) > 0 {
		_, _, e := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), iouRegisterBuffers,
			uintptr(unsafe.Pointer(&iovs[0])), uintptr(len(iovs)), 0, 0)
		r.fixed = e == 0
	}
	return r, nil
}

func setupHint(e syscall.Errno) string {
	switch e {
	case unix.ENOSYS:
		return " (this kernel has no io_uring)"
	case unix.EPERM, unix.EACCES:
		return " (refused: seccomp, a container's profile, or the kernel.io_uring_disabled sysctl)"
	case unix.ENOMEM:
		return " (the locked-memory limit, RLIMIT_MEMLOCK, is too low)"
	default:
		return ""
	}
}

// ProbeURing reports whether io_uring can be set up here: nil, or an
// error wrapping errURingUnavailable that says why.
func ProbeURing() error {
	var p iouParams
	rfd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&p)), 0)
	if e != 0 {
		return fmt.Errorf("%w: io_uring_setup: %w%s", errURingUnavailable, e, setupHint(e))
	}
	return unix.Close(int(rfd))
}

// mapRings maps the SQ ring, the CQ ring and the SQE array and points the
// ring's fields into them. The SQ array is set once to the identity: SQE
// i is always at SQ index i.
func (r *ring) mapRings(p *iouParams) error {
	var err error
	sqLen := int(p.sqOff.sqArray() + p.sqEntries*4) // array: u32 per entry
	if r.sqMem, err = mmapRing(r.fd, sqLen, iouOffSQRing); err != nil {
		return fmt.Errorf("mapping the submission ring: %w", err)
	}
	cqLen := int(p.cqOff.cqes() + p.cqEntries*cqeSize) // cqes
	if r.cqMem, err = mmapRing(r.fd, cqLen, iouOffCQRing); err != nil {
		return fmt.Errorf("mapping the completion ring: %w", err)
	}
	if r.sqeMem, err = mmapRing(r.fd, int(p.sqEntries)*sqeSize, iouOffSQEs); err != nil {
		return fmt.Errorf("mapping the SQE array: %w", err)
	}
	r.sqes = unsafe.Slice((*iouSQE)(unsafe.Pointer(&r.sqeMem[0])), p.sqEntries)
	r.sqTail = (*uint32)(unsafe.Pointer(&r.sqMem[p.sqOff.tail]))
	r.sqMask = *(*uint32)(unsafe.Pointer(&r.sqMem[p.sqOff.ringMask]))
	array := unsafe.Slice((*uint32)(unsafe.Pointer(&r.sqMem[p.sqOff.sqArray()])), p.sqEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	r.cqHead = (*uint32)(unsafe.Pointer(&r.cqMem[p.cqOff.head]))
	r.cqTail = (*uint32)(unsafe.Pointer(&r.cqMem[p.cqOff.tail]))
	r.cqMask = *(*uint32)(unsafe.Pointer(&r.cqMem[p.cqOff.ringMask]))
	r.cqes = unsafe.Slice((*iouCQE)(unsafe.Pointer(&r.cqMem[p.cqOff.cqes()])), p.cqEntries)
	return nil
}

func mmapRing(fd, n int, off int64) ([]byte, error) {
	return unix.Mmap(fd, off, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
}

func (r *ring) unmap() {
	for _, m := range [][]byte{r.sqeMem, r.cqMem, r.sqMem} {
		if m != nil {
			_ = unix.Munmap(m)
		}
	}
	r.sqeMem, r.cqMem, r.sqMem = nil, nil, nil
	_ = unix.Close(r.fd) // unregisters the buffers
	for _, s := range r.slots {
		if s == nil {
			continue
		}
		freeBuffer(s.rbuf)
		freeBuffer(s.wbuf)
		s.rbuf, s.wbuf = nil, nil
	}
}

// enter is io_uring_enter(2): it submits toSubmit queued SQEs and, with
// wait, waits for at least one completion. It returns the SQEs submitted.
func (r *ring) enter(toSubmit uint32, wait bool) (uint32, syscall.Errno) {
	var minComplete, flags uintptr
	if wait {
		minComplete, flags = 1, iouEnterGetEvents
	}
	n, _, e := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(toSubmit), minComplete, flags, 0, 0)
	return uint32(n), e
}

// queue puts one SQE on the submission ring and makes sure it will be
// submitted: by the reaper's next enter, or here when the reaper is
// already waiting (its enter has taken its count of pending SQEs).
func (r *ring) queue(op uint8, p []byte, off int64, tag uint64, bufIndex uint16) {
	r.mu.Lock()
	tail := *r.sqTail // only the submitters write it, under mu
	sqe := &r.sqes[tail&r.sqMask]
	*sqe = iouSQE{opcode: op, fd: r.target, off: uint64(off), len: uint32(len(p)), userData: tag, bufIndex: bufIndex}
	if len(p) > 0 {
		sqe.addr = uint64(uintptr(unsafe.Pointer(&p[0])))
	}
	atomic.StoreUint32(r.sqTail, tail+1) // release: the kernel reads the SQE after it sees the tail
	r.mu.Unlock()
	r.pending.Add(1)
	if r.waiting.Load() {
		r.flush()
	}
}

// flush submits the SQEs queued and not yet submitted, without waiting.
func (r *ring) flush() {
	n := r.pending.Swap(0)
	if n == 0 {
		return
	}
	got, e := r.enter(n, false)
	if e != 0 {
		got = 0
	}
	if got < n {
		r.pending.Add(n - got) // the reaper's next enter retries them
	}
}

// reap is the reaper: it submits what is pending with each wait for a
// completion, and hands every completion to its slot. It yields once
// after handing completions out, so the woken threads queue their next
// I/Os before its next enter submits them together. A failing
// io_uring_enter (other than EINTR and EAGAIN) fails every I/O in flight
// and every later one.
func (r *ring) reap() {
	defer close(r.done)
	for {
		r.waiting.Store(true)
		n := r.pending.Swap(0)
		got, e := r.enter(n, true)
		r.waiting.Store(false)
		switch {
		case e == 0:
		case e == unix.EINTR || e == unix.EAGAIN || e == unix.EBUSY:
			got = 0
		default:
			r.fail(fmt.Errorf("io_uring_enter: %w", e))
			return
		}
		if got < n {
			r.pending.Add(n - got)
		}
		handed, stop := r.complete()
		if stop {
			return
		}
		if handed > 0 {
			runtime.Gosched()
		}
	}
}

// complete hands the completions on the CQ ring to their slots; stop is
// set when the reaper's own NOP (Close) is among them.
func (r *ring) complete() (handed int, stop bool) {
	head := *r.cqHead                   // only the reaper writes it
	tail := atomic.LoadUint32(r.cqTail) // acquire: the CQEs up to tail are written
	for ; head != tail; head++ {
		c := r.cqes[head&r.cqMask]
		if c.userData == closeTag {
			stop = true
			continue
		}
		s := r.slots[c.userData]
		if s.busy.CompareAndSwap(true, false) {
			s.done <- c.res
			handed++
		}
	}
	atomic.StoreUint32(r.cqHead, head) // release: the kernel may reuse the CQEs
	return handed, stop
}

// fail records err and fails every slot's I/O in flight with it.
func (r *ring) fail(err error) {
	r.failed.Store(&err)
	for _, s := range r.slots {
		if s.busy.CompareAndSwap(true, false) {
			s.done <- -int32(unix.EIO)
		}
	}
}

// startReaper starts the reaper goroutine unless it runs.
func (r *ring) startReaper() {
	r.reaperMu.Lock()
	defer r.reaperMu.Unlock()
	if r.reaping.Load() {
		return
	}
	r.done = make(chan struct{})
	r.reaping.Store(true)
	go r.reap()
}

// stopReaper stops the reaper goroutine, if it runs, with a NOP it
// recognizes, and waits for it. No slot may have an I/O in flight.
func (r *ring) stopReaper() {
	r.reaperMu.Lock()
	defer r.reaperMu.Unlock()
	if !r.reaping.Load() {
		return
	}
	if r.failed.Load() == nil {
		r.queue(iouOpNop, nil, 0, closeTag, 0)
		r.flush()
		<-r.done
	}
	r.reaping.Store(false)
}

// wait reaps a ring that has no reaper goroutine (ringPipeline): it
// submits the queued SQEs, waits until at least one I/O has completed, and
// calls ended with each completion's tag and result (bytes, or a negative
// errno). A failing io_uring_enter is returned; EINTR, EAGAIN and EBUSY
// are retried.
func (r *ring) wait(ended func(tag uint64, res int32)) error {
	for {
		n := r.pending.Swap(0)
		got, e := r.enter(n, true)
		switch {
		case e == 0:
		case e == unix.EINTR || e == unix.EAGAIN || e == unix.EBUSY:
			got = 0
		default:
			return fmt.Errorf("io_uring_enter: %w", e)
		}
		if got < n {
			r.pending.Add(n - got)
		}
		head := *r.cqHead                   // only this goroutine writes it
		tail := atomic.LoadUint32(r.cqTail) // acquire: the CQEs up to tail are written
		for h := head; h != tail; h++ {
			c := r.cqes[h&r.cqMask]
			ended(c.userData, c.res)
		}
		atomic.StoreUint32(r.cqHead, tail) // release: the kernel may reuse the CQEs
		if head != tail {
			return nil
		}
	}
}

// Close stops the reaper and unmaps the ring. Every slot must be idle:
// the engine closes the ring after its runs.
func (r *ring) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.stopReaper()
	r.unmap()
	return nil
}

// ReadAt reads len(p) bytes at off through the ring and waits for them.
func (s *ringSlot) ReadAt(p []byte, off int64) (int, error) {
	op, i := s.opcode(false, p)
	return s.do(op, p, off, i)
}

// WriteAt writes p at off through the ring and waits for it.
func (s *ringSlot) WriteAt(p []byte, off int64) (int, error) {
	op, i := s.opcode(true, p)
	return s.do(op, p, off, i)
}

// opcode returns the operation of a read or write of p on the slot: the
// _FIXED one, with its buffer's index, when p lies in the slot's
// registered buffers.
func (s *ringSlot) opcode(write bool, p []byte) (op uint8, bufIndex uint16) {
	i, fixed := s.registered(p)
	switch {
	case write && fixed:
		return iouOpWriteFixed, i
	case write:
		return iouOpWrite, 0
	case fixed:
		return iouOpReadFixed, i
	}
	return iouOpRead, 0
}

// ringResult is a completion's result res for a transfer of want bytes:
// the bytes, or the errno (a short transfer is an error, as with pread).
func ringResult(res int32, want int) (int, error) {
	if res < 0 {
		return 0, syscall.Errno(-res)
	}
	return checkIO(int(res), want, nil)
}

// registered returns the index of the ring's fixed buffer p lies in, the
// slot's read or write buffer; ok is false when p is in neither or the
// buffers are not registered. Every slot has the same buffers, so the
// slot's first is id times their count.
func (s *ringSlot) registered(p []byte) (index uint16, ok bool) {
	if !s.ring.fixed || len(p) == 0 {
		return 0, false
	}
	at := uintptr(unsafe.Pointer(&p[0]))
	i := s.id * uint64(s.ring.perSlot)
	for _, b := range [][]byte{s.rbuf, s.wbuf} {
		if len(b) == 0 {
			continue
		}
		lo := uintptr(unsafe.Pointer(&b[0]))
		if at >= lo && at+uintptr(len(p)) <= lo+uintptr(len(b)) {
			return uint16(i), true
		}
		i++
	}
	return 0, false
}

// do queues one I/O of the slot and waits for its completion: res is the
// bytes transferred or a negative errno. A short transfer is an error
// (io.ErrUnexpectedEOF), as with pread.
func (s *ringSlot) do(op uint8, p []byte, off int64, bufIndex uint16) (int, error) {
	r := s.ring
	if !r.reaping.Load() {
		r.startReaper()
	}
	s.busy.Store(true)
	if perr := r.failed.Load(); perr != nil { // fail() either saw busy or is seen here
		if !s.busy.CompareAndSwap(true, false) {
			<-s.done
		}
		return 0, *perr
	}
	r.queue(op, p, off, s.id, bufIndex)
	res := <-s.done
	runtime.KeepAlive(p)
	if perr := r.failed.Load(); res < 0 && perr != nil {
		return 0, *perr
	}
	return ringResult(res, len(p))
}
