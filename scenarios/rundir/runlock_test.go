package rundir

import (
	"errors"
	"os"
	"strconv"
	"testing"
)

// TestLock: a results directory's lock is held by one Lock at a time,
// with this process's id written in it; Running and Holder see it held
// (where the system has file locks) and not once it is released.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	l, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(os.Getpid())
	if !FileLocks {
		l.Release()
		t.Skip("no file locks on this system")
	}
	if _, err := Lock(dir); !errors.Is(err, ErrRunning) {
		t.Errorf("a second Lock: %v, want ErrRunning", err)
	}
	if got, ok := Running(dir); !ok || got != pid {
		t.Errorf("Running while held: %q %v, want %s", got, ok, pid)
	}
	if got, held, err := Holder(dir); err != nil || !held || got != pid {
		t.Errorf("Holder while held: %q %v %v, want %s", got, held, err, pid)
	}
	l.Release()
	if _, ok := Running(dir); ok {
		t.Error("Running once released")
	}
	if _, held, err := Holder(dir); err != nil || held {
		t.Errorf("Holder once released: %v %v", held, err)
	}
	again, err := Lock(dir)
	if err != nil {
		t.Fatalf("Lock once released: %v", err)
	}
	again.Release()
}
