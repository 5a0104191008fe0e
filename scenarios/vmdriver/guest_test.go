package vmdriver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"vmbench/agent"
	"vmbench/oltp"
	"vmbench/oltp/hist"
	"vmbench/scenarios/spec"
	"vmbench/target"
	"vmbench/workload"
)

// These tests put the guest driver on real local targets (target.Local)
// and change only what a local directory cannot show: a guest clock that
// is off (skewed), a guest that does not answer for a while (flaky).

// skewed is a Local target whose clock is off by offset.
type skewed struct {
	*target.Local
	offset time.Duration
}

func (s skewed) Info(ctx context.Context) (target.Info, error) {
	info, err := s.Local.Info(ctx)
	info.ClockOffset = s.offset
	return info, err
}

// flaky is a Local target whose first fails reads fail.
type flaky struct {
	*target.Local
	fails atomic.Int32
}

func (f *flaky) ReadFile(ctx context.Context, remote string) ([]byte, error) {
	if f.fails.Add(-1) >= 0 {
		return nil, errors.New("connection reset by peer")
	}
	return f.Local.ReadFile(ctx, remote)
}

func (f *flaky) ReadFileMax(ctx context.Context, remote string, limit int64) ([]byte, error) {
	if f.fails.Add(-1) >= 0 {
		return nil, errors.New("connection reset by peer")
	}
	return f.Local.ReadFileMax(ctx, remote, limit)
}

func newLocal(t *testing.T, name string) *target.Local {
	t.Helper()
	l, err := target.NewLocal(name, filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestGuestClockOffsetRefused: a guest whose clock is off by more than
// guest.max-clock-offset is refused, naming the VM, the offset and the
// bound, and what was put on the guests is removed.
func TestGuestClockOffsetRefused(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		offset time.Duration
		bound  spec.Duration
		want   string // "" when accepted
	}{
		{10 * time.Millisecond, 0, ""},
		{-40 * time.Millisecond, 0, ""},
		{200 * time.Millisecond, 0, "guest of vm2: its clock is 200ms off the harness's (± 0s), more than guest.max-clock-offset 50ms allows"},
		{-200 * time.Millisecond, spec.Duration(300 * time.Millisecond), ""},
		{-400 * time.Millisecond, spec.Duration(300 * time.Millisecond), "its clock is -400ms off"},
	} {
		bound := cmp.Or(time.Duration(tc.bound), spec.DefaultMaxClockOffset)
		opts := GuestOptions{Logf: t.Logf, MaxClockOffset: bound, AgentBinary: exe}
		vm1, vm2 := newLocal(t, "vm1"), newLocal(t, "vm2")
		d, err := NewGuest(context.Background(), opts, []target.Target{vm1, skewed{vm2, tc.offset}})
		if tc.want == "" {
			if err != nil {
				t.Errorf("offset %s, bound %s: %v", tc.offset, time.Duration(tc.bound), err)
				continue
			}
			if d.offsets[1] != tc.offset {
				t.Errorf("offset %s kept as %s: the start time would not be on the guest's clock", tc.offset, d.offsets[1])
			}
			d.Close()
		} else if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("offset %s, bound %s: error %v, want %q", tc.offset, time.Duration(tc.bound), err, tc.want)
		}
		for _, l := range []*target.Local{vm1, vm2} {
			if info, _ := l.Info(context.Background()); dirExists(info.Dir) {
				t.Errorf("offset %s: %s left behind", tc.offset, info.Dir)
			}
		}
	}
}

func dirExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// recorder is an Observer that keeps what it was told.
type recorder struct {
	phases    []oltp.Phase
	intervals []oltp.IntervalReport
}

func (r *recorder) Phase(p oltp.Phase, _ time.Duration) { r.phases = append(r.phases, p) }
func (r *recorder) Interval(iv oltp.IntervalReport)     { r.intervals = append(r.intervals, iv) }

// finished is a Process that has ended with code 0.
type finished struct{}

func (finished) PID() int64                               { return 1 }
func (finished) State(context.Context) (bool, int, error) { return false, 0, nil }
func (finished) Kill(context.Context) error               { return nil }

// writeAgentFiles writes what an agent leaves after n measure intervals.
func writeAgentFiles(t *testing.T, l *target.Local, n int, state agent.State) {
	t.Helper()
	ctx := context.Background()
	h := hist.New()
	h.Record(2 * time.Millisecond)
	for i := 1; i <= n; i++ {
		iv := agent.NewInterval(i, oltp.IntervalReport{Phase: oltp.PhaseMeasure, At: time.Duration(i) * time.Second,
			End: time.Unix(int64(1000+i), 0), Length: time.Second, Threads: 1, Ops: []string{"tx"}, Latency: []*hist.Histogram{h}})
		b, err := json.Marshal(iv)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.WriteFile(ctx, "run/"+agent.IntervalPath(i), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := json.Marshal(agent.Status{Version: agent.StatusVersion, State: state, PID: 1, Updated: time.Unix(2000, 0), Intervals: n})
	if err := l.WriteFile(ctx, "run/"+agent.StatusFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGuestFollowerRetriesUnreachableGuest: reads that fail are tried
// again, said once in the log, and every interval still reaches the
// observer once, in order; past guestUnreachable the VM is given up.
func TestGuestFollowerRetriesUnreachableGuest(t *testing.T) {
	l := newLocal(t, "vm1")
	writeAgentFiles(t, l, 3, agent.StateDone)
	ft := &flaky{Local: l}
	ft.fails.Store(3)
	var obs recorder
	var log bytes.Buffer
	f := &follower{t: ft, dir: "run", env: workload.Env{Observer: &obs, Log: &log}, proc: finished{}}
	st, err := f.follow(context.Background())
	if err != nil || st.State != agent.StateDone {
		t.Fatalf("follow: %v, state %s", err, st.State)
	}
	if len(obs.intervals) != 3 || obs.intervals[2].At != 3*time.Second || len(obs.phases) != 1 || obs.phases[0] != oltp.PhaseMeasure {
		t.Errorf("observer saw %d intervals, phases %v; want 3 in order and the measure phase once", len(obs.intervals), obs.phases)
	}
	if n := strings.Count(log.String(), "trying again"); n != 1 {
		t.Errorf("log says the retry %d times, want once:\n%s", n, log.String())
	}

	now := time.Unix(0, 0)
	ft.fails.Store(1 << 20)
	g := &follower{t: ft, dir: "run", env: workload.Env{Log: &log}, proc: finished{},
		now: func() time.Time { now = now.Add(guestUnreachable / 2); return now }}
	if _, err := g.follow(context.Background()); err == nil || !strings.Contains(err.Error(), "connection reset by peer") {
		t.Errorf("a guest that never answers: %v, want the read error once guestUnreachable has passed", err)
	}
}

// An agent stopped by the campaign (Ctrl-C, SIGTERM) that ends without a
// final status (here a shell that SIGTERM kills at once, as it would an
// agent before it has set up its handler) is not waited for: the stop
// returns once the process has ended, well within a grace of a minute.
func TestGuestFollowerStopReturnsOnceTheAgentEnded(t *testing.T) {
	l := newLocal(t, "vm1")
	p, err := l.Start(t.Context(), target.Command{Path: "/bin/sh", Args: []string{"-c", "sleep 600"}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Shutdown() }()
	const grace = time.Minute
	f := &follower{t: l, dir: "run", proc: p, grace: grace}
	start := time.Now()
	st, err := f.stop(agent.Status{State: agent.StatePrepare})
	waited := time.Since(start)
	if !errors.Is(err, context.Canceled) || st.State == agent.StateDone {
		t.Errorf("stop: %v, state %s; want cancelled", err, st.State)
	}
	if running, _, _ := p.State(t.Context()); running {
		t.Error("the agent still runs after stop")
	}
	if waited >= grace {
		t.Errorf("stop waited %s, its whole grace, for an agent that had ended", waited)
	}
}

// TestGuestFollowerRefusesBadFile: a status file that is not an agent's
// is an error at once, not retried.
func TestGuestFollowerRefusesBadFile(t *testing.T) {
	l := newLocal(t, "vm1")
	if err := l.WriteFile(context.Background(), "run/"+agent.StatusFile, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := &follower{t: l, dir: "run", proc: finished{}}
	_, err := f.follow(context.Background())
	var bad *badFileError
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "vm1:run/status.json") {
		t.Errorf("follow: %v, want a bad-file error naming vm1:run/status.json", err)
	}
}
