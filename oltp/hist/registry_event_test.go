package hist

import (
	"sync"
	"testing"
	"time"
)

// TestEventCountersSwapWithLatencies: amounts added with events
// (AddToEvent) land in exactly the interval of their event's latency, while
// ticks run concurrently; dropped events leave nothing behind.
func TestEventCountersSwapWithLatencies(t *testing.T) {
	r := NewRegistry([]string{"read", "read@intended"}, []string{"bytes"})
	const workers, perWorker, size = 4, 20000, 4096
	var wg sync.WaitGroup
	for range workers {
		h := r.NewHandle()
		wg.Go(func() {
			for i := range perWorker {
				h.AddToEvent(0, size)
				if i%7 == 0 {
					h.DropEvent() // in flight at the end: neither counted
					continue
				}
				if i%2 == 0 {
					h.Record(0, time.Microsecond)
				} else {
					h.RecordPair(0, time.Microsecond, 1, 2*time.Microsecond)
				}
			}
		})
	}
	var bad []string
	tk := tickWhile(r, &wg, func(tk Tick) {
		if n := tk.Interval[0].Count(); tk.IntervalCounters[0] != size*n {
			bad = append(bad, "interval")
		}
	})
	if len(bad) > 0 {
		t.Fatalf("%d intervals whose bytes are not 4096 x their count", len(bad))
	}
	want := int64(workers * (perWorker - (perWorker+6)/7))
	if c := tk.Cumulative[0].Count(); c != want || tk.CumulativeCounters[0] != size*want {
		t.Fatalf("cumulative %d events, %d bytes; want %d and %d", c, tk.CumulativeCounters[0], want, size*want)
	}
}

// TestTickStampsTheSwap: Tick.At falls between the calls around it, and
// what is recorded after it goes to the next tick.
func TestTickStampsTheSwap(t *testing.T) {
	r := NewRegistry([]string{"op"}, nil)
	h := r.NewHandle()
	h.Record(0, time.Millisecond)
	before := time.Now()
	tk := r.Tick()
	after := time.Now()
	if tk.At.Before(before) || tk.At.After(after) || tk.Swap < 0 || tk.Swap > after.Sub(before) {
		t.Fatalf("At %v Swap %v, want within [%v, %v]", tk.At, tk.Swap, before, after)
	}
	h.Record(0, time.Millisecond)
	if n := r.Tick().Interval[0].Count(); n != 1 {
		t.Fatalf("next tick holds %d, want 1", n)
	}
}
