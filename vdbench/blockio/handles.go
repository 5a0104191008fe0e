package blockio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"unsafe"
)

// handlePool is a lun opened as many times as I/Os are in flight on it:
// each ReadAt or WriteAt takes a handle nobody is using (opening one more
// when all are busy) and gives it back after its transfer. It exists for
// Windows, where os.File ReadAt and WriteAt hold the file's read and write
// locks for the whole transfer (the positioned offset lives in the handle's
// one OVERLAPPED structure), so threads= sharing one *os.File would run
// one I/O at a time; with one handle each they run concurrently. The pool
// itself is portable and is tested on Linux.
//
// The pool grows to the highest concurrency seen (an SD's threads=) and
// never shrinks; close closes every handle.
type handlePool struct {
	lun  string
	open func() (*os.File, error) // one more handle, with the lun's flags

	mu     sync.Mutex
	free   []*os.File
	all    []*os.File
	closed bool
}

// newHandlePool makes the pool of lun with first, already open, as its
// first handle; open opens the others.
func newHandlePool(lun string, first *os.File, open func() (*os.File, error)) *handlePool {
	return &handlePool{lun: lun, open: open, free: []*os.File{first}, all: []*os.File{first}}
}

// get returns a handle nobody else uses until put.
func (p *handlePool) get() (*os.File, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", p.lun, os.ErrClosed)
	}
	if n := len(p.free); n > 0 {
		f := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return f, nil
	}
	p.mu.Unlock()
	f, err := p.open()
	if err != nil {
		return nil, fmt.Errorf("%s: opening one more handle for concurrent I/O: %w", p.lun, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		f.Close()
		return nil, fmt.Errorf("%s: %w", p.lun, os.ErrClosed)
	}
	p.all = append(p.all, f)
	return f, nil
}

func (p *handlePool) put(f *os.File) {
	p.mu.Lock()
	p.free = append(p.free, f)
	p.mu.Unlock()
}

// readAt reads len(b) bytes at off on a free handle; a short read is an
// error (io.ErrUnexpectedEOF), as for pread(2).
func (p *handlePool) readAt(b []byte, off int64) (int, error) {
	f, err := p.get()
	if err != nil {
		return 0, err
	}
	n, err := f.ReadAt(b, off)
	p.put(f)
	if errors.Is(err, io.EOF) {
		err = fmt.Errorf("%d of %d bytes read at offset %d: %w", n, len(b), off, io.ErrUnexpectedEOF)
	}
	return checkIO(n, len(b), err)
}

// writeAt writes b at off on a free handle; a short write is an error.
func (p *handlePool) writeAt(b []byte, off int64) (int, error) {
	f, err := p.get()
	if err != nil {
		return 0, err
	}
	n, err := f.WriteAt(b, off)
	p.put(f)
	return checkIO(n, len(b), err)
}

// first is the pool's first handle (for Sync and the signature check).
func (p *handlePool) first() *os.File { return p.all[0] }

// close closes every handle; I/O after it fails with os.ErrClosed. It must
// not run while I/O is in flight.
func (p *handlePool) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	var errs []error
	for _, f := range p.all {
		errs = append(errs, f.Close())
	}
	p.all, p.free = nil, nil
	return errors.Join(errs...)
}

// heapAligned returns n bytes of Go memory whose first byte sits at a
// multiple of align (a power of two): an oversized slice cut at the first
// aligned address, its capacity n. The Go garbage collector does not move
// heap objects, so the alignment holds for the buffer's life. It is the
// buffer allocator where there is no mmap (Windows), and is tested on
// Linux.
func heapAligned(n, align int) []byte {
	raw := make([]byte, n+align)
	skip := 0
	if r := int(uintptr(unsafe.Pointer(&raw[0])) & uintptr(align-1)); r != 0 {
		skip = align - r
	}
	return raw[skip : skip+n : skip+n]
}
