package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vmbench/scenarios/rundir"
)

// TestFindDataSet: the data set of the key is found; one of another key
// is refused with its differences; an edited key file is refused.
func TestFindDataSet(t *testing.T) {
	dir := t.TempDir()
	key := rundir.DataKey{Tool: "tpcc", Shape: map[string]string{"warehouses": "2", "seed": "1"}, Engine: "sqlite 3.54.1"}
	if err := Write(dir, &Set{Key: key, SQLiteFile: key.ID() + ".db", Campaign: "x"}, nil); err != nil {
		t.Fatal(err)
	}
	ds, err := Find(dir, key)
	if err != nil || ds.Config(nil).SQLitePath != filepath.Join(dir, key.ID()+".db") {
		t.Fatalf("find: %+v %v", ds, err)
	}
	want := key
	want.Shape = map[string]string{"warehouses": "3", "seed": "1"}
	_, err = Find(dir, want)
	if err == nil || !strings.Contains(err.Error(), `warehouses "2" (wanted "3")`) || !strings.Contains(err.Error(), "refused, not used") {
		t.Errorf("another key: %v", err)
	}
	// A key file renamed to another key's name.
	if err := os.Rename(filepath.Join(dir, key.ID()+".json"), filepath.Join(dir, want.ID()+".json")); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(dir, want); err == nil || !strings.Contains(err.Error(), "does not match its name") {
		t.Errorf("renamed key file: %v", err)
	}
}
