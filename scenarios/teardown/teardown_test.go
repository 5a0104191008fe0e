package teardown

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/scenarios/rundir"
)

// A running campaign holds its directory's lock: teardown, in another
// goroutine, refuses it and removes nothing; once released it proceeds.
func TestTeardownRefusesARunningCampaign(t *testing.T) {
	dir := t.TempDir()
	sim := filepath.Join(t.TempDir(), "govcsim-123")
	if err := os.Mkdir(sim, 0o755); err != nil {
		t.Fatal(err)
	}
	m, err := rundir.CreateManifest(dir, "c-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Record(rundir.Created{Op: rundir.OpCreate, Kind: rundir.KindSimDir, Name: sim}); err != nil {
		t.Fatal(err)
	}
	m.Close()
	lock, err := rundir.Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error)
	go func() {
		_, err := Run(t.Context(), dir, Options{Log: io.Discard})
		errc <- err
	}()
	err = <-errc
	want := fmt.Sprintf("campaign %s is still running (pid %d)", dir, os.Getpid())
	if !errors.Is(err, rundir.ErrRunning) || !strings.Contains(err.Error(), want) {
		t.Errorf("teardown of a running campaign: %v, want %q", err, want)
	}
	if _, err := os.Stat(sim); err != nil {
		t.Errorf("teardown of a running campaign removed the simulator's directory: %v", err)
	}
	lock.Release()
	if n, err := Run(t.Context(), dir, Options{Log: io.Discard}); err != nil || n != 1 {
		t.Errorf("teardown once the campaign ended: %d, %v", n, err)
	}
	if _, err := os.Stat(sim); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the simulator's directory is left: %v", err)
	}
}
