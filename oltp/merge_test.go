package oltp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vmbench/oltp/hist"
)

var t0 = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

// result makes a one-op Result with the given latencies (ms) over [start, start+10s).
func result(workload string, start time.Time, lat ...int) *Result {
	h := hist.New()
	for _, l := range lat {
		h.Record(time.Duration(l) * time.Millisecond)
	}
	return &Result{Version: ResultVersion, Workload: workload, Flags: map[string]string{"threads": "2"},
		Labels: map[string]string{"vm": "vm-" + workload, "role": "sysbench"}, Phase: PhaseMeasure, Loop: ClosedLoop,
		Threads: 2, Start: start, End: start.Add(10 * time.Second), Elapsed: 10 * time.Second, Parts: 1,
		Ops: []OpResult{{Name: "event", Latency: h.Snapshot()}}, Counters: map[string]int64{"retries": int64(len(lat))},
		Intervals: []Interval{{At: 10 * time.Second, Length: 10 * time.Second, Ops: []OpResult{{Name: "event", Latency: h.Snapshot()}}}}}
}

func TestMergeIsExact(t *testing.T) {
	a := result("w", t0, 1, 2, 3, 4)
	b := result("w", t0.Add(time.Second), 10, 20, 30, 40, 50, 60)
	b.Labels["vm"] = "vm-2"
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	h := mustHist(t, m)
	all := result("w", t0, 1, 2, 3, 4, 10, 20, 30, 40, 50, 60)
	want := mustHist(t, all)
	if h.Count() != 10 || h.Sum() != want.Sum() || h.Percentile(99) != want.Percentile(99) || h.Percentile(50) != want.Percentile(50) {
		t.Errorf("merged count %d sum %v p50 %v p99 %v; want 10 %v %v %v", h.Count(), h.Sum(), h.Percentile(50), h.Percentile(99),
			want.Sum(), want.Percentile(50), want.Percentile(99))
	}
	if m.Threads != 4 || m.Parts != 2 || m.Counters["retries"] != 10 || m.Elapsed != 10*time.Second {
		t.Errorf("threads %d parts %d retries %d elapsed %v; want 4 2 10 10s", m.Threads, m.Parts, m.Counters["retries"], m.Elapsed)
	}
	if m.Labels["role"] != "sysbench" || m.Labels["vm"] != "" {
		t.Errorf("labels %v: want the common role only", m.Labels)
	}
	if len(m.Intervals) != 1 || m.Intervals[0].Ops[0].Latency.Count != 10 {
		t.Errorf("intervals not merged: %+v", m.Intervals)
	}
	if !m.Start.Equal(t0) || !m.End.Equal(t0.Add(11*time.Second)) {
		t.Errorf("window %v..%v", m.Start, m.End)
	}
}

func TestMergeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Result)
		want   string
	}{
		{"workload", func(r *Result) { r.Workload = "other" }, "workloads differ"},
		{"flags", func(r *Result) { r.Flags["threads"] = "8" }, "flag --threads differs"},
		{"extra flag", func(r *Result) { r.Flags["tables"] = "4" }, "flag --tables differs"},
		{"phase", func(r *Result) { r.Phase = PhasePrecondition }, "phases differ"},
		{"ops", func(r *Result) { r.Ops[0].Name = "read" }, "operations differ"},
		{"windows", func(r *Result) { r.Start, r.End = t0.Add(time.Hour), t0.Add(time.Hour+time.Second) }, "do not overlap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := result("w", t0, 5)
			tc.change(b)
			_, err := Merge(result("w", t0, 1), b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Merge error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestResultFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	r := result("w", t0, 1, 2, 3)
	if err := r.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := ReadResultFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if mustHist(t, got).Percentile(99) != mustHist(t, r).Percentile(99) || !got.Start.Equal(r.Start) {
		t.Errorf("round trip changed the result")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	if err := os.WriteFile(path, []byte(`{"version": 9, "workload": "w"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResultFile(path); err == nil || !strings.Contains(err.Error(), "version 9 is not supported") {
		t.Errorf("unknown version accepted: %v", err)
	}
}

// TestDecodeResult: the bytes decoder ReadResultFile uses reads what
// WriteFile wrote, and every refusal starts with the name it was given.
func TestDecodeResult(t *testing.T) {
	path := filepath.Join(t.TempDir(), "result.json")
	if err := result("w", t0, 1, 2, 3).WriteFile(path); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, body, want string }{
		{"good", string(good), ""},
		{"not json", "version: 3", "vm1/result.json: not a vmbench result"},
		{"newer", `{"version": 9, "workload": "w"}`, "vm1/result.json: result version 9 is not supported"},
		{"unknown field", `{"version": 3, "workload": "w", "colour": "red"}`, `vm1/result.json: not a vmbench result: json: unknown field "colour"`},
		{"no workload", `{"version": 3}`, "vm1/result.json: result has no workload name"},
	} {
		r, err := DecodeResult("vm1/result.json", []byte(tc.body))
		switch {
		case tc.want == "" && (err != nil || r.Workload != "w"):
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestMergeConcurrentAllowsDriftedWindows(t *testing.T) {
	b := result("w", t0.Add(11*time.Second), 5, 6)
	if _, err := Merge(result("w", t0, 1), b); err == nil {
		t.Fatal("Merge of non-overlapping windows: no error")
	}
	m, err := MergeConcurrent(result("w", t0, 1), b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Ops[0].Latency.Count != 3 || m.Parts != 2 {
		t.Errorf("count %d parts %d, want 3 and 2", m.Ops[0].Latency.Count, m.Parts)
	}
	b.Workload = "other"
	if _, err := MergeConcurrent(result("w", t0, 1), b); err == nil || !strings.Contains(err.Error(), "workloads differ") {
		t.Errorf("MergeConcurrent of different workloads = %v, want a refusal", err)
	}
}

// A concurrent part that ended early (a sequential stream at the end of
// its span) neither shortens the run's elapsed time nor drops the other
// parts' later intervals: the rate is over the longest part, and the
// intervals add up to the totals.
func TestMergeConcurrentPartEndedEarly(t *testing.T) {
	long := result("io", t0, 1, 2, 3, 4)
	long.Elapsed = 4 * time.Second
	long.Intervals = nil
	for i := range 4 {
		h := hist.New()
		h.Record(time.Duration(i+1) * time.Millisecond)
		long.Intervals = append(long.Intervals, Interval{At: time.Duration(i+1) * time.Second, Length: time.Second,
			Ops: []OpResult{{Name: "event", Latency: h.Snapshot()}}})
	}
	short := result("io", t0, 5, 6)
	short.Labels["vm"] = "sd2"
	short.Elapsed = 16 * time.Millisecond
	short.Intervals[0].At, short.Intervals[0].Length = 16*time.Millisecond, 16*time.Millisecond
	m, err := MergeConcurrent(long, short)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, iv := range m.Intervals {
		sum += iv.Ops[0].Latency.Count
	}
	if m.Elapsed != 4*time.Second || len(m.Intervals) != 4 || sum != 6 || mustHist(t, m).Count() != 6 ||
		m.Intervals[0].Length != time.Second || m.Intervals[0].Ops[0].Latency.Count != 3 {
		t.Errorf("elapsed %v, %d intervals holding %d events (first %v long, %d events); want 4s, 4, 6, 1s, 3",
			m.Elapsed, len(m.Intervals), sum, m.Intervals[0].Length, m.Intervals[0].Ops[0].Latency.Count)
	}
	if m, err := Merge(long, short); err != nil || m.Elapsed != (4*time.Second+16*time.Millisecond)/2 || len(m.Intervals) != 1 {
		t.Errorf("a merge of separate runs (VMs): %v, elapsed %v, %d intervals; want their mean and the fewest intervals", err, m.Elapsed, len(m.Intervals))
	}
}
