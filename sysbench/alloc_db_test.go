package sysbench

import (
	"testing"

	"vmbench/oltp/hist"
)

// TestEventAllocations guards the hot path: the heap allocations of one
// event of each workload on a real server, one worker, after its
// statements are prepared. Allocation counts do not depend on the
// machine's speed or load, so this is a regression test, not a timing.
// The bounds are what this vmbench allocates today, nearly all of it
// go-sql-driver's own per-statement objects (the rows value and the column
// definitions it reads for every result set: three per query) and the
// boxing of an int64 parameter above 255 into a driver.Value; about 1.8 KB
// per oltp_read_only transaction. A change that adds an allocation per
// statement or per event fails here.
func TestEventAllocations(t *testing.T) {
	for _, tc := range []struct {
		w   Workload
		max float64 // allocations per event
	}{
		{PointSelect, 4},
		{ReadOnly, 71},
		{ReadWrite, 89},
		{UpdateIndex, 3},
	} {
		t.Run(string(tc.w), func(t *testing.T) {
			c := mariaConfig(t, tc.w)
			c.Threads = 1
			ctx := ctxT(t)
			if err := Prepare(ctx, c, nil, false); err != nil {
				t.Fatal(err)
			}
			db := openT(t, c)
			spec, err := NewSpec(c, db)
			if err != nil {
				t.Fatal(err)
			}
			w, err := spec.NewWorker(ctx, 0, hist.NewRegistry(spec.Ops, spec.Counters).NewHandle())
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			var runErr error
			got := testing.AllocsPerRun(200, func() {
				if _, err := w.Event(ctx); err != nil && runErr == nil {
					runErr = err
				}
			})
			if runErr != nil {
				t.Fatal(runErr)
			}
			t.Logf("%s: %.2f allocations per event", tc.w, got)
			if got > tc.max {
				t.Errorf("%s: %.2f allocations per event, more than the %.0f measured when this bound was set", tc.w, got, tc.max)
			}
		})
	}
}
