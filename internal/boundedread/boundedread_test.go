package boundedread

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadFile reads a regular file up to its bound, and refuses, naming the
// path, a larger one, and what is not a regular file: a symbolic link (to
// a good file), a directory and a FIFO (at once: reading one would block
// until a writer came).
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, n int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), n), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	atBound, over := file("at", 100), file("over", 101)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(atBound, link); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path, want string // want: "" reads 100 bytes
	}{
		{"at the bound", atBound, ""},
		{"over the bound", over, over + " is 101 bytes, more than the 100 bytes read"},
		{"a symbolic link", link, link + " is not a regular file (L"},
		{"a directory", dir, dir + " is not a regular file (d"},
	}
	if fifo := makeFIFO(t, dir); fifo != "" {
		cases = append(cases, struct{ name, path, want string }{"a FIFO", fifo, fifo + " is not a regular file (p"})
	}
	for _, tc := range cases {
		b, err := ReadFile(tc.path, 100)
		switch {
		case tc.want == "" && (err != nil || len(b) != 100):
			t.Errorf("%s: %d bytes, %v; want 100", tc.name, len(b), err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 100); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
}
