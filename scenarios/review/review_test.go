package review

import (
	"bytes"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"vmbench/internal/golden"
	"vmbench/oltp"
	"vmbench/oltp/hist"
)

var t0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// vmResult builds a 10 s measure-phase Result with the given TPS, average
// and p99 latency (ms): 98% of the events at one latency, 2% at the p99.
func vmResult(t *testing.T, vm string, tps, avgMs, p99Ms float64) *oltp.Result {
	t.Helper()
	const secs = 10
	n := int64(math.Round(tps * secs))
	hi := int64(math.Ceil(float64(n) * 0.02))
	lo := (avgMs*float64(n) - p99Ms*float64(hi)) / float64(n-hi)
	h := hist.New()
	for i := int64(0); i < n; i++ {
		v := lo
		if i < hi {
			v = p99Ms
		}
		h.Record(time.Duration(v * float64(time.Millisecond)))
	}
	return &oltp.Result{Version: oltp.ResultVersion, Workload: "oltp_read_write", Flags: map[string]string{"threads": "32"},
		Labels: map[string]string{"vm": vm, "datastore": "nvme" + vm[len(vm)-1:]}, Phase: oltp.PhaseMeasure, Loop: oltp.ClosedLoop,
		Measured: "service time of each event (start to end, retries included), closed loop, 32 threads",
		Threads:  32, Start: t0, End: t0.Add(secs * time.Second), Elapsed: secs * time.Second, Parts: 1,
		Ops: []oltp.OpResult{{Name: "transaction", Latency: h.Snapshot()}}, Counters: map[string]int64{"errors.deadlock": 1, "retries": 1}}
}

// The PowerEdge R7415 4-VM sysbench row of docs/methodology.md: aggregate TPS
// 7,567.3 (per VM 1,817.6 - 1,967.1), average 16.9 ms (16.3 - 17.6), p99
// 45.4 ms (42.7 - 48.1). The middle VMs' figures are chosen to match the
// published sums and means.
func r7415(t *testing.T) []*oltp.Result {
	return []*oltp.Result{
		vmResult(t, "sysbench-01", 1817.6, 16.3, 42.7),
		vmResult(t, "sysbench-02", 1890.0, 16.8, 45.0),
		vmResult(t, "sysbench-03", 1892.6, 16.9, 45.8),
		vmResult(t, "sysbench-04", 1967.1, 17.6, 48.1),
	}
}

// r7415Review is the review of the four R7415 VMs.
func r7415Review(t *testing.T) *Review {
	t.Helper()
	vms := r7415(t)
	merged, err := oltp.Merge(vms...)
	if err != nil {
		t.Fatal(err)
	}
	rv, err := newReview("sysbench-4vm", vms, merged, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rv
}

func TestReviewReproducesPublishedAggregation(t *testing.T) {
	rv := r7415Review(t)
	near := func(name string, got, want, tol float64) {
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.4f, want %.4f ± %g", name, got, want, tol)
		}
	}
	near("aggregate TPS", rv.TPSSum, 7567.3, 0.05)
	near("per-VM TPS min", rv.TPSMin, 1817.6, 0.05)
	near("per-VM TPS max", rv.TPSMax, 1967.1, 0.05)
	near("average latency (published)", rv.AvgPublishedMs, 16.9, 0.001)
	near("p99 latency (published)", rv.P99PublishedMs, 45.4, 45.4*0.001)
	// The exact pooled average weights VMs by their event counts.
	var sumMs, n float64
	for _, v := range rv.VMs {
		sumMs += v.AvgMs * float64(v.Events)
		n += float64(v.Events)
	}
	near("average latency (exact)", rv.AvgExactMs, sumMs/n, 0.001)
	// Little's law on these figures: 32 threads / TPS.
	near("Little's law", rv.LittleMs, (32/1817.6+32/1890.0+32/1892.6+32/1967.1)/4*1000, 0.001)
	if rv.Retries != 4 || rv.Errors != 0 {
		t.Errorf("retries %d errors %d, want 4 (one retried deadlock per VM) and 0", rv.Retries, rv.Errors)
	}
}

func TestReviewGolden(t *testing.T) {
	rv := r7415Review(t)
	for _, tc := range []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"review.txt", func(b *bytes.Buffer) error { return rv.WriteText(b) }},
		{"review.md", func(b *bytes.Buffer) error { return rv.WriteMarkdown(b) }},
	} {
		var b bytes.Buffer
		if err := tc.write(&b); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", tc.file+".golden"), b.Bytes())
	}
}

// TestReviewClientCost: the review states the client processes' own cost,
// added up over the VMs' processes, per transaction of all VMs.
func TestReviewClientCost(t *testing.T) {
	vms := r7415(t)[:2]
	for i, r := range vms {
		r.Client = &oltp.ClientCost{Process: r.Labels["vm"], Processes: 1, Cores: 16,
			UserCPU: time.Duration(i+1) * time.Second, SystemCPU: time.Second, VoluntaryCtxSwitches: 36_000,
			InvoluntaryCtxSwitches: 3_600, Start: t0, End: t0.Add(10 * time.Second)}
	}
	merged, err := oltp.Merge(vms...)
	if err != nil {
		t.Fatal(err)
	}
	rv, err := newReview("c", vms, merged, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 18,176 + 18,900 transactions; 5 s of CPU over 2 VMs x 16 cores x 10 s.
	want := "Client in 2 processes: 5.00 s CPU (134.9 µs per transaction, 2% of 32 cores), 1.94 voluntary and 0.19 involuntary context switches per transaction"
	if rv.Client != want {
		t.Errorf("client\n got %s\nwant %s", rv.Client, want)
	}
	var b bytes.Buffer
	if err := rv.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte(want+".\n")) {
		t.Errorf("report.md has no client line:\n%s", b.Bytes())
	}
}

// boundReview is the R7415 review with each VM's client having used cpu
// of its 2 cores × 10 s.
func boundReview(t *testing.T, cpu ...time.Duration) *Review {
	t.Helper()
	vms := r7415(t)
	for i, r := range vms {
		r.Client = &oltp.ClientCost{Process: r.Labels["vm"] + "/1/1", Processes: 1, Cores: 2, UserCPU: cpu[i],
			Start: t0, End: t0.Add(10 * time.Second)}
	}
	merged, err := oltp.Merge(vms...)
	if err != nil {
		t.Fatal(err)
	}
	rv, err := newReview("sysbench-4vm", vms, merged, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rv
}

// TestReviewClientBound: each row is marked by its own Result's
// Client.Bound, the aggregate rows by the merged Result's.
func TestReviewClientBound(t *testing.T) {
	const s = time.Second
	for _, tc := range []struct {
		name string
		cpu  []time.Duration
		vms  []bool
		agg  bool
	}{
		{"80% is not bound", []time.Duration{16 * s, 16 * s, 16 * s, 16 * s}, []bool{false, false, false, false}, false},
		{"two VMs bound, the sum not (63 of 80 s)", []time.Duration{10 * s, 17 * s, 16 * s, 20 * s}, []bool{false, true, false, true}, false},
		{"the sum bound (65 of 80 s)", []time.Duration{10 * s, 17 * s, 18 * s, 20 * s}, []bool{false, true, true, true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rv := boundReview(t, tc.cpu...)
			tab := rv.table(csvForm)
			bound := slices.Contains(tc.vms, true) || tc.agg
			if got := tab.Columns[len(tab.Columns)-1].Header == "client"; got != bound {
				t.Fatalf("client column shown %v, want %v", got, bound)
			}
			for i, row := range tab.Rows {
				want := tc.agg
				if i < len(tc.vms) {
					want = tc.vms[i]
				}
				if got := row[len(row)-1] == clientBoundMark; bound && got != want {
					t.Errorf("row %s: marked %v, want %v", row[0], got, want)
				}
			}
		})
	}
}

// TestReviewClientBoundGolden: the client column and its note, with one
// VM not bound and the aggregate rows bound; a review where no row is
// bound has neither (review.txt.golden).
func TestReviewClientBoundGolden(t *testing.T) {
	rv := boundReview(t, 10*time.Second, 17*time.Second, 18*time.Second, 20*time.Second)
	for _, tc := range []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"review-client-bound.txt", func(b *bytes.Buffer) error { return rv.WriteText(b) }},
		{"review-client-bound.md", func(b *bytes.Buffer) error { return rv.WriteMarkdown(b) }},
		{"review-client-bound.csv", func(b *bytes.Buffer) error { return rv.WriteCSV(b) }},
	} {
		var b bytes.Buffer
		if err := tc.write(&b); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", tc.file+".golden"), b.Bytes())
	}
}
