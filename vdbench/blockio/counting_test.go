package blockio

import (
	"path/filepath"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"vmbench/oltp"
	"vmbench/vdbench/internal/blocktest"
	"vmbench/vdbench/parmfile"
)

// checkBytesExact fails unless every interval, each phase and the merged
// point hold exactly size bytes per I/O counted.
func checkBytesExact(t *testing.T, p Point, size int64) {
	t.Helper()
	check := func(what string, ops []oltp.OpResult, counters map[string]int64) {
		t.Helper()
		r, w := ops[OpRead].Latency.Count, ops[OpWrite].Latency.Count
		if br, bw := counters[CounterBytesRead], counters[CounterBytesWritten]; br != size*r || bw != size*w {
			t.Errorf("%s %s: %d and %d bytes for %d reads and %d writes of %d bytes", p.Label, what, br, bw, r, w, size)
		}
	}
	for _, res := range append([]*oltp.Result{p.Result}, p.PerSD...) {
		for _, r := range []*oltp.Result{res.Precondition, res} {
			if r == nil {
				continue
			}
			check(string(r.Phase), r.Ops, r.Counters)
			for i, iv := range r.Intervals {
				check(string(r.Phase)+" interval "+string(rune('1'+i)), iv.Ops, iv.Counters)
			}
		}
	}
}

// TestBytesCountedWithTheirIO: a fixed-4 KiB workload gives bytes = 4096 ×
// I/Os exactly, in every interval and in the totals: the I/Os in flight at
// the end are counted neither as I/Os nor as bytes.
func TestBytesCountedWithTheirIO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dev := &blocktest.FakeDevice{Service: time.Millisecond, Block: 512, Size: gib}
		run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Rates: []float64{0, 3000}}, Elapsed: 3 * time.Second, Interval: time.Second,
			Distribution: "deterministic"}, parmfile.WD{RdPct: 70, Seek: parmfile.Seek{Pct: 100}}, parmfile.SD{Name: "sd1", Lun: "fake0", Threads: 4})
		run.RD.IORate = parmfile.IORate{Curve: true}
		run.RD.Curve = []float64{50}
		cr, err := Execute(t.Context(), run, fakeOpts(map[string]*blocktest.FakeDevice{"sd1": dev}))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range cr.Points {
			checkBytesExact(t, p, 4096)
		}
	})
}

// TestRealFileMoreThreadsThanCores runs 4 KiB random reads with 8
// threads per core on a real file (buffered, so the threads are CPU-bound
// on the page cache, as in issue 8's starved host) and checks what must
// hold however late the runner is: the measure phase starts where the
// precondition ended, intervals tile each phase, bytes are 4096 × I/Os in
// every interval, and a phase that overran says so.
func TestRealFileMoreThreadsThanCores(t *testing.T) {
	lun := filepath.Join(t.TempDir(), "starved.img")
	threads := 8 * runtime.NumCPU()
	run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Max: true}, Elapsed: 600 * time.Millisecond, Warmup: 200 * time.Millisecond,
		Interval: 200 * time.Millisecond}, parmfile.WD{RdPct: 100, Seek: parmfile.Seek{Pct: 100}},
		parmfile.SD{Name: "sd1", Lun: lun, Size: 4 << 20, Threads: threads, OpenFlags: []string{"none"}})
	cr, err := Execute(t.Context(), run, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := cr.Points[0]
	checkBytesExact(t, p, 4096)
	for _, res := range p.PerSD {
		if !res.Start.Equal(res.Precondition.End) {
			t.Errorf("measure starts %v after the precondition's end", res.Start.Sub(res.Precondition.End))
		}
		for _, r := range []*oltp.Result{res.Precondition, res} {
			var at time.Duration
			for i, iv := range r.Intervals {
				if iv.At-iv.Length != at {
					t.Errorf("%s interval %d starts at %v, the previous ended at %v", r.Phase, i+1, iv.At-iv.Length, at)
				}
				at = iv.At
			}
			if at != r.Elapsed {
				t.Errorf("%s: intervals end at %v, the phase at %v", r.Phase, at, r.Elapsed)
			}
			late := r.Elapsed > r.Planned+max(r.Planned/10, oltp.OverrunFloor)
			if phaseOverran := len(r.Overruns) > 0 && r.Overruns[0].Interval == 0; late != phaseOverran {
				t.Errorf("%s ran %v for %v planned; overruns %v", r.Phase, r.Elapsed, r.Planned, r.Overruns)
			}
		}
	}
	t.Logf("%d threads: %.0f IOPS; measure ran %v for %v; warnings %v", threads, p.Achieved, p.Result.Elapsed, p.Result.Planned, cr.Warnings)
}
