package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"vmbench/oltp"
)

// TestReportRefusesForgedHistogram: a VM's Result whose HDR counts are
// of another geometry (here microseconds at 2 significant digits, so its
// percentiles would read a thousand times too small beside the exact
// average) is refused, exit 2, naming the file, the op and the geometry.
func TestReportRefusesForgedHistogram(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sysbench-2vm")
	if err := os.CopyFS(dir, os.DirFS(fixtures+"sysbench-2vm")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "vms", "sysbench-01.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r oltp.Result // decoded without checks: this test forges it
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	op := &r.Ops[0]
	good, err := op.Latency.Histogram()
	if err != nil {
		t.Fatal(err)
	}
	h := hdr.New(1, int64(time.Hour/time.Microsecond), 2)
	for _, p := range []float64{10, 50, 90, 95, 99, 100} { // a few values of each decile band
		v := good.Percentile(p).Microseconds()
		if err := h.RecordValues(v, good.Count()/6); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.RecordValues(good.Percentile(50).Microseconds(), good.Count()-h.TotalCount()); err != nil {
		t.Fatal(err)
	}
	enc, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	op.Latency.HDR = string(enc)
	if err := r.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%s: result op %s: hist: snapshot's HDR histogram tracks 1 ns to %d ns at 2 significant digits, not 1 ns to %d ns (24h0m0s) at 3 as vmbench writes it",
		path, op.Name, int64(time.Hour/time.Microsecond), int64(24*time.Hour))
	for _, args := range [][]string{{"report", dir}, {"report", dir, fixtures + "sysbench-2vm-faster", "--format", "csv"}} {
		if code, _, stderr := runCLI(t, nil, args...); code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", args, code, want, stderr)
		}
	}
}
