package target

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// marked lists the live processes whose command line holds marker.
func marked(marker string) []string {
	var out []string
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(marker)) {
			out = append(out, filepath.Base(filepath.Dir(f)))
		}
	}
	return out
}

// Shutdown ends what a Local's commands left running in their process
// groups: a background child of a command that has ended (and been
// reaped), and a command still running with its child. The children's
// fractional sleeps are the test's markers.
func TestLocalShutdownEndsTheGroups(t *testing.T) {
	l, _ := newLocal(t)
	base := fmt.Sprintf("300.%d", time.Now().UnixNano()%1e9)
	ended, running := base+"1", base+"2"
	t.Cleanup(func() {
		for _, m := range []string{ended, running} {
			for _, pid := range marked(m) {
				// a pid, never 0 (kill(0) would be this process's group)
				if n, err := strconv.Atoi(pid); err == nil && n > 0 {
					_ = syscall.Kill(n, syscall.SIGKILL)
				}
			}
		}
	})
	p, err := l.Start(t.Context(), Command{Path: "/bin/sh", Args: []string{"-c", "sleep " + ended + " >/dev/null 2>&1 &"}})
	if err != nil {
		t.Fatal(err)
	}
	<-p.(*localProcess).done // the command has ended and been reaped
	if _, err := l.Start(t.Context(), Command{Path: "/bin/sh", Args: []string{"-c", "sleep " + running + "; true"}}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); len(marked(ended)) == 0 || len(marked(running)) == 0; {
		if time.Now().After(deadline) {
			t.Fatalf("the sleeps did not start: %v %v", marked(ended), marked(running))
		}
		time.Sleep(10 * time.Millisecond) // polling a state
	}
	if err := l.Shutdown(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		left := append(marked(ended), marked(running)...)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after Shutdown processes %v are left", left)
		}
	}
	if err := l.Shutdown(); err != nil {
		t.Errorf("a second Shutdown: %v", err)
	}
}
