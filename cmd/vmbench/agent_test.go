package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vmbench/agent"
	"vmbench/dialect"
	"vmbench/workload"
)

// agentJobDir writes job as DIR/job.json in a new directory.
func agentJobDir(t *testing.T, job *agent.Job) string {
	t.Helper()
	b, err := job.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, agent.JobFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func agentSQLiteJob(t *testing.T) *agent.Job {
	return &agent.Job{
		Version: agent.JobVersion, Tool: "sysbench",
		Flags:    map[string]string{"tables": "1", "table-size": "100", "threads": "1", "time": "1", "report-interval": "1"},
		Database: &dialect.Config{Driver: dialect.SQLite, SQLitePath: filepath.Join(t.TempDir(), "sbtest.db")},
		Steps:    []workload.Verb{workload.VerbPrepare, workload.VerbRun},
	}
}

// TestAgentRunUsageErrors: a bad command line or job exits 2 with a
// message naming the problem; only a bad job's directory gets a status.
func TestAgentRunUsageErrors(t *testing.T) {
	empty := t.TempDir()
	file := writeFile(t, "afile", "x")
	badTool := agentSQLiteJob(t)
	badTool.Tool = "sysbnech"
	connFlag := agentSQLiteJob(t)
	connFlag.Flags["mysql-host"] = "db1"
	late := agentSQLiteJob(t)
	late.StartAt = time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	endless := agentSQLiteJob(t)
	endless.Flags["time"] = "0"
	huge := agentJobDir(t, agentSQLiteJob(t)) // its job padded to 2 MiB
	if err := os.Truncate(filepath.Join(huge, agent.JobFile), 2<<20); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		want   string
		status bool // the run directory gets a failed status.json
	}{
		{"no DIR", []string{"agent", "run"}, "vmbench agent run: takes DIR (got 0 arguments", false},
		{"two DIRs", []string{"agent", "run", empty, empty}, "takes DIR (got 2 arguments", false},
		{"missing DIR", []string{"agent", "run", filepath.Join(empty, "nope")}, "nope does not exist", false},
		{"DIR is a file", []string{"agent", "run", file}, "is not a directory", false},
		{"DIR without job.json", []string{"agent", "run", empty}, "job.json does not exist", false},
		{"unknown flag", []string{"agent", "run", empty, "--tiem", "3"}, "unknown flag: --tiem", false},
		{"unknown command", []string{"agent", "rnu"}, `vmbench agent: unknown command "rnu" (want run`, false},
		{"unknown tool", []string{"agent", "run", agentJobDir(t, badTool)}, `job.json: tool: "sysbnech" is not a known tool`, true},
		{"connection flag", []string{"agent", "run", agentJobDir(t, connFlag)}, "job.json: flags.mysql-host: a connection flag", true},
		{"start in 2099", []string{"agent", "run", agentJobDir(t, late)}, "job.json: start_at: 2099-01-01T00:00:00Z is ", true},
		{"a run that never ends", []string{"agent", "run", agentJobDir(t, endless)}, "job.json: flags: time 0 and no events", true},
		{"a job of 2 MiB", []string{"agent", "run", huge}, "job.json is 2 MiB (2097152 bytes), more than 1 MiB, the bound on this file", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, nil, tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tc.want)
			}
			if !tc.status {
				return
			}
			dir := tc.args[len(tc.args)-1]
			b, err := os.ReadFile(filepath.Join(dir, agent.StatusFile))
			if err != nil {
				t.Fatal(err)
			}
			if st, err := agent.ParseStatus(b); err != nil || st.State != agent.StateFailed || !st.FlagError {
				t.Errorf("status %+v (%v), want failed with flag_error", st, err)
			}
		})
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("usage errors created %v", entries)
	}
}

// TestAgentRunDone: a good job exits 0 with the status done and a result.
func TestAgentRunDone(t *testing.T) {
	dir := agentJobDir(t, agentSQLiteJob(t))
	code, _, stderr := runCLI(t, nil, "agent", "run", dir)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, agent.StatusFile))
	if err != nil {
		t.Fatal(err)
	}
	if st, err := agent.ParseStatus(b); err != nil || st.State != agent.StateDone {
		t.Errorf("status %+v (%v), want done", st, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, agent.ResultFile)); err != nil {
		t.Error(err)
	} else if _, err := agent.ParseResult(agent.ResultFile, b); err != nil {
		t.Error(err)
	}
}

// TestAgentRunInterruptedExits130: a run stopped by a signal (its context
// cancelled; here before it starts) exits 130 with the status failed
// "interrupted", as the other commands do after Ctrl-C.
func TestAgentRunInterruptedExits130(t *testing.T) {
	dir := agentJobDir(t, agentSQLiteJob(t))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var out, errb bytes.Buffer
	err := run(ctx, &app{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}, []string{"agent", "run", dir})
	if code := exitCode(err); code != 130 {
		t.Errorf("exit %d (%v), want 130", code, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, agent.StatusFile))
	if err != nil {
		t.Fatal(err)
	}
	if st, err := agent.ParseStatus(b); err != nil || st.State != agent.StateFailed || st.Error != "interrupted" || st.FlagError {
		t.Errorf("status %+v (%v), want failed, interrupted", st, err)
	}
}

// TestAgentRunLockedExits2: a DIR another agent holds (its lock names this
// live process) exits 2 naming the lock and the pid, and gets no status.
func TestAgentRunLockedExits2(t *testing.T) {
	dir := agentJobDir(t, agentSQLiteJob(t))
	lock := filepath.Join(dir, agent.LockFile)
	if err := os.WriteFile(lock, fmt.Appendf(nil, `{"pid":%d,"started":"2026-01-02T03:04:05Z"}`, os.Getpid()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, nil, "agent", "run", dir)
	if code != 2 || !strings.Contains(stderr, lock) || !strings.Contains(stderr, fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("exit %d, stderr %q; want 2 naming %s and the pid", code, stderr, lock)
	}
	if _, err := os.Stat(filepath.Join(dir, agent.StatusFile)); err == nil {
		t.Errorf("a locked DIR got a %s", agent.StatusFile)
	}
}
