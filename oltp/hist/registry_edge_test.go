package hist

import (
	"runtime"
	"testing"
	"time"
)

// TestTickEdgeNotHeldByABusyWorker: a worker descheduled inside Record (its
// busy flag names the buffer being retired) holds up the merge, not the
// edge: Tick stamps At right after flipping every handle, before it waits,
// and a second worker's Record after the flip lands in the next interval
// without waiting.
func TestTickEdgeNotHeldByABusyWorker(t *testing.T) {
	r := NewRegistry([]string{"read"}, nil)
	stuck, other := r.NewHandle(), r.NewHandle()
	first := other.active.Load()
	stuck.busy.Store(stuck.active.Load() + 1) // inside Record, descheduled
	ticked := make(chan Tick)
	go func() { ticked <- r.Tick() }()
	giveUp := time.Now().Add(30 * time.Second)
	for other.active.Load() == first { // until Tick has flipped both
		if time.Now().After(giveUp) {
			stuck.busy.Store(0)
			<-ticked
			t.Fatal("Tick waited for the stuck worker before flipping the other handle")
		}
		runtime.Gosched()
	}
	other.Record(0, time.Millisecond) // must not wait for stuck
	released := time.Now()
	stuck.busy.Store(0)
	tk := <-ticked
	if !tk.At.Before(released) {
		t.Errorf("edge stamped %v after the stuck worker was released, want before it", tk.At.Sub(released))
	}
	if n := tk.Interval[0].Count(); n != 0 {
		t.Errorf("the record made after the flip counted in the retired interval (%d)", n)
	}
	if n := r.Tick().Interval[0].Count(); n != 1 {
		t.Errorf("next interval holds %d records, want 1", n)
	}
}
