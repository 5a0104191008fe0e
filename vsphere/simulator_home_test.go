package vsphere

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Home names the simulator's temporary directory, which Close removes.
func TestSimulatorHome(t *testing.T) {
	sim, err := StartSimulator(t.Context(), SimOptions{Datastores: 1})
	if err != nil {
		t.Fatal(err)
	}
	home := sim.Home()
	if !strings.HasPrefix(filepath.Base(home), "govcsim-") {
		t.Fatalf("Home() = %q, want a govcsim-* directory", home)
	}
	if _, err := os.Stat(home); err != nil {
		t.Fatal(err)
	}
	sim.Close()
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("%s is still there after Close (%v)", home, err)
	}
}

// StartSimulatedSession's session closes its simulator: the started hook
// sees it running, the func it returns runs once, after the directory is
// gone, and a second Close does not run it again.
func TestStartSimulatedSessionClosesTheSimulator(t *testing.T) {
	var home string
	closed := 0
	s, sim, err := StartSimulatedSession(t.Context(), SimOptions{Datastores: 1}, func(sim *Simulator) (func(), error) {
		home = sim.Home()
		return func() {
			closed++
			if _, err := os.Stat(home); !os.IsNotExist(err) {
				t.Errorf("%s is still there when the closed func runs (%v)", home, err)
			}
		}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if home == "" || home != sim.Home() {
		t.Fatalf("started saw home %q, simulator has %q", home, sim.Home())
	}
	if _, err := s.Finder.VirtualMachine(t.Context(), SimTemplate); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	_ = s.Close(t.Context())
	if closed != 1 {
		t.Errorf("closed func ran %d times, want 1", closed)
	}
}

// A failing started hook stops the simulator and its error is returned.
func TestStartSimulatedSessionHookError(t *testing.T) {
	var home string
	_, _, err := StartSimulatedSession(t.Context(), SimOptions{Datastores: 1}, func(sim *Simulator) (func(), error) {
		home = sim.Home()
		return nil, os.ErrPermission
	})
	if !errors.Is(err, os.ErrPermission) {
		t.Fatalf("err = %v, want the hook's", err)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("%s is still there after the hook failed (%v)", home, err)
	}
}
