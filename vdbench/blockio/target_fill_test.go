//go:build linux

package blockio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"vmbench/vdbench/parmfile"
)

// parsedSD parses a one-sd parameter file whose size= is on line 3, so
// errors can name that line.
func parsedSD(t *testing.T, lun string, size int64) parmfile.SD {
	t.Helper()
	p, err := parmfile.Parse("space.vdb", fmt.Appendf(nil, "sd=sd1,\n  lun=%s,\n  size=%d,openflags=none\n", lun, size))
	if err != nil {
		t.Fatal(err)
	}
	return p.SDs[0]
}

// fakeSpace makes statSpace report avail bytes for every file system (the
// fills then run against the real one).
func fakeSpace(t *testing.T, avail int64) {
	orig := statSpace
	statSpace = func(path string) (fsSpace, error) {
		s, err := orig(path)
		s.Avail = avail
		return s, err
	}
	t.Cleanup(func() { statSpace = orig })
}

// A size= larger than the file system's free space is refused before
// anything is created, naming the sd and the line of size=.
func TestSizeBeyondFreeSpaceRefused(t *testing.T) {
	dir := t.TempDir()
	space, err := statSpace(dir)
	if err != nil {
		t.Fatal(err)
	}
	size := (space.Avail + 1<<30) &^ (1<<20 - 1)
	lun := filepath.Join(dir, "big.img")
	sd := parsedSD(t, lun, size)
	_, err = OpenTarget(sd, TargetOptions{Write: true})
	if err == nil || !strings.Contains(err.Error(), "sd=sd1: size="+parmfile.FormatSize(size)+" (line 3) does not fit") ||
		!strings.Contains(err.Error(), "available; nothing was created") {
		t.Errorf("OpenTarget: %v", err)
	}
	if _, err := os.Stat(lun); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists after the refusal: %v", lun, err)
	}
	err = CheckSpace([]parmfile.Run{{SDs: []parmfile.SD{sd}, WDs: []parmfile.WD{{SDs: []string{"sd1"}, RdPct: 100}}}})
	if err == nil || !strings.Contains(err.Error(), "sd=sd1 (line 3), lun="+lun) || !strings.Contains(err.Error(), "size= does not fit") {
		t.Errorf("CheckSpace: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the refusals left %v", entries)
	}
}

// CheckSpace sums the sds on one file system: two files that each fit
// but not together are refused; a file that exists at its size needs
// nothing.
func TestCheckSpaceSumsPerFileSystem(t *testing.T) {
	dir := t.TempDir()
	fakeSpace(t, 12<<20)
	existing := filepath.Join(dir, "full.img")
	if err := os.WriteFile(existing, make([]byte, 8<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(sizes ...int64) []parmfile.Run {
		r := parmfile.Run{WDs: []parmfile.WD{{SDs: []string{"sd1", "sd2"}}}}
		for i, n := range sizes {
			lun := filepath.Join(dir, fmt.Sprintf("f%d.img", i+1))
			if n < 0 {
				lun, n = existing, -n
			}
			r.SDs = append(r.SDs, parmfile.SD{Name: fmt.Sprintf("sd%d", i+1), Lun: lun, Size: n})
		}
		return []parmfile.Run{r}
	}
	if err := CheckSpace(run(8<<20, -(8 << 20))); err != nil {
		t.Errorf("8 MiB new and 8 MiB existing in 12 MiB: %v", err)
	}
	err := CheckSpace(run(8<<20, 8<<20))
	if err == nil || !strings.Contains(err.Error(), "sd=sd1, lun=") || !strings.Contains(err.Error(), "; sd=sd2, lun=") ||
		!strings.Contains(err.Error(), "need 16.0 MiB (16777216 bytes) more") || !strings.Contains(err.Error(), "12.0 MiB (12582912 bytes) available") {
		t.Errorf("two 8 MiB files in 12 MiB: %v", err)
	}
}

// stopAfter is a context whose Err reports cancellation from its n-th
// call on: the fill then stops after n-1 transfers, with no timing.
type stopAfter struct {
	context.Context
	n, calls atomic.Int64
}

func (c *stopAfter) Err() error {
	if c.calls.Add(1) >= c.n.Load() {
		return context.Canceled
	}
	return nil
}

// An interrupted fill leaves no file it created, and cuts a file it
// extended back to its size with its data.
func TestPreformatInterrupted(t *testing.T) {
	dir := t.TempDir()
	lun := filepath.Join(dir, "new.img")
	var progress bytes.Buffer
	for _, after := range []int64{1, 3} {
		ctx := &stopAfter{Context: context.Background()}
		ctx.n.Store(after)
		_, err := OpenTarget(parsedSD(t, lun, 8<<20), TargetOptions{Write: true, Context: ctx, Progress: &progress})
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "preformatting "+lun+" stopped at") {
			t.Errorf("stopped at transfer %d: %v", after, err)
		}
		if _, err := os.Stat(lun); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("stopped at transfer %d: %s is left: %v", after, lun, err)
		}
	}
	old := filepath.Join(dir, "old.img")
	data := bytes.Repeat([]byte("vmbench!"), 1<<17) // 1 MiB
	if err := os.WriteFile(old, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := &stopAfter{Context: context.Background()}
	ctx.n.Store(3)
	if _, err := OpenTarget(parsedSD(t, old, 8<<20), TargetOptions{Write: true, OverwriteFiles: true, Context: ctx}); !errors.Is(err, context.Canceled) {
		t.Errorf("extending %s: %v", old, err)
	}
	if got, err := os.ReadFile(old); err != nil || !bytes.Equal(got, data) {
		t.Errorf("%s after the interrupted extension: %d bytes, %v; want its 1 MiB as it was", old, len(got), err)
	}
	// A context cancelled for real stops the fill the same way.
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := OpenTarget(parsedSD(t, lun, 8<<20), TargetOptions{Write: true, Context: cctx}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	if _, err := os.Stat(lun); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cancelled context: %s is left", lun)
	}
}

// A long fill reports its progress.
func TestPreformatProgress(t *testing.T) {
	prev := fillReportBytes
	fillReportBytes = 2 << 20
	t.Cleanup(func() { fillReportBytes = prev })
	var progress bytes.Buffer
	tg, err := OpenTarget(parsedSD(t, filepath.Join(t.TempDir(), "p.img"), 8<<20), TargetOptions{Write: true, Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	tg.Close()
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	if len(lines) < 3 || !strings.Contains(lines[0], "writing 8.0 MiB (8388608 bytes)") {
		t.Fatalf("progress:\n%s", progress.String())
	}
	last := 0
	for _, l := range lines[1:] {
		var pct int
		_, rest, _ := strings.Cut(l, ": ")
		if _, err := fmt.Sscanf(rest, "%d%%", &pct); err != nil || pct <= last || pct >= 100 || !strings.Contains(l, " of 8.0 MiB, ") {
			t.Errorf("progress line %q after %d%%", l, last)
		}
		last = pct
	}
}

// tinyTmpfs mounts a 4 MiB tmpfs for the test, or skips when it cannot
// (not root, or no mount namespace rights).
func tinyTmpfs(t *testing.T) string {
	dir := t.TempDir()
	if err := unix.Mount("vmbench-test", dir, "tmpfs", 0, "size=4m"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): the ENOSPC path is not exercised", err)
	}
	t.Cleanup(func() {
		for range 50 {
			if err := unix.Unmount(dir, 0); err == nil || !errors.Is(err, unix.EBUSY) {
				return
			}
			time.Sleep(10 * time.Millisecond) // a file closed by another goroutine
		}
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			t.Errorf("unmounting the test's tmpfs %s: %v", dir, err)
		}
	})
	return dir
}

// A fill that meets a full file system (4 MiB of tmpfs, which statfs is
// made to report as 1 GiB so the check before passes) says so, with what
// was free and what size= needs, and removes the file.
func TestPreformatFileSystemFull(t *testing.T) {
	dir := tinyTmpfs(t)
	fakeSpace(t, 1<<30)
	lun := filepath.Join(dir, "full.img")
	_, err := OpenTarget(parsedSD(t, lun, 8<<20), TargetOptions{Write: true})
	want := fmt.Sprintf("sd=sd1: file system full: %d bytes free, size=8m (line 3) needs %d", 1<<30, 8<<20)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("OpenTarget: %v\nwant %q", err, want)
	}
	if _, err := os.Stat(lun); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is left on the full file system: %v", lun, err)
	}
}
