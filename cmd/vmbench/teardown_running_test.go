//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"vmbench/scenarios/rundir"
)

// A campaign still running holds DIR/.lock: teardown exits 2 naming its
// pid and removes nothing.
func TestTeardownRefusesARunningCampaign(t *testing.T) {
	dir, sim := t.TempDir(), filepath.Join(t.TempDir(), "govcsim-1")
	if err := os.Mkdir(sim, 0o755); err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf(`{"op":"create","kind":"simdir","name":%q,"campaign":"c-1","time":"2026-01-02T15:04:05Z"}`+"\n", sim)
	if err := os.WriteFile(filepath.Join(dir, rundir.ManifestFile), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, rundir.LockFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, 4242)
	code, _, stderr := runCLI(t, nil, "campaign", "teardown", dir)
	if want := "campaign " + dir + " is still running (pid 4242)"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, %q; want 2 and %q", code, stderr, want)
	}
	if _, err := os.Stat(sim); err != nil {
		t.Errorf("teardown of a running campaign removed %s: %v", sim, err)
	}
}
