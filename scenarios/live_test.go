package scenarios

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"vmbench/oltp"
	"vmbench/oltp/hist"
)

// tick is one VM's interval report: 10 events of 2 ms over 5 s, with
// the given counters.
func tick(phase string, at time.Duration, counters map[string]int64) oltp.IntervalReport {
	h := hist.New()
	for range 10 {
		h.Record(2 * time.Millisecond)
	}
	return oltp.IntervalReport{Phase: phase, At: at, Length: 5 * time.Second, Threads: 1, Ops: []string{"transaction"},
		Latency: []*hist.Histogram{h}, Counters: counters}
}

func TestLiveViewRows(t *testing.T) {
	const s5 = 5 * time.Second
	ms := time.Millisecond
	type event struct {
		vm   int
		r    *oltp.IntervalReport // nil: the VM's run returned
		done bool
	}
	at := func(vm int, phase string, d time.Duration) event {
		r := tick(phase, d, nil)
		return event{vm: vm, r: &r}
	}
	ended := func(vm int) event { return event{vm: vm, done: true} }
	for _, tc := range []struct {
		name   string
		vms    int
		events []event
		want   []string // one per printed line, in order
	}{
		{"ticks a few ms apart across a 100 ms boundary", 2, []event{
			at(0, "measure", s5+48*ms), at(1, "measure", s5+52*ms),
			at(1, "measure", 2*s5+52*ms), at(0, "measure", 2*s5+48*ms),
			at(0, "measure", 3*s5+49*ms), at(1, "measure", 3*s5+51*ms),
		}, []string{"[    5s measure     ] vms: 2 tps: 4.00", "[   10s measure     ] vms: 2 tps: 4.00", "[   15s measure     ] vms: 2 tps: 4.00"}},
		{"phases: the warm-up's rows first, each whole", 2, []event{
			at(0, "warmup", s5), at(0, "measure", s5), at(1, "warmup", s5+3*ms), at(1, "measure", s5+3*ms),
		}, []string{"warmup      ] vms: 2", "measure     ] vms: 2"}},
		{"a VM that fails: later rows go on without it, marked", 3, []event{
			at(0, "measure", s5), at(1, "measure", s5), at(2, "measure", s5), ended(2),
			at(0, "measure", 2*s5), at(1, "measure", 2*s5),
		}, []string{"vms: 3 tps: 6.00", "vms: 2 tps: 4.00 lat avg (ms): 2.00 max p95 (ms): 2.00 retries/s: 0.00 err/s: 0.00 (2 of 3 VMs; no report from vm-03)"}},
		{"a VM that hangs: rows printed once two later ones started, and at the end", 2, []event{
			at(0, "measure", s5), at(1, "measure", s5),
			at(0, "measure", 2*s5), at(0, "measure", 3*s5), at(0, "measure", 4*s5),
		}, []string{"vms: 2", "[   10s measure     ] vms: 1 tps: 2.00", "[   15s measure     ] vms: 1", "[   20s measure     ] vms: 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			names := []string{"vm-01", "vm-02", "vm-03"}[:tc.vms]
			l := newLiveView(&out, names)
			for _, e := range tc.events {
				if e.done {
					l.done(e.vm)
				} else {
					l.add(e.vm, *e.r)
				}
			}
			l.close()
			lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
			if out.Len() == 0 {
				lines = nil
			}
			if len(lines) != len(tc.want) {
				t.Fatalf("%d lines, want %d:\n%s", len(lines), len(tc.want), out.String())
			}
			for i, w := range tc.want {
				if !strings.Contains(lines[i], w) {
					t.Errorf("line %d %q lacks %q", i+1, lines[i], w)
				}
				if strings.Contains(w, "vms: 1") && !strings.Contains(lines[i], "no report from vm-02") {
					t.Errorf("line %d %q is not marked as missing vm-02", i+1, lines[i])
				}
			}
		})
	}
}

// A retried busy database is a retry, not an error, in the live view.
func TestLiveViewShowsRetriesApartFromErrors(t *testing.T) {
	var out bytes.Buffer
	l := newLiveView(&out, []string{"vm-01"})
	l.add(0, tick("measure", 5*time.Second, map[string]int64{"errors.busy": 10, "retries": 10}))
	l.close()
	if want := "retries/s: 2.00 err/s: 0.00"; !strings.Contains(out.String(), want) {
		t.Errorf("live line %q lacks %q", out.String(), want)
	}
}
