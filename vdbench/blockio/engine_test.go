package blockio

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"vmbench/oltp"
	"vmbench/vdbench/internal/blocktest"
	"vmbench/vdbench/parmfile"
)

const gib = 1 << 30

func mustLatency(t *testing.T, p Point, intended bool) (mean, p99 time.Duration) {
	t.Helper()
	h, err := Latency(p.Result, intended)
	if err != nil {
		t.Fatal(err)
	}
	return h.Mean(), h.Percentile(99)
}

// TestCurveOnFakeDevice: a device with 1 ms service and 4 threads can do
// 4,000 IOPS. At 50% the achieved rate is the requested one and the
// latency from the intended start equals the service time; at 120% the
// point is saturated, the service time stays 1 ms and the intended latency
// grows with the backlog. The service is 1.0003 ms, so that no I/O ends at
// the instant of a phase edge (a tie that the fake clock breaks either
// way, which made the max run 4,000.1 IOPS and the 50% point 2,100 one run
// in five).
func TestCurveOnFakeDevice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const service = time.Millisecond + 300*time.Nanosecond
		dev := &blocktest.FakeDevice{Service: service, Block: 512, Size: gib}
		run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Curve: true}, Curve: []float64{50, 120}, Elapsed: 10 * time.Second,
			Interval: time.Second, Distribution: "deterministic"},
			parmfile.WD{RdPct: 100, Seek: parmfile.Seek{Pct: 100}}, parmfile.SD{Name: "sd1", Lun: "fake0", Threads: 4})
		procs := runtime.GOMAXPROCS(0)
		cr, err := Execute(t.Context(), run, fakeOpts(map[string]*blocktest.FakeDevice{"sd1": dev}))
		if err != nil {
			t.Fatal(err)
		}
		if got := runtime.GOMAXPROCS(0); got != procs {
			t.Errorf("GOMAXPROCS %d after Execute, want %d restored", got, procs)
		}
		if len(cr.Points) != 3 || cr.Points[0].Label != "max" || cr.Points[1].Label != "50%" || cr.Points[2].Label != "120%" {
			t.Fatalf("points %+v", cr.Points)
		}
		mx, half, over := cr.Points[0], cr.Points[1], cr.Points[2]
		if math.Abs(mx.Achieved-4000) > 4 {
			t.Errorf("max run achieved %.1f IOPS, want 4000", mx.Achieved)
		}
		if half.Requested != 2000 || over.Requested != 4800 {
			t.Errorf("requested %g and %g, want 2000 and 4800", half.Requested, over.Requested)
		}
		if math.Abs(half.Achieved-2000) > 20 || half.Saturated {
			t.Errorf("50%%: achieved %.1f (saturated %v), want 2000 within 1%%", half.Achieved, half.Saturated)
		}
		svc, _ := mustLatency(t, half, false)
		in, _ := mustLatency(t, half, true)
		if svc != service || in < svc || in > svc+svc/100 {
			t.Errorf("50%%: service %v intended %v, want both %v", svc, in, service)
		}
		if !over.Saturated || over.Achieved > 4000*1.01 {
			t.Errorf("120%%: achieved %.1f saturated %v, want about 4000 and saturated", over.Achieved, over.Saturated)
		}
		svc, _ = mustLatency(t, over, false)
		in, _ = mustLatency(t, over, true)
		if svc != service || in < 100*time.Millisecond {
			t.Errorf("120%%: service %v intended %v; want 1ms and a growing backlog (>100ms)", svc, in)
		}
		if peak := dev.Peak.Load(); peak != 4 {
			t.Errorf("peak I/Os in flight %d, want the 4 threads", peak)
		}
		for _, p := range cr.Points {
			r := p.Result
			if r.Workload != "rd1" || r.Flags["point"] != p.Label || r.Flags["xfersize"] != "4k" || r.Flags["threads"] != "4" ||
				!strings.Contains(r.Measured, "GOMAXPROCS") {
				t.Errorf("point %s: workload %q flags %v measured %q", p.Label, r.Workload, r.Flags, r.Measured)
			}
			if r.Precondition == nil || r.Elapsed != 9*time.Second {
				t.Errorf("point %s: the first interval is not left out of the averages (elapsed %v)", p.Label, r.Elapsed)
			}
		}
		if _, err := oltp.Merge(half.Result, over.Result); err == nil || !strings.Contains(err.Error(), "differs") {
			t.Errorf("merging two points: %v, want a refusal", err)
		}
		if !dev.Closed.Load() {
			t.Error("backend not closed")
		}
	})
}

// TestRateAccuracy checks open-loop rates and both latencies at several
// rates, thread counts and arrival distributions, below saturation.
func TestRateAccuracy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		threads int
		service time.Duration
		rate    float64
		dist    string
		tol     float64 // relative tolerance of the achieved rate
	}{
		{"1 thread deterministic", 1, 500 * time.Microsecond, 1000, "deterministic", 0.002},
		{"8 threads uniform", 8, 2 * time.Millisecond, 2000, "uniform", 0.01},
		{"32 threads exponential", 32, 8 * time.Millisecond, 2000, "exponential", 0.02},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				dev := &blocktest.FakeDevice{Service: tc.service, Block: 4096, Size: gib}
				run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Rates: []float64{tc.rate}}, Elapsed: 6 * time.Second, Interval: 2 * time.Second,
					Distribution: tc.dist}, parmfile.WD{RdPct: 70, Seek: parmfile.Seek{Pct: 100}}, parmfile.SD{Name: "sd1", Lun: "fake0", Threads: tc.threads})
				cr, err := Execute(t.Context(), run, fakeOpts(map[string]*blocktest.FakeDevice{"sd1": dev}))
				if err != nil {
					t.Fatal(err)
				}
				p := cr.Points[0]
				if got := dev.Procs.Load(); got < int64(tc.threads) {
					t.Errorf("GOMAXPROCS %d during the run, want at least the %d threads", got, tc.threads)
				}
				if math.Abs(p.Achieved-tc.rate) > tc.tol*tc.rate || p.Saturated {
					t.Errorf("achieved %.1f (saturated %v), want %g within %g%%", p.Achieved, p.Saturated, tc.rate, 100*tc.tol)
				}
				svc, _ := mustLatency(t, p, false)
				if svc != tc.service {
					t.Errorf("service mean %v, want %v", svc, tc.service)
				}
				in, _ := mustLatency(t, p, true)
				if in < svc || (tc.dist == "deterministic" && in != svc) || in > 2*svc {
					t.Errorf("intended mean %v, service %v", in, svc)
				}
				r := p.Result
				reads, writes := r.Ops[OpRead].Latency.Count, r.Ops[OpWrite].Latency.Count
				if got := float64(reads) / float64(reads+writes); math.Abs(got-0.7) > 0.02 {
					t.Errorf("read share %.3f, want 0.70", got)
				}
				ios, by := phaseTotals(r)
				if by[0] != 4096*ios[0] || by[1] != 4096*ios[1] {
					t.Errorf("bytes %v for %v reads and writes of 4 KiB, want exactly 4096 each", by, ios)
				}
			})
		})
	}
}

// TestJBOD runs two SDs together: the rate is split equally, the merged
// Result adds them up exactly and the per-SD Results are kept.
func TestJBOD(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// 1.0003 ms, so that no I/O ends at the instant of an interval edge
		// (a tie the fake clock breaks either way: 1999 and 2001 IOPS).
		const service = time.Millisecond + 300*time.Nanosecond
		devs := map[string]*blocktest.FakeDevice{
			"sd1": {Service: service, Block: 512, Size: gib},
			"sd2": {Service: service, Block: 4096, Size: 2 * gib},
		}
		run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Rates: []float64{2000}}, Elapsed: 4 * time.Second, Interval: time.Second,
			Distribution: "d"}, parmfile.WD{RdPct: 100}, parmfile.SD{Name: "sd1", Lun: "fake0", Threads: 4}, parmfile.SD{Name: "sd2", Lun: "fake1", Threads: 8})
		run.WDs[0].Seek = parmfile.Seek{Pct: 100}
		var out strings.Builder
		opts := fakeOpts(devs)
		opts.Out = &out
		cr, err := Execute(t.Context(), run, opts)
		if err != nil {
			t.Fatal(err)
		}
		p := cr.Points[0]
		if len(p.PerSD) != 2 || p.PerSD[0].Labels["sd"] != "sd1" || p.PerSD[1].Labels["sd"] != "sd2" {
			t.Fatalf("per-SD results %v", p.PerSD)
		}
		for _, r := range p.PerSD {
			if r.Rate != 1000 || math.Abs(r.PerSecond(r.Ops[0].Latency.Count)-1000) > 1 {
				t.Errorf("sd %s: rate %g achieved %g, want half of 2000", r.Labels["sd"], r.Rate, r.PerSecond(r.Ops[0].Latency.Count))
			}
		}
		if p.Result.Threads != 12 || p.Result.Ops[0].Latency.Count != p.PerSD[0].Ops[0].Latency.Count+p.PerSD[1].Ops[0].Latency.Count {
			t.Errorf("merged threads %d count %d", p.Result.Threads, p.Result.Ops[0].Latency.Count)
		}
		if !p.PerSD[0].Start.Equal(p.PerSD[1].Start) {
			t.Errorf("SDs started apart: %v, %v", p.PerSD[0].Start, p.PerSD[1].Start)
		}
		// Interval lines: the start line, two header lines, 4 intervals
		// (the first is the precondition), the average of 2-4.
		text := out.String()
		if !strings.Contains(text, "Starting RD=rd1 (2000); I/O rate: 2000 (deterministic arrivals)") ||
			strings.Count(text, "\n") != 10 || !strings.Contains(text, "avg_2-4") {
			t.Errorf("interval output:\n%s", text)
		}
		if !strings.Contains(text, "   2000.00 ") {
			t.Errorf("interval lines do not show the total rate 2000:\n%s", text)
		}
	})
}

// TestIOErrorIsFatal: an I/O error ends the run with an error naming the
// SD, the lun and the offset.
func TestIOErrorIsFatal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		eio := errors.New("input/output error")
		dev := &blocktest.FakeDevice{Service: time.Millisecond, Block: 4096, Size: gib,
			Fail: func(bool, int64) error {
				if time.Now().After(time.Date(2000, 1, 1, 0, 0, 2, 0, time.UTC)) {
					return eio
				}
				return nil
			}}
		run := blocktest.Run(parmfile.RD{IORate: parmfile.IORate{Max: true}, Elapsed: 10 * time.Second, Interval: time.Second},
			parmfile.WD{RdPct: 100, Seek: parmfile.Seek{Pct: 100}}, parmfile.SD{Name: "sd1", Lun: "/dev/fake0", Threads: 2})
		_, err := Execute(t.Context(), run, fakeOpts(map[string]*blocktest.FakeDevice{"sd1": dev}))
		if !errors.Is(err, eio) || !strings.Contains(err.Error(), "lun /dev/fake0") || !strings.Contains(err.Error(), "at offset ") {
			t.Fatalf("error %v, want the I/O error naming lun and offset", err)
		}
	})
}

func TestArrivalOf(t *testing.T) {
	for in, want := range map[string]oltp.Arrival{"": oltp.Exponential, "exponential": oltp.Exponential,
		"uniform": oltp.Uniform, "Deterministic": oltp.Deterministic, "d": oltp.Deterministic} {
		if got, err := arrivalOf(in); err != nil || got != want {
			t.Errorf("arrivalOf(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := arrivalOf("poisson"); err == nil {
		t.Error("distribution=poisson accepted")
	}
}

func TestPhases(t *testing.T) {
	for _, tc := range []struct {
		rd                        parmfile.RD
		measure, warmup, interval time.Duration
	}{
		{parmfile.RD{Elapsed: 30 * time.Second, Interval: time.Second}, 29 * time.Second, time.Second, time.Second},
		{parmfile.RD{Elapsed: 30 * time.Second, Interval: time.Second, Warmup: 5 * time.Second}, 30 * time.Second, 5 * time.Second, time.Second},
		{parmfile.RD{Elapsed: 300 * time.Second}, 240 * time.Second, 60 * time.Second, 60 * time.Second},
		{parmfile.RD{Elapsed: 5 * time.Second}, 3 * time.Second, 2 * time.Second, 2 * time.Second},
		{parmfile.RD{}, 15 * time.Second, 15 * time.Second, 15 * time.Second},
		{parmfile.RD{Elapsed: 30 * time.Second, Interval: time.Second, WarmupSet: true}, 30 * time.Second, 0, time.Second},
		{parmfile.RD{Elapsed: 2 * time.Second, Interval: time.Second, WarmupSet: true}, 2 * time.Second, 0, time.Second},
	} {
		m, w, i := phases(tc.rd, false)
		if m != tc.measure || w != tc.warmup || i != tc.interval {
			t.Errorf("phases(elapsed %v interval %v warmup %v) = %v, %v, %v; want %v, %v, %v",
				tc.rd.Elapsed, tc.rd.Interval, tc.rd.Warmup, m, w, i, tc.measure, tc.warmup, tc.interval)
		}
	}
	if m, w, _ := phases(parmfile.RD{Elapsed: 30 * time.Second, Interval: time.Second}, true); m != 30*time.Second || w != 0 {
		t.Errorf("seekpct=eof run: measure %v warmup %v, want all of elapsed measured", m, w)
	}
}
