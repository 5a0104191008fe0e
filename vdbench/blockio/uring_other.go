//go:build !linux

package blockio

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"vmbench/oltp"
)

// errURingUnavailable wraps every failure to set up a ring.
var errURingUnavailable = errors.New("io_uring is unavailable")

// ring is Linux's io_uring; elsewhere newRing refuses.
type ring struct{ slots []*ringSlot }

type ringSlot struct{ rbuf, wbuf []byte }

// newRing always fails here: io_uring is Linux's.
func newRing(fd, slots int, bufs bufSizes) (*ring, error) { return nil, ProbeURing() }

// ProbeURing reports that io_uring is Linux only.
func ProbeURing() error {
	return fmt.Errorf("%w: it is Linux only (this is %s)", errURingUnavailable, runtime.GOOS)
}

// newPipeline is never called: newRing makes no ring.
func (l *sdLoad) newPipeline(context.Context, []oltp.Worker) (oltp.Pipeline, error) {
	return nil, ProbeURing()
}

// Close does nothing.
func (r *ring) Close() error { return nil }

// ReadAt is never called: newRing makes no ring.
func (s *ringSlot) ReadAt(p []byte, off int64) (int, error) { return 0, ProbeURing() }

// WriteAt is never called: newRing makes no ring.
func (s *ringSlot) WriteAt(p []byte, off int64) (int, error) { return 0, ProbeURing() }
