//go:build unix

package main

import (
	"os"
	"testing"
)

// TestOutputBroken: a pipe whose reader has gone is broken; one whose
// reader is there, and a file, are not. Only the first may end a run
// on SIGPIPE (interruptContext).
func TestOutputBroken(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if outputBroken(int(w.Fd())) {
		t.Error("a pipe with its reader open is broken")
	}
	r.Close()
	if !outputBroken(int(w.Fd())) {
		t.Error("a pipe whose reader closed is not broken")
	}
	f, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if outputBroken(int(f.Fd())) {
		t.Error("a file is broken")
	}
}
