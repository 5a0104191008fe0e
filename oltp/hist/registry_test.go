package hist

import (
	"sync"
	"testing"
	"time"
)

// TestTickWhileRecording checks that every recorded value lands in exactly
// one interval while workers record and ticks run concurrently (run with
// -race: the hand-off must not race).
func TestTickWhileRecording(t *testing.T) {
	r := NewRegistry([]string{"a", "b"}, []string{"errors"})
	const workers, perWorker = 4, 20000
	var wg sync.WaitGroup
	for range workers {
		h := r.NewHandle()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				h.Record(i%2, time.Duration(i+1)*time.Microsecond)
				if i%10 == 0 {
					h.Add(0, 1)
				}
			}
		}()
	}
	var total, errs int64
	tk := tickWhile(r, &wg, func(tk Tick) {
		total += tk.Interval[0].Count() + tk.Interval[1].Count()
		errs += tk.IntervalCounters[0]
	})
	if want := int64(workers * perWorker); total != want {
		t.Fatalf("intervals summed to %d values, want %d", total, want)
	}
	if c := tk.Cumulative[0].Count() + tk.Cumulative[1].Count(); c != workers*perWorker {
		t.Fatalf("cumulative holds %d values, want %d", c, workers*perWorker)
	}
	if want := int64(workers * perWorker / 10); errs != want || tk.CumulativeCounters[0] != want {
		t.Fatalf("counter intervals %d, cumulative %d, want %d", errs, tk.CumulativeCounters[0], want)
	}
}

// tickWhile ticks r until the workers of wg are done, then once more, and
// hands every tick to f; it returns the last tick.
func tickWhile(r *Registry, wg *sync.WaitGroup, f func(Tick)) Tick {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				f(r.Tick())
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-done
	tk := r.Tick()
	f(tk)
	return tk
}

func TestResetCumulative(t *testing.T) {
	r := NewRegistry([]string{"op"}, []string{"n"})
	h := r.NewHandle()
	h.Record(0, time.Millisecond)
	h.Add(0, 3)
	r.Tick()
	r.ResetCumulative()
	h.Record(0, 2*time.Millisecond)
	tk := r.Tick()
	if tk.Cumulative[0].Count() != 1 || tk.Cumulative[0].Max() != 2*time.Millisecond || tk.CumulativeCounters[0] != 0 {
		t.Fatalf("after reset: cumulative count %d max %v counter %d; want 1, 2ms, 0",
			tk.Cumulative[0].Count(), tk.Cumulative[0].Max(), tk.CumulativeCounters[0])
	}
}

func BenchmarkRecord(b *testing.B) {
	r := NewRegistry([]string{"op"}, nil)
	h := r.NewHandle()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h.Record(0, time.Duration(i&0xfffff)*time.Nanosecond)
	}
}
