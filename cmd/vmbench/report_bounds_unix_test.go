//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"vmbench/internal/boundedread"
	"vmbench/oltp"
	"vmbench/scenarios/review"
	"vmbench/scenarios/rundir"
)

// childLimit is how long runChild lets a command run: far longer than a
// report of a small directory takes on a loaded machine, far shorter
// than "for good".
const childLimit = 2 * time.Minute

// runChild runs vmbench args as a child process (this test binary as
// vmbench: childEnv), killed after childLimit; it returns the exit status
// and standard error, and fails the test when the command had to be
// killed (it blocked).
func runChild(t *testing.T, args ...string) (int, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), childLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("vmbench %s: still running after %v, killed (it blocked)\n%s", strings.Join(args, " "), childLimit, stderr.String())
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	t.Logf("vmbench %s: exit %d in %v", strings.Join(args, " "), cmd.ProcessState.ExitCode(), time.Since(start).Round(time.Millisecond))
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// TestReportRefusesFilesNotRegularOrTooLarge: a results directory whose
// files are a FIFO (which blocked report for good), a symlink to
// /dev/zero (which grew it until the OOM killer ended it) or a file over
// its bound is refused at once, exit 2, naming the file and what it is
// or the bound, and nothing is written; a FIFO .lock, which no campaign
// makes, is not taken for a running campaign's.
func TestReportRefusesFilesNotRegularOrTooLarge(t *testing.T) {
	fifo := func(path string) {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(path string) {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("/dev/zero", path); err != nil {
			t.Fatal(err)
		}
	}
	sparse := func(size int64) func(string) {
		return func(path string) {
			if err := os.Truncate(path, size); err != nil {
				t.Fatal(err)
			}
		}
	}
	vm := filepath.Join("vms", "sysbench-01.json")
	for _, tc := range []struct {
		file   string
		damage func(path string)
		args   []string // after DIR
		want   string   // after the file's path; "" when reported (exit 0)
	}{
		{vm, fifo, nil, " is a named pipe (FIFO), not a regular file"},
		{vm, fifo, []string{"--format", "csv"}, " is a named pipe (FIFO), not a regular file"},
		{vm, link, nil, " is a symlink, not a regular file"},
		{vm, sparse(oltp.MaxResultFileSize + 1), nil, fmt.Sprintf(" is %s (%d bytes), more than %s, the bound on this file: refused unread",
			boundedread.Size(oltp.MaxResultFileSize+1), oltp.MaxResultFileSize+1, boundedread.Size(oltp.MaxResultFileSize))},
		{"merged.json", fifo, nil, " is a named pipe (FIFO), not a regular file"},
		{"merged.json", link, nil, " is a symlink, not a regular file"},
		{rundir.RunFile, fifo, nil, " is a named pipe (FIFO), not a regular file"},
		{rundir.RunFile, sparse(4<<20 + 1), nil, " is 4.0 MiB (4194305 bytes), more than 4 MiB, the bound on this file"},
		{"campaign.yaml", fifo, nil, " is a named pipe (FIFO), not a regular file"},
		{"campaign.yaml", link, []string{"--format", "md", "--reference", "R750"}, " is a symlink, not a regular file"},
		{rundir.LockFile, fifo, []string{"--format", "csv"}, ""},
	} {
		dir := filepath.Join(t.TempDir(), "sysbench-2vm")
		if err := os.CopyFS(dir, os.DirFS(fixtures+"sysbench-2vm")); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, tc.file)
		tc.damage(path)
		code, stderr := runChild(t, append([]string{"report", dir}, tc.args...)...)
		if tc.want == "" {
			if code != 0 {
				t.Errorf("%s: exit %d, want 0\n%s", tc.file, code, stderr)
			}
			continue
		}
		if code != 2 || !strings.Contains(stderr, path+tc.want) {
			t.Errorf("%s %v: exit %d, want 2 and %q\n%s", tc.file, tc.args, code, path+tc.want, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "report.md")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: a refused report wrote report.md (%v)", tc.file, err)
		}
	}
}

// TestReportRefusesReviewFilesNotRegular: in a review directory, a FIFO
// review.json, and a FIFO given as a second DIR, are refused at once.
func TestReportRefusesReviewFilesNotRegular(t *testing.T) {
	reviewDir := t.TempDir()
	if err := os.CopyFS(filepath.Join(reviewDir, "sysbench-2vm"), os.DirFS(fixtures+"sysbench-2vm")); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(reviewDir, review.RecordFile)
	if err := syscall.Mkfifo(record, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := runChild(t, "report", reviewDir); code != 2 || !strings.Contains(stderr, record+" is a named pipe (FIFO), not a regular file") {
		t.Errorf("review.json a FIFO: exit %d\n%s", code, stderr)
	}
	pipe := filepath.Join(t.TempDir(), "other")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := runChild(t, "report", fixtures+"sysbench-2vm", pipe, "--format", "csv"); code != 2 || !strings.Contains(stderr, pipe+" is not a directory") {
		t.Errorf("a FIFO as DIR: exit %d\n%s", code, stderr)
	}
}
