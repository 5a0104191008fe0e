package blockio

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"vmbench/vdbench/internal/blocktest"
)

func TestPointGridTake(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	g := &pointGrid{next: t0}
	cases := []struct {
		now            time.Time
		length         time.Duration
		planned, start time.Time
		late           time.Duration
	}{
		{t0.Add(-time.Second), 10 * time.Second, t0, t0, 0},
		// on time: ready 1 s before its slot
		{t0.Add(11 * time.Second), 5 * time.Second, t0.Add(12 * time.Second), t0.Add(12 * time.Second), 0},
		// late: the previous point overran its slot by 3 s
		{t0.Add(22 * time.Second), 5 * time.Second, t0.Add(19 * time.Second), t0.Add(22*time.Second + startDelay), 3*time.Second + startDelay},
		// a late point does not shift the grid
		{t0.Add(20 * time.Second), time.Second, t0.Add(26 * time.Second), t0.Add(26 * time.Second), 0},
	}
	for i, c := range cases {
		planned, start, late := g.take(c.now, c.length)
		if !planned.Equal(c.planned) || !start.Equal(c.start) || late != c.late {
			t.Errorf("point %d: planned %s start %s late %s, want %s %s %s", i, planned, start, late, c.planned, c.start, c.late)
		}
	}
}

func TestGridAlignsIndependentRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now().Add(5 * time.Second)
		var runs [2]*CurveResult
		done := make(chan int)
		for i := range runs {
			go func() {
				dev := &blocktest.FakeDevice{Service: time.Millisecond + time.Duration(i)*300*time.Microsecond, Block: 512, Size: gib}
				opts := fakeOpts(map[string]*blocktest.FakeDevice{"sd1": dev})
				opts.StartAt = start
				cr, err := Execute(t.Context(), blocktest.GridRun(), opts)
				if err != nil {
					t.Error(err)
				}
				runs[i] = cr
				done <- i
			}()
		}
		<-done
		<-done
		if t.Failed() {
			return
		}
		for k := range 3 {
			want := start.Add(time.Duration(k) * (2*time.Second + PointGap))
			for i, cr := range runs {
				if len(cr.Points) != 3 {
					t.Fatalf("run %d: %d points", i, len(cr.Points))
				}
				p := cr.Points[k]
				if !p.Scheduled.Equal(want) {
					t.Errorf("run %d point %s: scheduled %s, want %s", i, p.Label, p.Scheduled, want)
				}
				if got := p.Result.Precondition.Start; !got.Equal(want) {
					t.Errorf("run %d point %s: started %s, want its slot %s", i, p.Label, got, want)
				}
			}
		}
		for i, cr := range runs {
			for _, w := range cr.Warnings {
				if strings.Contains(w, "late") {
					t.Errorf("run %d: %s", i, w)
				}
			}
		}
	})
}

func TestGridLatePointWarns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now().Add(-3 * time.Second) // the run begins 3 s after the common start
		opts := fakeOpts(map[string]*blocktest.FakeDevice{"sd1": {Service: time.Millisecond, Block: 512, Size: gib}})
		opts.StartAt = start
		cr, err := Execute(t.Context(), blocktest.GridRun(), opts)
		if err != nil {
			t.Fatal(err)
		}
		var late []string
		for _, w := range cr.Warnings {
			if strings.Contains(w, "late versus its planned start") {
				late = append(late, w)
			}
		}
		// max starts 3.1 s late (startDelay after now) and ends 2 s later,
		// 1.1 s after 10%'s slot (4 s after the start), so 10% starts 1.2 s
		// late; 50%'s slot is 4 s after 10%'s, and 10% ends before it.
		if len(late) != 2 || !strings.HasPrefix(late[0], "point max started 3.1s late") ||
			!strings.HasPrefix(late[1], "point 10% started 1.2s late") {
			t.Errorf("late warnings %q, want max 3.1s and 10%% 1.2s late", late)
		}
		if !cr.Points[1].Scheduled.Equal(start.Add(2*time.Second + PointGap)) {
			t.Errorf("10%%: scheduled %s", cr.Points[1].Scheduled)
		}
	})
}
