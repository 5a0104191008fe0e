//go:build unix

package boundedread

import (
	"path/filepath"
	"syscall"
	"testing"
)

// makeFIFO makes a FIFO in dir and returns its path.
func makeFIFO(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
