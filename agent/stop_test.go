//go:build unix

package agent

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopChildEnv makes this test binary a stand-in agent (TestStopChild):
// "term" ends on SIGTERM, "ignore" ignores it.
const stopChildEnv = "VMBENCH_AGENT_STOP_CHILD"

// TestStopChild is the stand-in agent's body when stopChildEnv is set:
// its command line holds "agent run", as a real agent's does.
func TestStopChild(t *testing.T) {
	mode := os.Getenv(stopChildEnv)
	if mode == "" {
		t.Skip("the stand-in agent of TestStop")
	}
	if mode == "ignore" {
		signal.Ignore(syscall.SIGTERM)
	} else {
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM)
		go func() { <-c; os.Exit(0) }()
	}
	os.Stdout.WriteString("ready\n")
	time.Sleep(time.Minute)
}

// startChild starts a process and waits until it is ready; args[0] ""
// is this test binary as a stand-in agent of mode.
func startChild(t *testing.T, mode string, args ...string) *exec.Cmd {
	t.Helper()
	var cmd *exec.Cmd
	if mode != "" {
		cmd = exec.Command(os.Args[0], "-test.run=^TestStopChild$", "-test.count=1", "agent", "run", t.TempDir())
		cmd.Env = append(os.Environ(), stopChildEnv+"="+mode)
	} else {
		cmd = exec.Command(args[0], args[1:]...)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if mode != "" {
		if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
			t.Fatalf("stand-in agent: %q %v", line, err)
		}
	}
	return cmd
}

// lockOf writes a LockFile naming pid in a new directory.
func lockOf(t *testing.T, pid int) string {
	t.Helper()
	dir := t.TempDir()
	b, _ := json.Marshal(lockInfo{PID: pid, Started: time.Now()})
	if err := os.WriteFile(filepath.Join(dir, LockFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestStop: Stop ends the agent that holds a directory (asked, or killed
// past the grace), leaves alone a directory with no live agent, a pid now
// of another program, and refuses a lock that is not an agent's.
func TestStop(t *testing.T) {
	ctx := t.Context()
	if got, err := Stop(ctx, t.TempDir(), time.Second); err != nil || got != (Stopped{}) {
		t.Errorf("no lock: %+v %v", got, err)
	}
	garbage := t.TempDir()
	if err := os.WriteFile(filepath.Join(garbage, LockFile), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Stop(ctx, garbage, time.Second); err == nil || !strings.Contains(err.Error(), "is not an agent's lock") {
		t.Errorf("a lock that is not an agent's: %v", err)
	}
	fifo := t.TempDir() // opening a FIFO for reading would block Stop (and campaign resume) for good
	if err := syscall.Mkfifo(filepath.Join(fifo, LockFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Stop(ctx, fifo, time.Second); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a FIFO as the lock: %v; want it refused unread", err)
	}
	if _, err := lockDir(fifo, time.Now()); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Lock over a FIFO: %v; want it refused unread", err)
	}
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	if got, err := Stop(ctx, lockOf(t, ended.Process.Pid), time.Second); err != nil || got != (Stopped{}) {
		t.Errorf("a pid that no longer runs: %+v %v", got, err)
	}
	other := startChild(t, "", "sleep", "60")
	if got, err := Stop(ctx, lockOf(t, other.Process.Pid), time.Second); err != nil || got != (Stopped{}) || !processAlive(other.Process.Pid) {
		t.Errorf("a pid of another program: %+v %v, alive %v", got, err, processAlive(other.Process.Pid))
	}

	// The grace is long for the agent that ends when asked (Stop returns
	// as soon as it has: a loaded machine only makes that later), short
	// for the one that ignores the request.
	for _, c := range []struct {
		mode   string
		grace  time.Duration
		killed bool
	}{{"term", time.Minute, false}, {"ignore", 300 * time.Millisecond, true}} {
		child := startChild(t, c.mode)
		got, err := Stop(ctx, lockOf(t, child.Process.Pid), c.grace)
		if err != nil || got.PID != child.Process.Pid || got.Killed != c.killed {
			t.Errorf("%s: %+v %v, want pid %d killed %v", c.mode, got, err, child.Process.Pid, c.killed)
		}
		err = child.Wait()
		st, _ := child.ProcessState.Sys().(syscall.WaitStatus)
		if c.killed != (st.Signaled() && st.Signal() == syscall.SIGKILL) {
			t.Errorf("%s: the child ended with %v (%v)", c.mode, child.ProcessState, err)
		}
	}
}
