//go:build !unix

package blockio

import (
	"errors"
	"fmt"
)

// platformTarget is what a Target needs beyond the portable fields here:
// its pool of handles (see handlePool), nil until OpenTarget opens the lun.
type platformTarget struct {
	pool *handlePool
}

// ReadAt reads len(p) bytes at off with a positioned os.File ReadAt on a
// handle no other thread is using. A short read is an error
// (io.ErrUnexpectedEOF): a benchmark I/O never reads past the span.
func (t *Target) ReadAt(p []byte, off int64) (int, error) {
	if t.pool == nil {
		return 0, fmt.Errorf("%s: not open", t.Lun)
	}
	return t.pool.readAt(p, off)
}

// WriteAt writes p at off with a positioned os.File WriteAt on a handle
// no other thread is using; a short write is an error.
func (t *Target) WriteAt(p []byte, off int64) (int, error) {
	if t.pool == nil {
		return 0, fmt.Errorf("%s: not open", t.Lun)
	}
	return t.pool.writeAt(p, off)
}

// Close closes every handle of the lun, after flushing it (FlushFileBuffers
// on Windows, through os.File.Sync) when openflags=fsync.
func (t *Target) Close() error {
	if t.pool == nil {
		return nil
	}
	var errs []error
	if t.fsync {
		if err := t.pool.first().Sync(); err != nil {
			errs = append(errs, fmt.Errorf("%s: fsync on close: %w", t.Lun, err))
		}
	}
	errs = append(errs, t.pool.close())
	t.pool, t.f = nil, nil
	return errors.Join(errs...)
}

// alignedBuffer returns n bytes of Go memory starting at a 4096-byte
// boundary (see heapAligned), which FILE_FLAG_NO_BUFFERING accepts on
// 512-byte and 4096-byte sector disks. freeBuffer leaves it to the
// garbage collector.
func alignedBuffer(n int) ([]byte, error) {
	if n < 0 {
		return nil, fmt.Errorf("allocating a %d-byte I/O buffer: negative size", n)
	}
	return heapAligned(n, 4096), nil
}

// freeBuffer does nothing: alignedBuffer's memory is the collector's.
func freeBuffer(b []byte) {}
