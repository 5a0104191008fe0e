package vdbench

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update is the -update flag of every golden-file test of the package:
// go test ./vdbench/ -run NAME -update rewrites the files in testdata/.
var update = flag.Bool("update", false, "rewrite golden files")

// checkGoldenFile compares got with testdata/name, or writes it there
// under -update.
func checkGoldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
