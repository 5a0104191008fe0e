package sysbench

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"vmbench/internal/golden"
	"vmbench/oltp"
	"vmbench/oltp/hist"
)

// fixedHist records n events spread evenly from lo to hi.
func fixedHist(n int, lo, hi time.Duration) *hist.Histogram {
	h := hist.New()
	for i := range n {
		h.Record(lo + (hi-lo)*time.Duration(i)/time.Duration(max(n-1, 1)))
	}
	return h
}

func TestWriteIntervalGolden(t *testing.T) {
	var b bytes.Buffer
	rep := oltp.IntervalReport{
		Phase: oltp.PhaseMeasure, At: 10*time.Second + 3*time.Millisecond, Length: time.Second, Threads: 32,
		Ops:     []string{OpTransaction},
		Latency: []*hist.Histogram{fixedHist(1234, 2*time.Millisecond, 40*time.Millisecond)},
		Counters: map[string]int64{CounterRead: 17276, CounterWrite: 4936, CounterOther: 2468,
			CounterRetries: 3, CounterReconnects: 1},
	}
	for _, p := range []float64{95, 99.9, 0} {
		if err := WriteInterval(&b, rep, p); err != nil {
			t.Fatal(err)
		}
	}
	warm := rep
	warm.Phase, warm.At, warm.Length = oltp.PhasePrecondition, 500*time.Millisecond, 500*time.Millisecond
	_ = WriteInterval(&b, warm, 95)
	open := rep
	open.Intended = []*hist.Histogram{fixedHist(1234, 3*time.Millisecond, 80*time.Millisecond)}
	open.Backlog = 7
	_ = WriteInterval(&b, open, 95)
	empty := oltp.IntervalReport{At: 2 * time.Second, Length: time.Second, Threads: 4,
		Latency: []*hist.Histogram{hist.New()}, Counters: map[string]int64{}}
	_ = WriteInterval(&b, empty, 95)
	golden.Check(t, filepath.Join("testdata", "interval.golden"), b.Bytes())
}

func summaryResult() *oltp.Result {
	h := fixedHist(10000, 4*time.Millisecond, 24*time.Millisecond)
	res := &oltp.Result{
		Version: oltp.ResultVersion, Workload: string(ReadWrite), Phase: oltp.PhaseMeasure, Loop: oltp.ClosedLoop,
		Measured: "service time of each event (start to end, retries included), closed loop, 8 threads",
		Threads:  8, Elapsed: 10*time.Second + 4700*time.Microsecond, Parts: 1,
		Ops: []oltp.OpResult{{Name: OpTransaction, Latency: h.Snapshot()}},
		Counters: map[string]int64{CounterRead: 140000, CounterWrite: 40000, CounterOther: 20012,
			CounterRetries: 6, CounterReconnects: 1, "errors.deadlock": 5, "errors.conn_lost": 1},
		Client: &oltp.ClientCost{Processes: 1, Cores: 2, UserCPU: 1500 * time.Millisecond, SystemCPU: 900 * time.Millisecond,
			VoluntaryCtxSwitches: 41000, InvoluntaryCtxSwitches: 1200, Start: time.Unix(1e9, 0), End: time.Unix(1e9+10, 0)},
	}
	return res
}

func TestWriteSummaryGolden(t *testing.T) {
	var b bytes.Buffer
	res := summaryResult()
	if err := WriteSummary(&b, res, 95); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "summary.golden"), b.Bytes())

	// warm-up, interrupted, open loop, percentile 99.
	b.Reset()
	res = summaryResult()
	res.Loop, res.Rate = oltp.OpenLoop, 1000
	res.Measured = "open loop at 1000 events/s (exponential arrivals), 8 threads: latency as service time and from the intended start"
	intended := fixedHist(10000, 5*time.Millisecond, 60*time.Millisecond).Snapshot()
	res.Ops[0].Intended = &intended
	res.Interrupted = true
	res.BacklogAtEnd, res.CatchUp = 12, oltp.CatchUpFullSpeed
	res.Overruns = []oltp.Overrun{{Interval: 3, Planned: time.Second, Ran: 7500 * time.Millisecond}}
	pre := summaryResult()
	pre.Phase, pre.Elapsed = oltp.PhasePrecondition, 30*time.Second
	pre.BacklogAtEnd, pre.BacklogDropped = 81, 81
	res.Precondition = pre
	if err := WriteSummary(&b, res, 99); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "summary-open-warmup.golden"), b.Bytes())

	// a run stopped by a fatal error.
	b.Reset()
	res = summaryResult()
	res.Status, res.Error = oltp.StatusFailed, "Error 1317 (70100): Query execution was interrupted"
	if err := WriteSummary(&b, res, 95); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "summary-failed.golden"), b.Bytes())
}
