package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportInterrupted: Ctrl-C (or SIGTERM) ends report with exit 130
// and writes nothing, as it ends the other commands; at the starting
// commit report did not look at the signal and went on (or blocked for
// good on a FIFO).
func TestReportInterrupted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sysbench-2vm")
	if err := os.CopyFS(dir, os.DirFS(fixtures+"sysbench-2vm")); err != nil {
		t.Fatal(err)
	}
	reviewDir := t.TempDir()
	if err := os.CopyFS(filepath.Join(reviewDir, "sysbench-2vm"), os.DirFS(fixtures+"sysbench-2vm")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(reviewDir, "review.json"), []byte(`{"name": "r", "campaigns": [{"file": "a.yaml", "dir": "sysbench-2vm"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, args := range [][]string{
		{"report", dir},
		{"report", dir, "--format", "csv"},
		{"report", dir, fixtures + "sysbench-2vm-faster"},
		{"report", reviewDir},
	} {
		code, out, stderr := runCLIContext(ctx, t, nil, args...)
		if code != 130 || out != "" || !strings.Contains(stderr, "report interrupted") {
			t.Errorf("%v interrupted: exit %d, want 130 and nothing printed\n%s%s", args, code, out, stderr)
		}
	}
	for _, d := range []string{dir, reviewDir} {
		if _, err := os.Stat(filepath.Join(d, "report.md")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("an interrupted report wrote %s (%v)", filepath.Join(d, "report.md"), err)
		}
	}
}
