package blockio

import (
	"context"
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"vmbench/oltp/hist"
	"vmbench/vdbench/internal/blocktest"
	"vmbench/vdbench/parmfile"
)

// TestSequentialCoverage: the 16 threads of a sequential WD share one
// stream: every block of the span is read exactly once per pass, and a
// pass wraps to the start.
func TestSequentialCoverage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const xfer = 64 << 10
		dev := &blocktest.FakeDevice{Service: 100 * time.Microsecond, Block: 4096, Size: 64 << 20, Record: true}
		run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Max: true}, Elapsed: 2 * time.Second, Interval: time.Second},
			parmfile.WD{Xfer: parmfile.Single(xfer), RdPct: 100, Seek: parmfile.Seek{Pct: 0}}, parmfile.SD{Name: "sd1", Lun: "fake0", Threads: 16})
		if _, err := Execute(t.Context(), run, fakeOpts(map[string]*blocktest.FakeDevice{"sd1": dev})); err != nil {
			t.Fatal(err)
		}
		// The span is [64 KiB, 64 MiB): 1023 blocks (LBA 0 is never used).
		const blocks = (64<<20)/xfer - 1
		counts := make([]int, blocks)
		for _, io := range dev.IOs {
			if io.Write || io.N != xfer || io.Off%xfer != 0 || io.Off < xfer {
				t.Fatalf("unexpected I/O %+v", io)
			}
			counts[io.Off/xfer-1]++
		}
		// Every claimed block completes, so the I/Os are the first K of the
		// endless sequence: K/blocks full passes, then a prefix of one more.
		k := len(dev.IOs)
		passes, rest := k/blocks, k%blocks
		if passes < 2 {
			t.Fatalf("only %d I/Os: want at least two passes of %d blocks", k, blocks)
		}
		for b, c := range counts {
			want := passes
			if b < rest {
				want++
			}
			if c != want {
				t.Fatalf("block %d read %d times after %d I/Os, want %d (each block once per pass)", b, c, k, want)
			}
		}
	})
}

// TestSeekEOF: seekpct=eof reads the span once and ends the run.
func TestSeekEOF(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const xfer = 64 << 10
		dev := &blocktest.FakeDevice{Service: time.Millisecond, Block: 4096, Size: 16 << 20, Record: true}
		run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Max: true}, Elapsed: 30 * time.Second, Interval: time.Second},
			parmfile.WD{Xfer: parmfile.Single(xfer), RdPct: 0, Seek: parmfile.Seek{EOF: true}}, parmfile.SD{Name: "sd1", Lun: "fake0", Threads: 4})
		cr, err := Execute(t.Context(), run, fakeOpts(map[string]*blocktest.FakeDevice{"sd1": dev}))
		if err != nil {
			t.Fatal(err)
		}
		const blocks = (16<<20)/xfer - 1
		seen := map[int64]int{}
		for _, io := range dev.IOs {
			seen[io.Off]++
			if !io.Write {
				t.Fatalf("read with rdpct=0: %+v", io)
			}
		}
		if len(dev.IOs) != blocks || len(seen) != blocks {
			t.Errorf("%d writes to %d blocks, want each of %d blocks once", len(dev.IOs), len(seen), blocks)
		}
		p := cr.Points[0]
		// The I/Os in flight when the stream ended are not counted (oltp
		// discards completions after the stop), at most one per other thread.
		if n := p.Result.Ops[OpWrite].Latency.Count; p.Result.Elapsed > time.Second || n > blocks || n < blocks-3 {
			t.Errorf("elapsed %v count %d: the run did not end at the end of the span", p.Result.Elapsed, p.Result.Ops[OpWrite].Latency.Count)
		}
		if len(cr.Warnings) != 1 || !strings.Contains(cr.Warnings[0], "reached the end of its span") {
			t.Errorf("warnings %q", cr.Warnings)
		}
	})
}

// With two sds, one of which reaches the end of its span at once
// (seekpct=eof), the point still lasts its elapsed= and reports the other
// sd's I/O over it: its rate is the I/Os over the whole run and its
// intervals add up to its totals (they once lasted the mean of the sds'
// phases, doubling the IOPS, and kept only the shorter sd's one interval).
func TestSeekEOFBesideAnotherSD(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		short := &blocktest.FakeDevice{Service: time.Millisecond, Block: 4096, Size: 1 << 20}
		long := &blocktest.FakeDevice{Service: time.Millisecond, Block: 4096, Size: 16 << 20}
		run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Max: true}, Elapsed: 4 * time.Second, Interval: time.Second},
			parmfile.WD{Name: "wd1", Xfer: parmfile.Single(64 << 10), RdPct: 100, Seek: parmfile.Seek{EOF: true}}, parmfile.SD{Name: "sd1", Lun: "fake1", Threads: 2})
		run.WDs = append(run.WDs, parmfile.WD{Name: "wd2", SDs: []string{"sd2"}, Xfer: parmfile.Single(4096), RdPct: 100, Seek: parmfile.Seek{Pct: 100}})
		run.SDs = append(run.SDs, parmfile.SD{Name: "sd2", Lun: "fake2", Threads: 2})
		cr, err := Execute(t.Context(), run, fakeOpts(map[string]*blocktest.FakeDevice{"sd1": short, "sd2": long}))
		if err != nil {
			t.Fatal(err)
		}
		p := cr.Points[0]
		res := p.Result
		var ivs int64
		for _, iv := range res.Intervals {
			ivs += iv.Ops[OpRead].Latency.Count
		}
		n := res.Ops[OpRead].Latency.Count
		if res.Elapsed != 4*time.Second || len(res.Intervals) != 4 || ivs != n {
			t.Errorf("elapsed %v, %d intervals holding %d of %d reads; want 4s, 4, all", res.Elapsed, len(res.Intervals), ivs, n)
		}
		// sd2: 2 threads of 1 ms I/Os for 4 s; sd1's 15 reads on top.
		if want := float64(n) / 4; p.Achieved != want || p.Achieved > 2100 {
			t.Errorf("achieved %.1f IOPS for %d reads in 4 s", p.Achieved, n)
		}
	})
}

// At a set iorate= the wds' skew= divides the rate between the sds they
// use, as vdbench's skew is a wd's share of the total requested rate (the
// rate was divided equally per sd).
func TestSkewAcrossSDs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		devs := map[string]*blocktest.FakeDevice{}
		for _, n := range []string{"sd1", "sd2", "sd3"} {
			devs[n] = &blocktest.FakeDevice{Service: time.Millisecond, Block: 4096, Size: 16 << 20}
		}
		run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Rates: []float64{1000}}, Distribution: "deterministic", Elapsed: 2 * time.Second, Interval: time.Second},
			parmfile.WD{Name: "wd1", Skew: 80, RdPct: 100, Seek: parmfile.Seek{Pct: 100}}, parmfile.SD{Name: "sd1", Lun: "fake1", Threads: 4})
		// wd2 (the remaining 20%) is spread over sd2 and sd3: 10% each.
		run.WDs = append(run.WDs, parmfile.WD{Name: "wd2", SDs: []string{"sd2", "sd3"}, Xfer: parmfile.Single(4096), RdPct: 100, Seek: parmfile.Seek{Pct: 100}})
		run.SDs = append(run.SDs, parmfile.SD{Name: "sd2", Lun: "fake2", Threads: 4}, parmfile.SD{Name: "sd3", Lun: "fake3", Threads: 4})
		cr, err := Execute(t.Context(), run, fakeOpts(devs))
		if err != nil {
			t.Fatal(err)
		}
		for i, share := range []float64{0.8, 0.1, 0.1} {
			r := cr.Points[0].PerSD[i]
			want := int64(share * 1000 * r.Elapsed.Seconds())
			if got := r.Ops[OpRead].Latency.Count; r.Rate != share*1000 || got < want-2 || got > want+2 {
				t.Errorf("sd%d: rate %g, %d reads in %v; want %g/s, %d (its share of the skew)", i+1, r.Rate, got, r.Elapsed, share*1000, want)
			}
		}
	})
}

// newTestWorker returns a worker of one SD with the given WDs on a
// recording fake device without service time.
func newTestWorker(t testing.TB, sd parmfile.SD, capacity, block int64, wds ...parmfile.WD) (*worker, *blocktest.FakeDevice) {
	t.Helper()
	dev := &blocktest.FakeDevice{Block: block, Size: capacity, Record: true}
	weights, err := skewWeights(wds)
	if err != nil {
		t.Fatal(err)
	}
	l := &sdLoad{sd: sd, backend: dev}
	var total float64
	for i, wd := range wds {
		m, err := newMix(sd, wd, capacity, block)
		if err != nil {
			t.Fatal(err)
		}
		l.mixes = append(l.mixes, m)
		l.bufs.add(m)
		total += weights[i]
		l.cum = append(l.cum, total)
	}
	for i := range l.cum {
		l.cum[i] /= total
	}
	reg := hist.NewRegistry(ioOps, ioCounters)
	w, err := l.spec("rd1", 0).NewWorker(context.Background(), 0, reg.NewHandle())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w.(*worker), dev
}

func TestWorkerMix(t *testing.T) {
	const n = 20000
	sd := parmfile.SD{Name: "sd1", Lun: "fake0", HitArea: 1 << 20}
	t.Run("random offsets aligned to each transfer size", func(t *testing.T) {
		w, dev := newTestWorker(t, sd, gib, 512, parmfile.WD{Name: "wd1", SDs: []string{"sd1"}, RdPct: 60, Seek: parmfile.Seek{Pct: 100},
			Xfer: parmfile.XferSize{Sizes: []int64{4096, 65536}, Pcts: []float64{75, 25}}})
		reads, small := 0, 0
		for range n {
			op, err := w.Event(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if op == OpRead {
				reads++
			}
		}
		for _, io := range dev.IOs {
			if io.Off%io.N != 0 {
				t.Fatalf("I/O %+v not aligned to its size", io)
			}
			if io.N == 4096 {
				small++
			}
		}
		if math.Abs(float64(reads)/n-0.6) > 0.02 || math.Abs(float64(small)/n-0.75) > 0.02 {
			t.Errorf("reads %d, 4k transfers %d of %d: want 60%% and 75%%", reads, small, n)
		}
	})
	t.Run("skew and hits", func(t *testing.T) {
		w, dev := newTestWorker(t, sd, gib, 4096,
			parmfile.WD{Name: "hot", SDs: []string{"sd1"}, RdPct: 100, Seek: parmfile.Seek{Pct: 100}, Xfer: parmfile.Single(8192), Skew: 70, RhPct: 50},
			parmfile.WD{Name: "cold", SDs: []string{"sd1"}, RdPct: 0, Seek: parmfile.Seek{Pct: 100}, Xfer: parmfile.Single(16384)})
		for range n {
			if _, err := w.Event(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		hot, hits := 0, 0
		for _, io := range dev.IOs {
			if io.N == 8192 {
				hot++
				if io.Off < 8192+1<<20 {
					hits++
				}
			}
		}
		if math.Abs(float64(hot)/n-0.7) > 0.02 {
			t.Errorf("hot WD did %d of %d I/Os, want 70%% (skew=70)", hot, n)
		}
		// Half the hot reads are hits; misses land in the first MiB with
		// probability 1/1024.
		if math.Abs(float64(hits)/float64(hot)-0.5) > 0.03 {
			t.Errorf("%d of %d hot reads in the hit area, want about half (rhpct=50)", hits, hot)
		}
	})
	t.Run("(min,max,align) sizes", func(t *testing.T) {
		w, dev := newTestWorker(t, sd, gib, 4096,
			parmfile.WD{Name: "wd1", SDs: []string{"sd1"}, RdPct: 100, Seek: parmfile.Seek{Pct: 100}, Xfer: parmfile.XferSize{Min: 4096, Max: 32768, Align: 4096}})
		sizes := map[int64]int{}
		for range n {
			if _, err := w.Event(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		for _, io := range dev.IOs {
			sizes[io.N]++
			if io.Off%4096 != 0 || io.N%4096 != 0 || io.N < 4096 || io.N > 32768 {
				t.Fatalf("I/O %+v outside (4k,32k,4k)", io)
			}
		}
		if len(sizes) != 8 {
			t.Errorf("sizes used %v, want the 8 multiples of 4k in [4k, 32k]", sizes)
		}
	})
	t.Run("mixed seekpct continues from the last I/O", func(t *testing.T) {
		w, dev := newTestWorker(t, sd, gib, 4096,
			parmfile.WD{Name: "wd1", SDs: []string{"sd1"}, RdPct: 100, Seek: parmfile.Seek{Pct: 20}, Xfer: parmfile.Single(4096)})
		for range n {
			if _, err := w.Event(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		seq := 0
		for i := 1; i < len(dev.IOs); i++ {
			if dev.IOs[i].Off == dev.IOs[i-1].Off+4096 {
				seq++
			}
		}
		if math.Abs(float64(seq)/n-0.8) > 0.02 {
			t.Errorf("%d of %d I/Os continued the previous one, want 80%% (seekpct=20)", seq, n)
		}
	})
}

func TestSkewWeights(t *testing.T) {
	for _, tc := range []struct {
		skews []float64
		want  []float64
		err   string
	}{
		{[]float64{0}, []float64{1}, ""},
		{[]float64{70, 0, 0}, []float64{0.7, 0.15, 0.15}, ""},
		{[]float64{60, 40}, []float64{0.6, 0.4}, ""},
		{[]float64{60, 30}, nil, "add up to 90, not 100"},
		{[]float64{60, 40, 0}, nil, "leaving nothing"},
	} {
		wds := make([]parmfile.WD, len(tc.skews))
		for i, s := range tc.skews {
			wds[i] = parmfile.WD{Name: "wd", Skew: s}
		}
		got, err := skewWeights(wds)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("skews %v: err %v, want %q", tc.skews, err, tc.err)
			}
			continue
		}
		for i := range got {
			if err != nil || math.Abs(got[i]-tc.want[i]) > 1e-12 {
				t.Errorf("skews %v: weights %v (%v), want %v", tc.skews, got, err, tc.want)
				break
			}
		}
	}
}

// BenchmarkEvent measures the engine's own cost per I/O: choosing the WD,
// read or write, size and offset, and counting bytes, against a device
// that takes no time.
func BenchmarkEvent(b *testing.B) {
	for _, bc := range []struct {
		name string
		wds  []parmfile.WD
	}{
		{"random 4k read", []parmfile.WD{{Name: "wd1", RdPct: 100, Seek: parmfile.Seek{Pct: 100}, Xfer: parmfile.Single(4096)}}},
		{"sequential 64k write", []parmfile.WD{{Name: "wd1", RdPct: 0, Seek: parmfile.Seek{Pct: 0}, Xfer: parmfile.Single(65536)}}},
		{"mixed sizes, 2 WDs, hits", []parmfile.WD{
			{Name: "wd1", RdPct: 70, Seek: parmfile.Seek{Pct: 100}, Xfer: parmfile.XferSize{Sizes: []int64{4096, 8192, 65536}, Pcts: []float64{50, 30, 20}}, Skew: 80, RhPct: 10},
			{Name: "wd2", RdPct: 0, Seek: parmfile.Seek{Pct: 0}, Xfer: parmfile.Single(65536)},
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			w, dev := newTestWorker(b, parmfile.SD{Name: "sd1", Lun: "fake0", HitArea: 1 << 20}, 1<<40, 4096, bc.wds...)
			dev.Record = false
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := w.Event(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
