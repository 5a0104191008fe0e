package review

import (
	"bytes"
	"encoding/csv"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"vmbench/internal/golden"
	"vmbench/oltp"
	"vmbench/oltp/hist"
	"vmbench/workload"
)

// tpccResult builds a 60 s terminal-driven TPC-C Result of one VM: tps
// transactions per second, 10 of every 23 New-Orders (1% of them rolled
// back, so not in the d_next_o_id delta), every response time at avgMs and
// every service time at half of it, and after each transaction the
// keying and think time that makes the VM's 15,000 terminals give tps by
// Little's law (terminals / tps - avgMs).
func tpccResult(vm string, tps, avgMs float64) *oltp.Result {
	const secs = 60
	n := int64(math.Round(tps * secs))
	no := n * 10 / 23
	op := func(name string, count int64) oltp.OpResult {
		rt, svc := hist.New(), hist.New()
		for range count {
			rt.Record(time.Duration(avgMs * float64(time.Millisecond)))
			svc.Record(time.Duration(avgMs / 2 * float64(time.Millisecond)))
		}
		s := rt.Snapshot()
		return oltp.OpResult{Name: name, Latency: svc.Snapshot(), Intended: &s}
	}
	return &oltp.Result{Version: oltp.ResultVersion, Workload: "tpcc", Flags: map[string]string{"warehouses": "1500"},
		Labels: map[string]string{"vm": vm, "datastore": "nvme" + vm[len(vm)-1:]}, Phase: oltp.PhaseMeasure, Loop: oltp.TerminalLoop,
		Measured: "terminal-driven, 15000 terminals sharing 200 connections: latency as response time from submission (waiting for a connection included) and as service time",
		Threads:  200, Terminals: 15000, Start: t0, End: t0.Add(secs * time.Second), Elapsed: secs * time.Second, Parts: 1,
		Ops:      []oltp.OpResult{op("new_order", no), op("payment", n-no)},
		Counters: map[string]int64{"d_next_o_id.delta": no - no/100, oltp.CounterTerminalWait: int64(float64(n) * (15000/tps - avgMs/1000) * 1e9)}}
}

// The PowerEdge R7415 4-VM SQL Server row of docs/methodology.md: aggregate
// TPS 12,618.1 (per VM 3,152.9 - 3,155.8), average latency 11.75 ms
// (per VM 10 - 14 ms). The middle VMs are chosen to match the sums.
func r7415SQLServer(t *testing.T) *Review {
	t.Helper()
	vms := []*oltp.Result{
		tpccResult("sqlserver-01", 3152.9, 10), tpccResult("sqlserver-02", 3154.0, 11),
		tpccResult("sqlserver-03", 3155.4, 12), tpccResult("sqlserver-04", 3155.8, 14),
	}
	merged, err := oltp.Merge(vms...)
	if err != nil {
		t.Fatal(err)
	}
	tool, err := workload.Lookup("tpcc")
	if err != nil {
		t.Fatal(err)
	}
	rv, err := newReview("sqlserver-4vm", vms, merged, tool.NewConfig().(workload.Reviewer).ReviewColumns())
	if err != nil {
		t.Fatal(err)
	}
	return rv
}

func TestReviewTPCC(t *testing.T) {
	rv := r7415SQLServer(t)
	near := func(name string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.4f, want %.4f ± %g", name, got, want, tol)
		}
	}
	if len(rv.Columns) != 2 || rv.Columns[0].Header != "tpmC" || rv.Columns[1].Header != "NOPM" {
		t.Fatalf("a review of tpcc results has columns %v, want tpmC and NOPM", rv.Columns)
	}
	near("aggregate TPS", rv.TPSSum, 12618.1, 0.05)
	near("per-VM TPS min", rv.TPSMin, 3152.9, 0.05)
	near("per-VM TPS max", rv.TPSMax, 3155.8, 0.05)
	// Response time, not service time (which is half of it here).
	near("average latency (published)", rv.AvgPublishedMs, 11.75, 11.75*0.001)
	var tpmC, nopm float64
	for _, v := range rv.VMs {
		no := float64(int64(math.Round(v.TPS*60)) * 10 / 23)
		want := []float64{no, no - float64(int64(no)/100)}
		if !slices.Equal(v.Figures, want) {
			t.Errorf("%s: tpmC, NOPM %v, want %v", v.VM, v.Figures, want)
		}
		tpmC += no
		nopm += no - float64(int64(no)/100)
	}
	// The VMs ran the same 60 s: the merged rates are the sums.
	if want := []float64{tpmC, nopm}; !slices.Equal(rv.Figures, want) {
		t.Errorf("aggregate tpmC, NOPM %v, want the sums %v", rv.Figures, want)
	}
	if rv.LittleMs != 0 {
		t.Errorf("Little's law check %.2f ms on a terminal-driven run (closed loops have that one)", rv.LittleMs)
	}
	// Each VM's waits were made to close Little's law on its own TPS.
	near("Little's law TPS per VM", rv.LittleTPS, rv.TPSSum/4, 0.01)
	near("keying and think time per transaction (ms)", rv.WaitMs, (15000/3152.9+15000/3154.0+15000/3155.4+15000/3155.8)/4*1000-11.75, 0.01)
}

// TestReviewTPCCLittleNeedsWaits: a terminal-driven Result without its
// waits recorded (written before they were) gets no Little's law line.
func TestReviewTPCCLittleNeedsWaits(t *testing.T) {
	r := tpccResult("sqlserver-01", 3152.9, 10)
	delete(r.Counters, oltp.CounterTerminalWait)
	rv, err := newReview("sqlserver-4vm", []*oltp.Result{r}, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rv.LittleTPS != 0 || rv.WaitMs != 0 {
		t.Errorf("Little's law %.1f TPS, %.1f ms of waits without the waits recorded", rv.LittleTPS, rv.WaitMs)
	}
}

func TestReviewTPCCGolden(t *testing.T) {
	rv := r7415SQLServer(t)
	var txt, md, csvb bytes.Buffer
	for _, w := range []error{rv.WriteText(&txt), rv.WriteMarkdown(&md), rv.WriteCSV(&csvb)} {
		if w != nil {
			t.Fatal(w)
		}
	}
	golden.Check(t, filepath.Join("testdata", "review-tpcc.txt.golden"), txt.Bytes())
	golden.Check(t, filepath.Join("testdata", "review-tpcc.md.golden"), md.Bytes())
	golden.Check(t, filepath.Join("testdata", "review-tpcc.csv.golden"), csvb.Bytes())
}

// TestReviewCSVNumbersArePlain: every figure of report.csv (TPS, the
// latencies, the counts, the tool's tpmC and NOPM) parses as a plain
// number, with no thousands separators; the text table groups them.
func TestReviewCSVNumbersArePlain(t *testing.T) {
	rv := r7415SQLServer(t)
	var b, txt bytes.Buffer
	if err := rv.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		for i, cell := range row[2:] {
			if _, err := strconv.ParseFloat(cell, 64); cell != "" && err != nil {
				t.Errorf("%s, column %s: %q is not a plain number", row[0], rows[0][i+2], cell)
			}
		}
	}
	if err := rv.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), "12,618.1") {
		t.Errorf("the text table lost its thousands separators:\n%s", txt.String())
	}
}
