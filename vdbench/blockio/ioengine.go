package blockio

import (
	"errors"
	"fmt"
	"runtime"
)

// The I/O engines of `vmbench vdbench run --ioengine` (Options.Engine).
// EnginePsync is vdbench's model: each thread issues one blocking
// pread/pwrite at a time. EngineURing keeps the same threads= I/Os in
// flight per SD (each thread still has one I/O at a time, so threads= is
// the queue depth) but submits them to one io_uring per SD: at max rate
// one goroutine per SD starts and reaps every thread's I/O (fio's
// io_uring engine with iodepth=threads=), at a set rate each thread is a
// goroutine and one per SD reaps; no OS thread blocks per I/O.
const (
	EnginePsync = "psync"
	EngineURing = "io_uring"
)

// maxURingThreads is the deepest threads= the io_uring engine takes per
// sd: a ring of IORING_MAX_ENTRIES (32,768) less the entry its reaper's
// closing NOP needs.
const maxURingThreads = 32767

// Engines are the valid --ioengine values, the default first.
var Engines = []string{EnginePsync, EngineURing}

// descriptorOf is implemented by backends with a file descriptor (Target),
// which the io_uring engine submits to.
type descriptorOf interface{ descriptor() int }

func (t *Target) descriptor() int { return t.fd }

// setUpRings gives every load a ring of its threads= slots for the
// io_uring engine, each slot with its thread's read and write buffers. Loads with a ring must have it closed (closeRings)
// even on error. An error names the SD and, for an unavailable io_uring,
// says why.
func setUpRings(loads []*sdLoad) error {
	for _, l := range loads {
		d, ok := l.backend.(descriptorOf)
		if !ok {
			return fmt.Errorf("sd=%s: --ioengine %s needs a file or block device target", l.sd.Name, EngineURing)
		}
		r, err := newRing(d.descriptor(), l.sd.Threads, l.bufs)
		if err != nil {
			return fmt.Errorf("sd=%s: --ioengine %s: %w", l.sd.Name, EngineURing, err)
		}
		l.ring = r
	}
	return nil
}

func closeRings(loads []*sdLoad) error {
	var errs []error
	for _, l := range loads {
		if l.ring != nil {
			errs = append(errs, l.ring.Close())
			l.ring = nil
		}
	}
	return errors.Join(errs...)
}

// engineNote is what each Result's Measured says of how the I/O was
// issued, for threads in all.
func engineNote(engine string, threads int) (note string, restore func()) {
	if engine == EngineURing {
		return fmt.Sprintf("each I/O submitted to an io_uring (queue depth threads= per SD; at max rate one goroutine per SD starts and reaps all its threads' I/Os, latency from the submitting io_uring_enter to the reaped completion; at a set rate one goroutine per thread, completions reaped by one goroutine per SD); GOMAXPROCS %d for %d threads",
			runtime.GOMAXPROCS(0), threads), func() {}
	}
	procs, restore := raiseProcs(threads)
	return fmt.Sprintf("each I/O one blocking pread/pwrite, one goroutine per thread; GOMAXPROCS %d for %d threads", procs, threads), restore
}
