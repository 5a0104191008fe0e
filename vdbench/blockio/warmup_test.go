package blockio

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"vmbench/vdbench/internal/blocktest"
	"vmbench/vdbench/parmfile"
)

// TestWarmupZeroMeasuresEveryInterval: warmup=0 given (in the parameter
// file, or as -w 0) runs no warm-up: both intervals of elapsed=2 are
// measured, the avg line is avg_1-2, and the Result says warmup 0s and
// has no precondition. Without warmup= the first interval is the
// precondition, as vdbench leaves it out, and the Result says so
// (warmup 1s). A parameter file written back keeps warmup=0.
func TestWarmupZeroMeasuresEveryInterval(t *testing.T) {
	const head = "sd=sd1,lun=fake0,threads=2\nwd=wd1,sd=sd1,xfersize=4k,rdpct=100\nrd=rd1,wd=wd1,iorate=max,elapsed=2,interval=1"
	zero := time.Duration(0)
	for _, tc := range []struct {
		name, rd  string
		override  *time.Duration
		warmup    string // the Result's flag
		measured  time.Duration
		precond   time.Duration
		avg, text string
		described string // what vmbench vdbench parse says
	}{
		{"warmup=0", ",warmup=0", nil, "0s", 2 * time.Second, 0, "avg_1-2", "warmup=0", "every interval measured (warmup=0)"},
		{"-w 0", "", &zero, "0s", 2 * time.Second, 0, "avg_1-2", "warmup=0", "every interval measured (warmup=0)"},
		{"no warmup=", "", nil, "1s", time.Second, time.Second, "avg_2-2", "", "the first interval is left out of the averages (no warmup=)"},
		{"warmup=1", ",warmup=1", nil, "1s", 2 * time.Second, time.Second, "avg_2-3", "warmup=1", "warmup 1s (not measured)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parmfile.Parse("w.vdb", []byte(head+tc.rd+"\n"))
			if err == nil && tc.override != nil {
				err = p.Override(parmfile.Overrides{Warmup: tc.override})
			}
			if err != nil {
				t.Fatal(err)
			}
			if text := p.Text(); tc.text != "" && !strings.Contains(text, tc.text) || tc.text == "" && strings.Contains(text, "warmup=") {
				t.Errorf("parameters written back: %q, want %q", text, tc.text)
			}
			if d, err := p.Describe(); err != nil || !strings.Contains(d, tc.described) {
				t.Errorf("described as %q (%v), want %q", d, err, tc.described)
			}
			runs, err := p.Runs()
			if err != nil {
				t.Fatal(err)
			}
			synctest.Test(t, func(t *testing.T) {
				devs := map[string]*blocktest.FakeDevice{"sd1": {Service: time.Millisecond + 300*time.Nanosecond, Block: 512, Size: gib}}
				var out strings.Builder
				opts := fakeOpts(devs)
				opts.Out = &out
				cr, err := Execute(t.Context(), runs[0], opts)
				if err != nil {
					t.Fatal(err)
				}
				r := cr.Points[0].Result
				var pre time.Duration
				if r.Precondition != nil {
					pre = r.Precondition.Elapsed
				}
				if r.Flags["warmup"] != tc.warmup || r.Elapsed != tc.measured || pre != tc.precond || len(r.Intervals) != int(tc.measured/time.Second) {
					t.Errorf("Result: warmup flag %q, measured %v in %d intervals, precondition %v; want %q, %v, %v",
						r.Flags["warmup"], r.Elapsed, len(r.Intervals), pre, tc.warmup, tc.measured, tc.precond)
				}
				if !strings.Contains(out.String(), tc.avg) {
					t.Errorf("interval lines lack %s:\n%s", tc.avg, out.String())
				}
			})
		})
	}
}
