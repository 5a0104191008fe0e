//go:build unix

package blockio

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// ReadAt reads len(p) bytes at off with one pread(2). A short read is an
// error (io.ErrUnexpectedEOF): a benchmark I/O never reads past the span.
func (t *Target) ReadAt(p []byte, off int64) (int, error) {
	n, err := unix.Pread(t.fd, p, off)
	return checkIO(n, len(p), err)
}

// WriteAt writes p at off with one pwrite(2); a short write is an error.
func (t *Target) WriteAt(p []byte, off int64) (int, error) {
	n, err := unix.Pwrite(t.fd, p, off)
	return checkIO(n, len(p), err)
}

// Close closes the lun, after fsync when openflags=fsync.
func (t *Target) Close() error {
	if t.f == nil {
		return nil
	}
	var errs []error
	if t.fsync {
		if err := t.f.Sync(); err != nil {
			errs = append(errs, fmt.Errorf("%s: fsync on close: %w", t.Lun, err))
		}
	}
	errs = append(errs, t.f.Close())
	t.f = nil
	return errors.Join(errs...)
}

// alignedBuffer returns n bytes of anonymous memory, page-aligned (and so
// aligned for O_DIRECT on any logical block size up to the page size, and
// to 4096 on 4Kn devices). Free it with freeBuffer. The garbage collector
// neither moves nor scans it.
func alignedBuffer(n int) ([]byte, error) {
	b, err := unix.Mmap(-1, 0, max(n, 1), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("allocating a %d-byte I/O buffer: %w", n, err)
	}
	return b[:n], nil
}

func freeBuffer(b []byte) {
	if cap(b) > 0 {
		_ = unix.Munmap(b[:cap(b)])
	}
}

// platformTarget is what a Target needs beyond the portable fields: on
// unix systems nothing (the descriptor fd is in Target itself).
type platformTarget struct{}
