package oltp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// failedRun returns the Result of a run whose fifth event fails, as a
// KILL QUERY would, written to a file and read back.
func failedRun(t *testing.T) *Result {
	t.Helper()
	var res *Result
	synctest.Test(t, func(t *testing.T) {
		var err error
		res, err = Run(t.Context(), sleeperSpec(10*time.Millisecond, 5), RunConfig{Threads: 2, Time: time.Minute})
		if err == nil || res == nil {
			t.Fatalf("Run = %v, %v; want a partial result and the error", res, err)
		}
	})
	path := filepath.Join(t.TempDir(), "failed.json")
	if err := res.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadResultFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// TestMergeRefusesFailedRun: the result file of a run stopped by a fatal
// error must not merge as if it were complete.
func TestMergeRefusesFailedRun(t *testing.T) {
	failed := failedRun(t)
	ok := result("sleep", failed.Start, 1, 2)
	ok.Flags, ok.Ops[0].Name, ok.Threads = failed.Flags, failed.Ops[0].Name, failed.Threads
	if m, err := Merge(ok, failed); err == nil {
		t.Fatalf("Merge of a complete and a failed run succeeded (%d events)", countOf(m.Ops))
	}
}

func TestFailedAndInterruptedAreMarked(t *testing.T) {
	failed := failedRun(t)
	if failed.Status != StatusFailed || failed.Error != "boom" || failed.Interrupted {
		t.Errorf("failed run: status %q error %q interrupted %v; want failed, boom", failed.Status, failed.Error, failed.Interrupted)
	}
	ok := result("sleep", failed.Start, 1, 2)
	ok.Flags, ok.Ops[0].Name = failed.Flags, failed.Ops[0].Name
	_, err := Merge(ok, failed)
	if err == nil || !strings.Contains(err.Error(), "result 1 is failed, not complete (boom)") {
		t.Errorf("Merge error %v, want it to name the failed part and its error", err)
	}
	m, err := MergeWith(MergeOptions{Incomplete: true}, ok, failed)
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != StatusFailed || m.Error != "boom" {
		t.Errorf("merged on purpose: status %q error %q, want failed, boom", m.Status, m.Error)
	}

	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(1500*time.Millisecond, cancel)
		res, err := Run(ctx, sleeperSpec(100*time.Millisecond, 0), RunConfig{Threads: 1, WarmupTime: time.Second, Time: time.Hour})
		if !errors.Is(err, ErrInterrupted) {
			t.Fatalf("err = %v", err)
		}
		if res.Status != StatusInterrupted || !res.Interrupted || res.Precondition.Status != StatusComplete {
			t.Errorf("interrupted in measure: status %q (precondition %q), want interrupted (complete)", res.Status, res.Precondition.Status)
		}
		if _, err := Merge(res, res); err == nil || !strings.Contains(err.Error(), "is interrupted") {
			t.Errorf("Merge of interrupted results: %v, want a refusal", err)
		}
	})
}

func TestSetStatus(t *testing.T) {
	var r Result
	r.SetStatus(errors.Join(ErrInterrupted, context.Canceled))
	if r.State() != StatusInterrupted || !r.Interrupted {
		t.Errorf("interrupt: %q", r.State())
	}
	r.SetStatus(nil)
	if r.State() != StatusComplete || r.Error != "" || r.Interrupted {
		t.Errorf("nil: %q %q", r.State(), r.Error)
	}
	if (&Result{Interrupted: true}).State() != StatusInterrupted || (&Result{}).State() != StatusComplete {
		t.Error("an empty status (version 1) is not read from Interrupted")
	}
}

// TestReadsVersion1AndRefusesNewer: a version 1 file (no status) reads as
// complete; a version newer than this reader's is refused by its version,
// not by its first unknown field.
func TestReadsVersion1AndRefusesNewer(t *testing.T) {
	dir := t.TempDir()
	r := result("w", t0, 1, 2)
	r.Version = 1
	path := filepath.Join(dir, "v1.json")
	if err := r.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := ReadResultFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 1 || got.State() != StatusComplete {
		t.Errorf("version 1 file: version %d state %q", got.Version, got.State())
	}
	if m, err := Merge(got, result("w", t0, 3)); err != nil || m.Version != ResultVersion {
		t.Errorf("merging a version 1 and a version %d result: %v (version %d)", ResultVersion, err, m.Version)
	}
	next := ResultVersion + 1
	newer := filepath.Join(dir, "newer.json")
	if err := os.WriteFile(newer, fmt.Appendf(nil, `{"version": %d, "workload": "w", "a_field_of_the_next_version": 1}`, next), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResultFile(newer); err == nil ||
		!strings.Contains(err.Error(), fmt.Sprintf("version %d is not supported (this vmbench reads versions 1 to %d)", next, ResultVersion)) {
		t.Errorf("newer version: %v", err)
	}
}

// TestMergeKeepsBacklogAndOverruns: backlogs add up, overruns name their
// part.
func TestMergeKeepsBacklogAndOverruns(t *testing.T) {
	a, b := result("w", t0, 1), result("w", t0, 2)
	a.BacklogAtEnd, b.BacklogAtEnd, b.BacklogDropped = 3, 4, 5
	b.Overruns = []Overrun{{Planned: time.Second, Ran: 3 * time.Second}}
	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if m.BacklogAtEnd != 7 || m.BacklogDropped != 5 || len(m.Overruns) != 1 || m.Overruns[0].Part != "vm=vm-w" {
		t.Errorf("merged backlog %d dropped %d overruns %+v", m.BacklogAtEnd, m.BacklogDropped, m.Overruns)
	}
	if got := m.Overruns[0].String(); got != "vm=vm-w: phase ran 3 s for a planned 1 s: the host was starved (the runner handled its end late)" {
		t.Errorf("words %q", got)
	}
}
