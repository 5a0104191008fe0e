package oltp

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// otherGeometry is the HDR encoding of the latencies lat (ms) in a
// histogram of another geometry than vmbench's (1 µs to 1 h at 2
// significant digits, counting microseconds): what another tool writes.
func otherGeometry(t *testing.T, lat ...int) string {
	t.Helper()
	h := hdr.New(1, int64(time.Hour/time.Microsecond), 2)
	for _, l := range lat {
		if err := h.RecordValue(int64(l) * 1000); err != nil {
			t.Fatal(err)
		}
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadResultRefusesForgedHistogram: a Result whose op's HDR counts
// come from a histogram of another geometry (its percentiles would be
// read as nanoseconds beside the exact average) is refused on reading,
// naming the file, the op and what differs; so is one with forged
// response-time counts.
func TestReadResultRefusesForgedHistogram(t *testing.T) {
	lat := []int{1, 2, 3, 8, 13, 21}
	for _, tc := range []struct {
		name   string
		forge  func(r *Result)
		wantOp string
	}{
		{"service time", func(r *Result) { r.Ops[0].Latency.HDR = otherGeometry(t, lat...) }, "result op event: "},
		{"intended", func(r *Result) {
			s := r.Ops[0].Latency
			s.HDR = otherGeometry(t, lat...)
			r.Ops[0].Intended = &s
		}, "result op event (intended): "},
	} {
		r := result("w", t0, lat...)
		tc.forge(r)
		path := filepath.Join(t.TempDir(), "vm-w.json")
		if err := r.WriteFile(path); err != nil {
			t.Fatal(err)
		}
		_, err := ReadResultFile(path)
		want := fmt.Sprintf("%s: %shist: snapshot's HDR histogram tracks 1 ns to %d ns at 2 significant digits, not 1 ns to %d ns (24h0m0s) at 3 as vmbench writes it",
			path, tc.wantOp, int64(time.Hour/time.Microsecond), int64(24*time.Hour))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s forged: %v\nwant %q", tc.name, err, want)
		}
	}
}
