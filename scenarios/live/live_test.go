package live

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"vmbench/oltp"
	"vmbench/oltp/hist"
)

// tick is one VM's interval report: 10 events of 2 ms over 5 s, with
// the given counters.
func tick(phase oltp.Phase, at time.Duration, counters map[string]int64) oltp.IntervalReport {
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
	at := func(vm int, phase oltp.Phase, d time.Duration) event {
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
			l := New(&out, names)
			for _, e := range tc.events {
				if e.done {
					l.Done(e.vm)
				} else {
					l.Add(e.vm, *e.r)
				}
			}
			l.Close()
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
	l := New(&out, []string{"vm-01"})
	l.Add(0, tick("measure", 5*time.Second, map[string]int64{"errors.busy": 10, "retries": 10}))
	l.Close()
	if want := "retries/s: 2.00 err/s: 0.00"; !strings.Contains(out.String(), want) {
		t.Errorf("live line %q lacks %q", out.String(), want)
	}
}

// BenchmarkLiveView16VMs is the live view's cost per report interval of
// a 16-VM campaign: each VM's report added and the interval's row printed
// (to io.Discard). One op is one interval. "events" gives each VM 250
// events of 1-250 ms, whose p95 the view reads from the HDR histogram;
// "idle" gives none, which leaves the view's own bookkeeping and line.
func BenchmarkLiveView16VMs(b *testing.B) {
	for _, events := range []int{250, 0} {
		name := "events"
		if events == 0 {
			name = "idle"
		}
		b.Run(name, func(b *testing.B) {
			names := make([]string, 16)
			reports := make([]oltp.IntervalReport, 16)
			for i := range names {
				names[i] = fmt.Sprintf("sysbench-%02d", i+1)
				reports[i] = tick("measure", 5*time.Second, map[string]int64{"retries": 3, "errors.deadlock": 1})
				h := hist.New()
				for j := range events {
					h.Record(time.Duration(j+1) * time.Millisecond)
				}
				reports[i].Latency[0] = h
			}
			l := New(io.Discard, names)
			b.ReportAllocs()
			for b.Loop() {
				for vm := range reports {
					l.Add(vm, reports[vm])
				}
			}
			l.Close()
		})
	}
}

// A printed line is what the format in print's comment gives, padding,
// rounding and the mark of missing VMs included.
func TestLiveViewLineMatchesItsFormat(t *testing.T) {
	for _, tc := range []struct {
		phase  oltp.Phase
		at     time.Duration
		from   []bool
		events int64
		sum    time.Duration
	}{
		{"measure", 5 * time.Second, []bool{true, true}, 10, 25 * time.Millisecond},
		{"precondition", 12345 * time.Second, []bool{true, false}, 3, 10 * time.Millisecond},
		{"warmup", 2500 * time.Millisecond, []bool{false, false}, 0, 0},
	} {
		var out bytes.Buffer
		l := New(&out, []string{"vm-01", "vm-02"})
		row := &viewRow{at: tc.at, from: tc.from, events: tc.events, sum: tc.sum, p95: 1234567 * time.Nanosecond,
			length: 5 * time.Second, retries: 7, errs: 1}
		var missing []string
		for i, ok := range tc.from {
			if ok {
				row.vms++
			} else {
				missing = append(missing, l.names[i])
			}
		}
		l.print(rowKey{tc.phase, 1}, row)
		avg := 0.0
		if tc.events > 0 {
			avg = float64(tc.sum) / 1e6 / float64(tc.events)
		}
		mark := ""
		if len(missing) > 0 {
			mark = fmt.Sprintf(" (%d of 2 VMs; no report from %s)", row.vms, strings.Join(missing, ", "))
		}
		want := fmt.Sprintf("    [ %4.0fs %-12s] vms: %d tps: %.2f lat avg (ms): %.2f max p95 (ms): %.2f retries/s: %.2f err/s: %.2f%s\n",
			tc.at.Seconds(), tc.phase, row.vms, float64(tc.events)/5, avg, 1.234567, 7.0/5, 1.0/5, mark)
		if out.String() != want {
			t.Errorf("line\n%q, want\n%q", out.String(), want)
		}
	}
}
