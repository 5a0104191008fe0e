package boundedread

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFile: a regular file within its bound is read whole; anything
// else is refused with an error naming the file, what it is and (for
// size) the bound.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte(`{"version": 5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	exact := filepath.Join(dir, "exact.json")
	if err := os.WriteFile(exact, bytes.Repeat([]byte("x"), 1024), 0o644); err != nil {
		t.Fatal(err)
	}
	// A sparse file of 3 GiB: refused on its size, so the test writes
	// nothing to disk and reads nothing.
	huge := filepath.Join(dir, "huge.json")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(small, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path  string
		limit int64
		want  string // content, or the error's text
		is    error
	}{
		{small, 1024, `{"version": 5}`, nil},
		{exact, 1024, strings.Repeat("x", 1024), nil},
		{exact, 1023, exact + " is 1 KiB (1024 bytes), more than 1023 bytes, the bound on this file: refused unread", ErrTooLarge},
		{huge, 512 << 20, huge + " is 3 GiB (3221225472 bytes), more than 512 MiB, the bound on this file: refused unread", ErrTooLarge},
		{link, 1024, link + " is a symlink, not a regular file", ErrNotRegular},
		{dir, 1024, dir + " is a directory, not a regular file", ErrNotRegular},
		{filepath.Join(dir, "missing.json"), 1024, "no such file or directory", fs.ErrNotExist},
	} {
		b, err := ReadFile(tc.path, tc.limit)
		switch {
		case tc.is == nil && (err != nil || string(b) != tc.want):
			t.Errorf("ReadFile(%s, %d) = %q, %v; want %q", tc.path, tc.limit, b, err, tc.want)
		case tc.is != nil && (!errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) || b != nil):
			t.Errorf("ReadFile(%s, %d) = %d bytes, %v; want an error wrapping %v with %q", tc.path, tc.limit, len(b), err, tc.is, tc.want)
		}
	}
}

// counting counts what is read from it.
type counting struct {
	r io.Reader
	n int64
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// endless is a reader without end, as /dev/zero or a guest that streams
// forever.
type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }

// TestReadAll: a stream is read up to its bound and one byte more, never
// further, and refused when it is longer, naming it and the bound.
func TestReadAll(t *testing.T) {
	for _, tc := range []struct {
		in    io.Reader
		limit int64
		want  string
	}{
		{strings.NewReader("status"), 6, ""},
		{strings.NewReader("status!"), 6, "guest:status.json: more than 6 bytes, the bound on this file"},
		{endless{}, 8 << 20, "guest:status.json: more than 8 MiB, the bound on this file"},
	} {
		c := &counting{r: tc.in}
		b, err := ReadAll(c, "guest:status.json", tc.limit)
		if tc.want == "" && (err != nil || int64(len(b)) != c.n) {
			t.Errorf("ReadAll = %q, %v", b, err)
		}
		if tc.want != "" && (!errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("ReadAll = %d bytes, %v; want ErrTooLarge with %q", len(b), err, tc.want)
		}
		if c.n > tc.limit+1 {
			t.Errorf("read %d bytes of a stream bounded at %d: more than the bound and one byte", c.n, tc.limit)
		}
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 1023: "1023 bytes", 1024: "1 KiB", 1536: "1.5 KiB", 512 << 20: "512 MiB", 3 << 30: "3 GiB", 1<<30 + 1<<29: "1.5 GiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestReadFileWhileReplaced: a file that an atomic writer keeps replacing
// (a new file renamed over it, as a guest's agent rewrites status.json) is
// read every time, old or new, never refused.
func TestReadFileWhileReplaced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "status.json")
	if err := os.WriteFile(path, []byte("0"), 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 500
	done := make(chan error, 1)
	go func() {
		for i := range n {
			tmp := filepath.Join(dir, ".status.json.tmp")
			if err := os.WriteFile(tmp, []byte(strings.Repeat("x", i%7+1)), 0o644); err != nil {
				done <- err
				return
			}
			if err := os.Rename(tmp, path); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for range n {
		if b, err := ReadFile(path, 64); err != nil || len(b) == 0 {
			t.Fatalf("ReadFile while the file is replaced = %q, %v", b, err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
