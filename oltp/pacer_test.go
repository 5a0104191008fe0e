package oltp

import (
	"testing"
	"time"
)

func TestPacerUniformSchedule(t *testing.T) {
	p := newPacer(t0, 100, Uniform, 1)
	for i := range 5 {
		if got, want := p.next(), t0.Add(time.Duration(i)*10*time.Millisecond); !got.Equal(want) {
			t.Fatalf("arrival %d at %v, want %v", i, got.Sub(t0), want.Sub(t0))
		}
	}
}

func TestPacerBacklog(t *testing.T) {
	for _, tc := range []struct {
		name    string
		claimed int   // arrivals claimed by workers before the look
		started int64 // of which started
		at      time.Duration
		want    int64
	}{
		// 100/s uniform: arrivals at 0, 10, 20 ... ms; at 95 ms ten are due.
		{"nothing started", 0, 0, 95 * time.Millisecond, 10},
		{"all due started", 12, 10, 95 * time.Millisecond, 0},
		{"claimed but not started count", 5, 3, 95 * time.Millisecond, 7},
		{"ahead of schedule", 20, 20, 95 * time.Millisecond, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPacer(t0, 100, Uniform, 1)
			for range tc.claimed {
				p.next()
			}
			if got := p.backlog(t0.Add(tc.at), tc.started); got != tc.want {
				t.Errorf("backlog = %d, want %d", got, tc.want)
			}
			// Looking must not change the schedule.
			if got, want := p.next(), t0.Add(time.Duration(tc.claimed)*10*time.Millisecond); !got.Equal(want) {
				t.Errorf("next after backlog = %v, want %v", got.Sub(t0), want.Sub(t0))
			}
		})
	}
}

func TestPacerExponentialMeanRate(t *testing.T) {
	p := newPacer(t0, 1000, Exponential, 42)
	var last time.Time
	const n = 20000
	for range n {
		last = p.next()
	}
	// n arrivals at 1000/s span about n ms; the mean of n exponential gaps
	// is within a few percent of 1/rate for n = 20000 (sd 0.7%).
	if got := last.Sub(t0).Seconds(); got < 0.97*n/1000 || got > 1.03*n/1000 {
		t.Errorf("%d arrivals spanned %.2fs, want about %.0fs", n, got, float64(n)/1000)
	}
}
