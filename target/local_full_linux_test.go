package target

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestLocalUploadDiskFull: an upload to a guest whose disk is full fails
// saying so (ENOSPC) and leaves neither the file nor its temporary copy.
// The full disk is a real one: a 256 KiB tmpfs, mounted for the test,
// which needs root (CI runs as root); elsewhere it is skipped.
func TestLocalUploadDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, 0) })
	l, err := NewLocal("full-vm", filepath.Join(dir, "guest"))
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "agent")
	if err := os.WriteFile(src, bytes.Repeat([]byte{1}, 1<<20), 0o755); err != nil {
		t.Fatal(err)
	}
	err = l.Upload(t.Context(), src, "bin/vmbench", 0o755)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("upload of 1 MiB to a 256 KiB disk: %v, want ENOSPC", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "guest", "bin", "*"))
	hidden, _ := filepath.Glob(filepath.Join(dir, "guest", "bin", ".*"))
	if len(left)+len(hidden) != 0 {
		t.Errorf("left on the full disk: %v %v", left, hidden)
	}
	if err := l.WriteFile(t.Context(), "run/job.json", []byte("{}"), 0o600); err != nil {
		t.Errorf("a small file after the failed upload: %v (the failed one must have freed its space)", err)
	}
}
