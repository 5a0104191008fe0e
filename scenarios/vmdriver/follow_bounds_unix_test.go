//go:build unix

package vmdriver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vmbench/agent"
)

// TestGuestFollowerRefusesUnboundedFiles: a guest's status.json or
// interval file that is a FIFO (which blocked the campaign's read for
// good), /dev/zero behind a symlink (endless) or larger than its bound is
// a bad file at once, naming the VM, the file and what it is or the
// bound, not read and not retried.
func TestGuestFollowerRefusesUnboundedFiles(t *testing.T) {
	fifo := func(t *testing.T, path string) {
		os.Remove(path)
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	zero := func(t *testing.T, path string) {
		os.Remove(path)
		if err := os.Symlink("/dev/zero", path); err != nil {
			t.Fatal(err)
		}
	}
	grow := func(size int64) func(*testing.T, string) {
		return func(t *testing.T, path string) {
			if err := os.Truncate(path, size); err != nil {
				t.Fatal(err)
			}
		}
	}
	interval := filepath.FromSlash(agent.IntervalPath(2))
	for _, tc := range []struct {
		name, file string
		damage     func(*testing.T, string)
		want       string
	}{
		{"status FIFO", agent.StatusFile, fifo, "is a named pipe (FIFO), not a regular file"},
		{"status /dev/zero", agent.StatusFile, zero, "is a symlink, not a regular file"},
		{"status too large", agent.StatusFile, grow(agent.MaxStatusSize + 1), "more than 1 MiB, the bound on this file"},
		{"interval FIFO", interval, fifo, "is a named pipe (FIFO), not a regular file"},
		{"interval too large", interval, grow(agent.MaxIntervalSize + 1), "more than 8 MiB, the bound on this file"},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			l := newLocal(t, "vm1")
			writeAgentFiles(t, l, 3, agent.StateDone)
			info, err := l.Info(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(info.Dir, "run", tc.file)
			tc.damage(t, path)
			done := make(chan error, 1)
			go func() {
				f := &follower{t: l, dir: "run", proc: finished{}}
				_, err := f.follow(context.Background())
				done <- err
			}()
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				t.Fatalf("follow still blocked on %s after a minute", tc.file)
			}
			var bad *badFileError
			if !errors.As(err, &bad) || !strings.Contains(err.Error(), "vm1") || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("follow: %v\nwant a bad-file error naming vm1, %s and %q", err, path, tc.want)
			}
		})
	}
}
