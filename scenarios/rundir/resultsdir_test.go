package rundir

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A results directory that measured nothing leaves nothing: not even the
// parent directory, when CreateResultsDir made it; a parent that existed
// before (or holds other results) stays.
func TestResultsDirDiscardRemovesTheParentItMade(t *testing.T) {
	base := t.TempDir()
	now := time.Date(2026, 12, 1, 16, 0, 0, 0, time.UTC)
	fresh := filepath.Join(base, "results")
	d, err := CreateResultsDir(fresh, "c", now)
	if err != nil {
		t.Fatal(err)
	}
	d.Discard()
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("%s is left after Discard (stat: %v); this campaign made it", fresh, err)
	}

	kept := filepath.Join(base, "kept")
	if err := os.Mkdir(kept, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err = CreateResultsDir(kept, "c", now)
	if err != nil {
		t.Fatal(err)
	}
	d.Discard()
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("%s existed before the campaign and is gone: %v", kept, err)
	}

	busy := filepath.Join(base, "busy")
	a, err := CreateResultsDir(busy, "a", now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CreateResultsDir(busy, "b", now); err != nil {
		t.Fatal(err)
	}
	a.Discard()
	if entries, err := os.ReadDir(busy); err != nil || len(entries) != 1 {
		t.Errorf("%s after discarding one of two campaigns: %v, %v; want the other's directory", busy, entries, err)
	}
}
