package tpcc

import (
	"bytes"
	"math"
	"path/filepath"
	"testing"
	"time"

	"vmbench/internal/golden"
	"vmbench/oltp"
	"vmbench/oltp/hist"
)

var reportStart = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// reportResult is a 60 s Result of a TPC-C run with fixed figures: per
// transaction type n events whose response times are 1..n ms (service
// time half of that when terminal-driven), 460 New-Orders of which 5
// rolled back on purpose, and a d_next_o_id delta of 455; the
// terminal-driven one read 3 more New-Orders committed after the end and
// ran for a planned 55 s (an overrun).
func reportResult(terminals bool, waitScale string) *oltp.Result {
	counts := []int{460, 440, 40, 40, 40}
	res := &oltp.Result{Version: oltp.ResultVersion, Workload: Workload, Phase: oltp.PhaseMeasure,
		Flags: map[string]string{"warehouses": "4", "wait-scale": waitScale, "threads": "0"},
		Loop:  oltp.ClosedLoop, Measured: "service time of each event (start to end, retries included), closed loop, 8 threads; no keying or think time (--threads)",
		Threads: 8, Start: reportStart, End: reportStart.Add(time.Minute), Elapsed: time.Minute, Parts: 1,
		Counters: map[string]int64{"new_order.rollbacks": 5, CounterNOPMDelta: 455, "retries": 3, "errors.deadlock": 2,
			"errors.lock_timeout": 1, "delivery.districts": 400, "delivery.skipped": 2}}
	if !terminals { // a Result before version 3 has no client cost: no line
		res.Client = &oltp.ClientCost{Processes: 1, Cores: 2, UserCPU: 900 * time.Millisecond, SystemCPU: 120 * time.Millisecond,
			VoluntaryCtxSwitches: 30600, InvoluntaryCtxSwitches: 4080, Start: reportStart, End: reportStart.Add(time.Minute)}
	}
	if terminals {
		res.Loop, res.Terminals = oltp.TerminalLoop, 40
		res.Counters[CounterNOPMAfterEnd] = 3
		res.Planned, res.Overruns = 55*time.Second, []oltp.Overrun{{Planned: 55 * time.Second, Ran: time.Minute}}
		res.Measured = "terminal-driven, 40 terminals sharing 8 connections: latency as response time from submission (waiting for a connection included) and as service time; keying and think times of TPC-C 5.2.5"
	}
	for i, n := range counts {
		rt, svc := hist.New(), hist.New()
		for v := 1; v <= n; v++ {
			rt.Record(time.Duration(v) * time.Millisecond)
			svc.Record(time.Duration(v) * time.Millisecond / 2)
		}
		op := oltp.OpResult{Name: OpNames[i], Latency: rt.Snapshot()}
		if terminals {
			s := rt.Snapshot()
			op.Latency, op.Intended = svc.Snapshot(), &s
		}
		res.Ops = append(res.Ops, op)
	}
	return res
}

func TestComputeFigures(t *testing.T) {
	for _, tc := range []struct {
		name      string
		terminals bool
		wait      string
		effValid  bool
	}{
		{"threads, no wait", false, "0", false},
		{"terminals, spec waits", true, "1", true},
		{"terminals, scaled waits", true, "0.23", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := ComputeFigures(reportResult(tc.terminals, tc.wait))
			near := func(name string, got, want float64) {
				if math.Abs(got-want) > 1e-9 {
					t.Errorf("%s = %v, want %v", name, got, want)
				}
			}
			near("TPS", f.TPS, 1020.0/60)
			near("tpmC", f.TpmC, 460)
			near("client NOPM", f.ClientNOPM, 455)
			if !f.NOPMValid {
				t.Error("NOPM not valid")
			}
			near("NOPM", f.NOPM, 455)
			if f.EfficiencyValid != tc.effValid {
				t.Errorf("efficiency valid = %v, want %v", f.EfficiencyValid, tc.effValid)
			}
			if tc.effValid {
				near("efficiency", f.Efficiency, 100*460/(12.86*4))
			}
		})
	}
}

func TestWriteReportGolden(t *testing.T) {
	for _, tc := range []struct {
		file      string
		terminals bool
		wait      string
	}{
		{"report-threads.golden", false, "0"},
		{"report-terminals.golden", true, "1"},
	} {
		var b bytes.Buffer
		if err := WriteReport(&b, reportResult(tc.terminals, tc.wait)); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", tc.file), b.Bytes())
	}
}

func TestResponseLimitFails(t *testing.T) {
	res := reportResult(false, "0")
	h := hist.New()
	for range 100 {
		h.Record(6 * time.Second) // over New-Order's 5 s 90th-percentile limit
	}
	res.Ops[opNewOrder].Latency = h.Snapshot()
	var b bytes.Buffer
	if err := WriteReport(&b, res); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte("<=5s FAIL")) || bytes.Count(b.Bytes(), []byte("FAIL")) != 1 {
		t.Errorf("want exactly New-Order failing its limit:\n%s", b.String())
	}
}

func TestWriteIntervalLine(t *testing.T) {
	lat := make([]*hist.Histogram, numOps)
	for i := range lat {
		lat[i] = hist.New()
	}
	for v := 1; v <= 100; v++ {
		lat[opNewOrder].Record(time.Duration(v) * time.Millisecond)
	}
	var b bytes.Buffer
	rep := oltp.IntervalReport{Phase: oltp.PhaseMeasure, At: 10*time.Second + 3*time.Millisecond, Length: 10 * time.Second,
		Ops: OpNames, Latency: lat, Counters: map[string]int64{"retries": 5}, Backlog: 2}
	if err := WriteInterval(&b, rep); err != nil {
		t.Fatal(err)
	}
	// HDR buckets: 90 ms reads back as 90.05, within 0.1%.
	want := "[ 10s ] tpmC: 600.0 tps: 10.00 lat (ms,avg/p90/p99): 50.50/90.05/99.02 queue: 2 retries/s: 0.50\n"
	if got := b.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
