//go:build linux

package blockio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vmbench/oltp"
	"vmbench/vdbench/internal/blocktest"
	"vmbench/vdbench/parmfile"

	"golang.org/x/sys/unix"
)

// needURing skips the test, saying why, where io_uring cannot be set up
// (a kernel without it, seccomp, kernel.io_uring_disabled).
func needURing(t testing.TB) {
	t.Helper()
	if err := ProbeURing(); err != nil {
		t.Skipf("skipped: %v", err)
	}
}

// tempFile returns an open file of size bytes (zeros) in t.TempDir(),
// buffered: O_DIRECT is refused on tmpfs, and data read back does not
// depend on it.
func tempFile(t *testing.T, size int64, flag int) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ring.img")
	if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func testRing(t *testing.T, fd, slots int) *ring {
	t.Helper()
	needURing(t)
	r, err := newRing(fd, slots, bufSizes{read: 4096, write: 4096})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// Data written through the ring (from the slots' registered buffers)
// reads back with pread, and data written with pwrite reads back through
// the ring (into Go buffers), from 8 slots at once.
func TestURingReadBack(t *testing.T) {
	const slots, block, blocks = 8, 4096, 64
	f := tempFile(t, block*blocks, os.O_RDWR)
	fd := int(f.Fd())
	r := testRing(t, fd, slots)
	if !r.fixed {
		t.Log("the slots' buffers could not be registered (RLIMIT_MEMLOCK?): plain WRITE")
	}
	var wg sync.WaitGroup
	for s := range slots {
		wg.Go(func() {
			buf := r.slots[s].wbuf // registered: WRITE_FIXED
			for b := s; b < blocks; b += slots {
				fillPattern(buf, uint64(b))
				if n, err := r.slots[s].WriteAt(buf, int64(b*block)); n != block || err != nil {
					t.Errorf("ring write of block %d: %d, %v", b, n, err)
				}
			}
		})
	}
	wg.Wait()
	want := make([]byte, block)
	got := make([]byte, block)
	for b := range blocks {
		fillPattern(want, uint64(b))
		if _, err := unix.Pread(fd, got, int64(b*block)); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("pread of block %d after the ring's write: %v, data equal %v", b, err, bytes.Equal(got, want))
		}
		fillPattern(want, uint64(b)+1000)
		if _, err := unix.Pwrite(fd, want, int64(b*block)); err != nil {
			t.Fatal(err)
		}
	}
	for s := range slots {
		wg.Go(func() {
			buf := make([]byte, block) // a Go heap buffer works as well as an aligned one for buffered I/O
			for b := s; b < blocks; b += slots {
				if n, err := r.slots[s].ReadAt(buf, int64(b*block)); n != block || err != nil {
					t.Errorf("ring read of block %d: %d, %v", b, n, err)
				}
				exp := make([]byte, block)
				fillPattern(exp, uint64(b)+1000)
				if !bytes.Equal(buf, exp) {
					t.Errorf("ring read of block %d after pwrite: data differ", b)
				}
			}
		})
	}
	wg.Wait()
}

// The ring's errors are pread's: a read past the end is short
// (io.ErrUnexpectedEOF with the bytes read), a write on a read-only
// descriptor is EBADF, and the slot works again after either.
func TestURingErrors(t *testing.T) {
	f := tempFile(t, 6144, os.O_RDONLY)
	r := testRing(t, int(f.Fd()), 2)
	for _, buf := range [][]byte{make([]byte, 4096), r.slots[1].rbuf} {
		uringErrors(t, r, buf)
	}
}

func uringErrors(t *testing.T, r *ring, buf []byte) {
	t.Helper()
	for _, tc := range []struct {
		name  string
		write bool
		off   int64
		n     int
		want  error
		msg   string
	}{
		{"short read", false, 4096, 2048, io.ErrUnexpectedEOF, "2048 of 4096 bytes transferred"},
		{"read at the end", false, 6144, 0, io.ErrUnexpectedEOF, "0 of 4096 bytes"},
		{"write on a read-only descriptor", true, 0, 0, unix.EBADF, "bad file descriptor"},
		{"full read", false, 0, 4096, nil, ""},
	} {
		var n int
		var err error
		if tc.write {
			n, err = r.slots[1].WriteAt(buf, tc.off)
		} else {
			n, err = r.slots[1].ReadAt(buf, tc.off)
		}
		if n != tc.n || !errors.Is(err, tc.want) || (err != nil && !strings.Contains(err.Error(), tc.msg)) {
			_, fixed := r.slots[1].registered(buf)
			t.Errorf("%s (registered %v): %d, %v; want %d, %v (%q)", tc.name, fixed, n, err, tc.n, tc.want, tc.msg)
		}
	}
}

// newRing refuses a queue depth io_uring cannot take, saying io_uring is
// unavailable for it.
func TestURingDepthBounds(t *testing.T) {
	for _, slots := range []int{0, iouMaxEntries} {
		if _, err := newRing(0, slots, bufSizes{}); !errors.Is(err, errURingUnavailable) || !strings.Contains(err.Error(), "threads=") {
			t.Errorf("newRing(%d slots): %v", slots, err)
		}
	}
}

// A run with the io_uring engine on a real file counts exactly as psync
// does: bytes are 4096 × I/Os in every interval, the measure phase starts
// where the precondition ended, in closed loop and in open loop (the
// latency from the intended start is recorded for every I/O).
func TestURingExecuteCounts(t *testing.T) {
	needURing(t)
	lun := filepath.Join(t.TempDir(), "uring.img")
	for _, rd := range []parmfile.RD{
		{IORate: parmfile.IORate{Max: true}},
		{IORate: parmfile.IORate{Rates: []float64{2000}}, Distribution: "deterministic"},
	} {
		rd.Elapsed, rd.Warmup, rd.Interval = 600*time.Millisecond, 200*time.Millisecond, 200*time.Millisecond
		run := blocktest.Run(rd, parmfile.WD{RdPct: 70, Seek: parmfile.Seek{Pct: 100}},
			parmfile.SD{Name: "sd1", Lun: lun, Size: 4 << 20, Threads: 8, OpenFlags: []string{"none"}})
		cr, err := Execute(t.Context(), run, Options{Engine: EngineURing})
		if err != nil {
			t.Fatal(err)
		}
		p := cr.Points[0]
		checkBytesExact(t, p, 4096)
		res := p.PerSD[0]
		if !res.Start.Equal(res.Precondition.End) {
			t.Errorf("measure starts %v after the precondition's end", res.Start.Sub(res.Precondition.End))
		}
		ios := res.Ops[OpRead].Latency.Count + res.Ops[OpWrite].Latency.Count
		if ios == 0 || !strings.Contains(res.Measured, "io_uring") {
			t.Errorf("%s: %d I/Os; measured %q", p.Label, ios, res.Measured)
		}
		if rd.IORate.Max {
			continue
		}
		if in := res.Ops[OpRead].Intended; in == nil || in.Count != res.Ops[OpRead].Latency.Count {
			t.Errorf("open loop: intended-start latency %+v for %d reads", in, res.Ops[OpRead].Latency.Count)
		}
	}
}

// The io_uring engine needs a target with a descriptor: a fake device is
// refused by name.
func TestURingNeedsDescriptor(t *testing.T) {
	dev := &blocktest.FakeDevice{Service: time.Millisecond, Block: 512, Size: gib}
	run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Max: true}, Elapsed: 2 * time.Second, Interval: time.Second},
		parmfile.WD{RdPct: 100, Seek: parmfile.Seek{Pct: 100}}, parmfile.SD{Name: "sd1", Lun: "fake0", Threads: 2})
	opts := fakeOpts(map[string]*blocktest.FakeDevice{"sd1": dev})
	opts.Engine = EngineURing
	if _, err := Execute(t.Context(), run, opts); err == nil || !strings.Contains(err.Error(), "sd=sd1: --ioengine io_uring needs a file or block device") {
		t.Errorf("Execute on a fake device with io_uring: %v", err)
	}
}

// BenchmarkEngineCPU measures the client CPU (user + system, of the whole
// process) per I/O of each engine, 4 KiB random reads from 8 threads on a
// small file held in the page cache, through oltp.Run as a real run does
// (the run stops after b.N I/Os): the cost of issuing, waiting for and
// recording an I/O, with the device's own time out of it. It reports
// cpu-us/IO, and allocs/op per I/O.
func BenchmarkEngineCPU(b *testing.B) {
	for _, engine := range Engines {
		b.Run(engine, func(b *testing.B) {
			if engine == EngineURing {
				needURing(b)
			}
			lun := filepath.Join(b.TempDir(), "cached.img")
			run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Max: true}}, parmfile.WD{Name: "wd1", RdPct: 100, Seek: parmfile.Seek{Pct: 100}, Xfer: parmfile.Single(4096)},
				parmfile.SD{Name: "sd1", Lun: lun, Size: 16 << 20, Threads: 8, OpenFlags: []string{"none"}})
			loads, err := prepare(b.Context(), run, Options{})
			if err == nil && engine == EngineURing {
				err = setUpRings(loads)
			}
			b.Cleanup(func() {
				if err := closeRings(loads); err != nil {
					b.Error(err)
				}
				loads[0].backend.Close()
			})
			if err != nil {
				b.Fatal(err)
			}
			note, restore := engineNote(engine, 8)
			defer restore()
			cfg := oltp.RunConfig{Threads: 8, Events: int64(b.N), Time: time.Hour, ReportInterval: time.Hour}
			u0, s0 := processCPU()
			b.ReportAllocs()
			b.ResetTimer()
			res, err := oltp.Run(b.Context(), loads[0].spec("bench", 0), cfg)
			b.StopTimer()
			u1, s1 := processCPU()
			if err != nil {
				b.Fatal(err)
			}
			if n := res.Ops[OpRead].Latency.Count; n != int64(b.N) {
				b.Fatalf("%d I/Os counted, want %d (%s)", n, b.N, note)
			}
			b.ReportMetric(float64((u1-u0)+(s1-s0))/float64(time.Microsecond)/float64(b.N), "cpu-us/IO")
		})
	}
}

// processCPU returns the user and system CPU time of this process so far.
func processCPU() (user, sys time.Duration) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// One ring serves slots doing their own I/O (the reaper goroutine, started
// by the first) and a pipeline reaping on its own goroutine (wait, after
// stopReaper), in either order: each sees its own completions, with the
// data the file holds.
func TestURingReaperAndWaitTakeTurns(t *testing.T) {
	f := tempFile(t, 3*4096, os.O_RDWR)
	for i, b := range []byte{'a', 'b', 'c'} {
		if _, err := f.WriteAt(bytes.Repeat([]byte{b}, 4096), int64(i)*4096); err != nil {
			t.Fatal(err)
		}
	}
	r := testRing(t, int(f.Fd()), 3)
	slotRead := func(off int64, want byte) {
		t.Helper()
		buf := r.slots[0].rbuf
		if _, err := r.slots[0].ReadAt(buf, off); err != nil || buf[0] != want || buf[4095] != want {
			t.Fatalf("slot read at %d: %v, %q...", off, err, buf[:1])
		}
		if !r.reaping.Load() {
			t.Fatal("the reaper does not run after a slot's read")
		}
	}
	pipelineRead := func() {
		t.Helper()
		r.stopReaper()
		if r.reaping.Load() {
			t.Fatal("the reaper still runs")
		}
		for s := range 3 {
			op, index := r.slots[s].opcode(false, r.slots[s].rbuf)
			r.queue(op, r.slots[s].rbuf, int64(s)*4096, uint64(s), index)
		}
		got := map[uint64]int32{}
		for len(got) < 3 {
			if err := r.wait(func(tag uint64, res int32) { got[tag] = res }); err != nil {
				t.Fatal(err)
			}
		}
		for s, b := range []byte{'a', 'b', 'c'} {
			if got[uint64(s)] != 4096 || r.slots[s].rbuf[0] != b {
				t.Errorf("pipeline read of slot %d: %d bytes, %q", s, got[uint64(s)], r.slots[s].rbuf[:1])
			}
			r.slots[s].rbuf[0] = 0
		}
	}
	slotRead(4096, 'b')
	pipelineRead()
	slotRead(2*4096, 'c')
	pipelineRead()
}

// A curve runs its max point through the pipeline (one goroutine per SD
// reaps its ring) and its rate points through the reaper goroutine (one
// goroutine per thread), on the same ring: every point counts exactly,
// the max point's I/Os are all in flight together (its achieved rate is
// above what the rate points asked), and the ring closes cleanly after
// the switches.
func TestURingCurveSwitchesModes(t *testing.T) {
	needURing(t)
	lun := filepath.Join(t.TempDir(), "curve.img")
	rd := parmfile.RD{IORate: parmfile.IORate{Curve: true}, Curve: []float64{10, 50}, Distribution: "deterministic",
		Elapsed: 400 * time.Millisecond, Warmup: 100 * time.Millisecond, Interval: 200 * time.Millisecond}
	run := blocktest.Run(rd, parmfile.WD{RdPct: 50, Seek: parmfile.Seek{Pct: 100}},
		parmfile.SD{Name: "sd1", Lun: lun, Size: 4 << 20, Threads: 4, OpenFlags: []string{"none"}})
	cr, err := Execute(t.Context(), run, Options{Engine: EngineURing})
	if err != nil {
		t.Fatal(err)
	}
	if len(cr.Points) != 3 {
		t.Fatalf("%d points, want max, 10%% and 50%%", len(cr.Points))
	}
	for _, p := range cr.Points {
		checkBytesExact(t, p, 4096)
		res := p.PerSD[0]
		if n := res.Ops[OpRead].Latency.Count + res.Ops[OpWrite].Latency.Count; n == 0 {
			t.Errorf("%s: no I/O", p.Label)
		}
		open := p.Requested > 0
		if in := res.Ops[OpRead].Intended; open != (in != nil) {
			t.Errorf("%s: intended-start latency %v, want it only for rate points", p.Label, in)
		}
	}
	if got := cr.Points[0].Result.Flags["ioengine"]; got != EngineURing {
		t.Errorf("the Result's ioengine flag is %q (the curve table's caption names the engine by it)", got)
	}
	if peak, half := cr.Points[0].Achieved, cr.Points[2].Requested; peak <= half {
		t.Errorf("max point %.0f IOPS is not above the 50%% point's request %.0f", peak, half)
	}
}
