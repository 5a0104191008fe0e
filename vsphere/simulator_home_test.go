package vsphere

import (
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
