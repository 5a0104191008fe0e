package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"vmbench/workload"
)

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func writeLock(t *testing.T, dir string, pid int) {
	t.Helper()
	b, _ := json.Marshal(lockInfo{PID: pid, Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)})
	if err := os.WriteFile(filepath.Join(dir, LockFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAgentSecondAgentRefused: a live agent's lock (this test process's
// pid) makes Run return ErrLocked, naming the lock and the pid, and write
// nothing: no status.json.
func TestAgentSecondAgentRefused(t *testing.T) {
	dir := runDir(t, sqliteJob(t, "1", workload.VerbRun))
	writeLock(t, dir, os.Getpid())
	err := Run(t.Context(), dir, nil)
	if !errors.Is(err, ErrLocked) || IsBadInput(err) ||
		!strings.Contains(err.Error(), filepath.Join(dir, LockFile)) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("Run: %v; want ErrLocked naming the lock and pid %d", err, os.Getpid())
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{LockFile, JobFile}) {
		t.Errorf("run directory holds %v, want only the lock and the job", names)
	}
}

// deadPID returns the pid of a process that has ended: a child (this test
// binary, running no test) waited for.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.Pid()
}

// TestAgentStaleLockTakenOver: the lock of a process that no longer runs
// is taken over, log.txt says so, and the lock is gone at the end.
func TestAgentStaleLockTakenOver(t *testing.T) {
	job := sqliteJob(t, "1", workload.VerbPrepare)
	dir := runDir(t, job)
	pid := deadPID(t)
	writeLock(t, dir, pid)
	if err := Run(t.Context(), dir, nil); err != nil {
		t.Fatalf("Run: %v", err)
	}
	log, err := os.ReadFile(filepath.Join(dir, LogFile))
	if err != nil {
		t.Fatal(err)
	}
	want := "agent: took over the stale lock " + LockFile + " of pid " + strconv.Itoa(pid)
	if !strings.HasPrefix(string(log), want) {
		t.Errorf("log.txt starts %.120q, want %q", log, want)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock is left behind: %v", err)
	}
}

// TestAgentLockNotAnAgents: a lock file that is not an agent's is refused,
// not removed.
func TestAgentLockNotAnAgents(t *testing.T) {
	dir := runDir(t, sqliteJob(t, "1", workload.VerbRun))
	if err := os.WriteFile(filepath.Join(dir, LockFile), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Run(t.Context(), dir, nil); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "is not an agent's lock") {
		t.Fatalf("Run: %v; want ErrLocked, not an agent's lock", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, LockFile)); string(b) != "mine\n" {
		t.Errorf("the lock file was changed to %q", b)
	}
}

// TestAgentInterruptedBeforeStart: cancelled while the run step waits for
// a StartAt an hour ahead, the agent fails "interrupted before the start"
// and leaves no result.json, record.json, intervals/ or hlog: nothing was
// measured. Only job.json, status.json and log.txt (if the tool logged) remain.
func TestAgentInterruptedBeforeStart(t *testing.T) {
	job := sqliteJob(t, "1", workload.VerbPrepare)
	if err := Run(t.Context(), runDir(t, job), nil); err != nil {
		t.Fatalf("prepare: %v", err)
	}
	job.Steps = []workload.Verb{workload.VerbRun}
	job.StartAt = time.Now().Add(time.Hour)
	dir := runDir(t, job)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	err := run(ctx, dir, nil, hooks{onStatus: func(s Status) {
		if s.State == StateWaiting {
			cancel()
		}
	}})
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) || IsBadInput(err) || err.Error() != "interrupted before the start" {
		t.Fatalf("run: %v; want interrupted before the start", err)
	}
	if st := readStatus(t, dir); st.State != StateFailed || st.Error != "interrupted before the start" || st.Step != workload.VerbRun {
		t.Errorf("status %+v, want failed, interrupted before the start, in the run step", st)
	}
	for _, name := range dirNames(t, dir) {
		if name != JobFile && name != StatusFile && name != LogFile {
			t.Errorf("%s left behind; nothing was measured", name)
		}
	}
}
