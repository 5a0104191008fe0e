package vdbench

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"vmbench/oltp"
	"vmbench/oltp/hist"
)

// fakeDevice is a Backend that takes a fixed service time per I/O by
// sleeping, which under testing/synctest advances the fake clock only: the
// tests never sleep for real. It checks every I/O's alignment and bounds,
// and can record them.
type fakeDevice struct {
	service  time.Duration
	block    int64
	capacity int64
	record   bool
	// fail, if set, may fail an I/O at off.
	fail func(write bool, off int64) error

	mu       sync.Mutex
	ios      []fakeIO
	closed   atomic.Bool
	inFlight atomic.Int64
	peak     atomic.Int64
	procs    atomic.Int64 // GOMAXPROCS seen by the last I/O
}

type fakeIO struct {
	write bool
	off   int64
	n     int64
}

func (d *fakeDevice) BlockSize() int64 { return d.block }
func (d *fakeDevice) Capacity() int64  { return d.capacity }

func (d *fakeDevice) ReadAt(p []byte, off int64) (int, error)  { return d.io(false, p, off) }
func (d *fakeDevice) WriteAt(p []byte, off int64) (int, error) { return d.io(true, p, off) }

func (d *fakeDevice) io(write bool, p []byte, off int64) (int, error) {
	n := int64(len(p))
	if off < d.block || off%d.block != 0 || n == 0 || n%d.block != 0 || off+n > d.capacity {
		return 0, fmt.Errorf("fake device: bad I/O of %d bytes at %d (block %d, capacity %d)", n, off, d.block, d.capacity)
	}
	if d.fail != nil {
		if err := d.fail(write, off); err != nil {
			return 0, err
		}
	}
	d.procs.Store(int64(runtime.GOMAXPROCS(0)))
	now := d.inFlight.Add(1)
	for p := d.peak.Load(); now > p; p = d.peak.Load() {
		if d.peak.CompareAndSwap(p, now) {
			break
		}
	}
	if d.service > 0 {
		time.Sleep(d.service)
	}
	d.inFlight.Add(-1)
	if d.record {
		d.mu.Lock()
		d.ios = append(d.ios, fakeIO{write: write, off: off, n: n})
		d.mu.Unlock()
	}
	return len(p), nil
}

func (d *fakeDevice) Close() error {
	d.closed.Store(true)
	return nil
}

// testRun builds a one-WD run over the given SDs.
func testRun(rd RD, wd WD, sds ...SD) Run {
	if rd.Name == "" {
		rd.Name = "rd1"
	}
	if wd.Name == "" {
		wd.Name = "wd1"
	}
	if len(wd.Xfer.Sizes) == 0 && wd.Xfer.Max == 0 {
		wd.Xfer = Single(4096)
	}
	for _, sd := range sds {
		wd.SDs = append(wd.SDs, sd.Name)
	}
	return Run{Name: rd.Name, RD: rd, WDs: []WD{wd}, SDs: sds}
}

// resultWith returns a measure Result of one second holding the given
// service times as reads of 4 KiB (for curve and report tests).
func resultWith(start time.Time, elapsed time.Duration, reads, writes []time.Duration, intended bool) *oltp.Result {
	rh, wh := hist.New(), hist.New()
	for _, d := range reads {
		rh.Record(d)
	}
	for _, d := range writes {
		wh.Record(d)
	}
	res := &oltp.Result{Version: oltp.ResultVersion, Workload: "rd1", Phase: oltp.PhaseMeasure, Loop: oltp.ClosedLoop,
		Start: start, End: start.Add(elapsed), Elapsed: elapsed, Parts: 1,
		Ops:      []oltp.OpResult{{Name: "read", Latency: rh.Snapshot()}, {Name: "write", Latency: wh.Snapshot()}},
		Counters: map[string]int64{CounterBytesRead: 4096 * int64(len(reads)), CounterBytesWritten: 4096 * int64(len(writes))}}
	if intended {
		res.Loop = oltp.OpenLoop
		ri, wi := rh.Snapshot(), wh.Snapshot()
		res.Ops[0].Intended, res.Ops[1].Intended = &ri, &wi
	}
	return res
}

// repeat returns n copies of d.
func repeat(d time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

// gridRun is a curve of a max run and two points of 2 s each (the first
// second the precondition) on a fake device (fakedevice_test.go: the
// synctest bubble's clock, as no disk can run in it).
func gridRun() Run {
	return testRun(RD{IORate: IORate{Curve: true}, Curve: []float64{10, 50}, Elapsed: 2 * time.Second,
		Interval: time.Second, Distribution: "deterministic"},
		WD{RdPct: 100, Seek: Seek{Pct: 100}}, SD{Name: "sd1", Lun: "fake0", Threads: 2})
}
