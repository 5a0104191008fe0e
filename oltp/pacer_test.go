package oltp

import (
	"testing"
	"time"
)

func TestPacerDeterministicSchedule(t *testing.T) {
	p := newPacer(t0, 100, Deterministic, 1)
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
		// 100/s deterministic: arrivals at 0, 10, 20 ... ms; at 95 ms ten are due.
		{"nothing started", 0, 0, 95 * time.Millisecond, 10},
		{"all due started", 12, 10, 95 * time.Millisecond, 0},
		{"claimed but not started count", 5, 3, 95 * time.Millisecond, 7},
		{"ahead of schedule", 20, 20, 95 * time.Millisecond, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPacer(t0, 100, Deterministic, 1)
			for i := range tc.claimed {
				_, n := p.claim()
				if int64(i) < tc.started && !p.begin(n) {
					t.Fatal("begin refused a current claim")
				}
			}
			if got := p.backlog(t0.Add(tc.at)); got != tc.want {
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

// TestPacerUniformGaps checks vdbench's distribution=uniform: gaps drawn
// uniformly from [0, 2/rate), so their mean is 1/rate and they spread over
// the whole interval (not the fixed 1/rate of Deterministic).
func TestPacerUniformGaps(t *testing.T) {
	const rate, n = 1000.0, 20000
	p := newPacer(t0, rate, Uniform, 7)
	prev := p.next()
	if !prev.Equal(t0) {
		t.Fatalf("first arrival at %v, want the start", prev.Sub(t0))
	}
	var quarters [4]int // gaps by quarter of [0, 2/rate)
	for range n {
		at := p.next()
		gap := at.Sub(prev).Seconds()
		prev = at
		if gap < 0 || gap >= 2/rate {
			t.Fatalf("gap %gs outside [0, %gs)", gap, 2/rate)
		}
		quarters[int(gap*rate*2)]++
	}
	// Mean gap 1/rate: n gaps span n ms within 1% (sd of the sum is 0.4%).
	if got := prev.Sub(t0).Seconds(); got < 0.99*n/rate || got > 1.01*n/rate {
		t.Errorf("%d gaps spanned %.3fs, want about %.0fs", n, got, n/rate)
	}
	// Uniform: each quarter holds about n/4 gaps (sd 61; allow 5 sd).
	for i, c := range quarters {
		if c < n/4-300 || c > n/4+300 {
			t.Errorf("quarter %d of [0, 2/rate) holds %d gaps, want about %d", i, c, n/4)
		}
	}
}

func TestValidateArrival(t *testing.T) {
	for _, a := range []Arrival{"", Exponential, Uniform, Deterministic} {
		if err := (RunConfig{Threads: 1, Rate: 10, Arrival: a}).Validate(); err != nil {
			t.Errorf("arrival %q refused: %v", a, err)
		}
	}
	if err := (RunConfig{Threads: 1, Rate: 10, Arrival: "fixed"}).Validate(); err == nil {
		t.Error(`arrival "fixed" accepted`)
	}
}

// TestPacerBacklogFarBehind: a run far behind a huge rate counts its
// backlog from the rate without drawing every arrival (at 10^9 events/s
// ten seconds are 10^10 arrivals).
func TestPacerBacklogFarBehind(t *testing.T) {
	start := time.Unix(0, 0)
	p := newPacer(start, 1e9, Deterministic, 1)
	got := p.backlog(start.Add(10 * time.Second))
	if got < 9_999_000_000 || got > 10_000_000_001 {
		t.Errorf("backlog %d, want about 10^10", got)
	}
	if len(p.ahead) > maxAhead {
		t.Errorf("%d arrivals drawn ahead, want at most %d", len(p.ahead), maxAhead)
	}
}

// TestPacerCut: cut drops the arrivals due before the boundary and not
// started, claimed or not; arrivals from the boundary on are kept, on the
// same schedule.
func TestPacerCut(t *testing.T) {
	p := newPacer(t0, 100, Deterministic, 1)
	var claims []int64
	for range 4 { // arrivals at 0, 10, 20, 30 ms claimed
		_, n := p.claim()
		claims = append(claims, n)
	}
	p.begin(claims[0])
	p.begin(claims[1])
	at := t0.Add(90 * time.Millisecond) // 0..80 ms are before it: 9, two started
	if got := p.cut(at); got != 7 {
		t.Errorf("cut dropped %d, want 7", got)
	}
	if p.begin(claims[2]) {
		t.Error("a claim due before the cut was started")
	}
	if got := p.backlog(at); got != 1 {
		t.Errorf("backlog at the cut %d, want 1 (the arrival at it, due at once)", got)
	}
	first, n := p.claim()
	if !first.Equal(at) || !p.begin(n) {
		t.Errorf("first arrival after the cut at %v, want at the cut", first.Sub(t0))
	}
	if got := p.backlog(at.Add(25 * time.Millisecond)); got != 2 {
		t.Errorf("backlog 25 ms after the cut %d, want 2 (100 and 110 ms)", got)
	}
}

// TestPacerCutFarBehind: a cut far behind a huge rate drops the due
// arrivals counted from the rate, without drawing them all.
func TestPacerCutFarBehind(t *testing.T) {
	p := newPacer(t0, 1e9, Deterministic, 1)
	got := p.cut(t0.Add(10 * time.Second))
	if got < 9_999_000_000 || got > 10_000_000_001 {
		t.Errorf("cut dropped %d, want about 10^10", got)
	}
	if next := p.next(); next.Before(t0.Add(10*time.Second)) || next.After(t0.Add(10*time.Second+time.Microsecond)) {
		t.Errorf("next arrival at %v, want at the cut", next.Sub(t0))
	}
	if b := p.backlog(t0.Add(10 * time.Second)); b > 2 {
		t.Errorf("backlog after the cut %d", b)
	}
}
