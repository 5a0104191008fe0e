package oltp

import (
	"context"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"
)

// TestGracefulStop: events in flight at the end of the measure phase are
// waited for up to GracefulStop (DefaultGracefulStop when unset), then
// cancelled; Ctrl-C cancels them at once. The Result keeps the measured
// window (End, Elapsed) and records when the run really ended (Stopped,
// TotalTime), on the fake clock of a synctest bubble, so exactly.
func TestGracefulStop(t *testing.T) {
	for _, tc := range []struct {
		name        string
		event       time.Duration // each event's length; it returns early when cancelled
		grace       time.Duration
		interruptAt time.Duration // 0: --time ends the run
		wantElapsed time.Duration
		wantTotal   time.Duration
	}{
		{"blocked events cancelled after the default 10 s", time.Hour, 0, 0, 4 * time.Second, 14 * time.Second},
		{"blocked events cancelled after the grace given", time.Hour, time.Second, 0, 4 * time.Second, 5 * time.Second},
		{"an event ending within the grace is waited for", 4500 * time.Millisecond, 0, 0, 4 * time.Second, 4500 * time.Millisecond},
		{"Ctrl-C cancels at once", time.Hour, 0, 2 * time.Second, 2 * time.Second, 2 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tc.interruptAt > 0 {
					time.AfterFunc(tc.interruptAt, cancel)
				}
				res, err := Run(ctx, sleeperSpec(tc.event, 0), RunConfig{Threads: 2, Time: 4 * time.Second, GracefulStop: tc.grace})
				if tc.interruptAt == 0 && err != nil {
					t.Fatal(err)
				}
				if res.Elapsed != tc.wantElapsed || res.TotalTime() != tc.wantTotal || !res.Stopped.Equal(res.Start.Add(tc.wantTotal)) {
					t.Errorf("elapsed %s, total time %s (stopped %s after the start); want %s and %s",
						res.Elapsed, res.TotalTime(), res.Stopped.Sub(res.Start), tc.wantElapsed, tc.wantTotal)
				}
				if n := mustHist(t, res).Count(); n != 0 {
					t.Errorf("%d events counted, want none: none ended within the measured window", n)
				}
			})
		})
	}
}

// TestStoppedReadBack: Stopped survives the Result file, is checked
// against End when read, reads as absent in an older file (TotalTime is
// then Elapsed), and a merge keeps the latest of its parts'.
func TestStoppedReadBack(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	r := result("w", t0, 3)
	r.Stopped = r.End.Add(10 * time.Second)
	path := filepath.Join(t.TempDir(), "r.json")
	if err := r.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := ReadResultFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Stopped.Equal(r.Stopped) || got.TotalTime() != got.Elapsed+10*time.Second {
		t.Errorf("read back stopped %s, total time %s; want %s, %s", got.Stopped, got.TotalTime(), r.Stopped, got.Elapsed+10*time.Second)
	}
	bad := *r
	bad.Stopped = r.End.Add(-time.Hour)
	if err := bad.Validate(); err == nil {
		t.Errorf("stopped an hour before the end: no error")
	}
	old := *r
	old.Stopped = time.Time{}
	if old.TotalTime() != old.Elapsed {
		t.Errorf("without stopped: total time %s, want elapsed %s", old.TotalTime(), old.Elapsed)
	}
	later := result("w", t0.Add(time.Second), 3)
	later.Stopped = r.Stopped.Add(time.Second)
	for _, tc := range []struct {
		parts []*Result
		want  time.Time
	}{
		{[]*Result{r, later}, later.Stopped},
		{[]*Result{later, r}, later.Stopped},
		{[]*Result{r, &old}, time.Time{}},
		{[]*Result{&old, r}, time.Time{}},
	} {
		m, err := Merge(tc.parts...)
		if err != nil {
			t.Fatal(err)
		}
		if !m.Stopped.Equal(tc.want) {
			t.Errorf("merged stopped %s, want %s", m.Stopped, tc.want)
		}
	}
}
