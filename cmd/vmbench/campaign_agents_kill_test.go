//go:build linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vmbench/agent"
)

// agentLocks reads the pids in the agent locks of the simulated guests of
// campaign id (its temporary directory's guests/<vm>/run/agent.lock).
func agentLocks(t *testing.T, id string) map[string]int {
	t.Helper()
	locks, _ := filepath.Glob(filepath.Join(os.TempDir(), "vmbench-"+id, "guests", "*", "run", agent.LockFile))
	pids := map[string]int{}
	for _, l := range locks {
		var lock struct{ PID int }
		if b, err := os.ReadFile(l); err != nil || json.Unmarshal(b, &lock) != nil || lock.PID <= 0 {
			t.Fatalf("%s: %s %v", l, b, err)
		}
		pids[filepath.Dir(l)] = lock.PID
	}
	return pids
}

// alive says whether process pid runs (it exists and is not a zombie).
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil && !zombie(pid) }

// waitEnded waits, at most bound, until none of pids runs, polling; it
// returns those still running.
func waitEnded(pids map[string]int, bound time.Duration) []int {
	deadline := time.Now().Add(bound)
	for {
		var left []int
		for _, pid := range pids {
			if alive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond) // polling a state, not timing anything
	}
}

// A guest-driven simulated campaign killed (SIGKILL) in its measure phase
// takes its agents with it, as VMs would end with a simulation: they do
// not run on against their databases until their planned end (5 minutes
// here), however slow the machine (the wait for them is bounded at a
// fraction of that, and polls).
func TestSimulatedAgentsDieWithTheCampaign(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a campaign in a child process")
	}
	res := t.TempDir()
	file := writeFile(t, "g.yaml", strings.Replace(guestCampaign("guestkilled"), "time: 2s", "time: 5m", 1))
	killAt(t, "phase measure", "campaign", "run", file, "--simulate", "--results-dir", res)
	dir := resultsDir(t, res)
	defer runCLI(t, nil, "campaign", "teardown", dir) // the temporary directory
	pids := agentLocks(t, strings.TrimSuffix(filepath.Base(dir), ".incomplete"))
	if len(pids) != 2 {
		t.Fatalf("the killed campaign's agents: %v, want 2", pids)
	}
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	start := time.Now()
	if left := waitEnded(pids, time.Minute); len(left) != 0 {
		t.Errorf("the agents %v still run a minute after their campaign was killed", left)
	}
	t.Logf("the agents had ended %s after the campaign was killed and reaped", time.Since(start).Round(time.Millisecond))
}

// startLeftAgent starts, in run directory dir, an agent of the test's own
// (a child of the test, not of the killed campaign: as an agent left in a
// real guest) on the job the killed campaign left there, its common start
// moved an hour on, so that it waits, holding the directory's lock. It
// returns once the lock is the new agent's; the command's Wait ends when
// the agent does.
func startLeftAgent(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	path := filepath.Join(dir, agent.JobFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var job map[string]any
	if err := json.Unmarshal(b, &job); err != nil {
		t.Fatal(err)
	}
	job["start_at"] = time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano)
	if b, err = json.Marshal(job); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal([]string{"agent", "run", dir})
	// "agent run" on its command line, as `vmbench agent stop` looks for.
	cmd := exec.Command(os.Args[0], "-test.run=^TestCampaignChild$", "-test.count=1", "agent", "run")
	cmd.Env = append(os.Environ(), childArgs+"="+string(args))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var lock struct{ PID int }
		if b, err := os.ReadFile(filepath.Join(dir, agent.LockFile)); err == nil && json.Unmarshal(b, &lock) == nil && lock.PID == cmd.Process.Pid {
			return cmd
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent started in %s did not take its lock", dir)
		}
	}
}

// A guest-driven campaign killed in its measure phase, whose guests still
// run agents (here the test's own, started on the jobs the kill left:
// the simulated ones died with the campaign), resumes only once it has
// stopped each of them: before it drops and makes the databases again, so
// that no old agent runs against a database being made afresh or writes
// into the new run's files.
func TestResumeStopsAgentsLeftRunning(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a campaign in a child process")
	}
	sim := startSimulator(t, 2)
	cfg := sim.Config()
	res := t.TempDir()
	file := writeFile(t, "g.yaml", strings.Replace(guestCampaign("guestresume"), "time: 2s", "time: 5s", 1))
	killAt(t, "phase measure", "campaign", "run", file, "--simulate", "--results-dir", res,
		"--url", cfg.URL, "-k", "--ds", strings.Join(sim.Datastores(), ","), "--template", cfg.Template, "--pool", cfg.ResourcePool)
	dir := resultsDir(t, res)
	killed := agentLocks(t, strings.TrimSuffix(filepath.Base(dir), ".incomplete"))
	if len(killed) != 2 {
		t.Fatalf("the killed campaign left %d agents' locks, want 2: %v", len(killed), killed)
	}
	if left := waitEnded(killed, time.Minute); len(left) != 0 {
		t.Fatalf("the killed campaign's agents %v still run", left)
	}
	var left []*exec.Cmd
	for runDir := range killed {
		left = append(left, startLeftAgent(t, runDir))
	}

	code, _, stderr := runCLI(t, nil, "campaign", "resume", dir, "--url", cfg.URL, "-k")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	stops := strings.Count(stderr, "stopped the agent in") + strings.Count(stderr, "killed the agent in")
	lastStop := max(strings.LastIndex(stderr, "stopped the agent in"), strings.LastIndex(stderr, "killed the agent in"))
	if databases := strings.Index(stderr, "] a database per VM"); stops != 2 || databases < 0 || lastStop > databases {
		t.Errorf("the resume stopped %d agents (want 2), the last at %d of its log, and made the databases at %d (want after):\n%s",
			stops, lastStop, databases, stderr)
	}
	for _, cmd := range left {
		done := make(chan struct{})
		go func() {
			_ = cmd.Wait() // killed by the resume: its exit status is no news
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Errorf("the agent %d still runs after the resume", cmd.Process.Pid)
		}
	}
}
