// Package blocktest holds what the tests of vdbench's packages share: a
// fake block device that runs under testing/synctest's clock
// (FakeDevice), a builder of one-workload runs (Run, GridRun) and
// synthetic measure Results (Result, Repeat). It is test support: no
// package's non-test code imports it.
//
// It imports neither vdbench nor vdbench/blockio, so that blockio's own
// (internal) tests can use it: FakeDevice satisfies blockio.Backend and
// blockio.Geometry by their method sets, and Result names blockio's ops
// and counters by their values (blockio's tests check that they agree).
package blocktest

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"vmbench/oltp"
	"vmbench/oltp/hist"
	"vmbench/vdbench/parmfile"
)

// The names of the ops and byte counters of a blockio Result (its Ops,
// blockio.OpRead and OpWrite, and its Counters, blockio.CounterBytesRead
// and CounterBytesWritten), as Result fills them in.
const (
	OpRead              = "read"
	OpWrite             = "write"
	CounterBytesRead    = "bytes_read"
	CounterBytesWritten = "bytes_written"
)

// FakeDevice is a blockio.Backend and blockio.Geometry that takes a fixed
// service time per I/O by sleeping, which under testing/synctest advances
// the fake clock only: the tests never sleep for real. It checks every
// I/O's alignment and bounds, and can record them.
type FakeDevice struct {
	// Service is the time each I/O takes.
	Service time.Duration
	// Block is the logical block size and Size the capacity, in bytes:
	// an I/O must be whole blocks, inside [Block, Size) (LBA 0 is never
	// used).
	Block int64
	Size  int64
	// Record keeps every I/O in IOs.
	Record bool
	// Fail, if set, may fail an I/O at off.
	Fail func(write bool, off int64) error

	mu sync.Mutex
	// IOs are the I/Os done, with Record, in completion order.
	IOs []FakeIO
	// Closed is set by Close.
	Closed   atomic.Bool
	inFlight atomic.Int64
	// Peak is the most I/Os in flight at once.
	Peak atomic.Int64
	// Procs is the GOMAXPROCS seen by the last I/O.
	Procs atomic.Int64
}

// FakeIO is one I/O a FakeDevice recorded: a write or a read of N bytes
// at offset Off.
type FakeIO struct {
	Write bool
	Off   int64
	N     int64
}

// BlockSize is d's logical block size (blockio.Geometry).
func (d *FakeDevice) BlockSize() int64 { return d.Block }

// Capacity is d's size in bytes (blockio.Geometry).
func (d *FakeDevice) Capacity() int64 { return d.Size }

// ReadAt reads len(p) bytes at off: it takes d.Service and reads nothing.
func (d *FakeDevice) ReadAt(p []byte, off int64) (int, error) { return d.io(false, p, off) }

// WriteAt writes p at off: it takes d.Service and keeps nothing.
func (d *FakeDevice) WriteAt(p []byte, off int64) (int, error) { return d.io(true, p, off) }

func (d *FakeDevice) io(write bool, p []byte, off int64) (int, error) {
	n := int64(len(p))
	if off < d.Block || off%d.Block != 0 || n == 0 || n%d.Block != 0 || off+n > d.Size {
		return 0, fmt.Errorf("fake device: bad I/O of %d bytes at %d (block %d, capacity %d)", n, off, d.Block, d.Size)
	}
	if d.Fail != nil {
		if err := d.Fail(write, off); err != nil {
			return 0, err
		}
	}
	d.Procs.Store(int64(runtime.GOMAXPROCS(0)))
	now := d.inFlight.Add(1)
	for p := d.Peak.Load(); now > p; p = d.Peak.Load() {
		if d.Peak.CompareAndSwap(p, now) {
			break
		}
	}
	if d.Service > 0 {
		time.Sleep(d.Service)
	}
	d.inFlight.Add(-1)
	if d.Record {
		d.mu.Lock()
		d.IOs = append(d.IOs, FakeIO{Write: write, Off: off, N: n})
		d.mu.Unlock()
	}
	return len(p), nil
}

// Close sets d.Closed.
func (d *FakeDevice) Close() error {
	d.Closed.Store(true)
	return nil
}

// Run builds a one-WD run over the given SDs: rd named rd1 and wd wd1
// unless they have names, the wd's transfers 4k unless it has some, and
// the wd on every sd.
func Run(rd parmfile.RD, wd parmfile.WD, sds ...parmfile.SD) parmfile.Run {
	if rd.Name == "" {
		rd.Name = "rd1"
	}
	if wd.Name == "" {
		wd.Name = "wd1"
	}
	if len(wd.Xfer.Sizes) == 0 && wd.Xfer.Max == 0 {
		wd.Xfer = parmfile.Single(4096)
	}
	for _, sd := range sds {
		wd.SDs = append(wd.SDs, sd.Name)
	}
	return parmfile.Run{Name: rd.Name, RD: rd, WDs: []parmfile.WD{wd}, SDs: sds}
}

// Result returns a measure Result from start, elapsed long, holding the
// given service times as reads and writes of 4 KiB, and the same as
// latencies from the intended start (an open loop) when intended (for
// curve and report tests).
func Result(start time.Time, elapsed time.Duration, reads, writes []time.Duration, intended bool) *oltp.Result {
	rh, wh := hist.New(), hist.New()
	for _, d := range reads {
		rh.Record(d)
	}
	for _, d := range writes {
		wh.Record(d)
	}
	res := &oltp.Result{Version: oltp.ResultVersion, Workload: "rd1", Phase: oltp.PhaseMeasure, Loop: oltp.ClosedLoop,
		Start: start, End: start.Add(elapsed), Elapsed: elapsed, Parts: 1,
		Ops:      []oltp.OpResult{{Name: OpRead, Latency: rh.Snapshot()}, {Name: OpWrite, Latency: wh.Snapshot()}},
		Counters: map[string]int64{CounterBytesRead: 4096 * int64(len(reads)), CounterBytesWritten: 4096 * int64(len(writes))}}
	if intended {
		res.Loop = oltp.OpenLoop
		ri, wi := rh.Snapshot(), wh.Snapshot()
		res.Ops[0].Intended, res.Ops[1].Intended = &ri, &wi
	}
	return res
}

// Repeat returns n copies of d.
func Repeat(d time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

// GridRun is a curve of a max run and two points of 2 s each (the first
// second the precondition) on one sd of 2 threads, sd1 (lun fake0), for a
// FakeDevice (the synctest bubble's clock, as no disk can run in it).
func GridRun() parmfile.Run {
	return Run(parmfile.RD{IORate: parmfile.IORate{Curve: true}, Curve: []float64{10, 50}, Elapsed: 2 * time.Second,
		Interval: time.Second, Distribution: "deterministic"},
		parmfile.WD{RdPct: 100, Seek: parmfile.Seek{Pct: 100}}, parmfile.SD{Name: "sd1", Lun: "fake0", Threads: 2})
}
