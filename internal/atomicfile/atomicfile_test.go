package atomicfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entries lists dir's names, failing the test when it cannot.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name()
	}
	return names
}

// noTemp fails the test when dir holds a temporary file of Write's.
func noTemp(t *testing.T, dir string) {
	t.Helper()
	for _, n := range entries(t, dir) {
		if strings.Contains(n, ".tmp") {
			t.Errorf("%s left behind in %s", n, dir)
		}
	}
}

func TestWriteCreatesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	for _, data := range [][]byte{[]byte("first\n"), []byte("second, longer than the first\n"), {}, bytes.Repeat([]byte("x"), 1<<20)} {
		if err := Write(path, data); err != nil {
			t.Fatalf("Write(%d bytes): %v", len(data), err)
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("after Write(%d bytes) the file holds %d bytes (%v)", len(data), len(got), err)
		}
		if names := entries(t, dir); len(names) != 1 || names[0] != "result.json" {
			t.Errorf("directory holds %q, want only result.json", names)
		}
	}
}

// TestWriteMode: the file gets Mode whatever it had before and whatever
// the umask (os.CreateTemp makes 0600).
func TestWriteMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.md")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != Mode {
		t.Errorf("mode %v, want %v", got, Mode)
	}
}

// TestWriteNoDirectory: a missing directory is an error that wraps
// fs.ErrNotExist and creates nothing.
func TestWriteNoDirectory(t *testing.T) {
	dir := t.TempDir()
	err := Write(filepath.Join(dir, "missing", "run.json"), []byte("x"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(dir, "missing")) {
		t.Fatalf("want a not-exist error naming %s/missing, got %v", dir, err)
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("directory holds %q after the failed Write", names)
	}
}

// TestWriteRenameFails: when the rename fails after the data was written
// and synced (path is a directory that is not empty), path is untouched
// and the temporary file is gone.
func TestWriteRenameFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.md")
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := Write(path, []byte("data"))
	if err == nil {
		t.Fatal("Write over a non-empty directory succeeded")
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name %s", err, path)
	}
	if st, serr := os.Stat(path); serr != nil || !st.IsDir() || len(entries(t, path)) != 1 {
		t.Errorf("%s was changed: %v %v", path, st, serr)
	}
	noTemp(t, dir)
}

// TestWriteParentIsAFile: a path under a regular file fails at the
// temporary file, leaving that file as it was.
func TestWriteParentIsAFile(t *testing.T) {
	dir := t.TempDir()
	parent := filepath.Join(dir, "campaign.yaml")
	if err := os.WriteFile(parent, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(parent, "run.json"), []byte("x")); err == nil {
		t.Fatal("Write under a regular file succeeded")
	}
	if b, err := os.ReadFile(parent); err != nil || string(b) != "kept" {
		t.Errorf("%s now holds %q (%v)", parent, b, err)
	}
	noTemp(t, dir)
}
