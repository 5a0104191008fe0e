//go:build unix

package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestUntilInterrupted: a read blocked in the kernel (opening a FIFO no
// one writes) does not keep the command from ending when it is
// interrupted; the read's own result is returned when it ends first.
func TestUntilInterrupted(t *testing.T) {
	pipe := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	started := make(chan struct{})
	go func() {
		<-started
		cancel() // Ctrl-C while the read below blocks
	}()
	_, err := untilInterrupted(ctx, func() (*os.File, error) {
		close(started)
		f, err := os.Open(pipe) // blocks until a writer opens the FIFO
		if err == nil {
			f.Close()
		}
		return f, err
	})
	if !errors.Is(err, context.Canceled) || exitCode(err) != 130 {
		t.Errorf("interrupted read: %v (exit %d), want context.Canceled and exit 130", err, exitCode(err))
	}
	// End the blocked open: a writer comes (its open waits for the reader).
	if w, err := os.OpenFile(pipe, os.O_WRONLY, 0); err == nil {
		w.Close()
	}
	if v, err := untilInterrupted(t.Context(), func() (int, error) { return 7, nil }); v != 7 || err != nil {
		t.Errorf("a read that ends: %d, %v", v, err)
	}
}
