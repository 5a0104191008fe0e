//go:build unix

package boundedread

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFileSpecial: a FIFO (which would block a reader until a writer
// comes), /dev/zero (endless) and a symlink to it are refused at once,
// unread.
func TestReadFileSpecial(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "vm.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		fifo:        fifo + " is a named pipe (FIFO), not a regular file",
		zero:        zero + " is a symlink, not a regular file",
		"/dev/zero": "/dev/zero is a character device, not a regular file",
	} {
		done := make(chan error, 1)
		go func() {
			_, err := ReadFile(path, 1<<20)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), want) {
				t.Errorf("ReadFile(%s) = %v; want ErrNotRegular with %q", path, err, want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("ReadFile(%s) still blocked after a minute", path)
		}
	}
}
